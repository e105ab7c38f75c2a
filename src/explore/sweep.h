// explore/sweep: runs a full estimate at every point of a Design, on all cores.
// The scenario text is parsed once per thread; each point applies its values
// as `--set` overrides and runs the analytic model (or the simulator). A point
// that cannot run (does not fit, an invalid combination) is a row with its
// reason, not an error. Rows reach the caller in point order, on the calling
// thread, whatever order the threads finish in.
//
//   explore::SweepOptions opt;  opt.metrics = {FindMetric("run.usd")};
//   auto doc = scenario_internal::ScenarioDocument::FromFile("run.yaml");
//   explore::Check(*doc, catalog, design);                    // before any work
//   explore::RunSweep(*doc, catalog, design, opt, [](explore::PointRow&& r) { ... });
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "explore/design.h"
#include "plan/plan.h"
#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/sim.h"
#include "scenario/document.h"
#include "scenario/fast_override.h"

namespace rlcost::explore {

enum class PointStatus { kOk, kDoesNotFit, kInvalid, kNotYet };
std::string_view ToString(PointStatus s);  // ok | does not fit | invalid | not yet

// How a point ran, as the model runs it (set when it ran): its layout, planned
// or as written, and its pipeline (async on colocated GPUs runs synchronously;
// a staleness beyond one step changes the closed form only with partial
// rollouts, sim/analytic.cc). Two points with the same values of every other
// axis and the same Effective are the same run.
struct Effective {
  plan::Layout layout;
  PipelineMode pipeline = PipelineMode::kSync;
  double staleness = 0;  // 0 when synchronous
  // Placement and pipeline levers the layout does not show: elastic pools
  // (placement.resplit on a disaggregated run; 0 phases = none) and tail
  // handling (pipeline.tail).
  int resplit_phases = 0;
  double resplit_restart_s = -1;  // -1: the default (one start-up)
  TailMode tail = TailMode::kNone;
  double tail_over_launch = 0;
  bool operator==(const Effective&) const = default;
};
Effective EffectiveOf(const Scenario& s);
// "colocated on 32 GPUs, rollout_tp 8 (4 engines), synchronous" / "..., async, staleness 1".
std::string Describe(const Effective& e);

struct PointRow {
  uint64_t index = 0;
  std::vector<std::string> values;               // per axis
  PointStatus status = PointStatus::kOk;
  std::string reason;                             // empty when ok
  std::vector<std::optional<double>> metrics;     // SweepOptions::metrics order; nullopt = not applicable
  // What the row's goal.* figures rest on, when its columns hold one and the
  // point sets a target: Estimate::goal.curve ("illustrative", "published:NAME",
  // "given"); "" otherwise. Written beside the row (column `goal_curve`).
  std::string goal_curve;
  // Short notes from the row's own figures (and, for "more GPUs, slower", the
  // sweep's own row with the next smaller hardware.gpus): "; "-separated,
  // empty when nothing to say. The `note` column of every output.
  std::string note;
  std::optional<Effective> effective;             // set when the point ran
  // The figures the notes compare (not columns): step seconds, dollars per
  // step, GPUs. Zero when the point did not run.
  double step_s = 0, usd_per_step = 0;
  int gpus = 0;
};

// "more GPUs, slower" across rows: in a grid with a hardware.gpus axis, a row
// whose step is longer than its neighbour's with the next smaller GPU count
// (every other value the same) gets a note, when that neighbour came before
// it (the counts listed in ascending order). Rows must be given in point
// order. Keeps the figures of at most the last (count - 1) x stride points
// (none, and no note, beyond 2^20 of them or for a sampled design).
class NeighbourNotes {
 public:
  explicit NeighbourNotes(const Design& design);
  void Apply(PointRow& row);

