// Internal: the run beyond one mean step — the response-length schedule
// integrated over the run, start-up, checkpoints, evaluation and failures.
// Formulas and sources: docs/model.md, "Run-level costs" and "Workload over time".
//
//   auto t = econ_internal::ScheduledAnalyticStep(s, sig);   // mean step over the run
//   RunBreakdown r = econ_internal::BuildRunBreakdown(s, t->time_s, eval_s);
#pragma once

#include <string>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/timing.h"

namespace rlcost::econ_internal {

// Without a schedule: sim::AnalyticStep. With one: the step at a few response
// lengths spanning the schedule, blended with the weights that piecewise-linear
// interpolation in length gives each step of the run (the mean step).
Result<StepTiming> ScheduledAnalyticStep(const Scenario& s, const signal::Summary& sig,
                                         TextDetail detail = TextDetail::kFull);

// into += w x t for every double of StepTiming that ScheduledAnalyticStep
// blends (a weighted mean of steps keeps time = rollout + train + other).
void AddWeightedStep(StepTiming& into, const StepTiming& t, double w);
// Those fields of `from` copied into `into` (the rest of `into` kept).
void CopyBlendedFields(StepTiming& into, const StepTiming& from);

// EstimateAnalytic with the signal summary already computed (it does not
// depend on the layout: the planner computes it once for every candidate).
Result<Estimate> EstimateAnalyticWithSignal(const Scenario& s, const signal::Summary& sig,
                                            TextDetail detail = TextDetail::kFull);

// The number of schedule points ScheduledAnalyticStep evaluates.
inline constexpr int kScheduleNodes = 5;

// Wall time of one evaluation pass (run.evaluation): its prompts generated on
// the rollout engines as a synchronous batch, plus reward verification. 0 when
// the scenario has no evaluation.
Result<double> EvaluationPassS(const Scenario& s);

// Start-up, checkpoints, evaluation and restarts around `steps x step_time_s`.
RunBreakdown BuildRunBreakdown(const Scenario& s, double step_time_s, double evaluation_s);

// Dollars per hour of the run's policy GPUs (docs/model.md, "Spot GPUs"):
// colocated, every GPU at the train role's price; disaggregated, the rollout
// GPUs at the rollout role's and the training GPUs at the train role's; a role
// not on spot pays hardware.price_per_gpu_hour.
double PolicyUsdPerHour(const Scenario& s);
// Expected preemptions of training nodes per hour of run (hardware.spot.train).
double SpotTrainPreemptionsPerHour(const Scenario& s);

// What the run's lines rest on, for Estimate::assumptions.
std::vector<std::string> RunAssumptions(const Scenario& s, const RunBreakdown& r);

}  // namespace rlcost::econ_internal
