// The data-parallel ranks wait for the slowest one's share of a pass:
// FSDP every micro-batch of a fixed number of sequences, Megatron's
// optimizer step (and the log-prob driver) the rank dealt the most packs.
// docs/model.md, "The slowest data-parallel rank".
#include <gtest/gtest.h>

#include "perf/dp_imbalance.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// Qwen2.5-7B (N = 7.61e9; attention 4 x 28 layers x 28 heads x 128 =
// 401,408 FLOPs per context token) on 8 GPUs, FSDP, data parallel 8.
// Sequences: a 100-token prompt and a lognormal response of mean 200, cv 0.5
// (unclipped): mean 300, Var 100^2.
std::string FsdpText(const std::string& placement) {
  return "name: slowest\nmodel: qwen2.5-7b\nhardware: {gpu: h100-sxm, gpus: 8, gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 1, train_backend: fsdp" +
         placement +
         "}\nenvironment:\n  prompt_tokens: 100\n  response_tokens: {mean: 200, cv: 0.5}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 8, prompts_per_step: 256, steps: 10, minibatches: 4}\n";
}

constexpr double kTokens = 2048.0 * 300.0;  // 2,048 sequences of 300 tokens

// Qwen3-32B, NeMo RL-style packs of 4,096 tokens, a 100-token prompt.
std::string PacksText(int gpus, const std::string& response, const std::string& extra) {
  return "name: packs\nmodel: qwen3-32b\nhardware: {gpu: h100-sxm, gpus: " + std::to_string(gpus) +
         ", gpus_per_node: 8}\nplacement: {mode: colocated, rollout_tp: 4, train_micro_batch_tokens: 4096, "
         "train_backend: megatron" +
         extra +
         "}\nenvironment:\n  prompt_tokens: 100\n  response_tokens: " + response +
         "\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

// Blom: z_8 = Phi^-1(7.625 / 8.25) = 1.43420; 16 draws of cv 0.5 on 8 ranks:
// 1 + 1.43420 x 0.5 / 4 = 1.179275. One rank, or no spread: nobody to wait for.
TEST(SlowestRank, TheLargestOfTheRanksSumsByHand) {
  EXPECT_NEAR(perf::SlowestOfSumsFactor(8, 16, 0.5), 1.179275, 1e-6);
  EXPECT_EQ(perf::SlowestOfSumsFactor(1, 16, 0.5), 1.0);
  EXPECT_EQ(perf::SlowestOfSumsFactor(8, 16, 0.0), 1.0);
  // More sequences a micro-batch average the lengths out: 1 + z cv / sqrt(n).
  EXPECT_NEAR(perf::SlowestOfSumsFactor(8, 64, 0.5) - 1.0, (1.179275 - 1.0) / 2.0, 1e-6);
  EXPECT_GT(perf::SlowestOfSumsFactor(64, 16, 0.5), perf::SlowestOfSumsFactor(8, 16, 0.5));
}

// A sequence of length L costs c1 L + c2 L^2. Forward: c1 = 2N = 1.522e10,
// c2 = 401,408 / 2 = 200,704; the update 3x both, the same cv. Mean work
// c1 300 + c2 300^2 (1 + 1/9) = 4.58607e12; sd by the delta method
// (c1 + 2 c2 300) x 300 x 1/3 = 1.53404e12; cv 0.334500. 16 sequences a
// micro-batch on 8 ranks: 1 + 1.43420 x 0.334500 / 4 = 1.119935.
TEST(SlowestRank, FsdpMicrobatchesOfSixteenSequencesByHand) {
  Scenario s = test::Load(FsdpText(", train_micro_batch_seqs: 16"));
  EXPECT_NEAR(perf::TrajectoryLengthDispersion(s), 1.0 + 1.0 / 9.0, 1e-9);
  EXPECT_NEAR(perf::SlowestRankFactor(s, kTokens, 300.0, 8, /*forward_only=*/false), 1.119935, 1e-6);
  EXPECT_NEAR(perf::SlowestRankFactor(s, kTokens, 300.0, 8, /*forward_only=*/true), 1.119935, 1e-6);
  // The log-prob passes' own 64 sequences: 1 + 1.43420 x 0.334500 / 8.
  Scenario big = test::Load(FsdpText(", train_micro_batch_seqs: 16, logprob_micro_batch_seqs: 64"));
  EXPECT_NEAR(perf::SlowestRankFactor(big, kTokens, 300.0, 8, /*forward_only=*/true), 1.059968, 1e-6);
}

// The slowest rank's share stretches the pass's compute (x1.119935 here);
// its model FLOPs stay the real tokens'. Against the same run with every
// response at 200 tokens (no spread, factor 1; its attention differs by
// 1/9 of a share under 1%): the update and the log-prob pass take about
// 1.12 x as long.
TEST(SlowestRank, ThePassesRunAtTheSlowestRanksPace) {
  Scenario s = test::Load(FsdpText(", train_micro_batch_seqs: 16"));
  std::string fixed_text = FsdpText(", train_micro_batch_seqs: 16");
  fixed_text.replace(fixed_text.find("{mean: 200, cv: 0.5}"), 20, "200");
  Scenario fixed = test::Load(fixed_text);
  EXPECT_EQ(perf::SlowestRankFactor(fixed, kTokens, 300.0, 8, false), 1.0);
  const double update = perf::TrainStep(s, kTokens, 300.0, 8).time_s / perf::TrainStep(fixed, kTokens, 300.0, 8).time_s;
  const double forward =
      perf::ForwardPass(s, kTokens, 300.0, 8).time_s / perf::ForwardPass(fixed, kTokens, 300.0, 8).time_s;
  EXPECT_NEAR(update, 1.119935, 0.01);
  EXPECT_NEAR(forward, 1.119935, 0.01);
  EXPECT_NEAR(perf::TrainStep(s, kTokens, 300.0, 8).flops / perf::TrainStep(fixed, kTokens, 300.0, 8).flops, 1.0, 0.01);
  EXPECT_EQ(perf::SlowestRankFactor(s, kTokens, 300.0, 1, /*forward_only=*/false), 1.0);  // one rank
}

// Where every rank's micro-batches hold alike work, or a token budget
// fills them: 1.
TEST(SlowestRank, NothingToWaitForWhenTheWorkIsAlike) {
  // Max-length padding: every sequence runs at the padded length.
  Scenario padded = test::Load(FsdpText(", train_micro_batch_seqs: 16"));
  padded.placement.train_padding = TrainPadding::kMaxLength;
  EXPECT_EQ(perf::SlowestRankFactor(padded, kTokens, 300.0, 8, false), 1.0);
  // A token budget (NeMo RL's DTensor packs, padded to it and equal in count
  // across ranks: FixedLengthPackFactor charges those).
  Scenario budget = test::Load(FsdpText(", train_micro_batch_tokens: 4096"));
  EXPECT_EQ(perf::SlowestRankFactor(budget, kTokens, 300.0, 8, false), 1.0);
  // No micro-batch stated.
  Scenario none = test::Load(FsdpText(""));
  EXPECT_EQ(perf::SlowestRankFactor(none, kTokens, 300.0, 8, false), 1.0);
}

// Megatron without a pipeline, NeMo RL's packs dealt in turn: 3,100-token
// sequences never share a 4,096-token pack. 24 GPUs (dp 24), 2,048
// sequences, 4 mini-batches: B = 512 packs a mini-batch, 21.33 a rank, the
// slowest 22 (fixed lengths: B does not vary): 22 / 21.333 = 1.03125. The
// log-prob pass packs the whole batch: 86 / 85.333 = 1.0078125. Fewer packs
// than ranks (B = 16 on 24): the slowest holds one, 24 / 16. With 8 GPUs
// the packs divide evenly (64 a rank): 1. A pipeline pads every pack to one
// length instead (PipelineForwardPackFactor): 1 here.
TEST(SlowestRank, MegatronPacksDealtInTurnByHand) {
  const double tokens = 2048.0 * 3100.0;
  Scenario s24 = test::Load(PacksText(24, "3000", ""));
  EXPECT_NEAR(perf::SlowestRankFactor(s24, tokens, 3100.0, 24, false), 22.0 / (512.0 / 24.0), 1e-12);
  EXPECT_NEAR(perf::SlowestRankFactor(s24, tokens, 3100.0, 24, true), 86.0 / (2048.0 / 24.0), 1e-12);
  EXPECT_NEAR(perf::SlowestRankFactor(s24, 64.0 * 3100.0, 3100.0, 24, false), 24.0 / 16.0, 1e-12);
  Scenario s8 = test::Load(PacksText(8, "3000", ""));
  EXPECT_EQ(perf::SlowestRankFactor(s8, tokens, 3100.0, 8, false), 1.0);
  Scenario pp = test::Load(PacksText(24, "3000", ", train_tp: 4, train_pp: 2"));
  EXPECT_EQ(perf::SlowestRankFactor(pp, tokens, 3100.0, 24, false), 1.0);
}

// With a spread of lengths B varies from step to step, and the slowest
// rank's count is E[ceil(B / dp)]. 16 GPUs: B = 512 packs (every sequence
// still over 2,048 tokens) is exactly 32 a rank; about normal around 32
// (sd 512 cv(L) / sqrt(512), a small fraction of a pack a rank), ceil(B / 16)
// is 32 or 33 with even odds: 32.5 / 32 = 1.015625, where fixed lengths give 1.
TEST(SlowestRank, ASpreadOfLengthsSpreadsThePackCount) {
  const double tokens = 2048.0 * 3100.0;
  Scenario fixed = test::Load(PacksText(16, "3000", ""));
  EXPECT_EQ(perf::SlowestRankFactor(fixed, tokens, 3100.0, 16, false), 1.0);
  Scenario spread = test::Load(PacksText(16, "{mean: 3000, cv: 0.05}", ""));
  EXPECT_NEAR(perf::SlowestRankFactor(spread, tokens, 3100.0, 16, false), 32.5 / 32.0, 1e-9);
}

}  // namespace
}  // namespace rlcost
