#pragma once
// Which export a colocated refit's gather follows (docs/model.md, "Weight
// sync", "v0.3 gather order"). NeMo RL v0.3's CUDA IPC refit in groups
// (placement.weight_sync: bucketed, colocated: prepare_weights_for_ipc ->
// get_weights_ipc_handles per group) gathers a Megatron trainer's parameters
// with its own gather_params (nemo_rl/models/megatron/refit_utils.py:79-160 @
// b1c86a81): for each parameter an all-gather over the TP group, a broadcast
// of the FULL tensor from its owning stage over the PP group, and for a routed
// expert an all-gather over the EP group. The later releases export with
// Megatron-Bridge, which broadcasts the TP shard over PP first (the default).
//
//   if (GatherParamsRefit(s)) { /* full tensors over PP, experts over EP */ }

#include "rlcost/scenario.h"

namespace rlcost::perf {

// Colocated, bucketed (the CUDA IPC groups), a Megatron trainer with a model-
// parallel layout (TP, PP or EP over more than one GPU; not FSDP / DTensor).
bool GatherParamsRefit(const Scenario& s);

}  // namespace rlcost::perf
