// Dynamic sampling in rounds (veRL's DAPO loop: each round drains with its own
// tail and is rewarded before the next) and sandboxes held for a trajectory's
// whole life (start-up to verification), on both the analytic path and the
// simulator. docs/model.md, "Dynamic sampling (DAPO)" and "Sandboxes as they live".
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "sim/sim_support.h"
#include "support.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"

namespace rlcost::sim {
namespace {

using test::Cat;
using test::Load;
using test::LoadFile;

StepTiming Analytic(const Scenario& s) {
  auto sig = signal::Analyze(s);
  EXPECT_TRUE(sig.has_value());
  auto t = AnalyticStep(s, *sig);
  EXPECT_TRUE(t.has_value()) << (t ? "" : t.error().ToString());
  return t ? *t : StepTiming{};
}

using test::RunSim;

std::string Shared(const std::string& rel) { return "/work/shared/" + rel; }

// qwen3-8b on 8 x H100, DAPO, 32 prompts x 16, a long-tailed response length
// and a 2 s verification. Beta(1, 1): q = 15/17 per group; a round of 32
// groups is full with probability q^32 = 0.018, two rounds almost surely
// (Bin(64, q) >= 32): E[rounds] = 2 - q^32 = 1.982.
std::string Dapo(bool dynamic, int prompts = 32) {
  return std::string(R"(
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
environment:
  prompt_tokens: 300
  response_tokens: {mean: 1000, cv: 1.0, max: 8000}
  reward: {type: outcome, verify_s: 2}
  pass_rate: {mean: 0.5, concentration: 2.0}
algorithm: {name: dapo, group_size: 16, prompts_per_step: )") +
         std::to_string(prompts) + ", steps: 4, dynamic_sampling: " + (dynamic ? "true" : "false") + "}\n";
}

TEST(DynamicSamplingRounds, AnalyticPaysOneTailAndOneRewardPerRound) {
  Scenario ds = Load(Dapo(true));
  auto sig = signal::Analyze(ds);
  ASSERT_TRUE(sig.has_value());
  const double rounds = sig->gen_rounds_per_step;
  EXPECT_NEAR(rounds, 2 - std::pow(15.0 / 17, 32), 1e-9);
  EXPECT_DOUBLE_EQ(sig->rollouts_per_round, 512);
  StepTiming with = Analytic(ds);
  StepTiming one_round = Analytic(Load(Dapo(false)));  // the same 512 rollouts, once
  // Each round is the 512-rollout batch with its own drain and its own last
  // verification: rollout = E[R] x t_round, reward = E[R] x 2 s.
  EXPECT_NEAR(with.rollout_s, rounds * one_round.rollout_s, 1e-9 * with.rollout_s);
  EXPECT_NEAR(with.reward_s, rounds * 2.0, 1e-12);
  EXPECT_NEAR(with.rollouts_generated, rounds * 512, 1e-9);
  EXPECT_NEAR(with.generated_tokens, rounds * one_round.generated_tokens, 1e-6 * with.generated_tokens);
  // Not one big batch: two rounds of 512 take longer than one batch of 1024
  // (two tails, and half the batch to share each iteration's weight reads).
  StepTiming big = Analytic(Load(Dapo(false, 64)));
  EXPECT_GT(with.rollout_s / rounds * 2, big.rollout_s * 1.05);
}

TEST(DynamicSamplingRounds, SimulatorRunsEachRoundAsItsOwnBatch) {
  Scenario ds = Load(Dapo(true));
  SimResult r = RunSim(ds, 4);
  SimResult plain = RunSim(Load(Dapo(false)), 4);
  // Whole rounds of 512 rollouts: rollouts per step = 512 x (rounds drawn) / 4.
  const double rounds = r.mean_step.rollouts_generated / 512;
  EXPECT_NEAR(rounds * 4, std::round(rounds * 4), 1e-9);
  EXPECT_GE(rounds, 1.5);  // P(one round) = 0.018 per step
  EXPECT_LE(rounds, 3.0);
  // Every round ends with its own 2 s verification after its last trajectory.
  EXPECT_NEAR(r.mean_step.reward_s, 2.0 * rounds, 1e-6);
  EXPECT_NEAR(plain.mean_step.reward_s, 2.0, 1e-6);
  // Each round drains like the one-round step (same draws per batch index 0).
  EXPECT_GT(r.mean_step.rollout_s, 1.5 * plain.mean_step.rollout_s);
  EXPECT_DOUBLE_EQ(r.mean_step.rollouts_trained, 512);
  // The trainer takes 512 trajectories of the step's mean length, however
  // many rounds generated them: its update is TrainStep over those tokens
  // with mean length tokens / 512 (not tokens / (512 / rounds), which would
  // double the attention FLOPs of a two-round step). Steps differ only in
  // their tokens; the attention term is ~4% of the update, so 1% catches it.
  const double tokens = r.mean_step.trained_tokens;
  const double expected = perf::TrainStep(ds, tokens, tokens / 512, 8).time_s;
  EXPECT_NEAR(r.mean_step.train_s, expected, 0.01 * expected);
}

TEST(DynamicSamplingRounds, GenBatchPromptsNeedsDynamicSampling) {
  auto s = LoadScenarioText(R"(
algorithm: {name: dapo, gen_batch_prompts: 384}
)",
                            Cat());
  ASSERT_FALSE(s.has_value());
  EXPECT_NE(s.error().ToString().find("algorithm.gen_batch_prompts"), std::string::npos) << s.error().ToString();
  EXPECT_NE(s.error().ToString().find("dynamic_sampling: true"), std::string::npos);
  auto bad = LoadScenarioText("algorithm: {dynamic_sampling: true, max_gen_batches: -1}\n", Cat());
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("algorithm.max_gen_batches"), std::string::npos);
  EXPECT_NE(bad.error().ToString().find(">= 0"), std::string::npos);
}

// scenarios/swe-agent.yaml: 512 trajectories of 20 turns (19 tool calls of
// 3 s), 30 s start-up, 60 s verification, 2 CPUs each, 512 sandboxes.
TEST(SandboxLifetime, AnalyticHoldsTheContainerForTheWholeTrajectory) {
  Scenario s = LoadFile(Shared("scenarios/swe-agent.yaml"));
  StepTiming t = Analytic(s);
  // Per trajectory, sandbox-seconds = CPU-s / (512 x 2). Before, only start-up
  // + tool calls + verification were counted: 30 + 19 x 3 + 60 = 147 s. Now
  // also its 20 turns of decoding, and never more than the round lasts.
  const double held = t.sandbox_cpu_s / (512 * 2.0);
  EXPECT_GT(held, 147.0 + 1.0);
  EXPECT_LE(held, t.rollout_s + t.reward_s + 1e-9);
  // 512 trajectories start together under 512 sandboxes.
  EXPECT_DOUBLE_EQ(t.sandbox_peak_in_use, 512);
  EXPECT_NEAR(t.sandbox_mean_in_use, 512 * held / t.time_s, 1e-9 * 512);
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e.has_value());
  const MetricDef* peak = FindMetric("sandbox.peak_in_use");
  const MetricDef* mean = FindMetric("sandbox.mean_in_use");
  ASSERT_NE(peak, nullptr);
  ASSERT_NE(mean, nullptr);
  EXPECT_DOUBLE_EQ(*peak->get(*e), 512);
  EXPECT_GT(*mean->get(*e), 0);
  // CPU-hours: 200 steps of whole lifetimes.
  EXPECT_NEAR(e->cpu_hours, 200 * 512 * 2 * held / 3600, 1e-6 * e->cpu_hours);
  // No sandbox: the keys are left out.
  auto plain = EstimateAnalytic(LoadFile(Shared("scenarios/default.yaml")));
  ASSERT_TRUE(plain.has_value());
  EXPECT_FALSE(peak->get(*plain).has_value());
}

