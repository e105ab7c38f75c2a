// Elastic pools (placement.resplit, src/econ/resplit.cc, docs/model.md
// "Elastic pools"): the run's steps priced phase by phase with the split
// re-chosen, against the split as written.
#include <gtest/gtest.h>

#include "econ/resplit.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

std::string Dir() { return std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/"; }

Scenario Load(const std::string& file, const std::vector<Override>& ov = {}) {
  auto s = LoadScenarioFile(Dir() + file, Cat(), ov);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
  return *s;
}

TEST(Resplit, GrowingResponsesMoveGpusToRolloutAndShortenTheRun) {
  auto e = EstimateAnalytic(Load("resplit-lengths-grow.yaml"));
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  ASSERT_TRUE(e->resplit.has_value());
  const auto& r = *e->resplit;
  ASSERT_EQ(r.phases, 4);
  ASSERT_EQ(r.rollout_gpus.size(), 4u);
  // Each phase's mean length is the mean of its 75 steps' schedule: linear
  // 1000 -> 12000 over 300 steps, phase 1 = steps 1..75, mean at step 38:
  // 1000 + 11000 x 37 / 299 = 2361 tokens.
  EXPECT_NEAR(r.phase_mean_tokens[0], 1000 + 11000 * 37.0 / 299, 1.0);
  // Longer responses want more of the GPUs generating (not step by step:
  // training grows with the length too, and each split has its own data-parallel
  // and KV-cache fit; measured 15, 16, 21, 18 of 32).
  EXPECT_GT(r.rollout_gpus.back(), r.rollout_gpus.front());
  for (int g : r.rollout_gpus) EXPECT_GT(g, 0);
  EXPECT_LT(r.steps_h, r.fixed_steps_h);
  EXPECT_LT(r.usd, r.fixed_usd);
  // The dollars are the hours at the run's price per hour (32 GPUs at the list price).
  EXPECT_NEAR(r.usd / r.steps_h, r.fixed_usd / r.fixed_steps_h, 1e-9 * r.usd);
}

TEST(Resplit, EachChangeOfSplitStopsTheRunForRestartSeconds) {
  auto none = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", "0"}}));
  auto hour = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", "3600"}}));
  ASSERT_TRUE(none && hour);
  ASSERT_GT(none->resplit->resplits, 0);
  EXPECT_EQ(none->resplit->resplits, hour->resplit->resplits);
  // Each change: one hour more.
  EXPECT_NEAR(hour->resplit->steps_h - none->resplit->steps_h, hour->resplit->resplits * 1.0, 1e-9);
  // Default: one start-up, bf16 weights read at the storage bandwidth plus the warm-up.
  Scenario s = Load("resplit-lengths-grow.yaml");
  const double load_s = perf::WeightBytes(s.model, Precision::kBf16) / 1e9 / s.run.startup.storage_read_gb_per_s;
  EXPECT_NEAR(econ_internal::ResplitRestartS(s), load_s + 14.0, 1e-9);
}

TEST(Resplit, FlatLengthsGiveNothingToResplitTo) {
  auto e = EstimateAnalytic(Load("resplit-lengths-flat.yaml"));
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  const auto& r = *e->resplit;
  EXPECT_EQ(r.resplits, 0);
  for (int g : r.rollout_gpus) EXPECT_EQ(g, r.rollout_gpus.front());
  EXPECT_NEAR(r.usd, r.fixed_usd, 1e-9 * r.fixed_usd);
}

TEST(Resplit, FieldsAreCheckedWithTheirPath) {
  auto colocated = LoadScenarioFile(Dir() + "resplit-lengths-grow.yaml", Cat(), {{"placement.mode", "colocated"}});
  ASSERT_FALSE(colocated.has_value());
  EXPECT_NE(colocated.error().ToString().find("placement.resplit"), std::string::npos);
  auto one = LoadScenarioFile(Dir() + "resplit-lengths-grow.yaml", Cat(), {{"placement.resplit.phases", "1"}});
  ASSERT_FALSE(one.has_value());
  EXPECT_NE(one.error().ToString().find("placement.resplit.phases"), std::string::npos) << one.error().ToString();
  auto no_schedule = DefaultScenario(Cat(), {{"placement.mode", "disaggregated"}, {"placement.rollout_gpus", "4"},
                                             {"placement.train_gpus", "4"}, {"placement.resplit", "{phases: 2}"}});
  ASSERT_FALSE(no_schedule.has_value());
  EXPECT_NE(no_schedule.error().ToString().find("response_tokens_schedule"), std::string::npos);
}

}  // namespace
}  // namespace rlcost
