#include <gtest/gtest.h>

#include "rlcost/types.h"

namespace rlcost {
namespace {

TEST(Types, EnumsRoundTrip) {
  for (auto p : {Precision::kBf16, Precision::kFp8, Precision::kFp4}) {
    EXPECT_EQ(PrecisionFromString(ToString(p)), p);
  }
  EXPECT_FALSE(PrecisionFromString("fp16").has_value());
  EXPECT_EQ(AcceptedNames<PipelineMode>(), "sync | async");
}

TEST(Types, BytesPerPrecision) {
  EXPECT_DOUBLE_EQ(BytesPer(Precision::kBf16), 2.0);
  EXPECT_DOUBLE_EQ(BytesPer(Precision::kFp8), 1.0);
  EXPECT_DOUBLE_EQ(BytesPer(Precision::kFp4), 0.5);
}

TEST(Types, DidYouMean) {
  EXPECT_EQ(ClosestMatch("respons_tokens", {"prompt_tokens", "response_tokens", "turns"}), "response_tokens");
  EXPECT_EQ(ClosestMatch("zzzzzz", {"prompt_tokens", "turns"}), "");
}

}  // namespace
}  // namespace rlcost
