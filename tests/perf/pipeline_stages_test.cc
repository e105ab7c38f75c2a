// train_pp > 2: the last pipeline stage holds its even share of the decoder
// layers plus the output layer, and 1F1B runs at its pace.
// docs/model.md, "Pipeline stages: the output layer".
#include <gtest/gtest.h>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(int pp) {
  return "name: stages\nmodel: llama-3.1-70b\nhardware: {gpu: h100-sxm, gpus: 64, gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 4, train_tp: 4, train_pp: " +
         std::to_string(pp) +
         "}\n"
         "environment:\n  prompt_tokens: {mean: 120, cv: 0.5, max: 1024}\n"
         "  response_tokens: {mean: 398, cv: 0.7, max: 3976}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

// Llama-3.1-70B: N = 70.6e9, vocab 128,256, hidden 8,192. Per token the
// update's linear FLOPs are 6N = 4.236e11, of which the output layer's
// 6 x 128,256 x 8,192 = 6.3038e9. Over 4 stages the last runs 20 layers and
// the head: 1 + 6.3038e9 x (4 - 2) / 4.236e11 = 1.029764 (F = 6N here).
TEST(PipelineStages, TheLastStageCarriesTheOutputLayer) {
  Scenario s = test::Load(Text(4));
  const double linear = 6.0 * 70.6e9;
  const double head = 6.0 * 128256.0 * 8192.0;
  EXPECT_NEAR(perf::PipelineStageImbalance(s, linear, linear), 1.0 + head * 2.0 / linear, 1e-12);
  EXPECT_NEAR(perf::PipelineStageImbalance(s, linear, linear), 1.029764, 1e-6);
  // Attention FLOPs (spread over the layers) dilute the head's share.
  EXPECT_NEAR(perf::PipelineStageImbalance(s, linear, 2.0 * linear), 1.0 + head * 2.0 / (2.0 * linear), 1e-12);
  // 8 stages: 1 + 6.3038e9 x 6 / 4.236e11 = 1.089292.
  EXPECT_NEAR(perf::PipelineStageImbalance(test::Load(Text(8)), linear, linear), 1.089292, 1e-6);
  // Two stages: the head on the last balances the embedding counted on the
  // first; one stage: no pipeline.
  EXPECT_DOUBLE_EQ(perf::PipelineStageImbalance(test::Load(Text(2)), linear, linear), 1.0);
  EXPECT_DOUBLE_EQ(perf::PipelineStageImbalance(test::Load(Text(1)), linear, linear), 1.0);
  // The update takes the factor: 4 stages against the same pass priced at
  // the mean stage (the ratio of their times is the factor at the update's
  // own FLOPs per token, within the attention's share).
  Scenario s4 = test::Load(Text(4));
  const double tokens = 2048.0 * 518.0;
  const double t = perf::TrainStep(s4, tokens, 518.0, 64).time_s;
  EXPECT_GT(t, 0.0);
  const double f = perf::PipelineStageImbalance(s4, linear, perf::TrainStep(s4, tokens, 518.0, 64).flops * 64 / tokens);
  EXPECT_GT(f, 1.02);
  EXPECT_LT(f, 1.03);
}

}  // namespace
}  // namespace rlcost
