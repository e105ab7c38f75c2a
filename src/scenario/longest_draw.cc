#include "scenario/longest_draw.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace rlcost::scenario_internal {
namespace {

// Gauss-Legendre nodes and weights on [0, 1], kLongestDrawPoints of them:
// the roots of the Legendre polynomial P_k by Newton's method from
// cos(pi (i - 1/4) / (k + 1/2)), weights 2 / ((1 - x^2) P_k'(x)^2)
// (Abramowitz and Stegun 25.4.29), halved for [0, 1]. Computed once.
struct GaussLegendre {
  std::array<double, kLongestDrawPoints> t{}, w{};
};
const GaussLegendre& LongestDrawRule() {
  static const GaussLegendre rule = [] {
    GaussLegendre g;
    constexpr int k = kLongestDrawPoints;
    for (int i = 0; i < k; ++i) {
      double x = std::cos(M_PI * (i + 0.75) / (k + 0.5)), dp = 1;
      for (int it = 0; it < 100; ++it) {
        double p0 = 1, p1 = x;
        for (int j = 2; j <= k; ++j) {
          const double p2 = ((2.0 * j - 1) * x * p1 - (j - 1.0) * p0) / j;
          p0 = p1;
          p1 = p2;
        }
        dp = k * (x * p1 - p0) / (x * x - 1);
        const double dx = p1 / dp;
        x -= dx;
        if (std::fabs(dx) < 1e-15) break;
      }
      g.t[i] = (x + 1) / 2;
      g.w[i] = 1.0 / ((1 - x * x) * dp * dp);
    }
    return g;
  }();
  return rule;
}

}  // namespace

// E[X_(n)] = integral_0^1 Q(v^(1/n)) dv with v = 1 - (1 - t)^2 (dv = 2 (1 - t)
// dt), which flattens the tail's growth as v -> 1 for the rule.
double ExpectedLongestDraw(const Distribution& d, double n) {
  if (d.is_fixed()) return d.mean();
  const double inv_n = 1.0 / std::max(n, 1.0);
  const GaussLegendre& g = LongestDrawRule();
  double sum = 0;
  for (int k = 0; k < kLongestDrawPoints; ++k) {
    const double r = 1 - g.t[k];
    sum += g.w[k] * 2 * r * d.Quantile(std::pow(1 - r * r, inv_n));
  }
  return sum;
}

}  // namespace rlcost::scenario_internal
