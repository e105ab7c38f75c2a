// The busiest engine (docs/model.md, "The busiest engine"): a step waits for
// its slowest engine, the one whose random response lengths add up to the
// most work. Factor 1 + z_E cv / sqrt(n), z_E = Phi^-1((E - 0.375) / (E + 0.25))
// (Blom 1958), worked by hand from a normal table.
#include <gtest/gtest.h>

#include "rlcost/sim.h"

namespace rlcost::sim {
namespace {

TEST(BusiestEngine, EightEnginesOf256SequencesCarrySevenPercentMore) {
  // E = 8: (8 - 0.375) / (8 + 0.25) = 0.92424; Phi(1.43) = 0.92364,
  // Phi(1.44) = 0.92507 -> z = 1.43 + 0.01 x 0.00060 / 0.00143 = 1.4342
  // (the tabulated expected largest of 8 normals is 1.4236).
  // n = 256, cv 0.8: 1 + 1.4342 x 0.8 / 16 = 1.0717.
  EXPECT_NEAR(BusiestEngineFactor(8, 256, 0.8), 1.0717, 2e-4);
  // Four times the sequences halve the excess: 1 + 1.4342 x 0.8 / 32 = 1.0359.
  EXPECT_NEAR(BusiestEngineFactor(8, 1024, 0.8), 1.0359, 2e-4);
}

TEST(BusiestEngine, TwoEnginesAndTheCasesWithoutASpread) {
  // E = 2: 1.625 / 2.25 = 0.72222; Phi(0.59) = 0.72240 -> z = 0.5895
  // (exact E[max of 2] = 1 / sqrt(pi) = 0.5642). n = 100, cv 0.5:
  // 1 + 0.5895 x 0.5 / 10 = 1.0295.
  EXPECT_NEAR(BusiestEngineFactor(2, 100, 0.5), 1.0295, 2e-4);
  EXPECT_EQ(BusiestEngineFactor(1, 256, 0.8), 1.0);  // one engine: no other to wait for
  EXPECT_EQ(BusiestEngineFactor(8, 256, 0.0), 1.0);  // fixed lengths: every engine alike
}

}  // namespace
}  // namespace rlcost::sim
