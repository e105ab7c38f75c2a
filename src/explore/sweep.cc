#include "explore/sweep.h"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "core/cancel.h"
#include "core/strings.h"
#include "econ/run.h"

namespace rlcost::explore {
namespace {

// "path: message; path: message" — the scenario file's lines mean little for
// a point, its values are in the row beside the reason.
std::string Reason(const Error& e) {
  std::string out;
  for (const auto& p : e.problems) {
    if (!out.empty()) out += "; ";
    if (!p.path.empty()) out += p.path + ": ";
    out += p.message;
  }
  return out;
}

PointStatus StatusOf(ErrorCode c) {
  switch (c) {
    case ErrorCode::kDoesNotFit: return PointStatus::kDoesNotFit;
    case ErrorCode::kNotImplemented: return PointStatus::kNotYet;
    default: return PointStatus::kInvalid;
  }
}

bool AtOrAbove(const std::string& problem_path, const std::string& key) {
  return problem_path == key || key.rfind(problem_path + ".", 0) == 0;
}

}  // namespace

Effective EffectiveOf(const Scenario& s) {
  Effective out;
  out.layout = plan::LayoutOf(s);
  const bool pipelined = s.pipeline.mode == PipelineMode::kAsync && s.placement.mode != PlacementMode::kColocated;
  if (pipelined) {
    out.pipeline = PipelineMode::kAsync;
    // sim/analytic.cc: the overlap reads min(k, 1); partial rollouts keep
    // max(1, k) steps of sequences in flight, so k beyond 1 counts there only.
    out.staleness = s.pipeline.partial_rollouts ? s.pipeline.max_staleness : std::min(1.0, s.pipeline.max_staleness);
  }
  if (s.placement.resplit && s.placement.mode == PlacementMode::kDisaggregated) {
    out.resplit_phases = s.placement.resplit->phases;
    out.resplit_restart_s = s.placement.resplit->restart_s.value_or(-1.0);
  }
  if (s.pipeline.tail.Active()) {
    out.tail = s.pipeline.tail.mode;
    out.tail_over_launch = s.pipeline.tail.over_launch;
  }
  return out;
}

std::string Describe(const Effective& e) {
  std::string out = plan::Describe(e.layout);
  out += e.pipeline == PipelineMode::kAsync ? ", async, staleness " + FormatNumber(e.staleness) : ", synchronous";
  if (e.resplit_phases > 0) {
    out += ", re-split in " + std::to_string(e.resplit_phases) + " phases";
    if (e.resplit_restart_s >= 0) out += " (" + FormatNumber(e.resplit_restart_s) + " s a change)";
  }
  if (e.tail != TailMode::kNone) {
    out += ", tail handling " + std::string(ToString(e.tail)) + " (launch " + FormatNumber(1 + e.tail_over_launch) + "x)";
  }
  return out;
}

NeighbourNotes::NeighbourNotes(const Design& design) {
  const auto& axes = design.axes();
  if (design.size() == 0 || design.Values(0).empty()) return;
  // A grid's points come from their index (last axis fastest); a sample's do not.
  uint64_t grid = 1;
  for (const auto& a : axes) grid *= a.values.size();
  if (grid != design.size()) return;
  for (size_t a = 0; a < axes.size(); ++a) {
    if (axes[a].key != "hardware.gpus") continue;
    uint64_t stride = 1;
    for (size_t b = a + 1; b < axes.size(); ++b) stride *= axes[b].values.size();
    const auto& v = axes[a].values;
    std::vector<double> n(v.size(), -1);
    for (size_t i = 0; i < v.size(); ++i) {
      double x = 0;
      auto [p, ec] = std::from_chars(v[i].data(), v[i].data() + v[i].size(), x);
      if (ec == std::errc() && p == v[i].data() + v[i].size()) n[i] = x;
    }
    smaller_.assign(v.size(), -1);
    uint64_t span = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      for (size_t j = 0; j < v.size(); ++j) {
        if (n[i] > 0 && n[j] > 0 && n[j] < n[i] && (smaller_[i] < 0 || n[j] > n[smaller_[i]])) smaller_[i] = int(j);
      }
      // Only a smaller count listed before this one is seen in time.
      if (smaller_[i] >= 0 && size_t(smaller_[i]) < i) span = std::max<uint64_t>(span, (i - smaller_[i]) * stride);
    }
    if (span == 0 || span > (uint64_t{1} << 20)) {
      smaller_.clear();
      return;
    }
    axis_ = a;
    stride_ = stride;
    span_ = span;
    ring_.assign(span + 1, Seen{});
    return;
  }
}

