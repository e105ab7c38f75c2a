// perf::DecodeArmsKept (src/perf/decode_arms_kept.h): the decode iteration's
// arms with the engine's quotients kept and the per-batch part inline, for the
// analytic step's full-cache fluid models, which price a new batch at almost
// every event. They must be DecodeArmsFor's bit for
// bit, and the roofline of docs/model.md ("Decode") written out here from
// perf.h's parts: dense and MoE models, tensor parallel or not, LoRA, eager
// engines and a CUDA-graph cap crossed by the batch.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "perf/decode_arms_kept.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "sim_support.h"
#include "support.h"

namespace rlcost::perf {
namespace {

uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

// The arms by hand (no LoRA): weights max(W_read / tp / bw, b 2N / tp / peak),
// attention kv / shards / bw and A / tp / peak per context token, and
// per iteration the all-reduces, the overhead, the MoE floor and the eager
// launches.
DecodeArms ArmsByHand(const EngineConfig& e, double batch) {
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  const double bw = g.hbm_tb_per_s * 1e12 * e.eff.decode_bw, peak = g.PeakFlops(e.weights) * e.eff.decode_compute;
  const double w = m.is_moe() ? (WeightBytesRead(m, e.weights, batch) + 0.0) / e.tp : (WeightBytes(m, e.weights) + 0.0) / e.tp;
  const double lin = batch * (2.0 * m.active_params_b * 1e9 + 0.0) / e.tp;
  const double kv = KvBytesPerToken(m, e.kv) / KvShards(m, e.tp, e.dp_attention);
  const double attn = DecodeAttentionFlopsPerContextToken(m) / e.tp;
  DecodeArms a;
  a.weights_s = std::max(w / bw, lin / peak);
  a.weights_compute_bound = lin / peak > w / bw;
  a.mem_s = {0.0, kv / bw};
  a.compute_s = {0.0, attn / peak};
  a.bytes = {w, kv};
  a.flops = {lin, attn};
  const bool eager = e.eager || (e.cuda_graph_max_batch > 0 && batch > e.cuda_graph_max_batch);
  a.fixed_s = AllReduceTime(e, batch * m.hidden * 2.0, 2.0 * m.layers) + e.eff.decode_iter_overhead_s +
              (m.is_moe() ? m.layers * e.eff.moe_layer_decode_s : 0.0) + (eager ? m.layers * kEagerLaunchPerLayerS : 0.0);
  return a;
}

void ExpectSameBits(const DecodeArms& a, const DecodeArms& b, const std::string& where) {
  EXPECT_EQ(Bits(a.weights_s), Bits(b.weights_s)) << where;
  EXPECT_EQ(a.weights_compute_bound, b.weights_compute_bound) << where;
  EXPECT_EQ(Bits(a.mem_s.a), Bits(b.mem_s.a)) << where;
  EXPECT_EQ(Bits(a.mem_s.b), Bits(b.mem_s.b)) << where;
  EXPECT_EQ(Bits(a.compute_s.a), Bits(b.compute_s.a)) << where;
  EXPECT_EQ(Bits(a.compute_s.b), Bits(b.compute_s.b)) << where;
  EXPECT_EQ(Bits(a.bytes.a), Bits(b.bytes.a)) << where;
  EXPECT_EQ(Bits(a.bytes.b), Bits(b.bytes.b)) << where;
  EXPECT_EQ(Bits(a.flops.a), Bits(b.flops.a)) << where;
  EXPECT_EQ(Bits(a.flops.b), Bits(b.flops.b)) << where;
  EXPECT_EQ(Bits(a.fixed_s), Bits(b.fixed_s)) << where;
}

TEST(DecodeArmsKept, SameBitsAsDecodeArmsFor) {
  const std::string engines[] = {
      "model: llama-3.1-8b\nhardware: {gpu: a100-80g, gpus: 1}\n",
      "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nplacement: {rollout_tp: 2}\n",
      "model: qwen3-30b-a3b\nhardware: {gpu: h100-sxm, gpus: 8}\nplacement: {rollout_tp: 4}\n",
      "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nengine: {enforce_eager: true}\n",
      "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nengine: {cuda_graph_max_batch: 64}\n",
  };
  const std::string lora = "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nalgorithm: {lora: {rank: 16}}\n";
  test::KeptEngines engine;
  int checked = 0;
  for (const std::string& head : engines) {
    const EngineConfig e = engine(head);
    const DecodeArmsKept kept_arms(e);
    for (double batch : {0.0, 0.25, 1.0, 4.0, 63.0, 64.0, 64.5, 213.37, 1024.0, 8192.0}) {
      const std::string where = head + " batch " + std::to_string(batch);
      const DecodeArms k = kept_arms(batch);
      ExpectSameBits(ArmsByHand(e, batch), k, where);
      ExpectSameBits(DecodeArmsFor(e, batch), k, where);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 5 * 10);
  // The mechanisms the kept quotients carry: past the CUDA-graph cap the
  // launches are eager (a step up in the fixed time); LoRA's adapters add
  // weight bytes and FLOPs; an MoE model reads more experts at a larger batch.
  const EngineConfig capped = engine(engines[4]);
  EXPECT_GT(DecodeArmsKept(capped)(65.0).fixed_s, DecodeArmsKept(capped)(64.0).fixed_s);
  const EngineConfig adapted = engine(lora);
  const EngineConfig plain_h100 = engine("model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n");
  EXPECT_GT(DecodeArmsKept(adapted)(64.0).bytes.a, DecodeArmsKept(plain_h100)(64.0).bytes.a);
  EXPECT_GT(DecodeArmsKept(adapted)(64.0).flops.a, DecodeArmsKept(plain_h100)(64.0).flops.a);
  for (double batch : {1.0, 64.0, 300.0}) {
    ExpectSameBits(DecodeArmsFor(adapted, batch), DecodeArmsKept(adapted)(batch), "lora");
  }
  const EngineConfig moe = engine(engines[2]);
  EXPECT_GT(DecodeArmsKept(moe)(256.0).bytes.a, DecodeArmsKept(moe)(2.0).bytes.a);
}

}  // namespace
}  // namespace rlcost::perf
