// The MoE layer floor (src/perf/moe.cc, MoeLayerFloorTime): with Megatron-
// Core's alltoall dispatcher every MoE layer of every micro-batch takes at
// least eff.moe_layer_train_s (forward + backward). docs/model.md, "MoE
// layer floor". Numbers worked out by hand in the comments.
#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// The NeMo RL v0.3 Qwen3-30B-A3B layout: 64 H100, TP 2, EP 8, 2,048
// sequences of 120 + 3,251 = 3,371 tokens (fixed lengths) in 4 mini-batches,
// packed into 4,096-token micro-batches.
std::string Text(const std::string& model, const std::string& placement) {
  return "name: floor\nmodel: " + model +
         "\nhardware: {gpu: h100-sxm, gpus: 64, gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 4, gpu_memory_utilization: 0.7" +
         placement +
         "}\nenvironment:\n  prompt_tokens: 120\n  response_tokens: 3251\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

constexpr double kSeq = 3371.0;
constexpr double kTokens = 2048.0 * kSeq;  // 6,903,808

TEST(Moe, TheFloorIsReadOffTheB200Run) {
  // 150 TFLOP/s / (6 x 3.3e9 + 3 x 786,432 x 2,048) = 6,098 tokens/s; a
  // 4,096-token micro-batch over 48 layers: 14.0 ms a layer.
  const double per_token = 6 * 3.3e9 + 3.0 * 4 * 32 * 128 * 48 * 2048.0;
  EXPECT_NEAR(4096.0 / (150e12 / per_token) / 48, 0.014, 0.0001);
  const Catalog& cat = test::Cat();
  EXPECT_DOUBLE_EQ(cat.FindGpu("h100-sxm")->efficiency.moe_layer_train_s, 0.014);
  EXPECT_DOUBLE_EQ(cat.FindGpu("gb200")->efficiency.moe_layer_train_s, 0.014);  // the same on every GPU
}

TEST(Moe, SmallMicroBatchesWaitForTheHost) {
  Scenario s = test::Load(Text("qwen3-30b-a3b", ", train_tp: 2, train_ep: 8, train_micro_batch_tokens: 4096"));
  // dp = 64 / 2 = 32; a mini-batch of 512 sequences, each longer than half
  // the budget: 512 bins, 16 a rank; 4 mini-batches: 64 micro-batches.
  // 64 x 48 layers x 14 ms = 43.008 s.
  EXPECT_NEAR(perf::MoeLayerFloorTime(s, kTokens, kSeq, 64, /*forward_only=*/false), 64 * 48 * 0.014, 1e-9);
  // The forward-only pass: ceil(6,903,808 / 32 / 4,096) = 53 micro-batches
  // at a third of the floor: 53 x 48 x 14 ms / 3 = 11.872 s.
  EXPECT_NEAR(perf::MoeLayerFloorTime(s, kTokens, kSeq, 64, /*forward_only=*/true), 53 * 48 * 0.014 / 3, 1e-9);
  // The update takes the floor: its compute at train_mfu_moe is far below it.
  const double t = perf::TrainStep(s, kTokens, kSeq, 64).time_s;
  Scenario no_floor = s;
  no_floor.hardware.gpu.efficiency.moe_layer_train_s = 0;
  const double compute = perf::TrainStep(no_floor, kTokens, kSeq, 64).time_s;
  EXPECT_LT(compute, 15.0);
  // The engine pass of (almost) no FLOPs is the floor itself (pp 1: no
  // bubble); the update adds only its 3 extra optimizer steps to it.
  EXPECT_NEAR(perf::TrainEngineTime(s, kTokens, kSeq, 64, 1.0, false), 64 * 48 * 0.014, 1e-9);
  EXPECT_GE(t, 64 * 48 * 0.014);
  EXPECT_LT(t, 64 * 48 * 0.014 + 1.0);
}

TEST(Moe, PipelineStagesShareTheLayers) {
  // PP 4 on the same 64 GPUs: dp = 64 / (2 x 4) = 8; 512 bins a mini-batch,
  // 64 a rank, 256 over 4 mini-batches; 48 / 4 = 12 layers a stage:
  // 256 x 12 x 14 ms = 43.008 s before the bubble.
  Scenario s = test::Load(
      Text("qwen3-30b-a3b", ", train_tp: 2, train_pp: 4, train_ep: 8, train_micro_batch_tokens: 4096"));
  EXPECT_NEAR(perf::MoeLayerFloorTime(s, kTokens, kSeq, 64, false), 256 * 12 * 0.014, 1e-9);
}

TEST(Moe, LargeMicroBatchesAndDenseModelsKeepTheirTime) {
  // A dense model has no floor.
  Scenario dense = test::Load(Text("qwen3-32b", ", train_tp: 2, train_micro_batch_tokens: 4096"));
  EXPECT_EQ(perf::MoeLayerFloorTime(dense, kTokens, kSeq, 64, false), 0.0);
  // Qwen3-235B-A22B (94 layers) at TP 4, EP 8, one 3,371-token sequence per
  // micro-batch: dp 16, 128 a rank, floor 128 x 94 x 14 ms = 168.4 s; the
  // compute, 6.904e6 x 6 x 22e9 / 64 / (989e12 x 0.224) = 64 s plus attention,
  // is below it. With 32,768-token packs (every sequence shorter than half of
  // it, packed as divisible): ceil(512 x 3,371 / 32,768) = 53 bins a
  // mini-batch, ceil(53 / 16) = 4 a rank, 16 in all: 16 x 94 x 14 ms =
  // 21.1 s, and the compute sets the time.
  Scenario big = test::Load(Text("qwen3-235b-a22b", ", train_tp: 4, train_ep: 8, train_micro_batch_tokens: 4096"));
  EXPECT_NEAR(perf::MoeLayerFloorTime(big, kTokens, kSeq, 64, false), 128 * 94 * 0.014, 1e-9);
  Scenario packed = big;
  packed.placement.train_micro_batch_tokens = 32768;
  EXPECT_NEAR(perf::MoeLayerFloorTime(packed, kTokens, kSeq, 64, false), 16 * 94 * 0.014, 1e-9);
  Scenario no_floor = packed;
  no_floor.hardware.gpu.efficiency.moe_layer_train_s = 0;
  EXPECT_DOUBLE_EQ(perf::TrainStep(packed, kTokens, kSeq, 64).time_s,
                   perf::TrainStep(no_floor, kTokens, kSeq, 64).time_s);
}

}  // namespace
}  // namespace rlcost
