#include "core/slices.h"

#include <array>
#include <vector>

#include <gtest/gtest.h>

namespace rlcost {
namespace {

// Worked by hand: points {100, 200, 300, 1000}, mean to keep 350.
// m * mean - top = 4 * 350 - 1000 = 400; body 100 + 200 + 300 = 600;
// scale 400 / 600 = 2/3: {66.67, 133.33, 200, 1000}, mean (400 + 1000) / 4 = 350.
// Scaling the whole sum by m * mean / sum and then applying it to the body
// only (the analytic rollout's rule before this test) would give scale
// 1400 / 1600 = 0.875: mean (0.875 * 600 + 1000) / 4 = 381.25, not 350.
TEST(KeepMeanWithTopPinned, TheBodyAloneIsRescaledSoTheMeanHolds) {
  std::array<double, 4> v{100, 200, 300, 1000};
  KeepMeanWithTopPinned(v, 350.0);
  EXPECT_NEAR(v[0], 200.0 / 3.0, 1e-9);
  EXPECT_NEAR(v[1], 400.0 / 3.0, 1e-9);
  EXPECT_NEAR(v[2], 200.0, 1e-9);
  EXPECT_DOUBLE_EQ(v[3], 1000.0);
  EXPECT_NEAR((v[0] + v[1] + v[2] + v[3]) / 4.0, 350.0, 1e-9);
}

TEST(KeepMeanWithTopPinned, ABodyScaledUpStaysAtMostTheTopAndSorted) {
  // mean 700: 4 * 700 - 1000 = 1800 over a body of 600: scale 3 ->
  // {300, 600, 900}, all under the top; mean (1800 + 1000) / 4 = 700.
  std::vector<double> v{100, 200, 300, 1000};
  KeepMeanWithTopPinned(v, 700.0);
  EXPECT_NEAR(v[0], 300.0, 1e-9);
  EXPECT_NEAR(v[2], 900.0, 1e-9);
  // mean 900: scale (3600 - 1000) / 600 = 4.33 -> {433.3, 866.7, 1300 -> 1000 (the top)}, sorted.
  std::vector<double> w{100, 200, 300, 1000};
  KeepMeanWithTopPinned(w, 900.0);
  EXPECT_NEAR(w[0], 1300.0 / 3.0, 1e-9);
  EXPECT_NEAR(w[1], 2600.0 / 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(w[2], 1000.0);
  EXPECT_DOUBLE_EQ(w[3], 1000.0);
}

TEST(KeepMeanWithTopPinned, ATopAboveEveryPointsShareLeavesTheBodyAtZero) {
  // m * mean - top = 2 * 100 - 1000 < 0: the body cannot carry the mean; it
  // goes to 0 and the pinned top stands (the mean is then top / m).
  std::vector<double> v{50, 1000};
  KeepMeanWithTopPinned(v, 100.0);
  EXPECT_DOUBLE_EQ(v[0], 0.0);
  EXPECT_DOUBLE_EQ(v[1], 1000.0);
  std::vector<double> one{7.0};
  KeepMeanWithTopPinned(one, 3.0);
  EXPECT_DOUBLE_EQ(one[0], 7.0);
}

}  // namespace
}  // namespace rlcost
