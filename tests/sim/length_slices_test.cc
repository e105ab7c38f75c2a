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
#include "scenario/longest_draw.h"
#include "sim/analytic_rollout.h"
#include "sim_support.h"
#include "support.h"
#include "uniform_lengths.h"

namespace rlcost::sim::analytic_internal {
namespace {

using test::Uniform0To2000;  // Quantile(u) = 2000 u

// n = 96 sequences on the engine, 96 in the step. By hand: m = 48; the top
// point is E[X_(96)] = 2000 x 96/97 = 1979.38 (1979.47 by the rule) with weight 1/96; the body's 47 slices,
// weight (95/96)/47 each, sit at 2000 (95/96)(j + 0.5)/47 (j = 0: 21.05,
// j = 46: 1957.89), whose weighted sum is (95/96)^2 1000 = 979.28; the mean
// 1000 leaves 1000 - 1979.38/96 = 979.38 for the body, a scale of 1.0001.
TEST(LengthSlices, ManySequencesPutOneAtTheMaximum) {
  std::array<double, kMaxSlices> len{}, alive{};
  const int m = LengthSlices(Uniform0To2000(), 96, 96, len, alive, true);
  ASSERT_EQ(m, 48);
  EXPECT_NEAR(len[47], 2000.0 * 96 / 97, 0.7);
  EXPECT_DOUBLE_EQ(len[47], scenario_internal::ExpectedLongestDraw(Uniform0To2000(), 96));
  EXPECT_NEAR(alive[47], 1.0 / 96, 1e-12);
  EXPECT_NEAR(alive[0], 1.0, 1e-12);
  EXPECT_NEAR(alive[46], 1.0 - 46 * (95.0 / 96) / 47, 1e-12);
  const double scale = (1000 - len[47] / 96) / (95.0 / 96 * 95.0 / 96 * 1000);
  EXPECT_NEAR(scale, 1.0001, 1e-4);
  EXPECT_NEAR(len[0], 2000.0 * 95 / 96 * 0.5 / 47 * scale, 1e-6);
  EXPECT_NEAR(len[46], 2000.0 * 95 / 96 * 46.5 / 47 * scale, 1e-6);
  // The weighted mean is the distribution's.
  double mean = 0;
  for (int j = 0; j < m; ++j) mean += (alive[j] - (j + 1 < m ? alive[j + 1] : 0.0)) * len[j];
  EXPECT_NEAR(mean, 1000.0, 1e-9);
}

// n = 4: one point a sequence at Quantile(top (j + 1) / 4), top = 8/9 (8 in
// the step), the last at E[X_(8)] = 2000 x 8/9: 444.44, 888.89, 1333.33,
// 1777.78, mean 1111.11; the body is scaled by (4000 - 1777.78) / 2666.67 =
// 0.8333 to keep the mean 1000: 370.37, 740.74, 1111.11, 1777.78; alive 1,
// 3/4, 1/2, 1/4. The rule's top, 1778.27, scales the body by 0.83315
// instead (each point the quantile times (4000 - top) / 2666.67).
TEST(LengthSlices, FewSequencesKeepEqualWeights) {
  std::array<double, kMaxSlices> len{}, alive{};
  const int m = LengthSlices(Uniform0To2000(), 4, 8, len, alive, true);
  ASSERT_EQ(m, 4);
  EXPECT_NEAR(len[3], 1777.78, 0.7);
  const double scale = (4000 - len[3]) / (2000.0 * 8 / 9 * (0.25 + 0.5 + 0.75));
  EXPECT_NEAR(scale, 0.8333, 0.0003);
  EXPECT_NEAR(len[0], 2000.0 * 8 / 9 * 0.25 * scale, 1e-6);
  EXPECT_NEAR(len[1], 2000.0 * 8 / 9 * 0.5 * scale, 1e-6);
  EXPECT_NEAR(len[2], 2000.0 * 8 / 9 * 0.75 * scale, 1e-6);
  EXPECT_DOUBLE_EQ(alive[0], 1.0);
  EXPECT_DOUBLE_EQ(alive[1], 0.75);
  EXPECT_DOUBLE_EQ(alive[3], 0.25);
}

// Without single_top, the equal grid: 96 sequences in 48 slices of 2, the
// top at E[X_(96)] = 2000 x 96/97 = 1979.38 with weight 1/48.
TEST(LengthSlices, EqualGridPutsASliceAtTheMaximum) {
  std::array<double, kMaxSlices> len{}, alive{};
  const int m = LengthSlices(Uniform0To2000(), 96, 96, len, alive, false);
  ASSERT_EQ(m, 48);
  EXPECT_NEAR(len[47], 2000.0 * 96 / 97, 0.7);
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
