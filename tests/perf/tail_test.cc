// Tail handling in closed form (src/perf/tail.cc, docs/model.md "Tail
// handling"): numbers worked out by hand in the comments.
#include <cmath>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/tail.h"
#include "support.h"
#include "uniform_lengths.h"

namespace rlcost::perf {
namespace {

using test::Cat;
using test::Uniform0To2000;

TEST(Tail, OverProvisionCutsAtTheQuantileOfTheGroupMaximum) {
  const Distribution d = Uniform0To2000();
  // G = 1, f = 1: F(L_c) = 1 / 2, L_c = 1000.
  EXPECT_NEAR(TailCut(d, 1, 1.0), 1000, 1.0);
  // G = 4, f = 1: F(L_c)^4 = 1/2, F = 2^(-1/4) = 0.840896, L_c = 1681.8.
  EXPECT_NEAR(TailCut(d, 4, 1.0), 1681.8, 1.0);
  // G = 1, f = 0.25: F = 0.8, L_c = 1600.
  EXPECT_NEAR(TailCut(d, 1, 0.25), 1600, 1.0);
}

TEST(Tail, OverProvisionWastesWhatTheDroppedDecoded) {
  TailSpec sp{TailMode::kOverProvision, 1.0};
  auto t = TailRounds(Uniform0To2000(), 100, 1, sp).value();
  // 200 launched decode min(L, 1000): E = 0.5 x 500 + 0.5 x 1000 = 750;
  // the 100 kept have E[L | L <= 1000] = 500: wasted 200 x 750 - 100 x 500 = 100,000.
  EXPECT_NEAR(t.cut_tokens, 1000, 1.0);
  EXPECT_NEAR(t.launched, 200, 1e-9);
  EXPECT_NEAR(t.wasted_tokens, 100000, 100);
  EXPECT_NEAR(t.dropped_share, 0.5, 1e-12);
  EXPECT_NEAR(t.trained_mean_tokens, 500, 0.5);
  EXPECT_NEAR(t.none_mean_tokens, 1000, 0.5);
  ASSERT_EQ(t.rounds.size(), 1u);
  // The round stops at the cut; its points keep the mean 750.
  EXPECT_NEAR(t.rounds[0].slices.back(), 1000, 1.0);
  double mean = 0;
  for (double x : t.rounds[0].slices) mean += x / t.rounds[0].slices.size();
  EXPECT_NEAR(mean, 750, 2);
}

TEST(Tail, TailBatchingRunsTheDeferredPromptsInLongRounds) {
  TailSpec sp{TailMode::kTailBatching, 1.0};
  // G = 1, f = 1: each prompt launches G' = 2 responses and is done at the
  // first: 1 - (1 - p)^2 = 1/2, p = 1 - 1/sqrt(2) = 0.29289, L_c = 585.79.
  EXPECT_EQ(TailResponsesPerPrompt(sp, 1), 2);
  auto t = TailRounds(Uniform0To2000(), 100, 1, sp).value();
  EXPECT_NEAR(t.cut_tokens, 585.79, 1.0);
  // One long round per short round: half the steps, half the prompts deferred.
  ASSERT_EQ(t.rounds.size(), 2u);
  EXPECT_NEAR(t.rounds[0].share, 0.5, 1e-12);
  EXPECT_NEAR(t.rounds[1].share, 0.5, 1e-12);
  EXPECT_NEAR(t.long_round_share, 0.5, 1e-12);
  EXPECT_NEAR(t.deferred_share, 0.5, 1e-12);
  // The short round decodes 2 x 100 prompts x 2 responses = 400 of min(L, L_c),
  // mean L_c (1 - p/2) = 500.0.
  EXPECT_NEAR(t.rounds[0].sequences, 400, 1e-9);
  // A deferred prompt had both responses past L_c: the long round holds
  // U[585.79, 2000], mean 1292.9, its longest of 100 at 585.79 + 1414.2 x 100/101 = 1986.0.
  double mean = 0;
  for (double x : t.rounds[1].slices) mean += x / t.rounds[1].slices.size();
  EXPECT_NEAR(mean, 1292.9, 3);
  EXPECT_NEAR(t.rounds[1].slices.back(), 1986.0, 1.5);
  // Kept: the first finisher of each kept prompt. Of its K ~ Bin(2, p)
  // responses below L_c (K >= 1): K = 1 with 2p(1-p) = 0.41421, at Q(p/2) =
  // 292.89; K = 2 with p^2 = 0.08579, the shorter at Q(p/3) = 195.26; given
  // K >= 1 (0.5): (0.41421 x 292.89 + 0.08579 x 195.26) / 0.5 = 276.14.
  // Wasted 400 x 500 - 100 x 276.14 = 172,386 on half the steps: 86,193.
  EXPECT_NEAR(t.wasted_tokens, 86193, 100);
  // Trained: (276.14 + 1292.9) / 2 = 784.5, below E[L] = 1000: keeping the
  // first response of two favours short ones.
  EXPECT_NEAR(t.trained_mean_tokens, 784.5, 1.5);
}

TEST(Tail, PartialRolloutOfExponentialLengthsStopsAtMeanLnTwo) {
  // Exponential lengths are memoryless: a carried response's remaining length
  // is again exponential(mu). With 2n in flight and the step stopping at its
  // n-th finish, F(T) = 1/2: T = mu ln 2 = 1000 x 0.6931 = 693.1. Each
  // response finishes in a step with probability 1/2 whatever its age, so the
  // age at finish is geometric: mean (1 - 1/2) / (1/2) = 1 version behind,
  // and half the trained ones were carried (the pool's carried share, n / 2n).
  const Distribution d = Distribution::Make(DistKind::kExponential, 1000, 1, std::nullopt, std::nullopt).value();
  TailSpec sp{TailMode::kPartialRollout, 1.0};
  auto t = TailRounds(d, 512, 1, sp).value();
  // 64 bins of the distribution stand for it: within 3%.
  EXPECT_NEAR(t.cut_tokens, 693.1, 0.03 * 693.1);
  EXPECT_NEAR(t.carried_share, 0.5, 0.03);
  EXPECT_NEAR(t.mean_staleness, 1.0, 0.05);
  EXPECT_NEAR(t.wasted_tokens, 0, 1e-9);
  // Nothing is dropped: the trained responses are the distribution's.
  EXPECT_NEAR(t.trained_mean_tokens, 1000, 0.03 * 1000);
}

TEST(Tail, FixedLengthsGainNothingAndWasteTheExtraLaunch) {
  // Every response 1000 tokens: all finish together, the cut is 1000 and the
  // f = 0.5 extra are decoded in full and dropped: 0.5 x 100 x 1000 = 50,000.
  TailSpec sp{TailMode::kOverProvision, 0.5};
  auto t = TailRounds(Distribution::Fixed(1000), 100, 1, sp).value();
  EXPECT_NEAR(t.cut_tokens, 1000, 1e-9);
  EXPECT_NEAR(t.wasted_tokens, 50000, 1e-6);
}

// The shared default without the built-in default's veRL engine share (0.5 of
// each GPU): its 128 responses per engine then fit the KV cache at once, so the
// step waits on its longest response and not on waves of admission (with veRL's
// share the cache holds 69.6 and a launch of 25% more adds a wave instead).
Scenario With(const std::vector<Override>& ov) { return test::DefaultWithoutFramework(Cat(), ov).value(); }

TEST(Tail, EstimateSavesGenerationOnALongTailAndNotOnANarrowOne) {
  // The default scenario (cv 0.8 lengths, 1024 responses per step).
  auto none = EstimateAnalytic(With({})).value();
  auto wide = EstimateAnalytic(With({{"pipeline.tail", "{mode: over_provision, over_launch: 0.25}"}})).value();
  EXPECT_TRUE(wide.step.tail_active);
  EXPECT_GT(wide.step.tail_rollout_saved_s, 0);
  EXPECT_LT(wide.step.rollout_s, none.step.rollout_s);
  EXPECT_NEAR(wide.step.tail_rollout_saved_s, none.step.rollout_s - wide.step.rollout_s,
              0.02 * none.step.rollout_s);
  // Narrow lengths (cv 0.05): the cut sits near the mean, the extra launch
  // costs more than the tail it removes.
  auto narrow_none = EstimateAnalytic(With({{"environment.response_tokens", "{mean: 2000, cv: 0.05}"}})).value();
  auto narrow = EstimateAnalytic(With({{"environment.response_tokens", "{mean: 2000, cv: 0.05}"},
                                       {"pipeline.tail", "{mode: over_provision, over_launch: 0.25}"}}))
                    .value();
  EXPECT_GT(narrow.step.rollout_s, narrow_none.step.rollout_s);
}

TEST(Tail, ScenarioFieldsAreCheckedWithTheirPath) {
  auto bad = DefaultScenario(Cat(), {{"pipeline.tail", "{mode: sometimes}"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("pipeline.tail.mode"), std::string::npos) << bad.error().ToString();
  auto missing = DefaultScenario(Cat(), {{"pipeline.tail", "over_provision"}});
  ASSERT_FALSE(missing.has_value());
  EXPECT_NE(missing.error().ToString().find("pipeline.tail.over_launch"), std::string::npos);
  auto big = DefaultScenario(Cat(), {{"pipeline.tail", "{mode: tail_batching, over_launch: 9}"}});
  ASSERT_FALSE(big.has_value());
  EXPECT_NE(big.error().ToString().find("pipeline.tail.over_launch"), std::string::npos);
  // partial_rollout takes APRIL's f = 1 by default.
  auto april = DefaultScenario(Cat(), {{"pipeline.tail", "partial_rollout"}}).value();
  EXPECT_EQ(april.pipeline.tail.mode, TailMode::kPartialRollout);
  EXPECT_DOUBLE_EQ(april.pipeline.tail.over_launch, 1.0);
  // Asynchronous pipelines are not priced yet: a clear "not yet".
  auto async = With({{"pipeline.tail", "partial_rollout"}, {"pipeline.mode", "async"},
                     {"placement.mode", "disaggregated"}, {"placement.rollout_gpus", "4"},
                     {"placement.train_gpus", "4"}});
  auto e = EstimateAnalytic(async);
  ASSERT_FALSE(e.has_value());
  EXPECT_NE(e.error().ToString().find("not yet"), std::string::npos) << e.error().ToString();
}

}  // namespace
}  // namespace rlcost::perf
