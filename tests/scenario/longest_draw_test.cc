// The expected longest of N draws, E[X_(N)] (src/scenario/longest_draw.h;
// docs/model.md, "The step's longest response"): what a synchronous step
// waits for, read by the analytic step and the estimate's assumptions.
#include "scenario/longest_draw.h"

#include <optional>

#include <gtest/gtest.h>

#include "rlcost/distribution.h"
#include "uniform_lengths.h"

namespace rlcost::scenario_internal {
namespace {

using test::Uniform0To2000;  // Quantile(u) = 2000 u

// A uniform's quantile is linear, so E[X_(N)] = Q(E[U_(N)]) = 2000 N / (N + 1);
// the 16-point Gauss-Legendre rule lands within 0.7 tokens (N = 8: 1778.27
// against 1777.78; N = 96: 1979.47 against 1979.38).
TEST(ExpectedLongestDraw, UniformIsTheQuantileAtNOverNPlusOne) {
  EXPECT_NEAR(ExpectedLongestDraw(Uniform0To2000(), 8), 2000.0 * 8 / 9, 0.7);
  EXPECT_NEAR(ExpectedLongestDraw(Uniform0To2000(), 96), 2000.0 * 96 / 97, 0.7);
  EXPECT_NEAR(ExpectedLongestDraw(Uniform0To2000(), 1), 1000.0, 0.7);
}

// An exponential of mean 100: the longest of N draws has mean 100 H_N (Renyi:
// the spacings of exponential order statistics are independent exponentials
// of means 100/N, 100/(N - 1), ..., 100), H_8 = 2.717857: 271.79; the
// rule gives 271.83 (+0.02%). For N = 2,048, 100 H_N = 820.21 (820.28).
TEST(ExpectedLongestDraw, ExponentialIsTheHarmonicNumber) {
  auto d = Distribution::Make(DistKind::kExponential, 100, 1.0, std::nullopt, std::nullopt);
  ASSERT_TRUE(d.has_value());
  double h8 = 0, h2048 = 0;
  for (int i = 1; i <= 2048; ++i) (i <= 8 ? h8 : h2048) += 1.0 / i;
  h2048 += h8;
  EXPECT_NEAR(ExpectedLongestDraw(*d, 8), 100 * h8, 0.003 * 100 * h8);
  EXPECT_NEAR(ExpectedLongestDraw(*d, 2048), 100 * h2048, 0.003 * 100 * h2048);
}

// A right tail that is convex in u puts the mean longest above the quantile
// at N / (N + 1) (Jensen); a cap holds it at the cap. NeMo RL v0.3's 70B logs:
// lognormal mean 398, cv 0.7, max 3,976, N = 2,048: Q(2048/2049) = 2,615.7,
// E[X_(N)] = 2,886.1 by the rule (a 200,000-point sum: 2,884.4).
TEST(ExpectedLongestDraw, LognormalTailLiesAboveTheQuantile) {
  auto d = Distribution::Make(DistKind::kLognormal, 398, 0.7, std::nullopt, 3976.0);
  ASSERT_TRUE(d.has_value());
  const double q = d->Quantile(2048.0 / 2049.0), e = ExpectedLongestDraw(*d, 2048);
  EXPECT_NEAR(q, 2615.7, 2.0);
  EXPECT_NEAR(e, 2884.4, 0.005 * 2884.4);
  EXPECT_GT(e, 1.08 * q);
  auto capped = Distribution::Make(DistKind::kLognormal, 398, 0.7, std::nullopt, 500.0);
  ASSERT_TRUE(capped.has_value());
  EXPECT_LE(ExpectedLongestDraw(*capped, 2048), 500.0);
  EXPECT_GT(ExpectedLongestDraw(*capped, 2048), 499.0);
  // More draws, a longer longest.
  EXPECT_GT(ExpectedLongestDraw(*d, 4096), e);
}

// A fixed length is every draw's, so the longest too.
TEST(ExpectedLongestDraw, AFixedLengthIsItsOwnLongest) {
  EXPECT_EQ(ExpectedLongestDraw(Distribution::Fixed(512), 2048), 512.0);
}

}  // namespace
}  // namespace rlcost::scenario_internal
