// The log-prob and reference passes of a Megatron pipeline over packed
// sequences pad every pack to the longest, as the update does.
// docs/model.md, "Packed micro-batches".
#include <gtest/gtest.h>

#include "perf/pipeline_forward.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(const std::string& placement) {
  return "name: fwdpack\nmodel: qwen3-32b\nhardware: {gpu: h100-sxm, gpus: 32, gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 4, gpu_memory_utilization: 0.6, train_micro_batch_tokens: 4096, "
         "train_tp: 4" +
         placement +
         "}\nenvironment:\n  prompt_tokens: 100\n  response_tokens: 3000\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

// 2,048 sequences of 3,100 tokens on 32 GPUs at TP 4, PP 2 (dp 4): no two
// share a 4,096-token pack, so a rank runs 512 packs of 4,096 for its
// 1,587,200 real tokens: x1.32128 on the forward's linear layers.
TEST(PipelineForward, ALogProbPassPadsItsPacksLikeTheUpdate) {
  Scenario pp = test::Load(Text(", train_pp: 2"));
  const double tokens = 2048.0 * 3100.0;
  EXPECT_NEAR(perf::PipelineForwardPackFactor(pp, 32, tokens, 3100.0), 2097152.0 / 1587200.0, 1e-12);
  // The pass runs longer; its model FLOPs stay the real tokens'.
  Scenario free_len = pp;
  free_len.placement.train_micro_batch_tokens = 0;
  const auto padded = perf::ForwardPass(pp, tokens, 3100.0, 32);
  const auto unpadded = perf::ForwardPass(free_len, tokens, 3100.0, 32);
  EXPECT_DOUBLE_EQ(padded.flops, unpadded.flops);
  EXPECT_GT(padded.time_s, 1.2 * unpadded.time_s);
}

// A larger log-prob budget (8,192): two sequences share a pack, 775 packs
// of the batch, 194 a rank: 194 x 8,192 / 1,587,200. No pipeline, or the
// DTensor backend (its get_logprobs does not pad to the budget): 1.
TEST(PipelineForward, TheLogProbBudgetAndTheBackendDecide) {
  const double tokens = 2048.0 * 3100.0;
  Scenario big = test::Load(Text(", train_pp: 2, logprob_micro_batch_tokens: 8192"));
  EXPECT_NEAR(perf::PipelineForwardPackFactor(big, 32, tokens, 3100.0), 194.0 * 8192.0 / 1587200.0, 1e-12);
  Scenario no_pp = test::Load(Text(""));
  EXPECT_EQ(perf::PipelineForwardPackFactor(no_pp, 32, tokens, 3100.0), 1.0);
  Scenario dtensor = test::Load(Text(", train_pp: 2"));
  dtensor.placement.train_backend = TrainBackend::kFsdp;  // the loader refuses fsdp with a pipeline
  EXPECT_EQ(perf::PipelineForwardPackFactor(dtensor, 32, tokens, 3100.0), 1.0);
}

}  // namespace
}  // namespace rlcost
