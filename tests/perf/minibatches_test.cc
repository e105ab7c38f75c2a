// algorithm.minibatches: the update steps the optimizer N times per RL step,
// draining the pipeline once per mini-batch and running Adam over each GPU's
// shard each time. docs/model.md, "Optimizer steps per RL step".
#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// Llama-3.1-8B (8.03B parameters) on 8 colocated H100 (3.35 TB/s), the
// trainer in two pipeline stages (dp 4) with 1,024-token micro-batches.
std::string Text(const std::string& placement, const std::string& algorithm) {
  return "name: mb\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
         "placement: {mode: colocated, train_micro_batch_tokens: 1024" +
         placement +
         "}\n"
         "environment: {prompt_tokens: 24, response_tokens: 1000}\n"
         "algorithm: {name: grpo, group_size: 16, prompts_per_step: 128" +
         algorithm + "}\n";
}

TEST(Minibatches, CatalogFiguresTheHandNumbersUse) {
  Scenario s = test::Load(Text("", ""));
  EXPECT_DOUBLE_EQ(s.model.params_b, 8.03);
  EXPECT_DOUBLE_EQ(s.hardware.gpu.hbm_tb_per_s, 3.35);
  EXPECT_EQ(s.algorithm.minibatches, 1);  // the default: one optimizer step per RL step
  EXPECT_EQ(perf::ShardGpus(s), 8);
}

// One Adam step: 8.03e9 / 8 GPUs = 1.00375e9 parameters each, 30 bytes each
// (read fp32 gradient, master, two moments; write master, moments; write the
// bf16 weights) = 3.01125e10 bytes / 3.35e12 B/s = 8.98881 ms.
TEST(Minibatches, OneAdamStepIsItsShardsBytesOverHbmBandwidth) {
  Scenario s = test::Load(Text("", ""));
  EXPECT_NEAR(perf::OptimizerStepTime(s), 8.03e9 / 8 * 30 / 3.35e12, 1e-15);
  EXPECT_NEAR(perf::OptimizerStepTime(s), 8.98881e-3, 1e-8);
  // Sharded over pairs (FSDP hybrid sharding): each GPU steps 4 x the shard.
  Scenario pairs = test::Load(Text(", train_shard_gpus: 2", ""));
  EXPECT_NEAR(perf::OptimizerStepTime(pairs), 4 * perf::OptimizerStepTime(s), 1e-15);
}

// Without pipeline parallelism the only addition is N - 1 Adam steps (the
// measured train MFU holds one).
TEST(Minibatches, WithoutAPipelineEachExtraStepAddsOneAdamStep) {
  Scenario one = test::Load(Text("", ""));
  Scenario four = test::Load(Text("", ", minibatches: 4"));
  const double tokens = 32768, len = 1024;
  const double t1 = perf::TrainStep(one, tokens, len, 8).time_s;
  const double t4 = perf::TrainStep(four, tokens, len, 8).time_s;
  EXPECT_NEAR(t4 - t1, 0.0269664, 1e-7);  // 3 x 8.98881 ms
  EXPECT_DOUBLE_EQ(perf::TrainStep(four, tokens, len, 8).flops, perf::TrainStep(one, tokens, len, 8).flops);
  const perf::OptimizerStepsCost c = perf::OptimizerStepsOverhead(four, tokens, len, 8);
  EXPECT_EQ(c.steps, 4);
  EXPECT_NEAR(c.optimizer_s, 0.0269664, 1e-7);
  EXPECT_NEAR(c.flush_s, 0.0, 1e-12);
}

// Two stages, dp = 8 / 2 = 4: 32,768 tokens are 8,192 a rank, 8 micro-batches
// of 1,024. One optimizer step: bubble (2-1)/(8+2-1) = 1/9, the pass takes
// t / (8/9) = 1.125 t. Four: each mini-batch is 2 micro-batches, bubble
// 1/(2+1) = 1/3, the pass takes t / (2/3) = 1.5 t: 4/3 of the one-step time,
// plus three Adam steps.
TEST(Minibatches, EachOptimizerStepDrainsThePipeline) {
  Scenario one = test::Load(Text(", train_pp: 2", ""));
  Scenario four = test::Load(Text(", train_pp: 2", ", minibatches: 4"));
  const double tokens = 32768, len = 1024;
  EXPECT_DOUBLE_EQ(perf::TrainMicrobatches(one.placement, 8, tokens, len), 8.0);
  EXPECT_DOUBLE_EQ(perf::TrainMicrobatches(one.placement, 8, tokens / 4, len), 2.0);
  const double t1 = perf::TrainStep(one, tokens, len, 8).time_s;
  const double t4 = perf::TrainStep(four, tokens, len, 8).time_s;
  EXPECT_NEAR((t4 - 3 * perf::OptimizerStepTime(four)) / t1, 4.0 / 3.0, 1e-12);
  const perf::OptimizerStepsCost c = perf::OptimizerStepsOverhead(four, tokens, len, 8);
  EXPECT_NEAR(c.flush_s, t1 / 3.0, 1e-12);
  EXPECT_NEAR(c.optimizer_s, 3 * perf::OptimizerStepTime(four), 1e-15);
  // The old-policy and reference passes are forward only: not split.
  EXPECT_DOUBLE_EQ(perf::ForwardPass(four, tokens, len, 8).time_s, perf::ForwardPass(one, tokens, len, 8).time_s);
}

