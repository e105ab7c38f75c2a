// perf::PrefillMaker (src/perf/prefill_maker.h): a prefill chunk priced with
// its engine-only factors computed once, for the event simulator's prefill
// chunks; perf::Prefill is the maker made and used once. It must give the
// roofline of docs/model.md bit for bit (the simulator's output was
// byte-identical before and after the maker), written out here from perf.h's
// parts in the order of the formula: dense and MoE models, tensor parallel or
// not, at the chunk lengths and contexts a run meets; LoRA adds its adapters.
#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>

#include <gtest/gtest.h>

#include "perf/all_reducer.h"
#include "perf/prefill_maker.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "sim_support.h"
#include "support.h"

namespace rlcost::perf {
namespace {

uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

// The roofline by hand (no LoRA): flops = (t (2 N_active) + A attn_ctx) / tp,
// bytes = W_read / tp + (s C0 + t) kv / shards, time = max of the two
// arms + the engine's all-reduces.
Work PrefillByHand(const EngineConfig& e, double tokens, double ctx, double seqs) {
  Work w;
  if (tokens <= 0) return w;
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  seqs = std::max(seqs, 1.0);
  const double per_seq = tokens / seqs;
  const double attn_ctx = seqs * (per_seq * ctx + per_seq * per_seq / 2.0);
  w.flops = (tokens * (2.0 * m.active_params_b * 1e9 + 0.0) + AttentionFlopsPerContextToken(m) * attn_ctx) / e.tp;
  w.bytes = (WeightBytesRead(m, e.weights, tokens) + 0.0) / e.tp +
            (seqs * ctx + tokens) * KvBytesPerToken(m, e.kv) / KvShards(m, e.tp, e.dp_attention);
  const double t_compute = w.flops / (g.PeakFlops(e.weights) * e.eff.prefill_mfu);
  const double t_mem = w.bytes / (g.hbm_tb_per_s * 1e12 * e.eff.decode_bw);
  w.compute_bound = t_compute >= t_mem;
  w.time_s = std::max(t_compute, t_mem) + AllReduceTime(e, tokens * m.hidden * 2.0, 2.0 * m.layers);
  return w;
}

TEST(PrefillMaker, SameBitsAsTheRooflineByHand) {
  const std::string engines[] = {
      "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n",
      "model: llama-3.1-8b\nhardware: {gpu: a100-80g, gpus: 8}\nplacement: {rollout_tp: 2}\n",
      "model: qwen3-30b-a3b\nhardware: {gpu: h100-sxm, gpus: 8}\nplacement: {rollout_tp: 4}\n",
  };
  const std::string lora = "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nalgorithm: {lora: {rank: 16}}\n";
  test::KeptEngines engine;
  int checked = 0;
  for (const std::string& head : engines) {
    const EngineConfig e = engine(head);
    const PrefillMaker make(e);
    for (double tokens : {0.0, 1.0, 7.0, 333.0, 2048.0, 8192.0, 12345.0}) {
      for (double ctx : {0.0, 1.0, 999.0, 31337.0, 130000.0}) {
        for (double seqs : {1.0, 0.5, 3.0, 64.0}) {
          const Work a = PrefillByHand(e, tokens, ctx, seqs), b = make(tokens, ctx, seqs);
          const Work c = Prefill(e, tokens, ctx, seqs);
          EXPECT_EQ(Bits(a.time_s), Bits(b.time_s)) << head << tokens << " " << ctx << " " << seqs;
          EXPECT_EQ(Bits(a.flops), Bits(b.flops)) << head << tokens << " " << ctx << " " << seqs;
          EXPECT_EQ(Bits(a.bytes), Bits(b.bytes)) << head << tokens << " " << ctx << " " << seqs;
          EXPECT_EQ(a.compute_bound, b.compute_bound);
          EXPECT_EQ(Bits(c.time_s), Bits(b.time_s));  // Prefill is the maker made once
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 3 * 7 * 5 * 4);
  // LoRA's adapters add FLOPs and bytes to the same chunk.
  const EngineConfig plain = engine(engines[0]), adapted = engine(lora);
  const Work p = PrefillMaker(plain)(2048, 999), q = PrefillMaker(adapted)(2048, 999);
  EXPECT_GT(q.flops, p.flops);
  EXPECT_GT(q.bytes, p.bytes);
  EXPECT_GE(q.time_s, p.time_s);
}

// AllReducer (src/perf/all_reducer.h): the all-reduce's engine-only parts
// kept (the prefill maker holds one). A kept one gives AllReduceTime's and
// AllReduceLineRateTime's bits on each path (tp 1: none; inside the NVLink
// domain: vLLM's custom kernel under 8 MiB, NCCL at line rate from 8 MiB;
// across domains: NCCL's ring), and the mechanisms hold: tp 1 costs nothing,
// the line rate is never slower, and at the custom kernel's 8 MiB limit the
// message goes faster per byte.
TEST(AllReducer, KeptGivesAllReduceTimeBits) {
  test::KeptEngines engine;
  const double mib8 = 8192.0 * 1024.0;
  for (const char* head : {"model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n",
                           "model: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nplacement: {rollout_tp: 4}\n",
                           "model: llama-3.1-70b\nhardware: {gpu: h100-sxm, gpus: 16}\nplacement: {rollout_tp: 16}\n"}) {
    const EngineConfig e = engine(head);
    const AllReducer timed(e, false), line(e, true);
    for (double bytes : {0.0, 1.0, 8192.0, mib8 - 1, mib8, mib8 + 1, 1e9}) {
      for (double count : {1.0, 64.0, 160.0}) {
        EXPECT_EQ(Bits(timed(bytes, count)), Bits(AllReduceTime(e, bytes, count))) << head << bytes;
        EXPECT_EQ(Bits(line(bytes, count)), Bits(AllReduceLineRateTime(e, bytes, count))) << head << bytes;
        EXPECT_LE(line(bytes, count), timed(bytes, count));
        if (e.tp <= 1) {
          EXPECT_EQ(timed(bytes, count), 0.0);
        }
      }
    }
    if (e.tp == 4) {
      EXPECT_LT(timed(mib8, 1), timed(mib8 - 1, 1));  // the custom kernel stops at 8 MiB
    }
  }
  // Across NVLink domains NCCL's ring pays its network hops: more latency
  // than the same model inside one domain.
  const EngineConfig inside = engine("model: llama-3.1-70b\nhardware: {gpu: h100-sxm, gpus: 16}\nplacement: {rollout_tp: 8}\n");
  const EngineConfig across = engine("model: llama-3.1-70b\nhardware: {gpu: h100-sxm, gpus: 16}\nplacement: {rollout_tp: 16}\n");
  ASSERT_EQ(inside.tp, 8);
  ASSERT_EQ(across.tp, 16);
  EXPECT_GT(AllReducer(across, false)(0, 1), AllReducer(inside, false)(0, 1));
}

}  // namespace
}  // namespace rlcost::perf
