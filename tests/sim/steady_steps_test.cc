// sim::Options::measure_steps (docs/model.md, "Steady steps"): a long run's
// per-step figures from a warm-up run and a short run, extrapolated.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "support.h"

namespace rlcost::sim {
namespace {

using test::LoadFile;

const std::string kDefault = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/default.yaml";

Result<SimResult> SimulateFor(const Scenario& s, int steps, int measure) {
  auto sig = signal::Analyze(s);
  EXPECT_TRUE(sig.has_value());
  Options o;
  o.steps = steps;
  o.measure_steps = measure;
  return Simulate(s, *sig, o);
}

TEST(SteadySteps, ExtrapolationWorkedByHand) {
  // A run of 2 steps took 40 s (20 s a step: a slow first step), one of 10
  // steps 120 s (12 s a step): 80 s over the 8 steady steps, 10 s each. A
  // run of 100 steps: 120 + 90 x 10 = 1020 s, 10.2 s a step. The same line
  // for the rollout part: 2 x 15 = 30, 10 x 8 = 80, 6.25 a steady step:
  // 80 + 90 x 6.25 = 642.5, 6.425 a step.
  SimResult w, r;
  w.steps_simulated = 2;
  w.mean_step.time_s = 20;
  w.mean_step.rollout_s = 15;
  w.mean_step.mean_batch = 3;
  w.events = 7;
  r.steps_simulated = 10;
  r.mean_step.time_s = 12;
  r.mean_step.rollout_s = 8;
  r.mean_step.mean_batch = 5;
  r.idle_tools_gpu_s = 4;  // 10 x 4 = 40; 2 x 0: 5 a steady step; 40 + 450 = 490 -> 4.9
  r.events = 100;
  ExtrapolateSteps(r, w, 100);
  EXPECT_NEAR(r.mean_step.time_s, 10.2, 1e-12);
  EXPECT_NEAR(r.mean_step.rollout_s, 6.425, 1e-12);
  EXPECT_NEAR(r.idle_tools_gpu_s, 4.9, 1e-12);
  EXPECT_EQ(r.mean_step.mean_batch, 5);  // a ratio: the longer run's
  EXPECT_EQ(r.events, 107);
  EXPECT_EQ(r.steps_simulated, 10);
  EXPECT_EQ(r.warmup_steps, 2);
  EXPECT_EQ(r.extrapolated_to_steps, 100);
  ASSERT_FALSE(r.mean_step.notes.empty());
  EXPECT_NE(r.mean_step.notes.back().find("extrapolated to the run's 100"), std::string::npos);
}

TEST(SteadySteps, WarmUpFollowsTheStaleness) {
  Scenario s = LoadFile(kDefault);
  s.pipeline.mode = PipelineMode::kSync;
  EXPECT_EQ(SteadyWarmupSteps(s), 2);
  s.pipeline.mode = PipelineMode::kAsync;
  s.pipeline.max_staleness = 8;
  EXPECT_EQ(SteadyWarmupSteps(s), 10);
  s.pipeline.max_staleness = 1.5;
  EXPECT_EQ(SteadyWarmupSteps(s), 4);
}

TEST(SteadySteps, AShortRunIsSimulatedWhole) {
  // 2 warm-up + 10 measured: a run of at most 14 steps is the run itself.
  Scenario s = LoadFile(kDefault, {{"algorithm.prompts_per_step", "8"}});
  auto whole = SimulateFor(s, 14, 0);
  auto measured = SimulateFor(s, 14, 10);
  ASSERT_TRUE(whole && measured);
  EXPECT_EQ(whole->mean_step.time_s, measured->mean_step.time_s);
  EXPECT_EQ(whole->mean_step.gpu_s_idle, measured->mean_step.gpu_s_idle);
  EXPECT_EQ(whole->events, measured->events);
  EXPECT_EQ(measured->steps_simulated, 14);
  EXPECT_EQ(measured->extrapolated_to_steps, 0);
}

TEST(SteadySteps, AnAsyncRunsStepTimeWithoutItsWarmUpBias) {
  // One step off the policy: the pipeline's first steps differ from the
  // rest. 40 steps extrapolated from 3 and 3 + 20 against the 40 simulated:
  // closer than the first 23 steps' own mean, and within 1.5%.
  Scenario s = LoadFile(kDefault, {{"algorithm.prompts_per_step", "16"}, {"placement.mode", "disaggregated"},
                                   {"placement.rollout_gpus", "4"}, {"placement.train_gpus", "4"},
                                   {"pipeline.mode", "async"}, {"pipeline.max_staleness", "1"}});
  auto whole = SimulateFor(s, 40, 0);
  auto measured = SimulateFor(s, 40, 20);
  auto truncated = SimulateFor(s, 23, 0);
  ASSERT_TRUE(whole && measured && truncated);
  EXPECT_EQ(measured->steps_simulated, 23);
  EXPECT_EQ(measured->warmup_steps, 3);
  EXPECT_EQ(measured->extrapolated_to_steps, 40);
  const double t = whole->mean_step.time_s;
  EXPECT_NEAR(measured->mean_step.time_s / t, 1.0, 0.015);
  EXPECT_LE(std::abs(measured->mean_step.time_s - t), std::abs(truncated->mean_step.time_s - t) + 1e-9);
  // The identity between the parts holds for the mix.
  const StepTiming& m = measured->mean_step;
  EXPECT_NEAR(m.time_s, m.rollout_s + m.train_s + m.other_s, 1e-9 * m.time_s);
}

}  // namespace
}  // namespace rlcost::sim
