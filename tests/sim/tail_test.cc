// Tail handling: the closed form (perf::TailRounds) against the same
// mechanism run on sampled lengths (sim::SampledTail). docs/model.md, "Tail
// handling".
#include <cmath>

#include <gtest/gtest.h>

#include "rlcost/tail.h"

namespace rlcost::sim {
namespace {

Distribution Lognormal(double mean, double cv, double max) {
  return Distribution::Make(DistKind::kLognormal, mean, cv, std::nullopt, max).value();
}

void ExpectAgree(const Distribution& d, int n, int G, TailSpec sp) {
  auto a = perf::TailRounds(d, n, G, sp).value();
  auto s = SampledTail(d, n, G, sp, 400, 7).value();
  SCOPED_TRACE(std::string(ToString(sp.mode)));
  EXPECT_NEAR(s.cut_tokens, a.cut_tokens, 0.04 * a.cut_tokens);
  EXPECT_NEAR(s.wasted_tokens, a.wasted_tokens, 0.05 * a.wasted_tokens + 1e-9);
  EXPECT_NEAR(s.dropped_share, a.dropped_share, 0.01);
  EXPECT_NEAR(s.deferred_share, a.deferred_share, 0.03);
  EXPECT_NEAR(s.long_round_share, a.long_round_share, 0.03);
  EXPECT_NEAR(s.carried_share, a.carried_share, 0.03);
  EXPECT_NEAR(s.mean_staleness, a.mean_staleness, 0.06 * a.mean_staleness + 0.01);
  EXPECT_NEAR(s.trained_mean_tokens, a.trained_mean_tokens, 0.04 * a.trained_mean_tokens);
}

TEST(SampledTail, OverProvisionAgreesWithTheClosedForm) {
  ExpectAgree(Lognormal(2000, 0.8, 8192), 1024, 16, {TailMode::kOverProvision, 0.25});
  ExpectAgree(Lognormal(2000, 0.8, 8192), 256, 1, {TailMode::kOverProvision, 1.0});
}

TEST(SampledTail, TailBatchingAgreesWithTheClosedForm) {
  ExpectAgree(Lognormal(2000, 0.8, 8192), 1024, 16, {TailMode::kTailBatching, 0.25});
}

TEST(SampledTail, PartialRolloutAgreesWithTheClosedForm) {
  ExpectAgree(Lognormal(2000, 0.8, 8192), 1024, 1, {TailMode::kPartialRollout, 1.0});
  ExpectAgree(Distribution::Make(DistKind::kExponential, 1000, 1, std::nullopt, std::nullopt).value(), 512, 1,
              {TailMode::kPartialRollout, 1.0});
}

TEST(SampledTail, TailBatchingLongRoundsAreTheLongestOnes) {
  // The long rounds' longest segment: with f = 0.25 one step in five is long
  // and stops at the longest deferred response, far past the short rounds' cut.
  TailSpec sp{TailMode::kTailBatching, 0.25};
  const Distribution d = Lognormal(2000, 0.8, 8192);
  auto s = SampledTail(d, 1024, 16, sp, 400, 3).value();
  EXPECT_GT(s.step_max_tokens, s.cut_tokens);
  EXPECT_NEAR(s.long_round_share, 0.2, 0.03);
}

}  // namespace
}  // namespace rlcost::sim
