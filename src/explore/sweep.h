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
};

// The contract metrics plus the goal's (steps, GPU-hours, dollars).
std::vector<const MetricDef*> DefaultMetrics();
// "run.usd" -> its definition; an unknown name lists the known ones.
Result<const MetricDef*> MetricByName(std::string_view name, std::string_view flag);

// Checks what would otherwise fail at every point: a varied key that is not a
// scenario field (or a `fixed` one). Loads the first point and reports its unknown keys.
Result<void> Check(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog, const Design& design,
                   const std::vector<Override>& fixed = {});

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
