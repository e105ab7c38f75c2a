// Internal: the standard normal distribution's pdf, cdf and quantile, used by
// the clipped lognormal / normal solves in distribution.cc.
//
//   double z = rlcost::scenario_internal::NormalQuantile(0.975);  // 1.959963984540054
#pragma once

namespace rlcost::scenario_internal {

double NormalPdf(double z);
// Phi(z) = erfc(-z / sqrt(2)) / 2; exact at +-inf.
double NormalCdf(double z);
// Phi^-1(p): Wichura's AS 241 (PPND16) rational approximation, relative
// error about 1e-16; -inf at 0, +inf at 1.
double NormalQuantile(double p);

}  // namespace rlcost::scenario_internal
