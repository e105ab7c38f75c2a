// Internal: signal::StepsToTarget with Analyze(s) already computed, for the
// estimate (src/econ/estimate.cc), which has it at hand: one Analyze a point
// instead of two.
#pragma once

#include "rlcost/signal.h"

namespace rlcost::signal {

// What the caller needs: everything, or the totals without the trajectory
// (steps, useful samples, rollouts), which the common case then counts without
// stepping one training step at a time (docs/model.md, "Counting the goal's
// steps without stepping").
enum class GoalDetail { kWithTrajectory, kStepsOnly };

// The same as StepsToTarget(s, curve, target); `analyzed` must be Analyze(s) of this very scenario.
// With kStepsOnly, GoalProgress::trajectory holds only its last point.
Result<GoalProgress> StepsToTarget(const Scenario& s, const LearningCurveSpec& curve, double target_pass_rate,
                                   const Summary& analyzed, GoalDetail detail);

// The goal's step loop without stepping (docs/model.md, "Counting the goal's
// steps without stepping"). On table interval i a step is the map
// u -> u + f(u), f(u) = P - Q/u, from u0 until u >= u_target, switching to
// the next interval's (P, Q) once a step starts at or past u_end[i]. The time
// of the map, T with T(u + f(u)) = T(u) + 1, is the time of the flow of its
// modified equation (backward error analysis of the explicit Euler step):
//   T'(u) = 1/g(u),  1/g = 1/f + f'/(2f) - (f'^2/f + f'')/12 + O(eps^2),
// integrated in closed form on each interval (the 1/f and f'/(2f) parts,
// two logarithms), with the next order, 1/g += f'f''/12 + f'^3/(24f), the
// f'^2/f and f'^3/f parts by 3-point Gauss-Legendre (together ~1e-6 of a step). The steps on interval i are then ceil(T(end) - T(u)), and the
// state after them the flow from the interval's end for the rest of the last
// step (its Taylor series in that fraction, to third order, and one Newton
// step on T). Where the
// count's fraction lies within the expansion's error of a whole step, or
// where the expansion does not hold (-Q comparable to P u, or f not > 0 at
// the interval's ends), the interval is stepped one step at a time instead;
// the result is the loop's step count and u to ~1e-12 relative
// (tests/signal/goal_steps_test.cc).
struct Counted {
  bool ok = false;  // false: count by stepping (unreachable, or past max_steps)
  double steps = 0;
  double u = 0;
  int intervals_counted = 0;  // intervals counted without stepping (the rest were stepped)
};
Counted CountSteps(const double* p_of, const double* q_of, const double* u_end_of, int intervals, double u0,
                   double u_target, double max_steps);

}  // namespace rlcost::signal
