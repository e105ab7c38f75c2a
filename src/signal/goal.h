// Internal: signal::StepsToTarget with Analyze(s) already computed, for the
// estimate (src/econ/estimate.cc), which has it at hand: one Analyze a point
// instead of two.
#pragma once

#include "rlcost/signal.h"

namespace rlcost::signal {

// The same as StepsToTarget(s, curve, target); `analyzed` must be Analyze(s) of this very scenario.
Result<GoalProgress> StepsToTarget(const Scenario& s, const LearningCurveSpec& curve, double target_pass_rate,
                                   const Summary& analyzed);

}  // namespace rlcost::signal
