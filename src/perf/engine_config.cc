// The rollout engine of a scenario, in one place (include/rlcost/perf.h).
#include <algorithm>
#include <cmath>
#include <string>

#include "rlcost/perf.h"

namespace rlcost::perf {

bool EngineDefaultKept(const GpuSpec& g) {
  // The key built once (the estimate asks at every candidate layout's step).
  static const std::string kKey = "efficiency.decode_iter_overhead_s";
  auto it = g.sources.find(kKey);
  if (it == g.sources.end()) return false;
  return it->second.rfind("calibrated", 0) == 0 || it->second.rfind("set", 0) == 0;
}

Efficiency RolloutEfficiency(const Scenario& s) {
  Efficiency eff = s.hardware.gpu.efficiency;
  if (EngineDefaultKept(s.hardware.gpu)) return eff;
  if (auto overhead = OverlappedIterOverheadS(s.placement.engine)) eff.decode_iter_overhead_s = *overhead;
  return eff;
}

double NoEvictReserveTokens(const Scenario& s) {
  const Distribution& r = s.environment.response_tokens;
  if (!std::isfinite(r.max())) return 0;
  return MeanTrajectoryTokens(s) - r.mean() + r.max();
}

double NoEvictSeats(double kv_tokens, double reserve_tokens) {
  if (!(reserve_tokens > 0) || !(kv_tokens > 0)) return 0;
  return std::max(1.0, std::floor(kv_tokens / reserve_tokens));
}

double TrtllmNoEvictSeats(const Scenario& s) {
  if (s.placement.engine != InferenceEngine::kTrtllm) return 0;
  const double reserve = NoEvictReserveTokens(s);
  if (reserve <= 0) return 0;
  auto mem = PlanMemory(s);
  if (!mem) return 0;  // the step reports the memory error itself
  return NoEvictSeats(mem->kv_tokens_per_engine, reserve);
}

EngineConfig RolloutEngine(const Scenario& s) {
  EngineConfig e;
  e.model = &s.model;
  e.gpu = &s.hardware.gpu;
  e.eff = RolloutEfficiency(s);
  e.tp = std::max(1, s.placement.rollout_tp);
  e.weights = s.precision.rollout;
  e.kv = s.precision.kv_cache;
  e.dp_attention = s.placement.dp_attention;
  e.speculative = s.engine.speculative;  // docs/model.md, "Speculative decoding in rollout"
  e.eager = s.engine.enforce_eager;
  e.cuda_graph_max_batch = CudaGraphMaxBatch(s);
  e.max_num_seqs = MaxNumSeqs(s);  // docs/model.md, "The engine's cap on running sequences"
  // TensorRT-LLM admits a request only when its blocks to completion fit
  // (GUARANTEED_NO_EVICT): a cap of its own, under max_batch_size
  // (docs/model.md, "TensorRT-LLM's no-evict admission").
  if (double seats = TrtllmNoEvictSeats(s); seats > 0) {
    e.max_num_seqs = e.max_num_seqs > 0 ? std::min(e.max_num_seqs, seats) : seats;
  }
  e.nvlink_domain = NvlinkDomainGpus(s.hardware);
  if (s.algorithm.lora) {
    e.lora_rank = s.algorithm.lora->rank;
    e.lora_tenants = s.algorithm.lora->tenants;
  }
  return e;
}

}  // namespace rlcost::perf
