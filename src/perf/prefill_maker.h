#pragma once
// perf::Prefill with its engine-only parts computed once (issue 41): the
// event simulator prices a prefill chunk per mixed iteration, most of them a
// tool output onto its context (not memoisable by length). The same
// operations in the same order as perf::Prefill, so the same bits
// (test PrefillMaker.SameBitsAsPrefill).

#include "rlcost/perf.h"

namespace rlcost::perf {

// perf::AllReduceTime (or, line_rate, AllReduceLineRateTime) with its
// engine-only parts computed once: the ring's share 2(tp-1)/tp, the path
// (inside the NVLink domain or across it), its latency and link rates. The
// one definition of the formula: AllReduceTime makes one and uses it once,
// so a kept one gives the same bits (issue 41, thirteenth pass).
class AllReducer {
 public:
  AllReducer(const EngineConfig& e, bool line_rate);
  // tp 1 answers inline (no call): the analytic fluid models ask at every event.
  double operator()(double bytes, double count) const { return none_ ? 0.0 : Ring(bytes, count); }

 private:
  double Ring(double bytes, double count) const;  // src/perf/perf.cc
  bool none_ = true;         // tp <= 1: no all-reduce
  bool custom_tp_ = false;   // vLLM's custom kernel serves this tp (message size checked per call)
  double ring_share_ = 0;    // 2 (tp - 1) / tp
  double latency_s_ = 0;     // per all-reduce
  double link_ = 1;          // bytes/s at line rate (the slowest link of the ring)
  double custom_link_ = 1;   // bytes/s through the custom kernel
};

class PrefillMaker {
 public:
  explicit PrefillMaker(const EngineConfig& e);
  // perf::Prefill(e, tokens, context_before, sequences), bit for bit.
  Work operator()(double tokens, double context_before, double sequences = 1) const;

 private:
  const EngineConfig* e_;
  double linear_flops_per_token_ = 0;  // 2 N + LoRA, per token
  double attn_flops_ = 0;              // AttentionFlopsPerContextToken
  double dense_weight_bytes_ = 0;      // WeightBytes (a dense model: WeightBytesRead at any tokens)
  double lora_bytes_ = 0;
  double kv_bytes_ = 0;   // KvBytesPerToken
  double kv_shards_ = 1;  // KvShards
  double peak_ = 0;       // PeakFlops x prefill MFU
  double bw_ = 0;         // HBM bytes/s x decode_bw
  double all_reduces_ = 0;   // 2 x layers
  AllReducer all_reduce_;
};

}  // namespace rlcost::perf