TEST(SandboxLifetime, AnalyticPoolBoundCountsVerificationOnce) {
  Scenario s = LoadFile(Shared("scenarios/swe-agent.yaml"), {{"environment.sandbox.max_concurrent", "64"}});
  StepTiming t = Analytic(s);
  // 64 sandboxes for 512 trajectories that each hold one for L + 60 s: the
  // round lasts 512 (L + 60) / 64, its last verification included; that
  // verification is reward_s (60 s), not added on top of the bound.
  const double held = t.sandbox_cpu_s / (512 * 2.0);  // L + 60
  EXPECT_NEAR(t.rollout_s + t.reward_s, 512 * held / 64, 1e-9 * t.rollout_s);
  EXPECT_NEAR(t.reward_s, 60, 1e-12);
  EXPECT_DOUBLE_EQ(t.sandbox_peak_in_use, 64);
  bool noted = false;
  for (const auto& n : t.notes) noted |= n.find("sandbox-bound") != std::string::npos;
  EXPECT_TRUE(noted);
}

TEST(SandboxLifetime, SimulatorBoundsTrajectoriesInFlightAndReportsUse) {
  std::string f = Shared("scenarios/swe-agent.yaml");
  SimResult many = RunSim(LoadFile(f), 2);
  SimResult few = RunSim(LoadFile(f, {{"environment.sandbox.max_concurrent", "64"}}), 2);
  // 512 slots: all 512 trajectories hold one from their start, no queue.
  EXPECT_DOUBLE_EQ(many.mean_step.sandbox_peak_in_use, 512);
  EXPECT_EQ(many.sandbox_wait_s, 0);
  // Held from start to the end of verification: with no queue a trajectory's
  // sandbox-seconds are its whole time, so their mean lies between the median
  // and the longest trajectory (the right tail pulls the mean above the median),
  // well above the 147 s of start-up + tools + verification alone.
  const double held = many.mean_step.sandbox_cpu_s / (512 * 2.0);
  EXPECT_GT(held, many.trajectory_time_s.p50);
  EXPECT_LE(held, many.trajectory_time_s.max);
  EXPECT_GT(held, 147.0);
  EXPECT_NEAR(many.mean_step.sandbox_mean_in_use * many.mean_step.time_s, 512 * held, 1e-6 * 512 * held);
  // 64 slots: never more than 64 in use; the others queue before their first turn.
  EXPECT_DOUBLE_EQ(few.mean_step.sandbox_peak_in_use, 64);
  EXPECT_GT(few.sandbox_wait_s, 0);
  EXPECT_LE(few.mean_step.sandbox_mean_in_use, 64);
}

}  // namespace
}  // namespace rlcost::sim
