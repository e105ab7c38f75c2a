#pragma once
// The trainer's own parameters resident on one training GPU, as a colocated
// refit finds them: the free memory NeMo RL sizes its refit groups by
// (RefitGroups) and what offload_after_refit moves to the host
// (RefitWeightsGb) are the same bytes, so one definition serves both.
//
//   const double free = gpu_bytes - engine_bytes - TrainerWeightBytesPerGpu(s);
//
// docs/model.md, "Trainer weights after the refit".

#include "rlcost/scenario.h"

namespace rlcost::perf {

// FSDP2 / DTensor (placement.train_backend: fsdp): 4 bytes per parameter (the
// fp32 master weights are the module's parameters), sharded over the sharding
// group. Megatron: the bf16 parameter buffer of the rank's model-parallel
// shard; data-parallel ranks each hold the whole shard (the distributed
// optimizer shards only gradients and optimizer state), so a data-parallel-only
// Megatron trainer holds a full bf16 copy on every GPU. Bytes.
double TrainerWeightBytesPerGpu(const Scenario& s);

}  // namespace rlcost::perf