void NeighbourNotes::Apply(PointRow& row) {
  if (ring_.empty()) return;
  if (row.status == PointStatus::kOk && row.step_s > 0) {
    const size_t pos = (row.index / stride_) % smaller_.size();
    const int sm = smaller_[pos];
    if (sm >= 0 && size_t(sm) < pos) {
      const uint64_t at = row.index - (pos - size_t(sm)) * stride_;
      const Seen& n = ring_[at % ring_.size()];
      // The same 1% as plan::ScalingNotes.
      if (n.index == at && n.step_s > 0 && n.step_s < row.step_s * 0.99) {
        const std::string note =
            fmt::format("more GPUs, slower: {:.1f} s per step here, {:.1f} s on {} (${:.2f} vs ${:.2f} per step)",
                        row.step_s, n.step_s, GpuCount(n.gpus), row.usd_per_step, n.usd_per_step);
        row.note = row.note.empty() ? note : note + "; " + row.note;
      }
    }
  }
  Seen& slot = ring_[row.index % ring_.size()];
  slot = {row.index, row.status == PointStatus::kOk ? row.step_s : 0.0, row.usd_per_step, row.gpus};
}

std::string_view ToString(PointStatus s) {
  switch (s) {
    case PointStatus::kOk: return "ok";
    case PointStatus::kDoesNotFit: return "does not fit";
    case PointStatus::kInvalid: return "invalid";
    case PointStatus::kNotYet: return "not yet";
  }
  return "invalid";
}

std::vector<const MetricDef*> DefaultMetrics() {
  std::vector<const MetricDef*> out;
  for (const auto& m : Metrics()) {
    if (m.contract || m.key.rfind("goal.", 0) == 0) out.push_back(&m);
  }
  return out;
}

bool HasGoalMetric(const std::vector<const MetricDef*>& metrics) {
  return std::any_of(metrics.begin(), metrics.end(), [](const MetricDef* m) { return m->key.rfind("goal.", 0) == 0; });
}

Result<const MetricDef*> MetricByName(std::string_view name, std::string_view flag) {
  if (const MetricDef* m = FindMetric(name)) return m;
  std::string known;
  for (const auto& m : Metrics()) known += (known.empty() ? "" : ", ") + std::string(m.key);
  Error e = Error::Invalid(std::string(name), "unknown metric; expected one of: " + known);
  e.problems.back().file = std::string(flag);
  return Fail(std::move(e));
}

Result<void> Check(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                   const std::vector<Override>& fixed) {
  if (design.size() == 0) return {};
  std::vector<Override> overrides = fixed;
  for (auto& o : design.Overrides(0)) overrides.push_back(std::move(o));
  auto s = doc.Load(catalog, overrides);
  if (s) return {};
  Error bad;
  for (const auto& p : s.error().problems) {
    if (p.message.rfind("unknown key", 0) != 0) continue;
    for (size_t i = 0; i < overrides.size(); ++i) {
      if (AtOrAbove(p.path, overrides[i].path)) {
        bad.problems.push_back(Problem{overrides[i].path, "not a scenario field: " + p.path + ": " + p.message, 0,
                                       i < fixed.size() ? "set" : "vary"});
        break;
      }
    }
  }
  if (bad.problems.empty()) return {};
  return Fail(std::move(bad));
}

