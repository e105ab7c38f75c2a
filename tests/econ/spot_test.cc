// Spot GPUs (hardware.spot; docs/model.md, "Spot GPUs"): the rollout pool's
// expected loss, the prices per role and the trainer's restarts, worked by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

std::string Helps() { return std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/spot-rollout-helps.yaml"; }
std::string Frequent() {
  return std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/spot-rollout-frequent-preemptions.yaml";
}

Scenario Load(const std::string& f, const std::vector<std::string>& sets = {}) {
  std::vector<Override> ov;
  for (const auto& x : sets) ov.push_back(ParseOverride(x).value());
  auto s = LoadScenarioFile(f, Cat(), ov);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
  return *s;
}

TEST(Spot, RolloutPreemptionsLengthenASynchronousStepByTheLostShare) {
  // restart_s 100 given; T = the plain batch's generation time (sync: every
  // rollout in flight for the whole batch). u = 0.05 x 1 node x (100 + T/2) /
  // 3600; the step grows by T x u / (1 - u) and nothing else moves.
  auto spot = EstimateAnalytic(Load(Helps(), {"hardware.spot.rollout.restart_s=100"}));
  auto plain = EstimateAnalytic(Load(Helps(), {"hardware.spot=none"}));
  ASSERT_TRUE(spot && plain);
  const double T = plain->step.rollout_busy_s;
  const double u = 0.05 * (100 + T / 2) / 3600;
  EXPECT_NEAR(spot->step.spot_lost_share, u, 1e-12);
  EXPECT_NEAR(spot->step.time_s - plain->step.time_s, T * u / (1 - u), 1e-6);
  EXPECT_NEAR(spot->step.train_s, plain->step.train_s, 1e-9);
}

TEST(Spot, RestartDefaultsToAStartUpOfTheModel) {
  // Qwen3-8B: bf16 weights read at 2000/2048 GB/s per node + 14 s warm-up.
  Scenario s = Load(Helps());
  const double gb = perf::WeightBytes(s.model, Precision::kBf16) / 1e9;
  EXPECT_NEAR(perf::SpotRolloutRestartS(s), gb / (2000.0 / 2048.0) + 14.0, 1e-9);
  EXPECT_GT(gb, 15.0);  // 8.2 B parameters x 2 bytes
  EXPECT_LT(gb, 17.5);
}

TEST(Spot, RolloutGpusPayTheSpotPriceAndTrainGpusTheListPrice) {
  // 24 rollout GPUs at 0.4 x p and 8 training GPUs at p: mean (24 x 0.4 + 8) / 32 = 0.55 p.
  auto e = EstimateAnalytic(Load(Helps()));
  ASSERT_TRUE(e);
  const double p = Load(Helps()).hardware.price_per_gpu_hour;
  EXPECT_NEAR(e->usd_per_gpu_hour, 0.55 * p, 1e-9);
  EXPECT_NEAR(e->usd_per_step, e->step.time_s * (24 * 0.4 * p + 8 * p) / 3600.0, 1e-9);
}

TEST(Spot, FrequentPreemptionsCostMoreThanTheDiscountSaves) {
  // 6 per node-hour, 300 s each: u = 6 x (300 + T/2) / 3600 > 1/2 at any T;
  // the run's dollars per useful sample exceed the on-demand run's.
  auto spot = EstimateAnalytic(Load(Frequent()));
  auto plain = EstimateAnalytic(Load(Frequent(), {"hardware.spot=none"}));
  ASSERT_TRUE(spot && plain);
  EXPECT_GT(spot->step.spot_lost_share, 0.5);
  EXPECT_GT(spot->usd_per_useful_sample, plain->usd_per_useful_sample);
  // And the sparse market's are cheaper.
  auto cheap = EstimateAnalytic(Load(Helps()));
  auto cheap_plain = EstimateAnalytic(Load(Helps(), {"hardware.spot=none"}));
  ASSERT_TRUE(cheap && cheap_plain);
  EXPECT_LT(cheap->usd_per_useful_sample, cheap_plain->usd_per_useful_sample);
}

TEST(Spot, APoolThatCannotFinishIsAnErrorAtTheRate) {
  auto s = Load(Frequent(), {"hardware.spot.rollout.preemptions_per_hour=30"});
  auto e = EstimateAnalytic(s);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().ToString().find("hardware.spot.rollout.preemptions_per_hour"), std::string::npos)
      << e.error().ToString();
}

