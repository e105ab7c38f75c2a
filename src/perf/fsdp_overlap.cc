// How compute, FSDP traffic and the CPU overlap in an FSDP2 pass, and the CPU
// time DTensor's dispatch adds to a tensor-parallel forward. Derivation and
// sources: docs/model.md, "DTensor dispatch paces the forward".
#include "perf/fsdp_overlap.h"

#include <algorithm>

namespace rlcost::perf {

double FsdpPassTime(const FsdpPassParts& p) {
  if (p.units <= 0 || p.cpu_forward_s <= 0) return std::max(p.compute_s, p.traffic_s);
  // Forward: FSDP2 issues layer i+1's all-gather from layer i+1's pre-forward
  // hook (implicit prefetch, pytorch/pytorch PR #128884), so it runs under
  // layer i's compute only for as long as the GPU lags the CPU, g - c.
  const double g = p.compute_forward_s / p.units;
  const double c = p.cpu_forward_s / p.units;
  const double a = p.traffic_forward_s / p.units;
  const double lead = std::max(0.0, g - c);
  const double forward = p.units * (std::max(g, c) + std::max(0.0, a - lead));
  if (!p.backward) return forward;
  // Backward: the next layer's all-gather is issued from the current layer's
  // pre-backward hook (explicit prefetch in reverse post-forward order, the
  // same PR), ahead of that layer's kernels: it hides under them whatever the
  // CPU does.
  const double backward =
      std::max({p.compute_s - p.compute_forward_s, p.traffic_s - p.traffic_forward_s, p.cpu_forward_s});
  return forward + backward;
}

double DtensorLayerForwardCpuTime(const Scenario& s) {
  const PlacementSpec& p = s.placement;
  if (p.train_backend != TrainBackend::kFsdp || p.train_tp <= 1) return 0;
  return kDtensorDispatchesPerLayer * kDtensorDispatchS;
}

}  // namespace rlcost::perf