namespace {

// Fills the row from the point's estimate (or its error).
void FinishWith(PointRow& row, const Scenario& s, const Result<Estimate>& e,
                const std::vector<const MetricDef*>& metrics) {
  row.metrics.assign(metrics.size(), std::nullopt);
  if (!e) {
    row.status = StatusOf(e.error().code);
    row.reason = Reason(e.error());
    return;
  }
  for (size_t m = 0; m < metrics.size(); ++m) row.metrics[m] = metrics[m]->get(*e);
  if (e->goal.requested && HasGoalMetric(metrics)) row.goal_curve = e->goal.curve;
  row.effective = EffectiveOf(s);
  row.step_s = e->step.time_s;
  row.usd_per_step = e->usd_per_step;
  row.gpus = s.hardware.gpus;
  // A row carries no estimate's notes (they cost text at every point), only
  // this one, read off its own figures.
  row.note = plan::KvBelowBatchNote(s, *e);
}

// Estimates the loaded point and fills the row's metrics (or its reason).
void Finish(PointRow& row, const Scenario& s, const SweepOptions& opt, const std::vector<const MetricDef*>& metrics) {
  row.metrics.assign(metrics.size(), std::nullopt);
  if (opt.plan && plan::AnythingToPlan(s)) {
    // Only the layout is kept: candidates that cannot win are not estimated.
    auto p = plan::PlanLayout(s, {*opt.plan, /*layout_only=*/true});
    if (!p) {
      row.status = StatusOf(p.error().code);
      row.reason = Reason(p.error());
      return;
    }
    Scenario planned = std::move(p->scenario);
    SweepOptions literal = opt;
    literal.plan.reset();
    Finish(row, planned, literal, metrics);
    return;
  }
  // A row holds numbers only: the estimate leaves its notes unwritten.
  auto e = opt.simulate ? EstimateSimulated(s, opt.sim) : EstimateAnalytic(s, TextDetail::kNumbers);
  FinishWith(row, s, e, metrics);
}

void Finish(PointRow& row, const Result<Scenario>& s, const SweepOptions& opt,
            const std::vector<const MetricDef*>& metrics) {
  if (s) return Finish(row, *s, opt, metrics);
  row.metrics.assign(metrics.size(), std::nullopt);
  row.status = StatusOf(s.error().code);
  row.reason = Reason(s.error());
}

}  // namespace

PointRow RunPoint(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                  const SweepOptions& opt, uint64_t index) {
  PointRow row;
  row.index = index;
  row.values = design.Values(index);
  std::vector<Override> overrides = opt.fixed;
  overrides.reserve(opt.fixed.size() + row.values.size());
  for (size_t k = 0; k < row.values.size(); ++k) overrides.push_back({design.axes()[k].key, row.values[k]});
  Finish(row, doc.Load(catalog, overrides), opt, opt.metrics.empty() ? DefaultMetrics() : opt.metrics);
  return row;
}

PointRunner::PointRunner(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                         const SweepOptions& opt)
    : doc_(doc), catalog_(catalog), design_(design), opt_(opt), fast_(doc, catalog, opt.fixed),
      metrics_(opt.metrics.empty() ? DefaultMetrics() : opt.metrics) {}

PointRow PointRunner::Run(uint64_t index) const {
  PointRow row;
  row.index = index;
  row.values = design_.Values(index);
  std::vector<Override> overrides;
  overrides.reserve(row.values.size());
  for (size_t k = 0; k < row.values.size(); ++k) overrides.push_back({design_.axes()[k].key, row.values[k]});
  // The point's scenario goes into this thread's scratch copy, whose maps and
  // strings keep their storage from the last point.
  thread_local Scenario scratch;
  if (fast_.TryLoadInto(scratch, overrides) || TryLoadSplit(scratch, overrides)) {
    FinishPlanned(row, scratch);
  } else {
    auto loaded = fast_.Load(overrides);
    if (loaded) {
      FinishPlanned(row, *loaded);
    } else {
      Finish(row, loaded, opt_, metrics_);
    }
  }
  return row;
}

namespace {
// One path is the other or inside it ("environment.pass_rate" and "environment.pass_rate.mean").
bool Nested(std::string_view a, std::string_view b) {
  if (a.size() > b.size()) std::swap(a, b);
  return b.rfind(a, 0) == 0 && (b.size() == a.size() || b[a.size()] == '.');
}
}  // namespace

