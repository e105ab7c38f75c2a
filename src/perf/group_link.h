#pragma once
// The link a training collective runs over, one definition for FSDP's
// parameter traffic, DTensor's and Megatron's tensor-parallel collectives and
// Megatron's data-parallel gradient sync (docs/model.md, "FSDP traffic per
// micro-batch", "DTensor tensor-parallel collectives", "Megatron
// communication left exposed").
//
//   double bw = perf::GroupLinkBytesPerS(s, tp);  // bytes/s a GPU

#include <algorithm>

#include "core/numbers.h"
#include "rlcost/scenario.h"

namespace rlcost::perf {

// Bytes per second each GPU of a group spanning `span_gpus` consecutive GPUs
// sends: NVLink when the group lies in one NVLink domain, else each GPU's NIC
// (a ring that spans domains is held to it), at NCCL's share of the line rate
// (eff.weight_sync_eff, nccl-tests issue #212).
inline double GroupLinkBytesPerS(const Scenario& s, int span_gpus) {
  const GpuSpec& g = s.hardware.gpu;
  const bool in_domain = span_gpus <= NvlinkDomainGpus(s.hardware);
  const double link_gb = in_domain ? g.intra_node_gb_per_s : std::min(g.inter_node_gb_per_s, g.intra_node_gb_per_s);
  return std::max(link_gb, 1e-9) * kGB * std::max(g.efficiency.weight_sync_eff, 1e-9);
}

}  // namespace rlcost::perf
