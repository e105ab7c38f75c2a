// Packed micro-batches of the update: sequences longer than half the budget
// take a micro-batch each; a trainer that holds every micro-batch to one
// length (DTensor's pack padding, Megatron's pipeline with static shapes)
// runs the padding; DTensor tensor parallel issues 7 activation collectives
// a layer each way. docs/model.md, "Packed micro-batches" and "DTensor
// tensor-parallel collectives".
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// 2,048 sequences a step (64 prompts x 32) in 4 mini-batches of 512, packed
// into 4,096-token micro-batches.
std::string Text(const std::string& model, int gpus, const std::string& placement, const std::string& lengths) {
  return "name: pack\nmodel: " + model + "\nhardware: {gpu: h100-sxm, gpus: " + std::to_string(gpus) +
         ", gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 4, gpu_memory_utilization: 0.6, "
         "train_micro_batch_tokens: 4096" +
         placement + "}\nenvironment:\n" + lengths + "  reward: {type: outcome}\n" +
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

const std::string kLong = "  prompt_tokens: 100\n  response_tokens: 3000\n";   // 3,100 a sequence
const std::string kShort = "  prompt_tokens: 112\n  response_tokens: 400\n";   // 512 a sequence

// Sequences of 3,100 tokens: no two fit in 4,096, so a mini-batch of 512
// runs 512 micro-batches, not ceil(512 x 3,100 / 4,096) = 388. Over
// dp = 32 / (4 x 2) = 4 ranks: 128 each (perfect packing: ceil(97) = 97).
TEST(Packing, SequencesLongerThanHalfTheBudgetTakeAMicroBatchEach) {
  Scenario s = test::Load(Text("qwen3-32b", 32, ", train_tp: 4, train_pp: 2", kLong));
  const double minibatch = 512.0 * 3100.0;
  EXPECT_DOUBLE_EQ(perf::PackedMicrobatches(s, 32, minibatch, 3100.0), 128.0);
  EXPECT_DOUBLE_EQ(perf::TrainMicrobatches(s.placement, 32, minibatch, 3100.0), 97.0);
  // Short sequences pack as if divisible: ceil(512 x 512 / 4,096) = 64
  // micro-batches of the mini-batch, 16 a rank.
  Scenario short_seq = test::Load(Text("qwen3-32b", 32, ", train_tp: 4, train_pp: 2", kShort));
  EXPECT_DOUBLE_EQ(perf::PackedMicrobatches(short_seq, 32, 512.0 * 512.0, 512.0), 16.0);
  // Without a budget: the perfect-packing count (one sequence each).
  Scenario unstated = s;
  unstated.placement.train_micro_batch_tokens = 0;
  EXPECT_DOUBLE_EQ(perf::PackedMicrobatches(unstated, 32, minibatch, 3100.0),
                   perf::TrainMicrobatches(unstated.placement, 32, minibatch, 3100.0));
}

// A spread of lengths: the count never falls below perfect packing and
// rises as the responses lengthen. NeMo RL v0.3's 70B Megatron run (prompt
// 120, response 398 cv 0.7): 0.25% of the responses pass 2,048 - 120, so a
// mini-batch of 512 x 518 = 265,216 tokens fills ceil(64.75) = 65
// micro-batches, 16.25 for each of the dp = 4 ranks: the slowest runs
// ceil(b / 4) of the step's b, about normal around 65 (sd 65 cv(L) /
// sqrt(512), about 1.6): 17 on the steps b passes 64, 16 on the others, in
// expectation between 16.25 and 17 (the hard ceiling read 17 on every step).
TEST(Packing, ASpreadOfLengthsPacksNoBetterThanPerfectly) {
  const std::string lengths =
      "  prompt_tokens: {mean: 120, cv: 0.5, max: 1024}\n  response_tokens: {mean: 398, cv: 0.7, max: 3976}\n";
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4", lengths));
  const double mean = 120.0 + 398.0;
  const double packs = perf::PackedMicrobatches(s, 64, 512.0 * mean, mean);
  EXPECT_GT(packs, 16.25);
  EXPECT_LT(packs, 17.0);
  EXPECT_NEAR(packs, 16.6, 0.1);
  // Longer responses (mean 3,000, cv 0.3, at most 3,976): about 95% pass
  // 1,928 and cannot pair, and the few short ones cannot fill the room they
  // leave; the count lies above perfect packing's ceil(512 x 3,120 / 4,096 /
  // 4) = 98. (At a mean of 2,000 the short half fills that room and the
  // count is perfect packing's.)
  const std::string longer =
      "  prompt_tokens: {mean: 120, cv: 0.5, max: 1024}\n  response_tokens: {mean: 3000, cv: 0.3, max: 3976}\n";
  Scenario l = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 4, train_pp: 4", longer));
  const double lmean = 120.0 + l.environment.response_tokens.mean();
  const double perfect = perf::TrainMicrobatches(l.placement, 64, 512.0 * lmean, lmean);
  const double packed = perf::PackedMicrobatches(l, 64, 512.0 * lmean, lmean);
  EXPECT_GT(packed, perfect);
  EXPECT_LE(packed, std::ceil(512.0 / 4));  // at most one sequence a micro-batch
}

// Pipelined (train_pp 2): every micro-batch runs at 4,096 tokens. 2,048
// sequences of 3,100 over 4 mini-batches: 4 x 128 x 4,096 = 2,097,152 tokens
// a rank run for 2,048 x 3,100 / 4 = 1,587,200 real: 1.32128.
TEST(Packing, APipelineRunsEveryPackedMicroBatchAtItsBudget) {
  Scenario pp = test::Load(Text("qwen3-32b", 32, ", train_tp: 4, train_pp: 2", kLong));
  const double tokens = 2048.0 * 3100.0;
  EXPECT_TRUE(perf::PacksToFixedLength(pp));
  EXPECT_NEAR(perf::FixedLengthPackFactor(pp, 32, tokens, 3100.0), 2097152.0 / 1587200.0, 1e-12);
  // The update's linear layers run on the padding: the update is slower
  // than the same layout's without a budget-length pack.
  Scenario no_pp = test::Load(Text("qwen3-32b", 32, ", train_tp: 4, train_backend: megatron", kLong));
  EXPECT_FALSE(perf::PacksToFixedLength(no_pp));
  EXPECT_DOUBLE_EQ(perf::FixedLengthPackFactor(no_pp, 32, tokens, 3100.0), 1.0);
  // DTensor (fsdp) pads every pack too, without a pipeline: dp = 32 / 4 = 8,
  // 64 micro-batches a rank each mini-batch: 4 x 64 x 4,096 / 793,600.
  Scenario dt = test::Load(Text("qwen3-32b", 32, ", train_tp: 4, train_backend: fsdp", kLong));
  EXPECT_NEAR(perf::FixedLengthPackFactor(dt, 32, tokens, 3100.0), 1048576.0 / 793600.0, 1e-12);
  // Short sequences fill their budget: no padding beyond the last pack.
  Scenario short_seq = test::Load(Text("qwen3-32b", 32, ", train_tp: 4, train_pp: 2", kShort));
  EXPECT_DOUBLE_EQ(perf::FixedLengthPackFactor(short_seq, 32, 2048.0 * 512.0, 512.0), 1.0);
  // The update: the padded linear FLOPs at the same MFU, attention on the
  // real tokens; more time, the same model FLOPs.
  Scenario free_len = pp;
  free_len.placement.train_micro_batch_tokens = 0;
  const auto padded = perf::TrainStep(pp, tokens, 3100.0, 32);
  const auto unpadded = perf::TrainStep(free_len, tokens, 3100.0, 32);
  EXPECT_DOUBLE_EQ(padded.flops, unpadded.flops);
  EXPECT_GT(padded.time_s, 1.2 * unpadded.time_s);
}

// Llama-3.1-70B (hidden 8,192, 80 layers) on 64 H100, DTensor TP 8 + SP,
// FSDP over dp = 8: 2,048 x 512 tokens, 131,072 a TP group. A collective
// moves 7/8 x 131,072 x 8,192 x 2 = 1.8790e9 bytes a GPU over the pass;
// 14 a layer (5 all-gathers + 2 reduce-scatters forward, their transposes
// backward) x 80 layers = 1,120, over NVLink at 450 x 0.82 = 369 GB/s:
// 1,120 x 1.8790e9 / 369e9 = 5.7033 s; forward only 2.8517 s.
TEST(DtensorTp, SevenActivationCollectivesALayerEachWay) {
  const std::string lengths =
      "  prompt_tokens: {mean: 120, cv: 0.5, max: 1024}\n  response_tokens: {mean: 392, cv: 0.7, max: 3976}\n";
  Scenario s = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: fsdp", lengths));
  const double tokens = 2048.0 * 512.0;
  const double bytes = 7.0 / 8.0 * 131072.0 * 8192.0 * 2.0;
  EXPECT_NEAR(perf::DtensorTpCollectiveTime(s, tokens, 64, false), 1120.0 * bytes / 369e9, 1e-9);
  EXPECT_NEAR(perf::DtensorTpCollectiveTime(s, tokens, 64, false), 5.7033, 1e-4);
  EXPECT_NEAR(perf::DtensorTpCollectiveTime(s, tokens, 64, true), 2.8517, 1e-4);
  // Megatron's TP reductions are MegatronTpCollectiveTime's; no TP, none.
  Scenario m = test::Load(Text("llama-3.1-70b", 64, ", train_tp: 8, train_backend: megatron", lengths));
  EXPECT_EQ(perf::DtensorTpCollectiveTime(m, tokens, 64, false), 0.0);
  Scenario fsdp_tp1 = test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp", lengths));
  EXPECT_EQ(perf::DtensorTpCollectiveTime(fsdp_tp1, tokens, 8, false), 0.0);
}

// The log-prob and reference passes run DTensor's tensor-parallel plan too,
// forward only. Llama-3.1-70B on one node of 8 H100 at TP 8 (dp 1, so no
// FSDP traffic): 2,048 x 512 = 1,048,576 tokens a TP group, each collective
// 7/8 x 1,048,576 x 8,192 x 2 = 1.5032e10 bytes a GPU, 7 a layer x 80 layers
// = 560 over NVLink at 369 GB/s: 560 x 1.5032e10 / 369e9 = 22.81 s, where
// the same layout under Megatron reduces twice a layer (160 all-reduces of
// twice those bytes: 13.04 s; docs/model.md, "Megatron communication left
// exposed"). The CPU issuing the pass's DTensor ops is a floor under it: 256
// micro-batches x 80 layers x 3.96 ms = 81.1 s ("DTensor dispatch paces the
// forward"), which this layout (a layer's compute and collectives ~2.7 ms)
// hits.
TEST(DtensorTp, ForwardPassesCarryTheirCollectivesOneWay) {
  const std::string lengths = "  prompt_tokens: 112\n  response_tokens: 400\n";
  Scenario dt = test::Load(Text("llama-3.1-70b", 8, ", train_tp: 8, train_backend: fsdp", lengths));
  Scenario mg = test::Load(Text("llama-3.1-70b", 8, ", train_tp: 8, train_backend: megatron", lengths));
  const double tokens = 2048.0 * 512.0;
  const double bytes = 7.0 / 8.0 * tokens * 8192.0 * 2.0;
  EXPECT_NEAR(perf::DtensorTpCollectiveTime(dt, tokens, 8, /*forward_only=*/true), 560.0 * bytes / 369e9, 1e-6);
  const double megatron_tp = 160.0 * 2.0 * bytes / 369e9;
  EXPECT_NEAR(megatron_tp, 13.036, 1e-3);
  const double compute = perf::ForwardPass(mg, tokens, 512.0, 8).time_s - megatron_tp + 22.8134;
  const double cpu = 256.0 * 80.0 * 3.96e-3;
  EXPECT_NEAR(perf::ForwardPass(dt, tokens, 512.0, 8).time_s, std::max(compute, cpu), 1e-3);
  EXPECT_GT(cpu, compute);
  // Without tensor parallel nothing is added.
  Scenario dt1 = test::Load(Text("llama-3.1-8b", 8, ", train_backend: fsdp", lengths));
  Scenario mg1 = test::Load(Text("llama-3.1-8b", 8, ", train_backend: megatron", lengths));
  EXPECT_NEAR(perf::ForwardPass(dt1, tokens, 512.0, 8).time_s, perf::ForwardPass(mg1, tokens, 512.0, 8).time_s,
              1e-12);
}

}  // namespace
}  // namespace rlcost
