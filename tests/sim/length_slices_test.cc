// Length slices of the analytic step (docs/model.md, "Length slices"): up to
// 48 sequences an engine, one equal-weight point each; more, the step's
// longest response is one sequence's (weight 1/n), the other n - 1 sit in
// 47 equal slices at the midpoints of their quantile bands.
#include <array>
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/distribution.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "sim/analytic_rollout.h"
#include "sim_support.h"
#include "support.h"

namespace rlcost::sim::analytic_internal {
namespace {

// Uniform on [0, 2000] (mean 1000, cv 1/sqrt(3)): Quantile(u) = 2000 u.
Distribution Uniform2000() {
  auto d = Distribution::Make(DistKind::kUniform, 1000, 1.0 / std::sqrt(3.0), std::nullopt, std::nullopt);
  EXPECT_TRUE(d.has_value());
  return *d;
}

// n = 96 sequences on the engine, 96 in the step. By hand: m = 48; the top
// point is Quantile(96/97) = 1979.38 with weight 1/96; the body's 47 slices,
// weight (95/96)/47 each, sit at 2000 (95/96)(j + 0.5)/47 (j = 0: 21.05,
// j = 46: 1957.89), whose weighted sum is (95/96)^2 1000 = 979.28; the mean
// 1000 leaves 1000 - 1979.38/96 = 979.38 for the body, a scale of 1.0001.
TEST(LengthSlices, ManySequencesPutOneAtTheMaximum) {
  std::array<double, kMaxSlices> len{}, alive{};
  const int m = LengthSlices(Uniform2000(), 96, 96, len, alive, true);
  ASSERT_EQ(m, 48);
  EXPECT_NEAR(len[47], 2000.0 * 96 / 97, 0.01);
  EXPECT_NEAR(alive[47], 1.0 / 96, 1e-12);
  EXPECT_NEAR(alive[0], 1.0, 1e-12);
  EXPECT_NEAR(alive[46], 1.0 - 46 * (95.0 / 96) / 47, 1e-12);
  const double scale = (1000 - 2000.0 * 96 / 97 / 96) / (95.0 / 96 * 95.0 / 96 * 1000);
  EXPECT_NEAR(scale, 1.0001, 1e-4);
  EXPECT_NEAR(len[0], 2000.0 * 95 / 96 * 0.5 / 47 * scale, 1e-6);
  EXPECT_NEAR(len[46], 2000.0 * 95 / 96 * 46.5 / 47 * scale, 1e-6);
  // The weighted mean is the distribution's.
  double mean = 0;
  for (int j = 0; j < m; ++j) mean += (alive[j] - (j + 1 < m ? alive[j + 1] : 0.0)) * len[j];
  EXPECT_NEAR(mean, 1000.0, 1e-9);
}

// n = 4: one point a sequence at Quantile(top (j + 1) / 4), top = 8/9 (8 in
// the step): 444.44, 888.89, 1333.33, 1777.78, mean 1111.11; the body is
// scaled by (4000 - 1777.78) / 2666.67 = 0.8333 to keep the mean 1000:
// 370.37, 740.74, 1111.11, 1777.78; alive 1, 3/4, 1/2, 1/4.
TEST(LengthSlices, FewSequencesKeepEqualWeights) {
  std::array<double, kMaxSlices> len{}, alive{};
  const int m = LengthSlices(Uniform2000(), 4, 8, len, alive, true);
  ASSERT_EQ(m, 4);
  EXPECT_NEAR(len[0], 370.37, 0.01);
  EXPECT_NEAR(len[1], 740.74, 0.01);
  EXPECT_NEAR(len[2], 1111.11, 0.01);
  EXPECT_NEAR(len[3], 1777.78, 0.01);
  EXPECT_DOUBLE_EQ(alive[0], 1.0);
  EXPECT_DOUBLE_EQ(alive[1], 0.75);
  EXPECT_DOUBLE_EQ(alive[3], 0.25);
}

// Without single_top, the equal grid: 96 sequences in 48 slices of 2, the
// top at Quantile(96/97) = 1979.38 with weight 1/48.
TEST(LengthSlices, EqualGridPutsASliceAtTheMaximum) {
  std::array<double, kMaxSlices> len{}, alive{};
  const int m = LengthSlices(Uniform2000(), 96, 96, len, alive, false);
  ASSERT_EQ(m, 48);
  EXPECT_NEAR(len[47], 2000.0 * 96 / 97, 0.01);
  EXPECT_NEAR(alive[47], 1.0 / 48, 1e-12);
}

const std::string kDsv3 = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/verl-dsv3-671b-96xh20.yaml";

// Deep in the full cache: DeepSeek-V3 on 96 H20, 3 engines of TP 32, 256
// sequences each, ~17 running in a 36k-token cache (lognormal mean 1960, cv
// 0.8, max 9632). The equal grid put 5.3 sequences at 9,632 tokens and every
// cohort a sliver of them: analytic step.rollout_s 1509 s against the
// simulator's 1385 s (+9%). With the longest one sequence, in the middle
// cohort, the analytic 1385 s; the simulator over 20 steps, seed 1.
TEST(LengthSlices, DeepFullCacheAgreesWithTheSimulator) {
  Scenario s = test::LoadFile(kDsv3, {{"engine.enforce_eager", "true"}});
  auto both = test::AnalyticAndSimulated(s, test::kUnderSanitizers ? 3 : 20);
  ASSERT_TRUE(both.ok);
  const double a = both.analytic.rollout_s, r = both.simulated.mean_step.rollout_s;
  std::printf("analytic %.1f s, simulated %.1f s, ratio %.4f\n", a, r, a / r);
  EXPECT_NEAR(a / r, 1.0, 0.04) << "analytic " << a << " s, simulated " << r << " s";
}

}  // namespace
}  // namespace rlcost::sim::analytic_internal