TEST(Spot, ARoleWithoutPriceOrRateIsAnErrorNamingTheField) {
  auto a = LoadScenarioFile(Helps(), Cat(), {ParseOverride("hardware.spot.rollout={preemptions_per_hour: 1}").value()});
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().ToString().find("hardware.spot.rollout.price"), std::string::npos) << a.error().ToString();
  auto b = LoadScenarioFile(Helps(), Cat(), {ParseOverride("hardware.spot.rollout={price: 1.2}").value()});
  ASSERT_FALSE(b);
  EXPECT_NE(b.error().ToString().find("hardware.spot.rollout.preemptions_per_hour"), std::string::npos)
      << b.error().ToString();
}

TEST(Spot, TrainerPreemptionsRestartTheRunAsDalysModel) {
  // Colocated default scenario (one node of 8), the whole pool on spot at 0.1
  // per node-hour, restart 100 s, no checkpoint: M = 36,000 s, R = 100 s, one
  // segment of W = steps x step: T = M e^(R/M) (e^(W/M) - 1); restarts = T - W.
  auto e = EstimateAnalytic(Load(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml",
                                 {"hardware.spot.train={price_ratio: 0.5, preemptions_per_hour: 0.1, restart_s: 100}"}));
  ASSERT_TRUE(e);
  const double M = 36000, R = 100, W = e->run.steps_h * 3600;
  const double T = M * std::exp(R / M) * std::expm1(W / M);
  EXPECT_NEAR(e->run.restarts_h * 3600, T - W, 1e-6 * T);
  // Every GPU at half price, restarts included.
  const double p = Load(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml").hardware.price_per_gpu_hour;
  EXPECT_NEAR(e->usd, e->wall_time_h * 8 * 0.5 * p, 1e-9 * e->usd);
}

TEST(Spot, ARunThatWouldNeverFinishIsRefusedNotPricedAt1e303) {
  // #40: 65,536 spot training GPUs (8,192 nodes at 0.1 preemptions per
  // node-hour: one every 4.4 s, each a 100 s restart) gave run.usd 2.05e303.
  auto e = EstimateAnalytic(Load(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml",
                                 {"hardware.gpus=65536", "hardware.spot.train={price_ratio: 0.5, preemptions_per_hour: 0.1, restart_s: 100}"}));
  ASSERT_FALSE(e) << e->usd;
  EXPECT_EQ(e.error().code, ErrorCode::kDoesNotFit);
  const std::string m = e.error().ToString();
  EXPECT_NE(m.find("hardware.spot.train: the run would not finish: an interruption every 4.39 s"), std::string::npos) << m;
  // One node at the same rate finishes, priced by Daly's formula (above).
  EXPECT_TRUE(EstimateAnalytic(Load(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml",
                                    {"hardware.spot.train={price_ratio: 0.5, preemptions_per_hour: 0.1, restart_s: 100}"})));
}

TEST(Spot, TheSimulatedStepCarriesTheSameExpectedLoss) {
  sim::Options o;
  o.steps = 2;
  auto spot = EstimateSimulated(Load(Helps(), {"hardware.spot.rollout.restart_s=100"}), o);
  auto plain = EstimateSimulated(Load(Helps(), {"hardware.spot=none"}), o);
  ASSERT_TRUE(spot && plain);
  const double T = plain->step.rollout_busy_s;
  const double u = 0.05 * (100 + T / 2) / 3600;
  EXPECT_NEAR(spot->step.time_s - plain->step.time_s, T * u / (1 - u), 1e-6);
}

// The speculative-decoding example scenarios (scenarios/levers/) load and
// sit on either side of plain decoding on dollars per useful sample.
TEST(LeverScenarios, SpeculationPaysAtASmallBatchAndNotAtAKvBoundOneWithLowAcceptance) {
  const std::string dir = std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/";
  auto helps = EstimateAnalytic(Load(dir + "speculative-helps.yaml"));
  auto helps_off = EstimateAnalytic(Load(dir + "speculative-helps.yaml", {"engine.speculative.method=none"}));
  ASSERT_TRUE(helps && helps_off);
  EXPECT_LT(helps->usd_per_useful_sample, helps_off->usd_per_useful_sample);
  auto big = EstimateAnalytic(Load(dir + "speculative-large-batch.yaml"));
  auto big_off = EstimateAnalytic(Load(dir + "speculative-large-batch.yaml", {"engine.speculative.method=none"}));
  ASSERT_TRUE(big && big_off);
  EXPECT_GT(big->usd_per_useful_sample, big_off->usd_per_useful_sample);
}

}  // namespace
}  // namespace rlcost