 private:
  struct Seen {
    uint64_t index = UINT64_MAX;
    double step_s = 0, usd_per_step = 0;
    int gpus = 0;
  };
  uint64_t stride_ = 0, span_ = 0;
  size_t axis_ = 0;
  std::vector<int> smaller_;  // per value position: the position of the next smaller count, -1 = none
  std::vector<Seen> ring_;
};

// Whether the columns hold a goal figure (goal.steps, goal.usd, ...): the rows
// then say what the goal's learning curve is (PointRow::goal_curve).
bool HasGoalMetric(const std::vector<const MetricDef*>& metrics);
inline constexpr std::string_view kIllustrativeCurve = "illustrative";  // PointRow::goal_curve of the default curve

struct SweepOptions {
  std::vector<const MetricDef*> metrics;  // columns; empty = DefaultMetrics()
  std::vector<Override> fixed;            // --set overrides applied at every point, before its own
  bool simulate = false;                  // discrete-event simulator instead of the closed form
  // The layout planner at every point (src/plan): the placement fields the
  // point leaves out are chosen for this objective; nullopt = read literally.
  std::optional<plan::Objective> plan;
  sim::Options sim;                       // seed / steps when simulating
  unsigned threads = 0;                   // 0 = every core
  // Points run are first, first + stride, ... below last (processes split a sweep this way).
  uint64_t first = 0, stride = 1;
  uint64_t last = UINT64_MAX;             // clamped to the design's size
  const std::atomic<bool>* stop = nullptr;  // set (e.g. on Ctrl-C): finish the points under way, start no more
  // Called on the calling thread about ten times a second with points done so far.
  std::function<void(uint64_t done)> progress;
  // RunSweep adds the "more GPUs, slower" notes (NeighbourNotes) as it hands
  // rows over; off where the caller merges rows from several sweeps and adds them itself (MPI).
  bool neighbour_notes = true;
};

// The contract metrics plus the goal's (steps, GPU-hours, dollars).
std::vector<const MetricDef*> DefaultMetrics();
// "run.usd" -> its definition; an unknown name lists the known ones.
Result<const MetricDef*> MetricByName(std::string_view name, std::string_view flag);

// Checks what would otherwise fail at every point: a varied key that is not a
// scenario field (or a `fixed` one). Loads the first point and reports its unknown keys.
Result<void> Check(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                   const std::vector<Override>& fixed = {});

// The predicted cost of each point of a simulated sweep, in point order, for
// its ETA (explore/eta.h): the trajectory turns the simulator runs, steps x
// prompts per step x group size x mean turns (each turn ends an engine
// segment, the simulator's unit of work). A point that does not load costs 0.
// Empty for an analytic sweep (its points cost about the same), a sweep split
// over processes, or a design of more than kMaxPredictedPoints points (each
// point is loaded once more, ahead of the sweep).
inline constexpr uint64_t kMaxPredictedPoints = 20'000;
std::vector<double> PredictedPointCosts(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog,
                                        const Design& design, const SweepOptions& opt);

// One point, loaded the YAML way (the document with the point's `--set` overrides).
PointRow RunPoint(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                  const SweepOptions& opt, uint64_t index);

// Runs points of one design, as RunSweep does on each thread: the document is
// loaded once and each point's values are written straight into a copy of the
// Scenario where the field allows it (spec/fast_override.h); the rows are
// those of RunPoint. One per thread; `doc`, `catalog`, `design`, `opt` must outlive it.
class PointRunner {
 public:
  PointRunner(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
              const SweepOptions& opt);
  PointRow Run(uint64_t index) const;

 private:
  // Estimates the point, its layout planned when the options ask (a plan
  // shared by points that differ only in layout-neutral axes).
  void FinishPlanned(PointRow& row, Scenario& s) const;
  // A point with values that cannot be written straight into the Scenario
  // (a model, a GPU type, a precision...): the document loaded once per set of
  // those values (as fixed overrides) and kept, up to kMaxSlowLoaders sets, the
  // point's other values written straight in. Exactly the YAML way's result
  // (scenario/fast_override.h). Kept per set, not only for consecutive points:
  // a grid whose fastest axes include one (precision.rollout=bf16,fp8 seventh
  // of eight) would load the document again every few points (issue #41).
  bool TryLoadSplit(Scenario& out, const std::vector<Override>& overrides) const;
  static constexpr size_t kMaxSlowLoaders = 64;
  const scenario_internal::ScenarioDocument& doc_;
  const Catalog& catalog_;
  mutable std::map<std::string, std::unique_ptr<scenario_internal::FastOverrides>> slow_;
  const Design& design_;
  const SweepOptions& opt_;
  scenario_internal::FastOverrides fast_;
  std::vector<const MetricDef*> metrics_;
  mutable std::map<std::string, plan::Layout> plans_;  // one runner per thread
};

// Runs the points and hands each row to `sink` in index order. Returns the
// number of points run (fewer than planned when `stop` was set).
uint64_t RunSweep(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                  const SweepOptions& opt, const std::function<void(PointRow&&)>& sink);

// Points RunSweep would run for these options.
uint64_t PlannedPoints(const Design& design, const SweepOptions& opt);

}  // namespace rlcost::explore
