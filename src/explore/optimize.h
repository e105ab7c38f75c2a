// explore/optimize: the best configurations of a scenario over a search space,
// under constraints on any metric, with what binds and the Pareto front of the
// objective against wall time. The search is the sweep's exhaustive grid (every
// point a full estimate, all cores), so the answer is the grid's true optimum.
//
//   auto c = explore::ParseConstraint("run.wall_time_h<=24");
//   explore::OptimizeOptions o;  o.objective = FindMetric("goal.usd");  o.constraints = {*c};
//   auto r = explore::Optimize(doc, catalog, design, o);   // r->best, r->binding, r->front
#pragma once

#include <string>
#include <vector>

#include "explore/sweep.h"

namespace rlcost::explore {

enum class Op { kLe, kLt, kGe, kGt };

struct Constraint {
  const MetricDef* metric = nullptr;
  Op op = Op::kLe;
  double limit = 0;
  std::string text;  // as written, for messages
  bool Holds(double v) const;
};

// "run.wall_time_h<=168" (<=, <, >=, >; spaces allowed). An unknown metric or a
// malformed operator is an error naming --subject-to.
Result<Constraint> ParseConstraint(std::string_view text);

// The default search space over `catalog`'s GPUs when --over is absent: GPU
// type and count, rollout precision, sync/async, group size; the layout
// (colocated or a disaggregated split, rollout_tp, ...) is left to the planner
// at every point, or, with `planned` false, rollout_tp 1, 2, 4 read as written.
std::vector<std::string> DefaultSpace(const Catalog& catalog, bool planned = true);

struct OptimizeOptions {
  const MetricDef* objective = nullptr;  // minimised
  std::vector<Constraint> constraints;
  size_t top = 5;
  SweepOptions sweep;                    // threads, fixed --set values
};

struct Candidate {
  PointRow row;       // metrics: objective, run.wall_time_h, then the constraints' metrics
  double objective = 0;
  double wall_time_h = 0;
};

struct OptimizeResult {
  uint64_t points = 0, feasible = 0, ran = 0;  // in the space, meeting every constraint, that ran at all
  // Feasible points left out of `best` and `front` because they run as a
  // better-ranked one (the same values of the other axes and the same
  // Effective: e.g. async on a colocated layout runs synchronously).
  uint64_t same_run = 0;
  uint64_t disaggregated = 0;                  // points that ran on a disaggregated layout
  std::vector<Candidate> best;                 // up to `top`, best first, pairwise distinct runs
  // Constraints that bind: without each, the optimum would be lower.
  std::vector<std::string> binding;
  // Numeric axes whose best value is the first or last of its list: the space itself may bind.
  std::vector<std::string> at_edge;
  std::vector<Candidate> front;  // feasible points no other beats on both objective and wall time, by wall time
  size_t front_total = 0;        // rows the whole front has; `front` keeps at most kMaxFrontRows of them
};

// The most rows of the Pareto front an answer lists: a space of 20,000
// points can have a front of thousands, which no reader reads row by row.
inline constexpr size_t kMaxFrontRows = 50;

// Keeps `max_rows` rows of a front (sorted by wall time): the fastest, the
// cheapest (the last) and rows evenly spaced between them by position.
void ThinFront(std::vector<Candidate>& front, size_t max_rows);

// The effective configuration of a row: the values of the axes that are not
// placement.* or pipeline.* (those are read off how it ran), then how it ran.
std::string EffectiveKey(const Design& design, const PointRow& row);

Result<OptimizeResult> Optimize(const scenario_internal::ScenarioDocument& doc, const Catalog& catalog,
                                const Design& design, const OptimizeOptions& opt);

}  // namespace rlcost::explore
