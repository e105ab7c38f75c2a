// placement.train_backend: fsdp — parameters all-gathered in every
// micro-batch's forward and backward and fp32 gradients reduce-scattered after
// it, over the sharding group; a pass takes the longer of that traffic and
// its compute. docs/model.md, "FSDP traffic per micro-batch".
#include <gtest/gtest.h>

#include "perf/dp_imbalance.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(const std::string& model, int gpus, const std::string& placement, int rollout_tp = 4) {
  return "name: fsdp\nmodel: " + model + "\nhardware: {gpu: h100-sxm, gpus: " + std::to_string(gpus) +
         ", gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: " + std::to_string(rollout_tp) +
         ", gpu_memory_utilization: 0.6, train_micro_batch_tokens: 4096" +
         placement +
         "}\n"
         "environment:\n  prompt_tokens: {mean: 120, cv: 0.5, max: 1024}\n"
         "  response_tokens: {mean: 392, cv: 0.7, max: 3976}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

// Llama-3.1-70B (70.6B) on 64 H100, DTensor TP 8 with FSDP2 over the other
// 8 ranks of each TP shard, one per node: NeMo RL v0.3's 70B DTensor recipe.
TEST(FsdpTraffic, A70bDTensorRunIsHeldToItsPerMicroBatchGathersOverTheNetwork) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp"));
  ASSERT_EQ(s.placement.train_backend, TrainBackend::kFsdp);
  ASSERT_DOUBLE_EQ(s.hardware.gpu.efficiency.weight_sync_eff, 0.82);
  // 2048 sequences of 512 tokens; 4 mini-batches of 262,144 tokens over
  // dp = 64 / 8 = 8 ranks: 32,768 tokens = 8 micro-batches of 4,096 each,
  // 32 in the update; the forward passes 1,048,576 / 8 / 4,096 = 32.
  const double tokens = 2048.0 * 512.0;
  // A rank's TP shard: 70.6e9 / 8 = 8.825e9 parameters. The group of 8 spans
  // 8 nodes: the NIC, 50 GB/s x 0.82 = 41 GB/s.
  // Update, per micro-batch: (2 + 2 + 4) x 8.825e9 x 7/8 = 61.775e9 bytes
  // -> 32 x 61.775e9 / 41e9 = 48.2146 s.
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 64, /*forward_only=*/false), 32 * 61.775e9 / 41e9, 1e-9);
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 64, false), 48.2146, 1e-4);
  // Forward only: 2 x 8.825e9 x 7/8 = 15.44375e9 bytes -> 32 x ... = 12.0537 s.
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 64, /*forward_only=*/true), 12.0537, 1e-4);
  // The compute of the update (~7.9 s at train_mfu) hides under the
  // backward's traffic (36.1609 s). The forward is paced by the CPU's DTensor
  // dispatch (44 x 90 us = 3.96 ms a layer, more than the layer's compute):
  // each layer's gather waits for the CPU to reach the layer, so 32 x 80 x
  // 3.96 ms = 10.1376 s and the forward's gathers (12.0537 s) add up
  // ("DTensor dispatch paces the forward"). The host sync after each
  // micro-batch leaves its first gathers (root and first layer, 15.7798 ms)
  // exposed where the forward already pays one layer's, 12.0537 s / 2,560
  // = 4.7085 ms: 32 x 11.0713 ms = 0.3543 s ("A host sync after every
  // micro-batch"; the tail hides under the backward's traffic). Plus 3 more
  // Adam steps.
  EXPECT_NEAR(perf::TrainStep(s, tokens, 512, 64).time_s,
              12.0537 + 10.1376 + 36.1609 + 32 * (15.7798e-3 - 12.0537 / 2560) + 3 * perf::OptimizerStepTime(s),
              1e-3);
  EXPECT_NEAR(perf::ForwardPass(s, tokens, 512, 64).time_s, 12.0537 + 10.1376, 1e-4);
  // Without a stated micro-batch the traffic is not priced.
  Scenario unstated = s;
  unstated.placement.train_micro_batch_tokens = 0;
  EXPECT_EQ(perf::FsdpTrafficTime(unstated, tokens, 512, 64, false), 0.0);
  // Megatron (stated): no such term, the compute alone.
  Scenario m = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: megatron"));
  EXPECT_EQ(perf::FsdpTrafficTime(m, tokens, 512, 64, false), 0.0);
  // (less the wait for the rank dealt the most packs, SlowestRankFactor)
  EXPECT_LT(perf::TrainStep(m, tokens, 512, 64).time_s / perf::SlowestRankFactor(m, tokens, 512, 64, false), 20.0);
}

// Llama-3.1-8B (8.03B) over 8 H100 of one node: the ring stays on NVLink
// (450 GB/s x 0.82 = 369 GB/s): (2 + 2 + 4) x 8.03e9 x 7/8 = 56.21e9 bytes
// = 0.15233 s a micro-batch, less than its compute (6 x 8.03e9 x 4,096 /
// (989e12 x 0.425) = 0.47 s): the traffic hides, but for each micro-batch's
// two ends that the host sync after it exposes, 6.0172 + 12.0344 ms ("A host
// sync after every micro-batch").
TEST(FsdpTraffic, OnNvlinkAnEightBUpdateStaysComputeBound) {
  Scenario s = test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp", 1));
  Scenario m = test::Load(Text("llama-3.1-8b", 8, ", train_backend: megatron", 1));
  const double tokens = 2048.0 * 512.0;
  // 4 x ceil(262,144 / 8 / 4,096) = 32 micro-batches.
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 8, false), 32 * 56.21e9 / 369e9, 1e-9);
  // The same update with no micro-batch stated (no traffic priced): the
  // traffic hides, the 32 micro-batches' exposed ends add 32 x 18.0516 ms =
  // 0.57765 s. (Megatron's time differs by its packs' deal,
  // SlowestRankFactor; FSDP's are padded and equal in count.)
  Scenario untimed = s;
  untimed.placement.train_micro_batch_tokens = 0;
  EXPECT_NEAR(perf::TrainStep(s, tokens, 512, 8).time_s - perf::TrainStep(untimed, tokens, 512, 8).time_s,
              32 * 18.0516e-3, 1e-5);
  EXPECT_GT(perf::TrainStep(m, tokens, 512, 8).time_s, perf::TrainStep(s, tokens, 512, 8).time_s);
}

TEST(FsdpTraffic, AnFsdpTrainerHasNoPipelineOrExpertParallel) {
  auto r = LoadScenarioText(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 2, train_backend: fsdp"),
                            test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("placement.train_backend: fsdp with train_pp 2"), std::string::npos)
      << r.error().ToString();
  auto bad = LoadScenarioText(Text("llama-3.1-70b", 64, ", train_backend: deepspeed"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("placement.train_backend"), std::string::npos) << bad.error().ToString();
  EXPECT_NE(bad.error().ToString().find("megatron | fsdp"), std::string::npos) << bad.error().ToString();
}

}  // namespace
}  // namespace rlcost
