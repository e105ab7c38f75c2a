// The simulator's percentiles of per-trajectory records (Percentile::Of,
// sim/simulator_internal.h: radix selection) against a full sort: the same
// order statistics, bit for bit.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "sim/simulator_internal.h"

namespace rlcost::sim::internal {
namespace {

void ExpectSameAsSorting(std::vector<double> v) {
  std::vector<double> sorted = v;
  std::sort(sorted.begin(), sorted.end());
  const size_t n = v.size();
  auto at = [&](double q) {
    size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
    return sorted[std::min(n - 1, i == 0 ? 0 : i - 1)];
  };
  BigVector<double> big(v.begin(), v.end());
  const Percentiles p = Percentile::Of(big);
  EXPECT_EQ(p.p50, at(0.50)) << "n " << n;
  EXPECT_EQ(p.p90, at(0.90)) << "n " << n;
  EXPECT_EQ(p.p99, at(0.99)) << "n " << n;
  EXPECT_EQ(p.max, sorted.back()) << "n " << n;
}

TEST(Percentile, SameAsSorting) {
  std::mt19937_64 rng(5);
  for (size_t n : {size_t(1), size_t(2), size_t(3), size_t(10), size_t(101), size_t(4096), size_t(300000)}) {
    std::vector<double> spread(n), clustered(n), ties(n), tokens(n);
    std::lognormal_distribution<double> ln(5, 1.2);
    std::uniform_real_distribution<double> narrow(300.0, 300.001);
    for (size_t i = 0; i < n; ++i) {
      spread[i] = ln(rng);
      clustered[i] = narrow(rng);             // the same leading bits: many digits to go
      ties[i] = double(rng() % 5);            // few values, many equal, zeros among them
      tokens[i] = double(1 + rng() % 8192);  // whole numbers, as generated tokens
    }
    ExpectSameAsSorting(spread);
    ExpectSameAsSorting(clustered);
    ExpectSameAsSorting(ties);
    ExpectSameAsSorting(tokens);
    ExpectSameAsSorting(std::vector<double>(n, 42.5));  // all equal
  }
  BigVector<double> none;
  EXPECT_EQ(Percentile::Of(none).max, 0.0);  // none: zeros
}

}  // namespace
}  // namespace rlcost::sim::internal
