// The rollout engine of a scenario, in one place (include/rlcost/perf.h).
#include <algorithm>

#include "rlcost/perf.h"

namespace rlcost::perf {

bool EngineDefaultKept(const GpuSpec& g) {
  auto it = g.sources.find("efficiency.decode_iter_overhead_s");
  if (it == g.sources.end()) return false;
  return it->second.rfind("calibrated", 0) == 0 || it->second.rfind("set", 0) == 0;
}

Efficiency RolloutEfficiency(const Scenario& s) {
  Efficiency eff = s.hardware.gpu.efficiency;
  if (EngineDefaultKept(s.hardware.gpu)) return eff;
  if (auto overhead = OverlappedIterOverheadS(s.placement.engine)) eff.decode_iter_overhead_s = *overhead;
  return eff;
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
  e.nvlink_domain = NvlinkDomainGpus(s.hardware);
  if (s.algorithm.lora) {
    e.lora_rank = s.algorithm.lora->rank;
    e.lora_tenants = s.algorithm.lora->tenants;
  }
  return e;
}

}  // namespace rlcost::perf
