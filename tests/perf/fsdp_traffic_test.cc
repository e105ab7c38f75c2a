// placement.train_backend: fsdp — parameters all-gathered in every
// micro-batch's forward and backward and fp32 gradients reduce-scattered after
// it, over the sharding group; a pass takes the longer of that traffic and
// its compute. docs/model.md, "FSDP traffic per micro-batch".
#include <gtest/gtest.h>

#include "perf/dp_imbalance.h"
#include "perf/fsdp_overlap.h"
#include "perf/packing.h"
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

// The micro-batches an FSDP rank runs when its sequences are packed into a
// token budget. NeMo RL packs each mini-batch (the whole batch for a
// forward-only pass) and deals the packs to the ranks in turn
// (batched_data_dict.py:376-440 @ v0.3.0 b1c86a81, bin_idx % shards), so
// rank 0 gets ceil(b / dp) of the step's b packs; the DTensor worker
// all-reduces the rank's count with MAX and runs dummy packs up to it
// (dtensor_policy_worker.py:571-591 update, 853-869 log-probs): every rank
// runs ceil(b / dp), an integer each step. b moves with the lengths, about
// normal N(B, B cv(L) / sqrt(n)), so a step runs E[ceil(b / dp)] on average:
// the expectation, not its ceiling (veRL's dynamic batches run max over
// ranks of ceil(T_r / budget), seqlen_balancing.py:348-392, an integer each
// step too).
//
// Llama-3.1-70B's scenario below: prompts 120 (cv 0.5), responses 392
// (cv 0.7); a sequence 512 tokens, cv(L)^2 = (60^2 + 274.4^2) / 512^2 =
// 0.3010 (the responses' clipping at 3,976 aside). A mini-batch: 512
// sequences, 262,144 tokens = 64 budgets of 4,096; a sequence over 2,048
// tokens (a response over 1,928, 0.2% of them) is rare, so B = 64 packs.
// sd = 64 x sqrt(0.3010) / sqrt(512) = 1.552. Over dp = 8: ceil(b / 8) = 8
// for b in 57..64, 9 for 65..72, 7 below 57 (P(b <= 56.5) = Phi(-4.8),
// nil): E = 8 + P(b >= 65) = 8 + 1 - Phi(0.5 / 1.552) = 8 + 1 - 0.6263 =
// 8.374 a mini-batch; 4 x 8.374 = 33.50 in the update, where rounding the
// expectation up again would run 9 each, 36.
// The forward pass packs the whole batch: 2,048 sequences, B = 256,
// sd = 256 x 0.5486 / sqrt(2048) = 3.103; ceil(b / 8) = 32 for 249..256, 33
// above, 31 for 241..248: E = 32 + (1 - Phi(0.5 / 3.103)) - Phi(-7.5 / 3.103)
// = 32 + 0.4360 - 0.0078 = 32.428.
constexpr double kUpdateMicrobatches = 4 * 8.374;
constexpr double kForwardMicrobatches = 32.428;

TEST(FsdpTraffic, PackedRanksRunTheExpectedCountOfTheDealNotItsCeiling) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp"));
  const double tokens = 2048.0 * 512.0;
  ASSERT_DOUBLE_EQ(perf::PackedBins(s, 4096, tokens / 4, 512), 64.0);
  ASSERT_DOUBLE_EQ(perf::PackedBins(s, 4096, tokens, 512), 256.0);
  const double update = perf::FsdpPassMicrobatches(s, tokens, 512, 64, /*forward_only=*/false);
  const double forward = perf::FsdpPassMicrobatches(s, tokens, 512, 64, /*forward_only=*/true);
  EXPECT_NEAR(update, kUpdateMicrobatches, 0.01);
  EXPECT_NEAR(forward, kForwardMicrobatches, 0.01);
  // Between the even deal and a ceiling of the expectation.
  EXPECT_GT(update, 32.0);
  EXPECT_LT(update, 36.0);
  // The count the update's packs are padded by (FixedLengthPackFactor): one
  // reading of the pack count.
  EXPECT_NEAR(update * 4096 / (tokens / 8), perf::FixedLengthPackFactor(s, 64, tokens, 512), 1e-12);
  // Lengths that do not vary: b = B every step, 4 x ceil(64 / 8) = 32 and
  // ceil(256 / 8) = 32, integers.
  Scenario fixed = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp"));
  fixed.environment.prompt_tokens = Distribution::Fixed(120);
  fixed.environment.response_tokens = Distribution::Fixed(392);
  EXPECT_DOUBLE_EQ(perf::FsdpPassMicrobatches(fixed, tokens, 512, 64, false), 32.0);
  EXPECT_DOUBLE_EQ(perf::FsdpPassMicrobatches(fixed, tokens, 512, 64, true), 32.0);
  // Stated as sequences a micro-batch, nothing is packed: the rank's share
  // over the micro-batch, 4 x 64 / 8 = 32.
  Scenario seqs = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp, train_micro_batch_seqs: 8"));
  seqs.placement.train_micro_batch_tokens = 0;
  EXPECT_DOUBLE_EQ(perf::FsdpPassMicrobatches(seqs, tokens, 512, 64, false), 32.0);
}

