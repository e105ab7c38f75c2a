// perf: roofline numbers worked out by hand in the comments.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "rlcost/catalog.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"
#include "ideal_efficiency.h"

namespace rlcost::perf {
namespace {

const Catalog& Cat() {
  static const Catalog c = Catalog::Builtin().value();
  return c;
}

using test::Ideal;

TEST(Perf, KvBytesPerTokenGqa) {
  // Llama-3.1-8B: 2 (K,V) * 32 layers * 8 KV heads * 128 dims * 2 bytes = 131072.
  const ModelSpec& m = *Cat().FindModel("llama-3.1-8b");
  EXPECT_DOUBLE_EQ(KvBytesPerToken(m, Precision::kBf16), 131072.0);
  // fp8 KV halves it.
  EXPECT_DOUBLE_EQ(KvBytesPerToken(m, Precision::kFp8), 65536.0);
}

TEST(Perf, KvBytesPerTokenMla) {
  // DeepSeek-V3: 61 layers * (512 latent + 64 RoPE) * 2 bytes = 70272.
  const ModelSpec& m = *Cat().FindModel("deepseek-v3");
  EXPECT_DOUBLE_EQ(KvBytesPerToken(m, Precision::kBf16), 70272.0);
}

TEST(Perf, DecodeIterationRooflineOnH100) {
  // Llama-3.1-8B bf16 on one H100 SXM at 100% of the roofline, batch 64,
  // 1000 tokens of context each (64,000 in all):
  //   bytes = 8.03e9 * 2 + 64000 * 131072 = 16.06e9 + 8.389e9 = 24.449e9
  //   t_mem = 24.449e9 / 3.35e12 = 7.298 ms
  //   flops = 64 * 2 * 8.03e9 + 4*32*32*128 * 64000 = 1.0278e12 + 3.355e10 = 1.0614e12
  //   t_cmp = 1.0614e12 / 989e12 = 1.073 ms  -> memory-bound, 7.298 ms.
  const ModelSpec& m = *Cat().FindModel("llama-3.1-8b");
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig e{&m, &g, Ideal(), 1, Precision::kBf16, Precision::kBf16};
  Work w = DecodeIteration(e, 64, 64000);
  double expected_bytes = m.params_b * 1e9 * 2 + 64000.0 * 131072;
  EXPECT_NEAR(w.bytes, expected_bytes, 1);
  EXPECT_NEAR(w.time_s, expected_bytes / 3.35e12, 1e-9);
  EXPECT_NEAR(w.time_s * 1e3, 7.298, 0.01);
  EXPECT_FALSE(w.compute_bound);
}

TEST(Perf, DecodeIterationsClosedFormEqualsSum) {
  // The closed form over n iterations equals the sum of single iterations,
  // also when the roofline switches from memory- to compute-bound midway
  // (large batch, MoE-free 8B on an L40S with little bandwidth).
  for (const char* gpu : {"h100-sxm", "l40s", "b200", "h20"}) {
    const ModelSpec& m = *Cat().FindModel("qwen3-8b");
    GpuSpec g = *Cat().FindGpu(gpu);
    EngineConfig e{&m, &g, g.efficiency, 1, Precision::kBf16, Precision::kBf16};
    for (double batch : {1.0, 37.0, 512.0}) {
      double c0 = batch * 300, n = 700;
      double sum = 0;
      for (int i = 0; i < n; ++i) sum += DecodeIteration(e, batch, c0 + batch * i).time_s;
      EXPECT_NEAR(DecodeIterations(e, batch, c0, n).time_s, sum, 1e-9 * sum) << gpu << " batch " << batch;
    }
  }
}

TEST(Perf, MoeExpertsTouched) {
  // Qwen3-30B-A3B: 128 experts, 8 per token. One token touches 8; 16 tokens
  // 128 * (1 - (120/128)^16) = 128 * (1 - 0.3561) = 82.4; 1000 tokens ~ all.
  const ModelSpec& m = *Cat().FindModel("qwen3-30b-a3b");
  EXPECT_NEAR(ExpertsTouched(m, 1), 8.0, 1e-9);
  EXPECT_NEAR(ExpertsTouched(m, 16), 128 * (1 - std::pow(120.0 / 128, 16)), 1e-9);
  EXPECT_NEAR(ExpertsTouched(m, 16), 82.4, 0.1);
  EXPECT_NEAR(ExpertsTouched(m, 1000), 128.0, 1e-6);
  // So a batch of one reads far less than the whole model.
  EXPECT_LT(WeightBytesRead(m, Precision::kBf16, 1), 0.3 * WeightBytes(m, Precision::kBf16));
  EXPECT_NEAR(WeightBytesRead(m, Precision::kBf16, 1e6), WeightBytes(m, Precision::kBf16), 1e3);
}

TEST(Perf, TensorParallelSplitsWork) {
  // tp = 2 halves the bytes each GPU reads and adds all-reduces.
  const ModelSpec& m = *Cat().FindModel("qwen3-32b");
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig e1{&m, &g, Ideal(), 1, Precision::kBf16, Precision::kBf16};
  EngineConfig e2 = e1;
  e2.tp = 2;
  Work w1 = DecodeIteration(e1, 32, 32000), w2 = DecodeIteration(e2, 32, 32000);
  EXPECT_NEAR(w2.bytes, w1.bytes / 2, 1);
  EXPECT_LT(w2.time_s, w1.time_s);
  EXPECT_GT(w2.time_s, w1.time_s / 2);  // all-reduce cost
}

TEST(Perf, PrefillAttentionIsPerSequence) {
  // 100 prompts of 1000 tokens cost far less attention than one 100k-token prompt.
  const ModelSpec& m = *Cat().FindModel("llama-3.1-8b");
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig e{&m, &g, Ideal(), 1, Precision::kBf16, Precision::kBf16};
  Work batch = Prefill(e, 100000, 0, 100), one = Prefill(e, 100000, 0, 1);
  // Linear part 2 * 8.03e9 * 1e5 = 1.606e15; attention per sequence
  // 4*32*32*128 * 1000^2/2 = 2.62e11, times 100 = 2.62e13.
  EXPECT_NEAR(batch.flops, 2 * m.active_params_b * 1e9 * 1e5 + 524288.0 * 100 * 1000.0 * 1000 / 2, 1e6);
  EXPECT_GT(one.flops, 1.5 * batch.flops);
}

TEST(Perf, TrainFlopsSixN) {
  // Full fine-tuning: 6 * N per token (+ attention). 1e6 tokens of Qwen3-8B
  // at 512 tokens per sequence on 8 GPUs: (6 * 8.19e9 + 3 * 4*36*32*128*256) * 1e6 / 8.
  // Fixed lengths: E[s^2]/E[s]^2 = 1, the attention length is the mean.
  auto cat = Cat();
  auto s = DefaultScenario(cat).value();
  s.environment.prompt_tokens = Distribution::Fixed(12);
  s.environment.response_tokens = Distribution::Fixed(500);
  Work w = TrainStep(s, 1e6, 512, 8);
  double per_token = 6 * s.model.active_params_b * 1e9 + 3.0 * 4 * 36 * 32 * 128 * 256;
  EXPECT_NEAR(w.flops, per_token * 1e6 / 8, 1e3);
  // LoRA removes the weight gradients of the base: about 4/6 of the work.
  s.algorithm.lora = LoraSpec{32, 1};
  Work l = TrainStep(s, 1e6, 512, 8);
  EXPECT_LT(l.flops, 0.75 * w.flops);
  EXPECT_GT(l.flops, 0.6 * w.flops);
}

TEST(Perf, MoreBandwidthIsNeverSlower) {
  // Property: raising HBM bandwidth never slows a decode iteration or prefill.
  std::mt19937_64 rng(42);
  for (const auto& [id, m] : Cat().models()) {
    for (int trial = 0; trial < 20; ++trial) {
      GpuSpec g = *Cat().FindGpu("h100-sxm");
      double batch = 1 + rng() % 512;
      double ctx = batch * (100 + rng() % 8000);
      EngineConfig e{&m, &g, g.efficiency, 1, Precision::kBf16, Precision::kBf16};
      double before = DecodeIteration(e, batch, ctx).time_s;
      double pre_before = Prefill(e, batch * 100, 0, batch).time_s;
      g.hbm_tb_per_s *= 1.5;
      EXPECT_LE(DecodeIteration(e, batch, ctx).time_s, before) << id;
      EXPECT_LE(Prefill(e, batch * 100, 0, batch).time_s, pre_before) << id;
      EXPECT_GT(before, 0);
    }
  }
}

TEST(Perf, DoesNotFitShowsTheNumbers) {
  auto cat = Cat();
  auto s = DefaultScenario(cat, {{"model", "deepseek-v3"}});
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  auto plan = PlanMemory(*s);
  ASSERT_FALSE(plan.has_value());
  EXPECT_EQ(plan.error().code, ErrorCode::kDoesNotFit);
  std::string msg = plan.error().ToString();
  EXPECT_NE(msg.find("deepseek-v3"), std::string::npos) << msg;
  EXPECT_NE(msg.find("GB"), std::string::npos) << msg;
}

TEST(Perf, KvBudgetOfTheDefaultScenario) {
  // Qwen3-8B (8.2e9 parameters) on 8 x H100, colocated, GRPO with a
  // reference model: inference weights 8.2e9*2 = 16.4 GB, training state
  // 16 B * 8.2e9 / 8 GPUs = 16.4 GB, reference weights 2 B * 8.2e9 / 8 =
  // 2.05 GB, reserve 8 GB: KV = 80 - 16.4 - 16.4 - 2.05 - 8 = 37.15 GB;
  // / (2*36*8*128*2 = 147456 B) = 252k tokens. (Before the reference was
  // counted: 39.2 GB, 266k tokens.) That is the scenario with no framework.
  auto cat = Cat();
  auto s = test::DefaultWithoutFramework(cat).value();
  ASSERT_TRUE(s.algorithm.reference_model);
  auto plan = PlanMemory(s).value();
  double w = s.model.params_b * 2;  // GB
  EXPECT_NEAR(plan.reference_gb, w / 8, 1e-9);
  EXPECT_NEAR(plan.kv_budget_gb, 80 - w - w - w / 8 - 8, 1e-9);
  EXPECT_NEAR(plan.kv_budget_gb, 37.15, 1e-9);
  EXPECT_NEAR(plan.kv_tokens_per_engine, 37.15e9 / 147456, 1);
  EXPECT_FALSE(plan.train_state_offloaded);
  // The built-in default names verl@0.6, whose engine takes half of each GPU
  // (gpu_memory_utilization 0.5): KV = 0.5 * 80 - 16.4 = 23.6 GB (the
  // trainer, reference and reserve live in the other half), / 147456 B =
  // 160k tokens, 69.6 sequences of the mean 2300 tokens.
  auto d = DefaultScenario(cat).value();
  ASSERT_EQ(d.framework, "verl@0.6");
  auto dp = PlanMemory(d).value();
  EXPECT_NEAR(dp.kv_budget_gb, 0.5 * 80 - w, 1e-9);
  EXPECT_NEAR(dp.kv_budget_gb, 23.6, 1e-9);
  EXPECT_NEAR(dp.kv_tokens_per_engine, 23.6e9 / 147456, 1);
  EXPECT_FALSE(dp.train_state_offloaded);
}


TEST(Perf, KvShardsFollowTheHeads) {
  // GQA: the KV heads split over the ranks, ranks beyond them hold copies.
  // Llama-3.1-8B has 8 KV heads: tp 4 -> 4 shards, tp 16 -> 8. MLA caches one
  // latent per token that every rank needs: 1 shard at any tp, unless the
  // engine runs attention data-parallel (each rank: its own sequences) -> tp.
  const ModelSpec& llama = *Cat().FindModel("llama-3.1-8b");
  const ModelSpec& dsv3 = *Cat().FindModel("deepseek-v3");
  EXPECT_EQ(KvShards(llama, 4, false), 4);
  EXPECT_EQ(KvShards(llama, 16, false), 8);
  EXPECT_EQ(KvShards(llama, 16, true), 16);
  EXPECT_EQ(KvShards(dsv3, 8, false), 1);
  EXPECT_EQ(KvShards(dsv3, 8, true), 8);
  // KV bytes read per GPU follow the same rule. Llama-3.1-8B at tp 16, batch
  // 1, 10,000 tokens of context: each GPU reads 10,000 * 131,072 / 8 bytes of
  // KV (was / 16) beside 8.03e9 * 2 / 16 of weights.
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig e{&llama, &g, Ideal(), 16, Precision::kBf16, Precision::kBf16};
  Work w = DecodeIteration(e, 1, 10000);
  EXPECT_NEAR(w.bytes, 8.03e9 * 2 / 16 + 10000.0 * 131072 / 8, 1);
  // DeepSeek-V3 at tp 8: every GPU reads the whole latent cache; with DP
  // attention an eighth of it.
  EngineConfig d{&dsv3, &g, Ideal(), 8, Precision::kFp8, Precision::kFp8};
  double weights = DecodeIteration(d, 64, 0).bytes;
  EXPECT_NEAR(DecodeIteration(d, 64, 64000).bytes - weights, 64000.0 * 35136, 1);
  d.dp_attention = true;
  EXPECT_NEAR(DecodeIteration(d, 64, 64000).bytes - weights, 64000.0 * 35136 / 8, 1);
}

TEST(Perf, MlaKvCapacityPerEngineOnB200) {
  // DeepSeek-V3, fp8 weights and KV, one tp-8 engine of B200 (180 GB):
  // weights 671e9 / 8 = 83.875 GB per GPU, reserve 18 GB, KV budget
  // 78.125 GB per GPU. The latent cache (61 * 576 * 1 = 35,136 B per token)
  // is held whole by every rank: 78.125e9 / 35136 = 2.2235e6 tokens per
  // engine, ~970 sequences of the default 300 + 2000 tokens (the old / tp
  // gave 8x that, ~7,700). With DP attention the ranks hold different
  // sequences: 8x again.
  auto cat = Cat();
  auto s = test::DefaultWithoutFramework(cat, {{"model", "deepseek-v3"}, {"hardware.gpu", "b200"}, {"hardware.gpus", "128"},
                                 {"placement.mode", "disaggregated"}, {"placement.rollout_gpus", "8"},
                                 {"placement.rollout_tp", "8"}, {"precision.rollout", "fp8"},
                                 {"precision.kv_cache", "fp8"}});
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  auto plan = PlanMemory(*s);
  ASSERT_TRUE(plan.has_value()) << plan.error().ToString();
  EXPECT_NEAR(plan->kv_budget_gb, 180 - 671.0 / 8 - 18, 1e-9);
  EXPECT_NEAR(plan->kv_tokens_per_engine, (180 - 671.0 / 8 - 18) * 1e9 / 35136, 1);
  EXPECT_NEAR(plan->kv_tokens_per_engine / 2300, 967, 1);
  s->placement.dp_attention = true;
  auto dp = PlanMemory(*s).value();
  EXPECT_NEAR(dp.kv_tokens_per_engine, 8 * plan->kv_tokens_per_engine, 1);
}

TEST(Perf, AllReduceBeyondTheNvlinkDomainCrossesTheNetwork) {
  // DeepSeek-V3 hidden 7168, batch 64: 64 * 7168 * 2 = 917,504 bytes.
  // tp 8 on H100 (one NVLink domain of 8), vLLM's custom all-reduce (under
  // 8 MiB) at 0.377 of the 450 GB/s: 8 us + 2*7/8 * 917504 / (0.377 * 450e9)
  //   = 8 + 1605632 / 169.65e9 = 8 + 9.464 = 17.464 us.
  // tp 16 spans 2 domains: NCCL ring LL, 2*15 = 30 steps, 2 of them over the
  // network: 3.6 + 28 * 0.47 * 1.8 + 2 * 2.7 = 32.688 us, plus
  // 2*15/16 * 917504 / 50e9 = 34.406 us over the 50 GB/s NIC: 67.094 us.
  const ModelSpec& m = *Cat().FindModel("deepseek-v3");
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig e8{&m, &g, Ideal(), 8, Precision::kFp8, Precision::kFp8};
  EngineConfig e16 = e8;
  e16.tp = 16;
  const double bytes = 64 * 7168 * 2;
  EXPECT_NEAR(AllReduceTime(e8, bytes, 1) * 1e6, 17.464, 1e-3);
  EXPECT_NEAR(AllReduceTime(e16, bytes, 1) * 1e6, 67.094, 1e-3);
  // GB200 NVL72: tp 16 stays inside the 72-GPU domain (900 GB/s); vLLM's
  // custom all-reduce serves 2, 4, 6 or 8 GPUs only, so NCCL at line rate:
  // 8 + 2*15/16 * 917504 / 900e9 = 9.911 us.
  GpuSpec gb = *Cat().FindGpu("gb200");
  EngineConfig n16{&m, &gb, Ideal(), 16, Precision::kFp8, Precision::kFp8};
  EXPECT_NEAR(AllReduceTime(n16, bytes, 1) * 1e6, 9.911, 1e-3);
  // Per GPU, the same engine batch decodes slower at tp 16 than at tp 8 on
  // H100: 122 all-reduces of 67 us (8.2 ms) outweigh the halved weight reads.
  double per_gpu8 = 64 / (8 * DecodeIteration(e8, 64, 64000).time_s);
  double per_gpu16 = 64 / (16 * DecodeIteration(e16, 64, 64000).time_s);
  EXPECT_LT(per_gpu16, per_gpu8);
}

TEST(Perf, DecodeWeightAndAttentionPartsEachAtTheirRoofline) {
  // Llama-3.1-8B bf16 on one H20 (4.0 TB/s, 148 TFLOP/s) at 100%, batch 64,
  // 4,000 tokens of context each (256,000):
  //   weight part: 16.06e9 B / 4e12 = 4.015 ms; 64 * 2 * 8.03e9 = 1.0278e12
  //     FLOPs / 148e12 = 6.945 ms -> compute-bound, 6.945 ms
  //   attention part: 256000 * 131072 = 3.355e10 B / 4e12 = 8.389 ms;
  //     4*32*32*128 * 256000 = 1.342e11 FLOPs / 148e12 = 0.907 ms -> 8.389 ms
  //   sum 15.334 ms (one max over the totals gave max(12.40, 7.85) = 12.40 ms).
  const ModelSpec& m = *Cat().FindModel("llama-3.1-8b");
  GpuSpec g = *Cat().FindGpu("h20");
  EngineConfig e{&m, &g, Ideal(), 1, Precision::kBf16, Precision::kBf16};
  Work w = DecodeIteration(e, 64, 256000);
  double weight_s = 64 * 2 * 8.03e9 / 148e12;
  double attn_s = 256000.0 * 131072 / 4e12;
  EXPECT_NEAR(w.time_s, weight_s + attn_s, 1e-9);
  EXPECT_NEAR(w.time_s * 1e3, 15.334, 0.01);
  EXPECT_FALSE(w.compute_bound);  // the attention part is memory-bound
  // Closed form over many iterations (the cached arms) matches the sum.
  DecodeArms arms = DecodeArmsFor(e, 64);
  double sum = 0;
  for (int i = 0; i < 300; ++i) sum += DecodeIteration(e, 64, 256000 + 64.0 * i).time_s;
  EXPECT_NEAR(DecodeIterations(arms, 64, 256000, 300).time_s, sum, 1e-9 * sum);
}

// MoE decode floor (docs/model.md): an MoE model's decode iteration carries a
// fixed time per layer (router, top-k, token sort, expert GEMM launches) that
// the batch does not shrink; a dense model's does not. It adds to the fixed
// part of the iteration, once per iteration, at every batch size.
TEST(Perf, MoeDecodeIterationCarriesAFixedTimePerLayer) {
  const ModelSpec& moe = *Cat().FindModel("deepseek-v3");
  const ModelSpec& dense = *Cat().FindModel("llama-3.1-8b");
  GpuSpec g = *Cat().FindGpu("h200");
  Efficiency with = Ideal(), without = Ideal();
  with.moe_layer_decode_s = 90e-6;
  without.moe_layer_decode_s = 0;
  for (double batch : {1.0, 8.0, 64.0}) {
    EngineConfig a{&moe, &g, with, 8, Precision::kFp8, Precision::kBf16};
    EngineConfig b{&moe, &g, without, 8, Precision::kFp8, Precision::kBf16};
    double added = DecodeIteration(a, batch, batch * 1024).time_s - DecodeIteration(b, batch, batch * 1024).time_s;
    EXPECT_NEAR(added, 61 * 90e-6, 1e-12) << batch;  // deepseek-v3: 61 layers
    EXPECT_NEAR(DecodeIterations(a, batch, batch * 1024, 100).time_s -
                    DecodeIterations(b, batch, batch * 1024, 100).time_s,
                100 * 61 * 90e-6, 1e-9)
        << batch;
    EngineConfig c{&dense, &g, with, 1, Precision::kBf16, Precision::kBf16};
    EngineConfig d{&dense, &g, without, 1, Precision::kBf16, Precision::kBf16};
    EXPECT_DOUBLE_EQ(DecodeIteration(c, batch, batch * 1024).time_s, DecodeIteration(d, batch, batch * 1024).time_s);
  }
  // The catalog default, read off InferenceX #870 (catalog/efficiency.yaml).
  EXPECT_DOUBLE_EQ(Cat().FindGpu("h100-sxm")->efficiency.moe_layer_decode_s, 90e-6);
}

TEST(Perf, EagerDecodeAddsLaunchTimePerLayerAtEveryBatch) {
  // engine.enforce_eager: (22.5 - 13) ms / 28 layers per layer per iteration
  // (vllm-omni #7960). qwen2.5-7b has 28 layers, so each iteration gains
  // exactly 22.5 - 13 = 9.5 ms, whatever the batch; 100 iterations 0.95 s.
  const ModelSpec& m = *Cat().FindModel("qwen2.5-7b");
  ASSERT_EQ(m.layers, 28);
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig graphs{&m, &g, Ideal(), 2, Precision::kBf16, Precision::kBf16};
  EngineConfig eager = graphs;
  eager.eager = true;
  for (double batch : {1.0, 16.0, 512.0}) {
    EXPECT_NEAR(DecodeIteration(eager, batch, batch * 2000).time_s - DecodeIteration(graphs, batch, batch * 2000).time_s,
                9.5e-3, 1e-12)
        << batch;
    EXPECT_NEAR(DecodeIterations(eager, batch, batch * 2000, 100).time_s -
                    DecodeIterations(graphs, batch, batch * 2000, 100).time_s,
                0.95, 1e-9)
        << batch;
  }
  // Prefill is not charged (few, large iterations).
  EXPECT_DOUBLE_EQ(Prefill(eager, 4096, 0, 4).time_s, Prefill(graphs, 4096, 0, 4).time_s);
}

TEST(Perf, DecodeAboveTheLargestCudaGraphRunsEagerly) {
  // engine.cuda_graph_max_batch (vLLM: 512): a decode iteration with more
  // running sequences than the largest captured graph launches its kernels
  // one by one and pays what enforce_eager pays, 28 layers x (22.5 - 13) / 28
  // ms = 9.5 ms for qwen2.5-7b; at or below the cap it replays a graph.
  const ModelSpec& m = *Cat().FindModel("qwen2.5-7b");
  ASSERT_EQ(m.layers, 28);
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig graphs{&m, &g, Ideal(), 2, Precision::kBf16, Precision::kBf16};
  EngineConfig capped = graphs;
  capped.cuda_graph_max_batch = 512;
  EXPECT_FALSE(RunsEagerly(capped, 512));
  EXPECT_TRUE(RunsEagerly(capped, 512.5));
  EXPECT_FALSE(RunsEagerly(graphs, 1e6));  // 0: every batch graphed
  EXPECT_DOUBLE_EQ(DecodeIteration(capped, 512, 512 * 2000).time_s, DecodeIteration(graphs, 512, 512 * 2000).time_s);
  EXPECT_NEAR(DecodeIteration(capped, 768, 768 * 2000).time_s - DecodeIteration(graphs, 768, 768 * 2000).time_s,
              9.5e-3, 1e-12);
  // 100 iterations at batch 768: 0.95 s more.
  EXPECT_NEAR(DecodeIterations(capped, 768, 768 * 2000, 100).time_s -
                  DecodeIterations(graphs, 768, 768 * 2000, 100).time_s,
              0.95, 1e-9);
  // An eager engine pays the launches once, capped or not.
  EngineConfig eager = capped;
  eager.eager = true;
  EXPECT_DOUBLE_EQ(DecodeIteration(eager, 768, 768 * 2000).time_s, DecodeIteration(capped, 768, 768 * 2000).time_s);
}

TEST(Perf, MlaPrefillUsesPerHeadAttention) {
  // DeepSeek-V3 (config.json: qk_nope 128, qk_rope 64, v_head_dim 128, 128
  // heads, 61 layers). Per-head form, per token per token of context:
  //   2 * 61 * 128 * (128 + 64 + 128) = 4,997,120 FLOPs;
  // the absorbed decode form 2 * 61 * 128 * (2*512 + 64) = 16,990,208 (3.4x).
  const ModelSpec& m = *Cat().FindModel("deepseek-v3");
  EXPECT_DOUBLE_EQ(AttentionFlopsPerContextToken(m), 4997120.0);
  EXPECT_DOUBLE_EQ(DecodeAttentionFlopsPerContextToken(m), 16990208.0);
  // Prefill of one 1,000-token prompt on one GPU: 1000 * 2 * 37e9 + 4997120 * 1000^2 / 2.
  GpuSpec g = *Cat().FindGpu("h100-sxm");
  EngineConfig e{&m, &g, Ideal(), 1, Precision::kFp8, Precision::kFp8};
  EXPECT_NEAR(Prefill(e, 1000, 0, 1).flops, 1000 * 2 * 37e9 + 4997120.0 * 1e6 / 2, 1e3);
  // Without v_head_dim the value heads are head_dim wide (same here: 128).
  ModelSpec no_v = m;
  no_v.v_head_dim = 0;
  EXPECT_DOUBLE_EQ(AttentionFlopsPerContextToken(no_v), 4997120.0);
}

TEST(Perf, TrainAttentionIsTokenWeighted) {
  // Half the trajectories 1,000 tokens long and half 3,000 (no prompt):
  // E[s] = 2000, E[s^2] = (1e6 + 9e6)/2 = 5e6, E[s^2]/E[s]^2 = 1.25. Causal
  // attention per trained token is attn_per_ctx * E[s^2]/(2 E[s]) =
  // attn_per_ctx * 1250, not * 1000 (the mean length's half).
  auto cat = Cat();
  auto s = DefaultScenario(cat).value();
  s.environment.prompt_tokens = Distribution::Fixed(0);
  s.environment.response_tokens = Distribution::Empirical({1000, 3000}).value();
  EXPECT_DOUBLE_EQ(TrajectoryLengthDispersion(s), 1.25);
  // Qwen3-8B: 4 * 36 * 32 * 128 = 589,824 FLOPs per token of context.
  Work w = TrainStep(s, 1e6, 2000, 8);
  double per_token = 6 * s.model.active_params_b * 1e9 + 3.0 * 589824 * 1250;
  EXPECT_NEAR(w.flops, per_token * 1e6 / 8, 1e3);
  Work f = ForwardPass(s, 1e6, 2000, 8);
  EXPECT_NEAR(f.flops, (2 * s.model.active_params_b * 1e9 + 589824.0 * 1250) * 1e6 / 8, 1e3);
  // Multi-turn: turns 1 or 3 (mean 2, var 1), responses fixed 100, tool
  // outputs fixed 50, prompt 0: s = 100 T + 50 (T - 1); E[s] = 250,
  // Var s = Var T * 150^2 = 22500 -> 1 + 22500 / 62500 = 1.36.
  s.environment.response_tokens = Distribution::Fixed(100);
  s.environment.tool_output_tokens = Distribution::Fixed(50);
  s.environment.turns = Distribution::Empirical({1, 3}).value();
  EXPECT_NEAR(TrajectoryLengthDispersion(s), 1.36, 1e-12);
}

TEST(Perf, GpuMemoryUtilizationIsTheEnginesShare) {
  // The default scenario (Qwen3-8B, 8 x H100 colocated): inference weights
  // 16.4 GB, training state 16.4 + reference 2.05 = 18.45 GB resident.
  // gpu_memory_utilization 0.5 (veRL's default): the engine takes 40 GB, the
  // 18.45 GB fit in the other 40: KV = min(40 - 16.4, 37.15) = 23.6 GB.
  auto cat = Cat();
  auto s = DefaultScenario(cat).value();
  s.placement.gpu_memory_utilization = 0.5;
  auto half = PlanMemory(s).value();
  EXPECT_FALSE(half.train_state_offloaded);
  EXPECT_NEAR(half.kv_budget_gb, 23.6, 1e-9);
  // 0.8: the rest, 16 GB, cannot hold 18.45 GB: the training state moves to
  // host memory while generating and the engine gets 64 - 16.4 = 47.6 GB of KV.
  s.placement.gpu_memory_utilization = 0.8;
  auto most = PlanMemory(s).value();
  EXPECT_TRUE(most.train_state_offloaded);
  EXPECT_NEAR(most.kv_budget_gb, 47.6, 1e-9);
  EXPECT_NEAR(most.host_transfer_gb, 16.4 + 2.05, 1e-9);
}

TEST(Perf, PpoCriticTakesMemoryFromTheKvCache) {
  // Same model and GPUs, PPO with its critic: a second 16 B/param training
  // state beside the policy's, 16.4 GB per GPU:
  // KV = 80 - 16.4 (inference) - 16.4 (policy) - 16.4 (critic) - 2.05 (reference) - 8 = 20.75 GB.
  auto cat = Cat();
  auto grpo = test::DefaultWithoutFramework(cat).value();
  auto ppo = grpo;
  ppo.algorithm.name = Algorithm::kPpo;
  ppo.algorithm.critic = true;
  auto g = PlanMemory(grpo).value();
  auto p = PlanMemory(ppo).value();
  EXPECT_NEAR(p.critic_state_gb, 16.4, 1e-9);
  EXPECT_NEAR(p.kv_budget_gb, 20.75, 1e-9);
  EXPECT_NEAR(g.kv_budget_gb - p.kv_budget_gb, 16.4, 1e-9);
  EXPECT_LT(p.kv_tokens_per_engine, g.kv_tokens_per_engine);
  EXPECT_FALSE(p.train_state_offloaded);
  // PPO without a value model (critic: false) plans like GRPO.
  ppo.algorithm.critic = false;
  EXPECT_NEAR(PlanMemory(ppo).value().kv_budget_gb, g.kv_budget_gb, 1e-9);
}

TEST(Perf, LoraReferenceIsTheBaseAndCostsNothing) {
  // With LoRA the reference is the frozen base with the adapters off (veRL
  // ref_in_actor): no second copy of the weights.
  auto cat = Cat();
  auto s = DefaultScenario(cat).value();
  s.algorithm.lora = LoraSpec{};
  s.algorithm.lora->rank = 32;
  auto plan = PlanMemory(s).value();
  EXPECT_EQ(plan.reference_gb, 0.0);
}

TEST(Perf, CriticAndReferenceMoveToHostWhenTheyLeaveNoRoom) {
  // Qwen3-8B PPO on 2 x H100 colocated: policy and critic 16 B * 8.2e9 / 2 =
  // 65.6 GB each, reference 8.2 GB: the training side needs 139.4 + 8 GB.
  // ZeRO-Offload leaves 4 B/param: 16.4 GB each -> 16.4 + 16.4 + 8.2 + 8 =
  // 49 GB fits the training side. Beside the inference engine (16.4 GB) there
  // is 80 - 16.4 - 41 - 8 = 14.6 GB, room for the mean sequence: resident.
  // Host transfer per step: the optimizer states, 2 x (65.6 - 16.4) = 98.4 GB.
  auto cat = Cat();
  auto s = test::DefaultWithoutFramework(cat).value();
  s.algorithm.name = Algorithm::kPpo;
  s.algorithm.critic = true;
  s.hardware.gpus = 2;
  s.placement.train_gpus = 2;
  auto plan = PlanMemory(s).value();
  EXPECT_TRUE(plan.optimizer_offloaded);
  EXPECT_NEAR(plan.critic_state_gb, 16.4, 1e-9);
  EXPECT_NEAR(plan.reference_gb, 8.2, 1e-9);
  EXPECT_NEAR(plan.host_transfer_gb, 98.4, 1e-9);
  EXPECT_NEAR(plan.kv_budget_gb, 80 - 16.4 - 16.4 - 16.4 - 8.2 - 8, 1e-9);
  // On one GPU: 32.8 + 32.8 + 16.4 + 8 = 90 GB does not fit even with the
  // optimizers in host memory; the critic (32.8 GB) and the reference also
  // go to host memory and come in for their own passes: 32.8 + 32.8 + 8 =
  // 73.6 GB fits. Host transfer: optimizers 2 x 98.4, critic 32.8, reference
  // 16.4 / 2 (it only comes in). Beside the 16.4 GB inference engine the
  // policy's 32.8 GB leaves 22.8 GB of KV.
  s.hardware.gpus = 1;
  s.placement.train_gpus = 1;
  plan = PlanMemory(s).value();
  EXPECT_EQ(plan.critic_state_gb, 0.0);
  EXPECT_EQ(plan.reference_gb, 0.0);
  EXPECT_NEAR(plan.host_transfer_gb, 2 * 98.4 + 32.8 + 8.2, 1e-9);
  EXPECT_NEAR(plan.kv_budget_gb, 80 - 16.4 - 32.8 - 8, 1e-9);
}


TEST(Perf, Fp8TrainingSpeedsUpOnlyTheGemms) {
  // Qwen3-8B update on H100, fixed 512-token sequences, 1e6 tokens on 8 GPUs.
  // BF16: t16 = flops / (989e12 * train_mfu). The linear GEMMs
  // (6 N_a per token) at the measured bf16 matmul rate 794.5 TFLOP/s take
  // g16 = 6 N_a * 1e6 / 8 / 794.5e12; FP8 replaces them by the same FLOPs at
  // 1402.6 TFLOP/s. Before: the whole step ran at the fp8 peak (t16 / 2).
  auto cat = Cat();
  auto s = test::DefaultWithoutFramework(cat).value();
  s.hardware.gpu = *cat.FindGpu("h100-sxm");
  s.environment.prompt_tokens = Distribution::Fixed(12);
  s.environment.response_tokens = Distribution::Fixed(500);
  const double t16 = TrainStep(s, 1e6, 512, 8).time_s;
  s.precision.train = Precision::kFp8;
  const double t8 = TrainStep(s, 1e6, 512, 8).time_s;
  const double g16 = 6 * s.model.active_params_b * 1e9 * 1e6 / 8 / 794.5e12;
  const double g8 = 6 * s.model.active_params_b * 1e9 * 1e6 / 8 / 1402.6e12;
  EXPECT_NEAR(t8, t16 - g16 + g8, 1e-9 * t16);
  EXPECT_GT(t8 / t16, 0.7);  // a 1.2-1.4x speed-up, far from the 2x of the peaks
  EXPECT_LT(t8 / t16, 0.85);
  // Forward-only passes alike, with 2 N_a per token.
  s.precision.train = Precision::kBf16;
  const double f16 = ForwardPass(s, 1e6, 512, 8).time_s;
  s.precision.train = Precision::kFp8;
  const double f8 = ForwardPass(s, 1e6, 512, 8).time_s;
  const double fg16 = 2 * s.model.active_params_b * 1e9 * 1e6 / 8 / 794.5e12;
  EXPECT_NEAR(f8, f16 - fg16 + fg16 * 794.5 / 1402.6, 1e-9 * f16);
  // A GPU without FP8 tensor cores keeps the BF16 time.
  s.hardware.gpu = *cat.FindGpu("a100-80g");
  const double a8 = TrainStep(s, 1e6, 512, 8).time_s;
  s.precision.train = Precision::kBf16;
  EXPECT_DOUBLE_EQ(a8, TrainStep(s, 1e6, 512, 8).time_s);
}

}  // namespace
}  // namespace rlcost::perf