TEST(Minibatches, EstimateSaysWhatTheExtraStepsCost) {
  auto four = EstimateAnalytic(test::Load(Text(", train_pp: 2", ", minibatches: 4")));
  auto one = EstimateAnalytic(test::Load(Text(", train_pp: 2", "")));
  ASSERT_TRUE(four && one);
  auto said = [](const Estimate& e) {
    for (const auto& a : e.assumptions) {
      if (a.find("optimizer steps (algorithm.minibatches") != std::string::npos) return a;
    }
    return std::string();
  };
  const std::string line = said(*four);
  EXPECT_NE(line.find("the update runs 4 optimizer steps (algorithm.minibatches 4), each draining the 2-stage "
                      "pipeline: +"),
            std::string::npos)
      << line;
  EXPECT_NE(line.find("3 more Adam steps over each GPU's shard of the weights: +0.027 s"), std::string::npos) << line;
  EXPECT_EQ(said(*one), "");
  EXPECT_GT(four->step.train_s, one->step.train_s);
}

// ppo_epochs E: the update passes over the batch E times, each pass through
// all N mini-batches: E x the pass (bubble included), E x the model FLOPs,
// N E - 1 extra Adam steps. E = 2, N = 4, PP 2: 2 x 4/3 x the one-step pass
// + 7 x 8.99 ms.
TEST(Minibatches, EpochsRepeatThePassAndItsOptimizerSteps) {
  Scenario one = test::Load(Text(", train_pp: 2", ""));
  Scenario both = test::Load(Text(", train_pp: 2", ", minibatches: 4, ppo_epochs: 2"));
  const double tokens = 32768, len = 1024;
  const perf::Work w1 = perf::TrainStep(one, tokens, len, 8);
  const perf::Work w = perf::TrainStep(both, tokens, len, 8);
  const double adam = perf::OptimizerStepTime(both);
  EXPECT_NEAR((w.time_s - 7 * adam) / w1.time_s, 2 * 4.0 / 3.0, 1e-12);
  EXPECT_NEAR(w.flops / w1.flops, 2.0, 1e-12);
  const perf::OptimizerStepsCost c = perf::OptimizerStepsOverhead(both, tokens, len, 8);
  EXPECT_EQ(c.steps, 8);
  EXPECT_NEAR(c.optimizer_s, 7 * adam, 1e-15);
  EXPECT_NEAR(c.flush_s, 2 * w1.time_s / 3.0, 1e-12);  // 2 passes x (4/3 - 1)
  // Epochs alone, no pipeline: two passes and one more Adam step.
  Scenario e2 = test::Load(Text("", ", ppo_epochs: 2"));
  Scenario e1 = test::Load(Text("", ""));
  EXPECT_NEAR(perf::TrainStep(e2, tokens, len, 8).time_s,
              2 * perf::TrainStep(e1, tokens, len, 8).time_s + perf::OptimizerStepTime(e1), 1e-12);
  auto est = EstimateAnalytic(e2);
  ASSERT_TRUE(est);
  bool said = false;
  for (const auto& a : est->assumptions) {
    said |= a.find("the update runs 2 optimizer steps (algorithm.minibatches 1) over 2 passes of the batch "
                   "(algorithm.ppo_epochs: 2 x the update's compute); 1 more Adam steps") != std::string::npos;
  }
  EXPECT_TRUE(said);
  auto bad = LoadScenarioText(Text("", ", ppo_epochs: 0"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("algorithm.ppo_epochs"), std::string::npos) << bad.error().ToString();
}

TEST(Minibatches, TheCountDividesTheStepsSamples) {
  // 128 prompts x 16 = 2,048 samples: 3 does not divide them.
  auto r = LoadScenarioText(Text("", ", minibatches: 3"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("algorithm.minibatches: 3 does not divide the step's 2048 samples "
                                      "(prompts_per_step 128 x group_size 16); expected a divisor of 2048"),
            std::string::npos)
      << r.error().ToString();
  for (const char* bad : {", minibatches: 0", ", minibatches: -2", ", minibatches: 1.5", ", minibatches: four"}) {
    auto b = LoadScenarioText(Text("", bad), test::Cat(), "t.yaml", ".");
    ASSERT_FALSE(b) << bad;
    EXPECT_NE(b.error().ToString().find("algorithm.minibatches"), std::string::npos) << b.error().ToString();
  }
  EXPECT_EQ(test::Load(Text("", ", minibatches: 2048")).algorithm.minibatches, 2048);
}

}  // namespace
}  // namespace rlcost