// Llama-3.1-70B (70.6B) on 64 H100, DTensor TP 8 with FSDP2 over the other
// 8 ranks of each TP shard, one per node: NeMo RL v0.3's 70B DTensor recipe.
TEST(FsdpTraffic, A70bDTensorRunIsHeldToItsPerMicroBatchGathersOverTheNetwork) {
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp"));
  ASSERT_EQ(s.placement.train_backend, TrainBackend::kFsdp);
  ASSERT_DOUBLE_EQ(s.hardware.gpu.efficiency.weight_sync_eff, 0.82);
  // 2048 sequences of 512 tokens; 4 mini-batches of 262,144 tokens over
  // dp = 64 / 8 = 8 ranks: 33.50 micro-batches in the update, 32.428 in a
  // forward pass (above; 32 each were the lengths fixed).
  const double tokens = 2048.0 * 512.0;
  const double mu = perf::FsdpPassMicrobatches(s, tokens, 512, 64, false);
  const double mf = perf::FsdpPassMicrobatches(s, tokens, 512, 64, true);
  ASSERT_NEAR(mu, kUpdateMicrobatches, 0.01);
  ASSERT_NEAR(mf, kForwardMicrobatches, 0.01);
  // A rank's TP shard: 70.6e9 / 8 = 8.825e9 parameters. The group of 8 spans
  // 8 nodes: the NIC, 50 GB/s x 0.82 = 41 GB/s.
  // Update, per micro-batch: (2 + 2 + 4) x 8.825e9 x 7/8 = 61.775e9 bytes
  // -> 33.50 x 61.775e9 / 41e9 = 50.47 s.
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 64, /*forward_only=*/false), mu * 61.775e9 / 41e9, 1e-9);
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 64, false), 50.47, 0.02);
  // Forward only: 2 x 8.825e9 x 7/8 = 15.44375e9 bytes -> 32.428 x ... = 12.215 s.
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 64, /*forward_only=*/true), 12.215, 0.005);
  // The compute of the update (6.983e15 model FLOPs a GPU: 16.6 s at
  // train_mfu 0.425, 19.8 s at the update's typical MFU 0.357 = 0.425 x
  // typical_update_share 0.84, UpdateMfu; its backward two thirds of it)
  // hides under the backward's traffic (33.50 x 46.33125e9 / 41e9 =
  // 37.855 s), so run.tuning does not move this step (below). The forward
  // is paced by the CPU's DTensor dispatch (44 x 90 us = 3.96 ms a layer,
  // more than the layer's compute): each layer's gather waits for the CPU
  // to reach the layer, so 33.50 x 80 x 3.96 ms = 10.612 s and the
  // forward's gathers (33.50 x 15.44375e9 / 41e9 = 12.618 s) add up ("DTensor
  // dispatch paces the forward"). The host sync after each micro-batch
  // leaves its first gathers (root and first layer, 15.7798 ms) exposed where
  // the forward already pays one layer's, 15.44375e9 / 41e9 / 80 = 4.7085 ms:
  // 33.50 x 11.0713 ms = 0.3709 s ("A host sync after every micro-batch";
  // the tail hides under the backward's traffic). Plus 3 more Adam steps.
  const double head_excess = 15.7798e-3 - 15.44375e9 / 41e9 / 80;
  EXPECT_NEAR(perf::TrainStep(s, tokens, 512, 64).time_s,
              mu * (15.44375e9 / 41e9 + 80 * 3.96e-3 + 46.33125e9 / 41e9 + head_excess) +
                  3 * perf::OptimizerStepTime(s),
              1e-3);
  EXPECT_NEAR(perf::TrainStep(s, tokens, 512, 64).time_s,
              12.618 + 10.612 + 37.855 + 0.3709 + 3 * perf::OptimizerStepTime(s), 0.05);
  Scenario tuned = s;
  tuned.run.tuning = RunTuning::kTuned;
  EXPECT_DOUBLE_EQ(perf::TrainStep(tuned, tokens, 512, 64).time_s, perf::TrainStep(s, tokens, 512, 64).time_s);
  // A forward pass: 32.428 x (15.44375e9 / 41e9 + 80 x 3.96 ms) = 12.215 + 10.273 s
  // (no host sync per micro-batch in a forward-only pass).
  EXPECT_NEAR(perf::ForwardPass(s, tokens, 512, 64).time_s, mf * (15.44375e9 / 41e9 + 80 * 3.96e-3), 1e-4);
  EXPECT_NEAR(perf::ForwardPass(s, tokens, 512, 64).time_s, 12.215 + 10.273, 0.01);
  // Without a stated micro-batch the traffic is not priced.
  Scenario unstated = s;
  unstated.placement.train_micro_batch_tokens = 0;
  EXPECT_EQ(perf::FsdpTrafficTime(unstated, tokens, 512, 64, false), 0.0);
  // Megatron (stated): no such term, the compute alone.
  Scenario m = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: megatron"));
  EXPECT_EQ(perf::FsdpTrafficTime(m, tokens, 512, 64, false), 0.0);
  // Its update (less the wait for the rank dealt the most packs,
  // SlowestRankFactor) is the compute, 6.983e15 FLOPs a GPU at 989e12 x
  // UpdateMfu: 16.6 s at the published 0.425 (run.tuning: tuned), 19.8 s at
  // the typical 0.357, plus Megatron's TP reductions over NVLink (1.63 s),
  // the packs' padding and three more optimizer steps: 18.95 s tuned, 21.93 s
  // typical. The bound, 20 s at the published MFU, scales with the compute by
  // 1 / typical_update_share: 20 / 0.84 = 23.8 s; either is far below the
  // DTensor run's 61.5 s (its traffic alone 50.47 s) and at least the compute.
  const double megatron =
      perf::TrainStep(m, tokens, 512, 64).time_s / perf::SlowestRankFactor(m, tokens, 512, 64, false);
  EXPECT_GT(megatron, perf::TrainStep(m, tokens, 512, 64).flops / (989e12 * perf::UpdateMfu(m)));
  EXPECT_LT(megatron, 20.0 / m.hardware.gpu.efficiency.typical_update_share);
  Scenario m_tuned = m;
  m_tuned.run.tuning = RunTuning::kTuned;
  EXPECT_LT(perf::TrainStep(m_tuned, tokens, 512, 64).time_s / perf::SlowestRankFactor(m_tuned, tokens, 512, 64, false),
            20.0);
}

