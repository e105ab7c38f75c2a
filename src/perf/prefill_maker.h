#pragma once
// perf::Prefill with its engine-only parts computed once (issue 41): the
// event simulator prices a prefill chunk per mixed iteration, most of them a
// tool output onto its context (not memoisable by length). The same
// operations in the same order as perf::Prefill, so the same bits
// (test PrefillMaker.SameBitsAsPrefill).

#include "perf/all_reducer.h"
#include "rlcost/perf.h"

namespace rlcost::perf {

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
