// How compute, FSDP traffic and the CPU overlap in an FSDP2 pass, and the CPU
// time DTensor's dispatch adds to a tensor-parallel forward. Derivation and
// sources: docs/model.md, "DTensor dispatch paces the forward".
#include "perf/fsdp_overlap.h"

#include <algorithm>

namespace rlcost::perf {

double FsdpPassTime(const FsdpPassParts& p) {
  // A host sync after each micro-batch empties the GPU: the next one's first
  // gathers (head) wait with no compute queued, and this one's last
  // reduce-scatters (tail) must finish before the sync returns, FSDP2's root
  // post-backward callback making the compute stream wait for them
  // (torch/distributed/fsdp/_fully_shard/_fsdp_state.py
  // _root_post_backward_final_callback). The traffic stream runs on through
  // them, so they stretch the compute side only.
  const double m = std::max(0.0, p.microbatches);
  const double head = m * p.sync_head_s;
  const double tail = p.backward ? m * p.sync_tail_s : 0.0;
  if (p.units <= 0 || p.cpu_forward_s <= 0) return std::max(p.compute_s + head + tail, p.traffic_s);
  // Forward: FSDP2 issues layer i+1's all-gather from layer i+1's pre-forward
  // hook (implicit prefetch, pytorch/pytorch PR #128884), so it runs under
  // layer i's compute only for as long as the GPU lags the CPU, g - c.
  const double g = p.compute_forward_s / p.units;
  const double c = p.cpu_forward_s / p.units;
  const double a = p.traffic_forward_s / p.units;
  const double lead = std::max(0.0, g - c);
  const double exposed = std::max(0.0, a - lead);
  // Each micro-batch's first layer waits for the whole head, not its share.
  const double forward = p.units * (std::max(g, c) + exposed) + std::max(0.0, head - m * exposed);
  if (!p.backward) return forward;
  // Backward: the next layer's all-gather is issued from the current layer's
  // pre-backward hook (explicit prefetch in reverse post-forward order, the
  // same PR), ahead of that layer's kernels: it hides under them whatever the
  // CPU does.
  const double backward =
      std::max({p.compute_s - p.compute_forward_s + tail, p.traffic_s - p.traffic_forward_s, p.cpu_forward_s});
  return forward + backward;
}

double DtensorLayerForwardCpuTime(const Scenario& s) {
  const PlacementSpec& p = s.placement;
  if (p.train_backend != TrainBackend::kFsdp || p.train_tp <= 1) return 0;
  return kDtensorDispatchesPerLayer * kDtensorDispatchS;
}

}  // namespace rlcost::perf
