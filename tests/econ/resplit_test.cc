// Elastic pools (placement.resplit, src/econ/resplit.cc, docs/model.md
// "Elastic pools"): the run's steps priced phase by phase with the split
// re-chosen, against the split as written.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "econ/resplit.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "rlcost/signal.h"
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
  Scenario s = Load("resplit-lengths-grow.yaml");
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  ASSERT_TRUE(e->resplit.has_value());
  const auto& r = *e->resplit;
  ASSERT_EQ(r.phases, 4);
  ASSERT_EQ(r.rollout_gpus.size(), 4u);
  // Each phase's mean length is the mean of its 75 steps' schedule: linear
  // 500 -> 16000 over 300 steps, phase 1 = steps 1..75, mean at step 38:
  // 500 + 15500 x 37 / 299 = 2418 tokens.
  EXPECT_NEAR(r.phase_mean_tokens[0], 500 + 15500 * 37.0 / 299, 1.0);
  // The run starts at the split as written (24 + 40) and moves GPUs to
  // generation as the responses grow, in whole nodes of 8 as the planner
  // places roles (measured 24, 32, 40, 40).
  EXPECT_EQ(r.rollout_gpus.front(), 24);
  EXPECT_GT(r.rollout_gpus.back(), r.rollout_gpus.front());
  for (int g : r.rollout_gpus) EXPECT_EQ(g % 8, 0) << g;
  EXPECT_LT(r.steps_h, r.fixed_steps_h);
  EXPECT_LT(r.usd, r.fixed_usd);
  // The dollars are the hours at the run's price per hour (64 GPUs at the list price).
  EXPECT_NEAR(r.usd / r.steps_h, 64 * s.hardware.price_per_gpu_hour, 1e-9 * r.usd);
  // The run as estimated is the re-split run: its steps are the re-split hours.
  EXPECT_NEAR(e->run.steps_h, r.steps_h, 1e-9 * r.steps_h);
  // The split as written is the run without placement.resplit.
  auto fixed = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit", "none"}}));
  ASSERT_TRUE(fixed.has_value());
  EXPECT_FALSE(fixed->resplit.has_value());
  EXPECT_NEAR(fixed->run.steps_h, r.fixed_steps_h, 1e-9 * r.fixed_steps_h);
  EXPECT_LT(e->usd, fixed->usd);
}

TEST(Resplit, EachChangeOfSplitStopsTheRunForRestartSeconds) {
  auto none = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", "0"}}));
  auto ten = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", "10"}}));
  ASSERT_TRUE(none && ten);
  ASSERT_GT(none->resplit->resplits, 0);
  EXPECT_EQ(none->resplit->resplits, ten->resplit->resplits);
  // Each change: 10 s more of the whole run.
  EXPECT_NEAR((ten->resplit->steps_h - none->resplit->steps_h) * 3600, ten->resplit->resplits * 10.0, 1e-6);
  EXPECT_NEAR((ten->run.steps_h - none->run.steps_h) * 3600, ten->resplit->resplits * 10.0, 1e-6);
  // Default: one start-up, bf16 weights read at the storage bandwidth plus the warm-up.
  Scenario s = Load("resplit-lengths-grow.yaml");
  const double load_s = perf::WeightBytes(s.model, Precision::kBf16) / 1e9 / s.run.startup.storage_read_gb_per_s;
  EXPECT_NEAR(econ_internal::ResplitRestartS(s), load_s + 14.0, 1e-9);
}

// The rule, worked by hand on phase 2 (steps 76..150): it moves from the
// split it holds to its best one when its 75 steps save more than the stop,
// 75 x (t(24) - t(32)) > restart_s, the step times at the phase's mean length.
TEST(Resplit, APhaseMovesOnlyWhenItsStepsSaveMoreThanTheStop) {
  Scenario s = Load("resplit-lengths-grow.yaml");
  auto sig = signal::Analyze(s);
  ASSERT_TRUE(sig.has_value());
  const auto& means = s.environment.response_tokens_schedule->mean_per_step;
  double m = 0;
  for (int i = 75; i < 150; ++i) m += means[i] / 75;
  auto step_at = [&](int rollout) {
    Scenario c = s;
    c.environment.response_tokens = *s.environment.response_tokens_schedule->At(m);
    c.environment.response_tokens_schedule.reset();
    c.placement.resplit.reset();
    c.placement.rollout_gpus = rollout;
    c.placement.train_gpus = 64 - rollout;
    auto t = sim::AnalyticStep(c, *sig, TextDetail::kNumbers);
    EXPECT_TRUE(t.has_value());
    return t ? t->time_s : 0.0;
  };
  const double gain_s = 75 * (step_at(24) - step_at(32));
  ASSERT_GT(gain_s, 0);
  auto below = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", fmt::format("{}", gain_s * 0.99)}}));
  auto above = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", fmt::format("{}", gain_s * 1.01)}}));
  ASSERT_TRUE(below && above);
  EXPECT_EQ(below->resplit->rollout_gpus[1], 32);
  EXPECT_EQ(above->resplit->rollout_gpus[1], 24);
  // A stop longer than any phase saves: never re-split, the run as written.
  auto day = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit.restart_s", "86400"}}));
  ASSERT_TRUE(day.has_value());
  EXPECT_EQ(day->resplit->resplits, 0);
  EXPECT_NEAR(day->resplit->usd, day->resplit->fixed_usd, 1e-9 * day->resplit->usd);
  auto fixed = EstimateAnalytic(Load("resplit-lengths-grow.yaml", {{"placement.resplit", "none"}}));
  ASSERT_TRUE(fixed.has_value());
  EXPECT_NEAR(day->usd, fixed->usd, 1e-9 * fixed->usd);
}

TEST(Resplit, TheSimulatorSaysNotYet) {
  auto e = EstimateSimulated(Load("resplit-lengths-grow.yaml"), sim::Options{});
  ASSERT_FALSE(e.has_value());
  EXPECT_NE(e.error().ToString().find("not yet"), std::string::npos) << e.error().ToString();
  EXPECT_NE(e.error().ToString().find("placement.resplit"), std::string::npos);
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
