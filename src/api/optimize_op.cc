// The best configurations under constraints (api/optimize_op.h).
#include "api/optimize_op.h"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "api/illustrative.h"
#include "explore/optimize.h"
#include "scenario/document.h"

namespace rlcost::ops {
namespace {

// How the configuration ran: the layout (planned or as written) and the pipeline as the model runs it.
nlohmann::json RunsAsJson(const explore::Effective& e) {
  const auto& l = e.layout;
  nlohmann::json j;
  j["placement.mode"] = l.mode == PlacementMode::kColocated ? "colocated" : "disaggregated";
  j["placement.rollout_gpus"] = l.rollout_gpus;
  j["placement.train_gpus"] = l.train_gpus;
  j["placement.rollout_tp"] = l.rollout_tp;
  j["placement.dp_attention"] = l.dp_attention;
  j["placement.gpu_memory_utilization"] =
      l.gpu_memory_utilization ? nlohmann::json(*l.gpu_memory_utilization) : nlohmann::json(nullptr);
  j["pipeline.mode"] = e.pipeline == PipelineMode::kAsync ? "async" : "sync";
  j["pipeline.max_staleness"] = e.pipeline == PipelineMode::kAsync ? nlohmann::json(e.staleness) : nlohmann::json(nullptr);
  j["text"] = explore::Describe(e);
  return j;
}

nlohmann::json CandidateJson(const explore::Candidate& c, const explore::Design& d, const std::string& objective) {
  nlohmann::json j;
  j["point"] = c.row.index;
  for (size_t a = 0; a < d.axes().size(); ++a) j["config"][d.axes()[a].key] = c.row.values[a];
  j[objective] = c.objective;
  j["run.wall_time_h"] = c.wall_time_h;
  if (!c.row.goal_curve.empty()) j["goal_curve"] = c.row.goal_curve;  // what a goal figure here rests on
  j["runs_as"] = c.row.effective ? RunsAsJson(*c.row.effective) : nlohmann::json(nullptr);
  j["note"] = c.row.note.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.row.note);
  return j;
}

// The unit a column header shows: the metric registry's, dollars as "$".
std::string UnitWords(std::string_view unit) {
  std::string u(unit);
  if (auto i = u.find("USD"); i != std::string::npos) u.replace(i, 3, "$");
  return u;
}

// The unit of a searched scenario field (a KEY of `over`), read off its name;
// "" for a choice (a GPU type, a precision, a mode), which has none.
std::string_view AxisUnit(std::string_view key) {
  auto ends = [&](std::string_view tail) {
    return key.size() >= tail.size() && key.substr(key.size() - tail.size()) == tail;
  };
  if (ends("gpus") || ends("_tp") || ends("_pp") || ends("_dp") || ends("_ep") || ends("nodes")) {
    return ends("nodes") ? "nodes" : "GPUs";
  }
  if (ends("group_size")) return "rollouts per prompt";
  if (ends("prompts_per_step")) return "prompts per step";
  if (ends("tokens")) return "tokens";
  if (ends("price_per_gpu_hour")) return "$ per GPU-hour";
  if (ends("staleness")) return "steps";
  if (ends("steps")) return "steps";
  if (ends("_s")) return "s";
  if (ends("_h")) return "h";
  if (ends("pass_rate") || ends("pass_rate.mean")) return "fraction solved";
  if (ends("turns")) return "turns";
  return "";
}

std::string WithUnit(std::string_view name, std::string_view unit) {
  return unit.empty() ? std::string(name) : fmt::format("{} ({})", name, unit);
}

// Rows under headers, each column as wide as its widest cell; numbers right-aligned.
std::string TableText(const std::vector<std::string>& headers, const std::vector<std::vector<std::string>>& rows) {
  std::vector<size_t> w(headers.size());
  std::vector<bool> numeric(headers.size(), true);
  for (size_t k = 0; k < headers.size(); ++k) w[k] = headers[k].size();
  for (const auto& r : rows) {
    for (size_t k = 0; k < r.size(); ++k) {
      w[k] = std::max(w[k], r[k].size());
      char* end = nullptr;
      std::strtod(r[k].c_str(), &end);
      numeric[k] = numeric[k] && !r[k].empty() && end && *end == '\0';
    }
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = " ";
    for (size_t k = 0; k < cells.size(); ++k) {
      out += "  " + (numeric[k] ? fmt::format("{:>{}}", cells[k], w[k]) : fmt::format("{:<{}}", cells[k], w[k]));
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(headers);
  for (const auto& r : rows) out += line(r);
  return out;
}

// The headers of a table of configurations: the objective and the wall time,
// each with its unit, then every searched field with its own.
std::vector<std::string> ConfigHeaders(const explore::Design& d, const std::string& obj, bool numbered) {
  std::vector<std::string> h;
  if (numbered) h.push_back("#");
  const MetricDef* m = FindMetric(obj);
  h.push_back(WithUnit(obj, m ? UnitWords(m->unit) : ""));
  h.push_back(WithUnit("wall time", "h"));
  for (const auto& axis : d.axes()) h.push_back(WithUnit(axis.key, AxisUnit(axis.key)));
  return h;
}

std::vector<std::string> ConfigRow(const explore::Candidate& c, const explore::Design& d, std::optional<size_t> number) {
  std::vector<std::string> r;
  if (number) r.push_back(fmt::format("{}", *number));
  r.push_back(fmt::format("{:.4g}", c.objective));
  r.push_back(fmt::format("{:.3g}", c.wall_time_h));
  for (size_t k = 0; k < d.axes().size(); ++k) r.push_back(c.row.values[k]);
  return r;
}

// At most 20,000 points: each is a planned estimate (about 1k a second on a
// core, docs/performance.md), so an open range (hardware.gpus=8..1000000:8,
// 124,999 points) took minutes and printed a front of as many rows (#40).
constexpr uint64_t kMaxOptimizePoints = 20'000;

// What the search runs over, every field checked first.
struct Search {
  explore::OptimizeOptions opt;
  rlcost::Catalog catalog;
  explore::Design design;
  scenario_internal::ScenarioDocument doc;
};

Result<Search> PrepareSearch(const OptimizeInput& in) {
  Error bad;
  auto add = [&](const Error& e) { for (const auto& p : e.problems) bad.problems.push_back(p); };
  explore::OptimizeOptions opt;
  if (auto m = explore::MetricByName(in.minimize, "minimize"); m) opt.objective = *m; else add(m.error());
  for (const auto& t : in.subject_to) {
    if (auto c = explore::ParseConstraint(t); c) opt.constraints.push_back(*c); else add(c.error());
  }
  if (opt.constraints.size() > 32) add(Error::Invalid("", "more than 32 `subject_to`; expected fewer"));
  for (const auto& s : in.sets) {
    if (auto o = ParseOverride(s); o) opt.sweep.fixed.push_back(*o); else add(o.error());
  }
  ScenarioInput cat_in;
  cat_in.catalog_files = in.catalog_files;
  auto catalog = CatalogOf(cat_in);
  if (!catalog) add(catalog.error());
  if (in.plan) {
    std::string what = in.plan_for;
    if (what.empty()) what = opt.objective && (opt.objective->unit == "h" || opt.objective->unit == "s") ? "time" : "cost";
    if (auto o = plan::ObjectiveFromString(what); o) opt.sweep.plan = *o; else add(o.error());
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  const auto over = in.over.empty() ? explore::DefaultSpace(**catalog, in.plan) : in.over;
  std::vector<explore::Axis> axes;
  for (const auto& v : over) {
    auto axis = explore::ParseAxis(v);
    if (!axis) { add(axis.error()); continue; }
    axes.push_back(*axis);
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  uint64_t points = axes.empty() ? 0 : 1;
  for (const auto& axis : axes) {
    const uint64_t n = std::max<uint64_t>(1, axis.values.size());
    points = points > kMaxOptimizePoints / n ? kMaxOptimizePoints + 1 : points * n;
  }
  if (points > kMaxOptimizePoints) {
    return Fail(Error::Invalid("over", fmt::format("the search has more than {} points (the product of the "
                                                   "ranges' value counts); expected at most {}: narrow a "
                                                   "range or take a larger :STEP",
                                                   kMaxOptimizePoints, kMaxOptimizePoints)));
  }
  auto design = explore::Design::Grid(axes, kMaxOptimizePoints);
  if (!design) return Fail(design.error());
  auto doc = scenario_internal::ScenarioDocument::FromFile(in.file);
  if (!doc) return Fail(doc.error());
  if (auto ok = explore::Check(*doc, **catalog, *design, opt.sweep.fixed); !ok) return Fail(ok.error());
  opt.top = in.top;
  opt.sweep.threads = in.jobs;
  return Search{std::move(opt), **catalog, std::move(*design), std::move(*doc)};
}

// The placement fields the scenario writes and the search does not vary: kept
// as written in every configuration ("" when the layout is not planned).
std::string KeptAsWritten(const OptimizeInput& in, const Search& s, std::vector<std::string>* warnings) {
  if (!s.opt.sweep.plan) return "";
  ScenarioInput sc;
  sc.file = in.file;
  sc.sets = in.sets;
  sc.catalog_files = in.catalog_files;
  auto base = LoadScenarioOf(sc, s.catalog, warnings);
  if (!base) return "";
  std::string kept;
  const auto& st = base->placement.stated;
  for (auto [on, name] : {std::pair{st.mode, "placement.mode"}, std::pair{st.split, "placement.rollout_gpus/train_gpus"},
                          std::pair{st.rollout_tp, "placement.rollout_tp"}}) {
    // A field the user searches is not kept as written.
    const std::string n(name);
    bool searched = false;
    for (const auto& axis : s.design.axes()) {
      if (n == axis.key || (n.find('/') != std::string::npos &&
                            (axis.key == "placement.rollout_gpus" || axis.key == "placement.train_gpus"))) {
        searched = true;
      }
    }
    if (on && !searched) kept += (kept.empty() ? "" : ", ") + n;
  }
  return kept;
}

// What the search found, with what its figures rest on.
struct Found {
  const Search& s;
  const explore::OptimizeResult& r;
  std::string objective;
  std::string kept;
  std::set<std::string> curves;            // the goal curves the listed configurations rest on
  std::vector<std::string> curve_notes;
};

nlohmann::json ToJson(const OptimizeInput& in, const Found& f) {
  const auto& r = f.r;
  nlohmann::json j;
  j["minimize"] = f.objective;
  j["goal_curve_is_illustrative"] = f.curves.count("illustrative") > 0;
  if (f.curves.size() == 1) j["goal_curve"] = *f.curves.begin();
  if (!f.curve_notes.empty()) j["notes"] = f.curve_notes;
  j["subject_to"] = in.subject_to;
  j["points"] = r.points;
  j["points_that_ran"] = r.ran;
  j["points_feasible"] = r.feasible;
  j["points_same_run_as_a_better_one"] = r.same_run;
  j["points_disaggregated"] = r.disaggregated;
  j["layout_fields_kept_as_written"] = f.kept;
  const auto& plan = f.s.opt.sweep.plan;
  j["layout_planned_for"] = plan ? nlohmann::json(*plan == plan::Objective::kTime ? "time" : "cost")
                                 : nlohmann::json(nullptr);
  j["best"] = nlohmann::json::array();
  for (const auto& c : r.best) j["best"].push_back(CandidateJson(c, f.s.design, f.objective));
  j["binding_constraints"] = r.binding;
  j["best_at_edge_of_space"] = r.at_edge;
  j["pareto_front_rows"] = r.front_total;  // the whole front's; pareto_front lists at most 50 of them
  j["pareto_front"] = nlohmann::json::array();
  for (const auto& c : r.front) j["pareto_front"].push_back(CandidateJson(c, f.s.design, f.objective));
  return j;
}

// The heading lines: what was searched, what the figures rest on, what was kept.
std::string HeadText(const Found& f) {
  const auto& r = f.r;
  std::string out = fmt::format("searched {} configurations ({} ran, {} meet every constraint); minimising {}\n",
                                r.points, r.ran, r.feasible, f.objective);
  for (const auto& note : f.curve_notes) out += "note: " + note + "\n";
  if (const auto& plan = f.s.opt.sweep.plan) {
    out += fmt::format("layout of each planned for {} (colocated and disaggregated splits, rollout TP); {} ran "
                       "disaggregated\n",
                       *plan == plan::Objective::kTime ? "the shortest step" : "the fewest dollars per step",
                       r.disaggregated);
  }
  if (!f.kept.empty()) {
    const bool one = f.kept.find(", ") == std::string::npos;
    const char* them = one ? "it" : "them";
    out += fmt::format("note: {} as the scenario writes {} in every configuration; leave {} out (or `over` {}) to "
                       "search {}\n",
                       f.kept, them, them, them, them);
  }
  if (r.same_run > 0) {
    out += fmt::format("{} configurations run exactly as a better one (e.g. async on shared GPUs runs "
                       "synchronously) and are listed once\n",
                       r.same_run);
  }
  return out;
}

// The tables of the best configurations and of the Pareto front, with how each runs.
std::string TablesText(const Found& f) {
  const auto& r = f.r;
  const auto& d = f.s.design;
  const std::string& obj = f.objective;
  // Where configurations rest on different goal curves (`over` goal.curve=...),
  // a last column names each one's.
  auto with_curve = [&](std::vector<std::string> headers, std::vector<std::vector<std::string>> rows,
                        const std::vector<explore::Candidate>& cs) {
    if (f.curves.size() > 1) {
      headers.push_back("goal curve");
      for (size_t i = 0; i < rows.size(); ++i) rows[i].push_back(cs[i].row.goal_curve.empty() ? "-" : cs[i].row.goal_curve);
    }
    return TableText(headers, rows);
  };
  std::string out = "\nbest configurations (lowest " + obj + " first):\n";
  std::vector<std::vector<std::string>> best;
  for (size_t i = 0; i < r.best.size(); ++i) best.push_back(ConfigRow(r.best[i], d, i + 1));
  out += with_curve(ConfigHeaders(d, obj, true), best, r.best);
  // How each listed configuration runs (its planned layout and pipeline), and its note.
  for (size_t i = 0; i < r.best.size(); ++i) {
    const auto& c = r.best[i];
    if (c.row.effective) out += fmt::format("  {}. runs as: {}\n", i + 1, explore::Describe(*c.row.effective));
    if (!c.row.note.empty()) out += fmt::format("  {}. note: {}\n", i + 1, c.row.note);
  }
  out += "\nwhat binds: ";
  if (!r.binding.empty()) {
    std::string b;
    for (const auto& s : r.binding) b += (b.empty() ? "" : ", ") + s;
    out += b + " (relaxing it alone finds a lower " + obj + ")";
  } else {
    out += "no constraint";
  }
  if (!r.at_edge.empty()) {
    std::string e;
    for (const auto& s : r.at_edge) e += (e.empty() ? "" : ", ") + s;
    out += "; the best sits at the edge of the searched range for " + e + " (widen `over` to look further)";
  }
  out += "\n\nPareto front (" + obj + " vs wall time; no other configuration is both cheaper and faster";
  if (r.front_total > r.front.size()) {
    out += fmt::format("; {} of its {} rows, evenly spaced from the fastest to the cheapest", r.front.size(),
                       r.front_total);
  }
  out += "):\n";
  std::vector<std::vector<std::string>> front;
  for (const auto& c : r.front) front.push_back(ConfigRow(c, d, std::nullopt));
  out += with_curve(ConfigHeaders(d, obj, false), front, r.front);
  // How each row of the front runs, as for the best configurations (a row that
  // is also one of those says which).
  for (size_t i = 0; i < r.front.size(); ++i) {
    const auto& c = r.front[i];
    std::optional<size_t> same;
    for (size_t k = 0; k < r.best.size() && !same; ++k) {
      if (r.best[k].row.values == c.row.values) same = k + 1;
    }
    if (same) {
      out += fmt::format("  row {} of the front is best configuration {}\n", i + 1, *same);
    } else if (c.row.effective) {
      out += fmt::format("  row {} of the front runs as: {}\n", i + 1, explore::Describe(*c.row.effective));
    }
  }
  return out;
}

}  // namespace

Result<OptimizeOutcome> OptimizeView(const OptimizeInput& in) {
  auto s = PrepareSearch(in);
  if (!s) return Fail(s.error());
  auto r = explore::Optimize(s->doc, s->catalog, s->design, s->opt);
  if (!r) return Fail(r.error());
  OptimizeOutcome out;
  Found f{*s, *r, std::string(s->opt.objective->key), KeptAsWritten(in, *s, &out.view.warnings), {}, {}};
  // Does the answer rest on the illustrative learning curve? Each candidate's
  // row says what its goal figures (objective or constraint) rest on.
  for (const auto* list : {&r->best, &r->front}) {
    for (const auto& c : *list) {
      if (!c.row.goal_curve.empty()) f.curves.insert(c.row.goal_curve);
    }
  }
  f.curve_notes = api::SweepCurveNotes(f.curves, f.curves.size() > 1
                                                      ? "the goal curve column says which curve each configuration's figures rest on"
                                                      : "it holds for every configuration listed");
  out.found = !r->best.empty();
  out.view.json = ToJson(in, f);
  out.view.text = HeadText(f);
  if (!out.found) {
    out.view.text += "no configuration meets the constraints";
    if (!r->binding.empty()) out.view.text += " (" + r->binding.front() + " rules out every one that runs)";
    out.view.text += "\n";
  } else {
    out.view.text += TablesText(f);
  }
  return out;
}

}  // namespace rlcost::ops
