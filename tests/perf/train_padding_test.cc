// placement.train_padding: max-length (veRL's FSDP actor without
// use_remove_padding): the trainer's linear layers run on every sequence
// padded to max prompt + max response; attention on the real tokens.
// docs/model.md, "Training on padded sequences".
#include <gtest/gtest.h>

#include <cmath>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// Dense 8B: prompt 100 of at most 1024, response 300 of at most 512 (means
// solved under the clip, so the trajectory's mean is exactly 400).
std::string Text(const std::string& padding) {
  return "name: pad\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
         "placement: {mode: colocated, train_padding: " +
         padding +
         "}\n"
         "environment:\n  prompt_tokens: {mean: 100, cv: 0.5, max: 1024}\n"
         "  response_tokens: {mean: 300, cv: 0.5, max: 512}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 8, prompts_per_step: 64, steps: 10}\n";
}

TEST(TrainPadding, LinearLayersRunOnThePaddedLength) {
  Scenario packed = test::Load(Text("packed"));
  Scenario padded = test::Load(Text("max-length"));
  EXPECT_EQ(packed.placement.train_padding, TrainPadding::kPacked);
  EXPECT_EQ(padded.placement.train_padding, TrainPadding::kMaxLength);
  // (1024 + 512) / (100 + 300) = 3.84.
  EXPECT_DOUBLE_EQ(perf::PaddedTokenFactor(padded, 400.0), 3.84);
  EXPECT_DOUBLE_EQ(perf::PaddedTokenFactor(packed, 400.0), 1.0);
  // Longer than the maximum (a caller's mean): never below 1.
  EXPECT_DOUBLE_EQ(perf::PaddedTokenFactor(padded, 2000.0), 1.0);

  // Update: time scales as (6N * 3.84 + 3A) / (6N + 3A), A the attention
  // FLOPs per token at the token-weighted length 400 * E[s^2]/E[s]^2. The
  // model FLOPs stay the real tokens'.
  const double tokens = 512.0 * 400.0;
  const perf::Work a = perf::TrainStep(packed, tokens, 400.0, 8);
  const perf::Work b = perf::TrainStep(padded, tokens, 400.0, 8);
  const double n6 = 6.0 * packed.model.active_params_b * 1e9;
  const double attn =
      perf::AttentionFlopsPerContextToken(packed.model) * 400.0 * perf::TrajectoryLengthDispersion(packed) / 2.0;
  EXPECT_NEAR(a.flops, tokens * (n6 + 3.0 * attn) / 8.0, 1e-6 * a.flops);
  EXPECT_DOUBLE_EQ(b.flops, a.flops);
  EXPECT_NEAR(b.time_s / a.time_s, (n6 * 3.84 + 3.0 * attn) / (n6 + 3.0 * attn), 1e-9);
  // Forward-only passes (old log-probs, reference): (2N * 3.84 + A) / (2N + A).
  const perf::Work fa = perf::ForwardPass(packed, tokens, 400.0, 8);
  const perf::Work fb = perf::ForwardPass(padded, tokens, 400.0, 8);
  const double n2 = n6 / 3.0;
  EXPECT_NEAR(fb.time_s / fa.time_s, (n2 * 3.84 + attn) / (n2 + attn), 1e-9);
  EXPECT_DOUBLE_EQ(fb.flops, fa.flops);
}

TEST(TrainPadding, NeedsTheMaximaAndOneTurn) {
  auto no_max = LoadScenarioText(
      "name: pad\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
      "placement: {train_padding: max-length}\n"
      "environment:\n  prompt_tokens: {mean: 100, cv: 0.5, max: 1024}\n  response_tokens: {mean: 300, cv: 1}\n"
      "  reward: {type: outcome}\nalgorithm: {name: grpo, group_size: 8, prompts_per_step: 64, steps: 10}\n",
      test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(no_max);
  EXPECT_NE(no_max.error().ToString().find("placement.train_padding: max-length pads every sequence to the maximum "
                                           "prompt + response length; expected environment.prompt_tokens.max and "
                                           "environment.response_tokens.max"),
            std::string::npos)
      << no_max.error().ToString();
  auto turns = LoadScenarioText(
      "name: pad\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
      "placement: {train_padding: max-length}\n"
      "environment:\n  prompt_tokens: {mean: 100, cv: 0, max: 1024}\n  response_tokens: {mean: 300, cv: 0, max: 512}\n"
      "  turns: {mean: 3, cv: 0.5, max: 8}\n  tool_output_tokens: {mean: 100, cv: 0}\n"
      "  reward: {type: outcome}\nalgorithm: {name: grpo, group_size: 8, prompts_per_step: 64, steps: 10}\n",
      test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(turns);
  EXPECT_NE(turns.error().ToString().find("not yet priced for multi-turn"), std::string::npos)
      << turns.error().ToString();
  auto bad = LoadScenarioText(Text("padded"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("placement.train_padding: unknown value 'padded'; expected packed | max-length"),
            std::string::npos)
      << bad.error().ToString();
}

}  // namespace
}  // namespace rlcost
