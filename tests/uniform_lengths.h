// Lengths uniform on [0, 2000] (mean 1000, cv 1/sqrt(3)): Quantile(u) =
// 2000 u, so the tests of order statistics, slices and tail cuts can work
// their figures out by hand.
#pragma once

#include <cmath>
#include <optional>

#include "rlcost/distribution.h"

namespace rlcost::test {

inline Distribution Uniform0To2000() {
  return Distribution::Make(DistKind::kUniform, 1000, 1.0 / std::sqrt(3.0), std::nullopt, std::nullopt).value();
}

}  // namespace rlcost::test