bool PointRunner::TryLoadSplit(Scenario& out, const std::vector<Override>& overrides) const {
  std::vector<Override> slow, direct;
  double v = 0;
  for (const auto& o : overrides) {
    bool known = false;
    for (std::string_view f : scenario_internal::FastOverrides::Fields()) known = known || f == o.path;
    (known && scenario_internal::FastOverrides::PlainNumber(o.value, v) ? direct : slow).push_back(o);
  }
  if (slow.empty() || direct.empty()) return false;  // nothing to share, or nothing to write straight in
  // Written in any order only when no path holds another.
  for (const auto& a : slow) {
    for (const auto& b : direct) {
      if (Nested(a.path, b.path)) return false;
    }
  }
  std::string key;
  for (const auto& o : slow) key += o.path + '\x1e' + o.value + '\x1f';
  auto it = slow_.find(key);
  if (it == slow_.end()) {
    if (slow_.size() >= kMaxSlowLoaders) slow_.clear();
    std::vector<Override> fixed = opt_.fixed;
    fixed.insert(fixed.end(), slow.begin(), slow.end());
    it = slow_.emplace(std::move(key), std::make_unique<scenario_internal::FastOverrides>(doc_, catalog_,
                                                                                         std::move(fixed)))
             .first;
  }
  return it->second->TryLoadInto(out, direct);
}

namespace {
// Axes whose values cannot change the planned layout: the goal, and the base
// model's pass rate without dynamic sampling (it changes which rollouts carry
// signal, not the rollouts generated, the step's time or its dollars).
bool LayoutNeutral(std::string_view key, const Scenario& s) {
  if (key.rfind("goal.", 0) == 0) return true;
  return key.rfind("environment.pass_rate", 0) == 0 && !s.algorithm.dynamic_sampling;
}
}  // namespace

void PointRunner::FinishPlanned(PointRow& row, Scenario& s) const {
  if (!opt_.plan || opt_.simulate || !plan::AnythingToPlan(s)) return Finish(row, s, opt_, metrics_);
  // Points that differ only in layout-neutral axes share one plan.
  std::string key;
  for (size_t k = 0; k < row.values.size(); ++k) {
    if (LayoutNeutral(design_.axes()[k].key, s)) continue;
    key += row.values[k];
    key += '\x1f';
  }
  // The signal summary depends on no layout field: computed once for the
  // plan and the chosen layout's estimate (EstimateAnalytic computes the same).
  auto sig = signal::Analyze(s, TextDetail::kNumbers);
  if (!sig) return Finish(row, s, opt_, metrics_);  // the error, as RunPoint reports it
  auto it = plans_.find(key);
  if (it == plans_.end()) {
    auto l = plan::ChooseLayout(s, *sig, *opt_.plan);
    if (!l) return Finish(row, s, opt_, metrics_);  // the planner's error, as RunPoint reports it
    it = plans_.emplace(key, *l).first;
  }
  const plan::Layout& l = it->second;
  plan::ApplyLayout(s.placement, l);
  FinishWith(row, s, econ_internal::EstimateAnalyticWithSignal(s, *sig, TextDetail::kNumbers), metrics_);
}

uint64_t PlannedPoints(const Design& design, const SweepOptions& opt) {
  const uint64_t end = std::min(opt.last, design.size());
  if (opt.first >= end || opt.stride == 0) return 0;
  return (end - opt.first + opt.stride - 1) / opt.stride;
}

std::vector<double> PredictedPointCosts(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog,
                                        const Design& design, const SweepOptions& opt) {
  std::vector<double> costs;
  if (!opt.simulate || opt.first != 0 || opt.stride != 1 || opt.last < design.size() ||
      design.size() > kMaxPredictedPoints) {
    return costs;
  }
  scenario_internal::FastOverrides fast(doc, catalog, opt.fixed);
  costs.reserve(design.size());
  for (uint64_t i = 0; i < design.size(); ++i) {
    if (opt.stop && opt.stop->load()) return {};
    auto s = fast.Load(design.Overrides(i));
    if (!s) {
      costs.push_back(0);
      continue;
    }
    const double steps = opt.sim.steps > 0 ? opt.sim.steps : s->algorithm.steps;
    costs.push_back(steps * s->algorithm.prompts_per_step * s->algorithm.group_size *
                    std::max(1.0, s->environment.turns.mean()));
  }
  return costs;
}

