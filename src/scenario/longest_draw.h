// Internal: the expected longest of n independent draws of a distribution,
// E[X_(n)], the order statistic a synchronous step waits for. Read by the
// analytic step (src/sim/analytic_rollout.cc, its length slices' top point)
// and by the estimate's longest-response assumption (src/econ/estimate.cc).
// docs/model.md, "The step's longest response".
//
//   // lognormal mean 398, cv 0.7, max 3,976: about 2,886 tokens
//   double top = rlcost::scenario_internal::ExpectedLongestDraw(response_tokens, 2048);
#pragma once

#include "rlcost/distribution.h"

namespace rlcost::scenario_internal {

// The largest of n uniforms U_(n) has P(U_(n) <= u) = u^n, so V = U_(n)^n is
// uniform and E[X_(n)] = integral_0^1 Q(v^(1/n)) dv, taken by a
// kLongestDrawPoints-point Gauss-Legendre rule in t, v = 1 - (1 - t)^2 (Q the
// distribution's quantile, clipped at its max). Not Q(n / (n + 1)), the
// quantile at E[U_(n)]: Q is convex in the tail, so that one falls short of
// the mean longest (Jensen). A fixed distribution gives its value.
inline constexpr int kLongestDrawPoints = 16;
double ExpectedLongestDraw(const Distribution& d, double n);

}  // namespace rlcost::scenario_internal
