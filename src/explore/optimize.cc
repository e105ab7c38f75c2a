#include "core/strings.h"
#include "explore/optimize.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_set>

namespace rlcost::explore {
namespace {

Error BadConstraint(const std::string& path, std::string message) {
  Error e = Error::Invalid(path, std::move(message));
  e.problems.back().file = "subject_to";
  return e;
}

// Lower is better; ties go to the lower point index (deterministic).
bool Better(const Candidate& a, const Candidate& b) {
  if (a.objective != b.objective) return a.objective < b.objective;
  return a.row.index < b.row.index;
}

}  // namespace

bool Constraint::Holds(double v) const {
  switch (op) {
    case Op::kLe: return v <= limit;
    case Op::kLt: return v < limit;
    case Op::kGe: return v >= limit;
    case Op::kGt: return v > limit;
  }
  return false;
}

Result<Constraint> ParseConstraint(std::string_view text) {
  const std::string t(text);
  const size_t at = t.find_first_of("<>=!");
  if (at == std::string::npos) {
    return Fail(BadConstraint("", "expected METRIC<=VALUE, METRIC<VALUE, METRIC>=VALUE or METRIC>VALUE (e.g. "
                        "run.wall_time_h<=168), got '" + t + "'"));
  }
  const std::string name = TrimBlanks(t.substr(0, at));
  size_t end = at;
  while (end < t.size() && std::string_view("<>=!").find(t[end]) != std::string_view::npos) ++end;
  const std::string op = t.substr(at, end - at);
  const std::string value = TrimBlanks(t.substr(end));
  Constraint c;
  c.text = t;
  if (op == "<=") c.op = Op::kLe;
  else if (op == "<") c.op = Op::kLt;
  else if (op == ">=") c.op = Op::kGe;
  else if (op == ">") c.op = Op::kGt;
  else return Fail(BadConstraint(name, "operator '" + op + "' in '" + t + "'; expected one of <=, <, >=, >"));
  auto m = MetricByName(name, "subject_to");
  if (!m) return Fail(m.error());
  c.metric = *m;
  auto [p, ec] = std::from_chars(value.data(), value.data() + value.size(), c.limit);
  if (value.empty() || ec != std::errc() || p != value.data() + value.size() || !std::isfinite(c.limit)) {
    return Fail(BadConstraint(name, "limit '" + value + "' in '" + t + "'; expected a number"));
  }
  return c;
}

std::vector<std::string> DefaultSpace(const Catalog& catalog, bool planned) {
  std::string gpus;
  for (const auto& id : catalog.GpuIds()) gpus += (gpus.empty() ? "" : ",") + id;
  std::vector<std::string> out = {"hardware.gpu=" + gpus, "hardware.gpus=8,16,32,64"};
  if (!planned) out.push_back("placement.rollout_tp=1,2,4");
  for (const char* a : {"precision.rollout=bf16,fp8", "pipeline.mode=sync,async", "algorithm.group_size=8,16"})
    out.push_back(a);
  return out;
}

std::string EffectiveKey(const Design& design, const PointRow& row) {
  std::string key;
  for (size_t a = 0; a < design.axes().size() && a < row.values.size(); ++a) {
    const std::string& k = design.axes()[a].key;
    if (k.rfind("placement.", 0) == 0 || k.rfind("pipeline.", 0) == 0) continue;
    key += row.values[a];
    key += '\x1f';
  }
  if (row.effective) key += Describe(*row.effective);
  return key;
}

Result<OptimizeResult> Optimize(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog,
                                const Design& design, const OptimizeOptions& opt) {
  SweepOptions sw = opt.sweep;
  sw.metrics = {opt.objective, FindMetric("run.wall_time_h")};
  for (const auto& c : opt.constraints) sw.metrics.push_back(c.metric);
  OptimizeResult out;
  out.points = design.size();
  std::vector<Candidate> all;      // ran, objective defined
  std::vector<uint32_t> violated;  // per candidate: bit k = constraint k fails (or is undefined)
  RunSweep(doc, catalog, design, sw, [&](PointRow&& row) {
    if (row.status != PointStatus::kOk || !row.metrics[0] || !row.metrics[1]) return;
    ++out.ran;
    uint32_t bits = 0;
    for (size_t k = 0; k < opt.constraints.size(); ++k) {
      const auto& v = row.metrics[2 + k];
      if (!v || !opt.constraints[k].Holds(*v)) bits |= 1u << std::min<size_t>(k, 31);
    }
    Candidate c;
    c.objective = *row.metrics[0];
    c.wall_time_h = *row.metrics[1];
    c.row = std::move(row);
    all.push_back(std::move(c));
    violated.push_back(bits);
  });
  std::vector<Candidate> feasible;
  for (size_t i = 0; i < all.size(); ++i) {
    if (violated[i] == 0) feasible.push_back(all[i]);
    const auto& eff = all[i].row.effective;
    if (eff && eff->layout.mode == PlacementMode::kDisaggregated) ++out.disaggregated;
  }
  out.feasible = feasible.size();
  std::sort(feasible.begin(), feasible.end(), Better);
  // Points that run as a better-ranked one (async on colocated GPUs is the
  // synchronous run; a placement axis the planner overrides) are the same
  // configuration: only the best-ranked of each is kept.
  {
    std::unordered_set<std::string> seen;
    std::vector<Candidate> distinct;
    distinct.reserve(feasible.size());
    for (auto& c : feasible) {
      if (seen.insert(EffectiveKey(design, c.row)).second) distinct.push_back(std::move(c));
    }
    out.same_run = feasible.size() - distinct.size();
    feasible = std::move(distinct);
  }
  out.best.assign(feasible.begin(), feasible.begin() + std::min(opt.top, feasible.size()));
  // A constraint binds when relaxing it alone admits a lower objective.
  for (size_t k = 0; k < opt.constraints.size() && k < 32; ++k) {
    for (size_t i = 0; i < all.size(); ++i) {
      if (violated[i] == (1u << k) && (feasible.empty() || all[i].objective < feasible.front().objective)) {
        out.binding.push_back(opt.constraints[k].text);
        break;
      }
    }
  }
  if (!feasible.empty()) {
    const auto& v = feasible.front().row.values;
    for (size_t a = 0; a < design.axes().size(); ++a) {
      const auto& vals = design.axes()[a].values;
      double x = 0;
      const auto& f = vals.front();
      const bool numeric = std::from_chars(f.data(), f.data() + f.size(), x).ec == std::errc();
      if (numeric && vals.size() > 1 && (v[a] == vals.front() || v[a] == vals.back())) {
        out.at_edge.push_back(design.axes()[a].key + "=" + v[a]);
      }
    }
  }
  // Pareto front: by wall time, keep each point whose objective beats every faster one.
  std::vector<Candidate> by_time = feasible;
  std::sort(by_time.begin(), by_time.end(), [](const Candidate& a, const Candidate& b) {
    if (a.wall_time_h != b.wall_time_h) return a.wall_time_h < b.wall_time_h;
    return Better(a, b);
  });
  for (auto& c : by_time) {
    if (out.front.empty() || c.objective < out.front.back().objective) out.front.push_back(std::move(c));
  }
  out.front_total = out.front.size();
  ThinFront(out.front, kMaxFrontRows);
  return out;
}

void ThinFront(std::vector<Candidate>& front, size_t max_rows) {
  const size_t n = front.size();
  if (n <= max_rows || max_rows == 0) return;
  if (max_rows == 1) {
    front.resize(1);
    return;
  }
  // Row k of the kept ones is row round(k (n - 1) / (max_rows - 1)) of the
  // whole: 0 and n - 1 included, strictly increasing since n > max_rows.
  std::vector<Candidate> kept;
  kept.reserve(max_rows);
  for (size_t k = 0; k < max_rows; ++k) {
    const size_t i = (k * (n - 1) + (max_rows - 1) / 2) / (max_rows - 1);
    kept.push_back(std::move(front[i]));
  }
  front = std::move(kept);
}

}  // namespace rlcost::explore
