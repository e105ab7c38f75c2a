// Spot rollout GPUs: what a preemption costs the rollout pool.
// docs/model.md, "Spot GPUs".
#include <algorithm>

#include "rlcost/perf.h"

namespace rlcost::perf {

double SpotRolloutRestartS(const Scenario& s) {
  const auto& r = s.hardware.spot.rollout;
  if (r && r->restart_s) return *r->restart_s;
  const StartupSpec& st = s.run.startup;
  const double load_s = WeightBytes(s.model, Precision::kBf16) / 1e9 / std::max(st.storage_read_gb_per_s, 1e-9);
  return load_s + st.warmup_s;
}

double SpotRolloutLostShare(const Scenario& s, double in_flight_s) {
  if (!s.hardware.spot.Rollout() || s.placement.mode == PlacementMode::kColocated) return 0;
  const int gpn = std::max(1, s.hardware.gpus_per_node);
  const int tp = std::max(1, s.placement.rollout_tp);
  const int nodes_per_engine = (tp + gpn - 1) / gpn;
  return SpotLostShare(s.hardware.spot.rollout->preemptions_per_hour, nodes_per_engine, SpotRolloutRestartS(s),
                       in_flight_s);
}

}  // namespace rlcost::perf
