// econ (internal): the goal's steps of an estimate, for BuildEstimate.
#pragma once

#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"

namespace rlcost::econ_internal {

// Fills `g`'s steps and their views (docs/model.md, sec. 7, 7c, 7d): what a
// GoalEstimate holds but its requested flag, target and curve name (set by
// the caller before) and its GPU-hours and dollars (priced by the caller from
// the step). `sig` is Analyze(s). The results of the last 16 distinct inputs
// are kept per thread (keyed on every field the goal reads, goal_steps.cc).
void GoalSteps(const Scenario& s, const LearningCurveSpec& curve, const signal::Summary& sig, GoalEstimate& g);

}  // namespace rlcost::econ_internal
