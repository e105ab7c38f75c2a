// Small string helpers (core/strings.h).
#include <gtest/gtest.h>

#include "core/strings.h"

namespace rlcost {
namespace {

TEST(Strings, OneGpuIsSingularEveryOtherCountPlural) {
  EXPECT_EQ(GpuCount(1), "1 GPU");
  EXPECT_EQ(GpuCount(0), "0 GPUs");
  EXPECT_EQ(GpuCount(8), "8 GPUs");
  EXPECT_EQ(GpuCount(1024), "1024 GPUs");
}

TEST(Strings, TrimBlanksDropsOnlyOuterSpacesAndTabs) {
  EXPECT_EQ(TrimBlanks(" \ta b\t "), "a b");
  EXPECT_EQ(TrimBlanks(" \t "), "");
}

}  // namespace
}  // namespace rlcost