uint64_t RunSweep(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                  const SweepOptions& opt_in, const std::function<void(PointRow&&)>& sink) {
  SweepOptions opt = opt_in;
  if (opt.metrics.empty()) opt.metrics = DefaultMetrics();
  const uint64_t count = PlannedPoints(design, opt);
  if (count == 0) return 0;
  // At most one thread per core: the points are computation only, so more
  // threads would not finish sooner, and a very large --jobs (200) only risks
  // the machine's thread and memory limits (glibc aborts, uncatchably, when a
  // thread's TLS cannot be allocated).
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  unsigned threads = opt.threads ? std::min(opt.threads, cores) : cores;
  threads = static_cast<unsigned>(std::min<uint64_t>(threads, count));

  std::mutex mu;
  std::condition_variable cv;
  std::map<uint64_t, PointRow> pending;  // finished, not yet handed over; keyed by k
  std::atomic<uint64_t> next{0};
  unsigned running = threads;
  auto stopped = [&] { return opt.stop && opt.stop->load(std::memory_order_relaxed); };

  std::vector<std::thread> pool;
  pool.reserve(threads);
  auto work = [&] {
    // A simulated point under way stops too when the sweep is stopped, not
    // only the points after it (the simulator polls the flag).
    ScopedCancel cancel(opt.stop);
    // yaml-cpp nodes are not safe to share between threads: each parses its own copy.
    auto mine = scenario_internal::ScenarioDocument::FromText(doc.text(), doc.origin(), doc.base_dir(),
                                                          doc.source_path());
    if (!mine) {  // the same text parsed once already: cannot happen, but stop rather than spin
      std::lock_guard<std::mutex> lock(mu);
      --running;
      cv.notify_one();
      return;
    }
    const PointRunner runner(*mine, catalog, design, opt);
    while (!stopped()) {
      const uint64_t k = next.fetch_add(1);
      if (k >= count) break;
      PointRow row = runner.Run(opt.first + k * opt.stride);
      std::lock_guard<std::mutex> lock(mu);
      pending.emplace(k, std::move(row));
      cv.notify_one();
    }
    std::lock_guard<std::mutex> lock(mu);
    --running;
    cv.notify_one();
  };
  // Under a thread limit (ulimit -u, a container's pids limit) fewer threads
  // than asked may start: the sweep runs on those it got, or on this thread
  // when none started, instead of ending the process (std::thread throws).
  unsigned started = 0;
  for (unsigned t = 0; t < threads; ++t) {
    try {
      pool.emplace_back(work);
      ++started;
    } catch (const std::system_error&) {
      break;
    }
  }
  if (started < threads) {
    std::lock_guard<std::mutex> lock(mu);
    running -= threads - started;
  }
  if (started == 0) {
    running = 1;
    work();  // every point here; the loop below hands them over in order
  }

  uint64_t delivered = 0;
  std::optional<NeighbourNotes> neighbours;
  if (opt.neighbour_notes) neighbours.emplace(design);
  auto hand_over = [&](PointRow&& row) {
    if (neighbours) neighbours->Apply(row);
    sink(std::move(row));
  };
  auto last_progress = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> lock(mu);
  while (delivered < count) {
    cv.wait_for(lock, std::chrono::milliseconds(100), [&] {
      return running == 0 || (!pending.empty() && pending.begin()->first == delivered);
    });
    while (!pending.empty() && pending.begin()->first == delivered) {
      PointRow row = std::move(pending.begin()->second);
      pending.erase(pending.begin());
      lock.unlock();
      hand_over(std::move(row));
      lock.lock();
      ++delivered;
    }
    const auto now = std::chrono::steady_clock::now();
    if (opt.progress && now - last_progress >= std::chrono::milliseconds(100)) {
      last_progress = now;
      lock.unlock();
      opt.progress(delivered);
      lock.lock();
    }
    if (running == 0 && (pending.empty() || pending.begin()->first != delivered)) break;
  }
  lock.unlock();
  for (auto& th : pool) th.join();
  // Stopped early: the points that did finish still count, in order.
  uint64_t handed = delivered;
  for (auto& [k, row] : pending) {
    hand_over(std::move(row));
    ++handed;
  }
  if (opt.progress) opt.progress(handed);
  return handed;
}

}  // namespace rlcost::explore