// Llama-3.1-8B (8.03B) over 8 H100 of one node: the ring stays on NVLink
// (450 GB/s x 0.82 = 369 GB/s): (2 + 2 + 4) x 8.03e9 x 7/8 = 56.21e9 bytes
// = 0.15233 s a micro-batch, less than its compute (6 x 8.03e9 x 4,096 /
// (989e12 x 0.425 x 0.84, UpdateMfu) = 0.56 s; 0.47 s tuned): the traffic hides, but for each micro-batch's
// two ends that the host sync after it exposes, 6.0172 + 12.0344 ms ("A host
// sync after every micro-batch").
TEST(FsdpTraffic, OnNvlinkAnEightBUpdateStaysComputeBound) {
  Scenario s = test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp", 1));
  const double tokens = 2048.0 * 512.0;
  // The same mini-batches of 64 packs over dp = 8: 33.50 micro-batches
  // (PackedRanksRunTheExpectedCountOfTheDealNotItsCeiling).
  const double mu = perf::FsdpPassMicrobatches(s, tokens, 512, 8, false);
  EXPECT_NEAR(mu, kUpdateMicrobatches, 0.01);
  EXPECT_NEAR(perf::FsdpTrafficTime(s, tokens, 512, 8, false), mu * 56.21e9 / 369e9, 1e-9);
  // The traffic hides: a link a thousand times faster changes the update by
  // the micro-batches' exposed ends alone, 33.50 x 18.0516 ms x (1 - 1/1000).
  // (The update is longer than the same one with no micro-batch stated by
  // those ends and by the padding of its 33.50 packs to the budget,
  // FixedLengthPackFactor, 33.50 x 4,096 / 131,072 = 1.047 of the linear
  // layers' work.)
  Scenario fast = s;
  fast.hardware.gpu.intra_node_gb_per_s *= 1000.0;
  EXPECT_NEAR(perf::TrainStep(s, tokens, 512, 8).time_s - perf::TrainStep(fast, tokens, 512, 8).time_s,
              mu * 18.0516e-3 * (1 - 1e-3), 1e-5);
  Scenario untimed = s;
  untimed.placement.train_micro_batch_tokens = 0;
  EXPECT_GT(perf::TrainStep(s, tokens, 512, 8).time_s, perf::TrainStep(untimed, tokens, 512, 8).time_s + mu * 18e-3);
  EXPECT_NEAR(perf::FixedLengthPackFactor(s, 8, tokens, 512), 33.50 * 4096 / 131072.0, 0.001);
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
