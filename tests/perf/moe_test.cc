// MoE at training time and the trainer's layout (src/perf/moe.cc): numbers
// worked out by hand in the comments.
#include <gtest/gtest.h>

#include "perf/dp_imbalance.h"
#include "perf/megatron_comm.h"
#include "rlcost/catalog.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost::perf {
namespace {

const Catalog& Cat() {
  static const Catalog c = Catalog::Builtin().value();
  return c;
}

// The default scenario as rlcost's own stand (no framework's defaults: no
// gradient checkpointing, no engine memory share), on which the figures below
// were worked by hand.
Scenario With(const std::vector<Override>& ov) { return test::DefaultWithoutFramework(Cat(), ov).value(); }

TEST(Moe, PipelineBubble) {
  // 1F1B: (pp - 1) / (m + pp - 1). pp 16, 18 micro-batches: 15 / 33.
  EXPECT_DOUBLE_EQ(PipelineBubbleFraction(16, 18), 15.0 / 33.0);
  EXPECT_DOUBLE_EQ(PipelineBubbleFraction(1, 5), 0.0);
  EXPECT_DOUBLE_EQ(PipelineBubbleFraction(8, 0), 7.0 / 8.0);  // at least one micro-batch
}

TEST(Moe, MicrobatchesFromPackedTokens) {
  // DeepSeek-V3 on 256 GPUs, [TP 1, CP 1, PP 16]: dp = 16. 512 x 821 =
  // 420,352 tokens: 26,272 per rank / 1536 per micro-batch = 17.1 -> 18.
  PlacementSpec p;
  p.train_pp = 16;
  p.train_micro_batch_tokens = 1536;
  EXPECT_DOUBLE_EQ(TrainMicrobatches(p, 256, 512 * 821.0, 821.0), 18.0);
  // Not stated: one sequence per micro-batch, 512 / 16 = 32.
  p.train_micro_batch_tokens = 0;
  EXPECT_DOUBLE_EQ(TrainMicrobatches(p, 256, 512 * 821.0, 821.0), 32.0);
}

TEST(Moe, PipelineBubbleSlowsTheDenseUpdate) {
  // Llama-3.1-8B on 16 GPUs, train_pp 4: dp 4; 32 sequences of 1000 tokens,
  // one per micro-batch: 8 per rank, bubble 3 / 11, time x 11 / 8 (the
  // stages balanced: placement.train_pp_split's default; an even split is
  // PipelineStageFactor's, tests/perf/pass_microbatches_test.cc).
  auto flat = With({{"model", "llama-3.1-8b"}, {"hardware.gpus", "16"}});
  auto piped = With({{"model", "llama-3.1-8b"}, {"hardware.gpus", "16"}, {"placement.train_pp", "4"}});
  double t0 = TrainStep(flat, 32000, 1000, 16).time_s;
  // The stages' point-to-point sends come on top (docs/model.md, "Megatron
  // communication left exposed").
  double t1 = TrainStep(piped, 32000, 1000, 16).time_s - MegatronPipelineSendTime(piped, 32000, 1000, 16, false);
  EXPECT_NEAR(t1 / t0, 11.0 / 8.0, 1e-12);
  EXPECT_GT(MegatronPipelineSendTime(piped, 32000, 1000, 16, false), 0.0);
  // No layout: exactly flops / (peak * the update's MFU), as before; the
  // update's MFU is train_mfu x typical_update_share (run.tuning: typical,
  // the default; UpdateMfu).
  const auto& g = flat.hardware.gpu;
  Work w = TrainStep(flat, 32000, 1000, 16);
  ASSERT_EQ(flat.run.tuning, RunTuning::kTypical);
  EXPECT_DOUBLE_EQ(UpdateMfu(flat), g.efficiency.train_mfu * g.efficiency.typical_update_share);
  EXPECT_DOUBLE_EQ(w.time_s, w.flops / (g.PeakFlops(flat.precision.train) * UpdateMfu(flat)));
}

TEST(GradientCheckpointing, OneMoreForwardInTheUpdate) {
  // Full recompute runs the forward again in the backward: per token
  // 6N + 3A + (2N + A) = (4/3)(6N + 3A) for full fine-tuning, whatever A is.
  // Llama-3.1-8B on 16 GPUs, 32 sequences of 1000 tokens: the model FLOPs
  // (and so MFU's numerator) are unchanged, the time is 4/3 of it.
  auto plain = With({{"model", "llama-3.1-8b"}, {"hardware.gpus", "16"}});
  auto gc = With({{"model", "llama-3.1-8b"}, {"hardware.gpus", "16"}, {"placement.gradient_checkpointing", "true"}});
  EXPECT_TRUE(gc.placement.gradient_checkpointing);
  EXPECT_FALSE(plain.placement.gradient_checkpointing);
  Work w0 = TrainStep(plain, 32000, 1000, 16);
  Work w1 = TrainStep(gc, 32000, 1000, 16);
  EXPECT_DOUBLE_EQ(w1.flops, w0.flops);
  EXPECT_NEAR(w1.time_s / w0.time_s, 4.0 / 3.0, 1e-12);
  // Exactly (4/3) flops / (peak * UpdateMfu), UpdateMfu = train_mfu x
  // typical_update_share (run.tuning: typical): 8.03e9 active parameters,
  // 32,000 tokens on 16 GPUs -> w0.flops >= 6 * 8.03e9 * 2000 = 9.6e13 per GPU.
  const auto& g = gc.hardware.gpu;
  EXPECT_GE(w0.flops, 6.0 * 8.03e9 * 2000 * 0.99);
  EXPECT_NEAR(w1.time_s, 4.0 / 3.0 * w1.flops / (g.PeakFlops(gc.precision.train) * UpdateMfu(gc)),
              1e-12 * w1.time_s);
  // The forward-only passes (log-probs, reference) keep no activations to
  // recompute: unchanged.
  EXPECT_DOUBLE_EQ(ForwardPass(gc, 32000, 1000, 16).time_s, ForwardPass(plain, 32000, 1000, 16).time_s);
  // LoRA: (4N + 6N_a + 3A + 2N + A) / (4N + 6N_a + 3A), below 4/3 and above 1.
  auto lora = With({{"model", "llama-3.1-8b"}, {"algorithm.lora.rank", "16"}});
  auto lora_gc = With({{"model", "llama-3.1-8b"}, {"algorithm.lora.rank", "16"},
                       {"placement.gradient_checkpointing", "true"}});
  double r = TrainStep(lora_gc, 32000, 1000, 8).time_s / TrainStep(lora, 32000, 1000, 8).time_s;
  EXPECT_GT(r, 4.0 / 3.0);  // the frozen base's update is 4N, so one more 2N forward is worth more than a third
  EXPECT_LT(r, 1.5);        // 6N / 4N at most (no adapter, no attention)
}

TEST(Moe, MoeModelsTrainAtTheMoeMfu) {
  // Qwen3-235B-A22B, no layout, run.tuning: tuned (the published MFU
  // itself): flops / (989 TF * 0.224), not 0.425. Typical (the default):
  // 0.224 x typical_update_share 0.84.
  // The MoE layer floor off (moe_floor_test.cc): 8 one-sequence
  // micro-batches a rank x 94 layers x 14 ms would be above the compute.
  auto s = With({{"model", "qwen3-235b-a22b"}, {"hardware.gpus", "64"}});
  s.hardware.gpu.efficiency.moe_layer_train_s = 0;
  EXPECT_DOUBLE_EQ(s.hardware.gpu.efficiency.train_mfu_moe, 0.224);
  EXPECT_DOUBLE_EQ(s.hardware.gpu.efficiency.typical_update_share, 0.84);
  Work typical = TrainStep(s, 1e6, 2000, 64);
  EXPECT_NEAR(typical.time_s, typical.flops / (989e12 * 0.224 * 0.84), 1e-9 * typical.time_s);
  Scenario tuned = s;
  tuned.run.tuning = RunTuning::kTuned;
  Work w = TrainStep(tuned, 1e6, 2000, 64);
  EXPECT_NEAR(w.time_s, w.flops / (989e12 * 0.224), 1e-9 * w.time_s);
  // Forward-only: logprob_mfu scaled by 0.224 / 0.425, whatever run.tuning
  // says (the named fit leaves logprob_mfu alone).
  Work f = ForwardPass(s, 1e6, 2000, 64);
  const auto& e = s.hardware.gpu.efficiency;
  EXPECT_NEAR(f.time_s, f.flops / (989e12 * e.logprob_mfu * 0.224 / e.train_mfu), 1e-9 * f.time_s);
  EXPECT_DOUBLE_EQ(ForwardPass(tuned, 1e6, 2000, 64).time_s, f.time_s);
}

TEST(Moe, ExpertAllToAll) {
  // Qwen3-235B (k 8, h 4096, 94 layers), 128 GPUs, EP 16, 8 GPUs a node,
  // 1e6 tokens, forward + backward (4 all-to-alls): per GPU
  // 1e6 * 8 * 4096 * 2 B * 94 / 128 * 4 = 1.9251e11 B. 8 of the 16 EP ranks
  // are on other nodes: 8/16 of it over the 50 GB/s NIC = 1.925 s; 7/16 over
  // 450 GB/s NVLink = 0.187 s. The NIC sets the time.
  auto s = With({{"model", "qwen3-235b-a22b"}, {"hardware.gpus", "128"}, {"placement.train_ep", "16"}});
  double bytes = 1e6 * 8 * 4096 * 2.0 * 94 / 128 * 4;
  EXPECT_NEAR(ExpertAllToAllTime(s, 1e6, 128, 4), bytes * 0.5 / 50e9, 1e-9);
  // EP inside one node: only NVLink, 7/8 of the bytes.
  auto n = With({{"model", "qwen3-235b-a22b"}, {"hardware.gpus", "128"}, {"placement.train_ep", "8"}});
  EXPECT_NEAR(ExpertAllToAllTime(n, 1e6, 128, 4), bytes * 7.0 / 8.0 / 450e9, 1e-9);
  // No expert parallelism, or a dense model: none.
  EXPECT_EQ(ExpertAllToAllTime(With({{"model", "qwen3-235b-a22b"}}), 1e6, 8, 4), 0.0);
}

TEST(Moe, SlowNetworkMakesTheUpdateAllToAllBound) {
  // On a 1 GB/s network the 4 all-to-alls (1.925e11 B / 2 per GPU off-node)
  // take 96 s, far above the compute: the update takes the all-to-all time.
  auto s = With({{"model", "qwen3-235b-a22b"}, {"hardware.gpus", "128"}, {"placement.train_ep", "16"}});
  s.hardware.gpu.inter_node_gb_per_s = 1;
  double a2a = 1e6 * 8 * 4096 * 2.0 * 94 / 128 * 4 * 0.5 / 1e9;
  EXPECT_NEAR(TrainStep(s, 1e6, 2000, 128).time_s, a2a, 1e-6 * a2a);
}

TEST(Moe, SmallExpertGemmsWasteTiles) {
  // DeepSeek-V3 (k 8, E 256), EP 16, 192-token micro-batches: 192 * 8 * 16 /
  // 256 = 96 tokens per expert in a 128-row tile: 0.75 of it is useful.
  // The MoE layer floor off (moe_floor_test.cc): 192-token micro-batches
  // would be far below it.
  auto s = With({{"model", "deepseek-v3"}, {"hardware.gpus", "256"}, {"placement.train_ep", "16"},
                 {"placement.train_micro_batch_tokens", "192"}});
  s.hardware.gpu.efficiency.moe_layer_train_s = 0;
  EXPECT_DOUBLE_EQ(ExpertGemmEfficiency(s, 821), 0.75);
  EXPECT_DOUBLE_EQ(TileEfficiency(256, 128), 1.0);
  EXPECT_DOUBLE_EQ(TileEfficiency(64, 128), 0.5);
  // The routed-expert share of the update's FLOPs runs 1 / 0.75 slower.
  auto big = s;
  big.placement.train_micro_batch_tokens = 256;  // 128 per expert: whole tiles
  Work slow = TrainStep(s, 1e6, 821, 256), fast = TrainStep(big, 1e6, 821, 256);
  double share = 6.0 * ActiveRoutedParams(s.model) * 1e9 * 1e6 / 256 / fast.flops;
  // Each budget deals its own packs to the ranks (SlowestRankFactor).
  const double deal = SlowestRankFactor(s, 1e6, 821, 256, false) / SlowestRankFactor(big, 1e6, 821, 256, false);
  EXPECT_NEAR(slow.time_s / fast.time_s, ((1 - share) + share / 0.75) * deal, 1e-9);
}

TEST(Moe, LoraIsSizedPerExpert) {
  // Qwen3-235B: each of the 128 experts of each of the 94 layers carries its
  // own rank-8 adapter on gate, up, down: 3 * 8 * (4096 + I) each, I the
  // expert intermediate size (~1536). A token uses its 8 experts' only.
  const ModelSpec& m = *Cat().FindModel("qwen3-235b-a22b");
  const double i = ExpertIntermediate(m);
  EXPECT_NEAR(i, 1536, 2);
  const double per_expert = 3.0 * 8 * (4096 + i);
  EXPECT_NEAR(LoraParams(m, 8) - LoraActiveParams(m, 8), 94.0 * 120 * per_expert, 1e-3);
  // Attention q, k, v, o at rank 8 (q = 64 * 128 = 8192, kv = 4 * 128 = 512):
  // 8 * ((4096 + 8192) + 2 * (4096 + 512) + (8192 + 4096)) = 270,336 a layer.
  EXPECT_NEAR(LoraParams(m, 8), 94.0 * (270336 + 128 * per_expert), 1e-3);
  // Dense models: active = all.
  const ModelSpec& d = *Cat().FindModel("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(LoraActiveParams(d, 8), LoraParams(d, 8));
}

}  // namespace
}  // namespace rlcost::perf
