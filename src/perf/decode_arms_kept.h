#pragma once
// perf::DecodeArmsFor for many batches of one engine, every engine-only
// quotient computed once and the per-batch part inline (issue 41, fifth pass
// of one-GPU planning): the
// analytic step's full-cache fluid models (sim/analytic_rollout.cc) price a
// new batch at almost every event, ~860 times per FullCacheFixed run of the
// one-A100 plan, and the maker's out-of-line call took six divisions, an
// all-reduce set up per call and the spills around the call. One definition:
// DecodeArmsFor computes the same parts (DecodeArmsPartsOf) and calls
// DecodeArmsAt, so a kept one gives its bits (test
// DecodeArmsKept.SameBitsAsDecodeArmsFor).
//
//   const perf::DecodeArmsKept kept(engine);
//   perf::DecodeArms a = kept(batch);  // == DecodeArmsFor(engine, batch), bit for bit

#include <algorithm>

#include "perf/all_reducer.h"
#include "rlcost/perf.h"

namespace rlcost::perf {

// What a decode iteration's arms take from the engine alone, and three
// quotients of them.
struct DecodeArmsParts {
  double bw = 0, peak = 0, lora_bytes = 0, linear_flops_per_token = 0, dense_weight_bytes = 0;
  double kv_per_token = 0, attn_flops = 0, moe_floor_s = 0, eager_s = 0;
  double dense_weight_mem_s = 0;  // dense_weight_bytes / bw
  double kv_mem_s = 0;            // kv_per_token / bw
  double attn_compute_s = 0;      // attn_flops / peak
};

// RunsEagerly's one definition (perf.cc calls it).
inline bool RunsEagerlyAt(const EngineConfig& e, double batch) {
  return e.eager || (e.cuda_graph_max_batch > 0 && batch > e.cuda_graph_max_batch);
}

// The arms of a decode iteration of `batch` sequences, not speculative
// (SpeculativeDecodeArms): DecodeArmsFor's one definition.
// `all_reduce`: AllReducer(e, false), the tensor-parallel all-reduces.
inline DecodeArms DecodeArmsAt(const EngineConfig& e, const DecodeArmsParts& k, const AllReducer& all_reduce,
                               double batch) {
  const ModelSpec& m = *e.model;
  // Weight part: the linear layers stream their weights and run their GEMMs
  // (an MoE model reads the experts the batch's tokens touch).
  const bool moe = m.is_moe();
  const double weight_bytes = moe ? (WeightBytesRead(m, e.weights, batch) + k.lora_bytes) / e.tp : k.dense_weight_bytes;
  const double linear_flops = batch * k.linear_flops_per_token / e.tp;
  const double weight_mem_s = moe ? weight_bytes / k.bw : k.dense_weight_mem_s;
  const double weight_compute_s = linear_flops / k.peak;
  // Two all-reduces per layer (after attention and after the MLP) of the
  // batch's hidden states in bf16; the engine's per-iteration overhead; and
  // for an MoE model a fixed time per layer that the batch does not shrink
  // (router, top-k, token sort, expert GEMM launches; docs/model.md, "MoE
  // decode floor").
  const double fixed_s = all_reduce(batch * m.hidden * 2.0, 2.0 * m.layers) + e.eff.decode_iter_overhead_s +
                         k.moe_floor_s + (RunsEagerlyAt(e, batch) ? k.eager_s : 0.0);
  // Every field written once (no zero fill first: this runs at each event).
  return DecodeArms{.mem_s = {0.0, k.kv_mem_s},
                    .compute_s = {0.0, k.attn_compute_s},
                    .flops = {linear_flops, k.attn_flops},
                    .bytes = {weight_bytes, k.kv_per_token},
                    .weights_s = std::max(weight_mem_s, weight_compute_s),
                    .weights_compute_bound = weight_compute_s > weight_mem_s,
                    .fixed_s = fixed_s};
}

// The parts of engine `e` (not speculative), quotients included.
DecodeArmsParts DecodeArmsPartsOf(const EngineConfig& e);  // src/perf/perf.cc

class DecodeArmsKept {
 public:
  explicit DecodeArmsKept(const EngineConfig& e)
      : e_(&e), parts_(e.speculative ? DecodeArmsParts{} : DecodeArmsPartsOf(e)), all_reduce_(e, false) {}
  // DecodeArmsFor(e, batch), bit for bit.
  DecodeArms operator()(double batch) const {
    if (e_->speculative) return SpeculativeDecodeArms(*e_, batch);  // src/perf/speculative.cc
    return DecodeArmsAt(*e_, parts_, all_reduce_, batch);
  }

 private:
  const EngineConfig* e_;
  DecodeArmsParts parts_;
  AllReducer all_reduce_;
};

}  // namespace rlcost::perf
