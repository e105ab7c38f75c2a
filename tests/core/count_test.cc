// core/count.h: every double that becomes an int goes through a bounded
// conversion (a cast outside int's range is undefined behaviour; fuzzing
// reached it in the analytic path and in the log readers).
#include "core/count.h"

#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <limits>

namespace rlcost {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(Count, ComputedCountsAreClampedBeforeTheConversion) {
  EXPECT_EQ(CeilCount(2.1, 1, 48), 3);
  EXPECT_EQ(CeilCount(2.7e10, 1, 48), 48);
  EXPECT_EQ(CeilCount(1e300, 1, INT_MAX), INT_MAX);
  EXPECT_EQ(CeilCount(-5, 1, 48), 1);
  EXPECT_EQ(CeilCount(kNan, 1, 48), 1);
  EXPECT_EQ(CeilCount(kInf, 1, 48), 48);
  EXPECT_EQ(FloorCount(2.9, 0, 10), 2);
  EXPECT_EQ(FloorCount(-kInf, 0, 10), 0);
  EXPECT_EQ(FloorCount(kNan, 0, 10), 0);
  EXPECT_EQ(FloorCount(1e300, 0, 10), 10);
}

TEST(Count, AWholeNumberIsFiniteWithoutAFractionAndInRange) {
  EXPECT_EQ(WholeNumber(12.0, 0, INT_MAX), 12);
  EXPECT_EQ(WholeNumber(0, 0, 10), 0);
  EXPECT_EQ(WholeNumber(10, 0, 10), 10);
  EXPECT_EQ(WholeNumber(-3, -5, 5), -3);
  EXPECT_EQ(WholeNumber(static_cast<double>(INT_MAX), 0, INT_MAX), INT_MAX);
  for (double bad : {2.5, -1.0, 11.0, 1e300, -1e300, kNan, kInf, -kInf, static_cast<double>(INT_MAX) + 1}) {
    EXPECT_FALSE(WholeNumber(bad, 0, 10).has_value()) << bad;
  }
  EXPECT_FALSE(WholeNumber(static_cast<double>(INT_MAX) + 1, 0, INT_MAX).has_value());
}

}  // namespace
}  // namespace rlcost
