#pragma once
// Communication a Megatron-Core trainer leaves on its critical path in an RL
// update: the tensor-parallel activation collectives that run in line with
// the compute when tp_comm_overlap is off, the data-parallel gradient
// reduce-scatter and parameter all-gather of each optimizer step beyond what
// one micro-batch hides, and the pipeline's blocking point-to-point sends. Derivations: docs/model.md, "Megatron
// communication left exposed".
//
//   double tp_s = perf::MegatronTpCollectiveTime(s, tokens_run, gpus);
//   double dp_s = perf::MegatronGradSyncExposedTime(s, mean_seq_len, gpus);  // per optimizer step

#include "rlcost/scenario.h"

namespace rlcost::perf {

// Tensor-parallel collectives of one pass over `tokens` (all GPUs'; the
// tokens as run, padding included) that wait in line with the compute:
// Megatron-Core's row-parallel layers reduce their output (an all-reduce, or
// with sequence parallel an all-gather before and a reduce-scatter after the
// block, the same bytes) on the compute stream unless TE's tp_comm_overlap
// is on, which NeMo RL v0.3 and veRL 0.4 leave off. Two a dense layer, one an
// MoE layer (its experts exchange tokens by the all-to-all instead); the
// backward's input-gradient all-reduces overlap the weight-gradient GEMMs and
// are not counted, so a forward-only pass and the update carry the same.
// 0 for train_tp 1 and for the FSDP/DTensor backend (DtensorTpCollectiveTime).
double MegatronTpCollectiveTime(const Scenario& s, double tokens, int gpus);

// Per optimizer step, the part of the distributed optimizer's gradient
// reduce-scatter and parameter all-gather over the data-parallel group that
// the compute does not hide: grad sync is enabled only for the last
// micro-batch's backward, and the all-gather overlaps the first forward of
// the next mini-batch (Megatron-Core with overlap_grad_reduce and
// overlap_param_gather, NeMo RL's settings). A micro-batch's compute is its
// tokens (MicrobatchTokens, else one sequence of mean length) at the train
// MFU. 0 with one data-parallel rank, the FSDP/DTensor backend, or no
// Megatron layout stated (placement.train_tp/cp/pp/ep: ZeRO-3 data parallel).
double MegatronGradSyncExposedTime(const Scenario& s, double mean_seq_len, int gpus);

// The point-to-point sends of a pass through a pipeline (train_pp > 1) that
// its stages wait for: the non-interleaved 1F1B schedule sends and receives
// blocking, one activation forward and one gradient backward each slot of
// the schedule, m + pp - 1 slots a mini-batch (forward-only passes: one
// send a slot, one schedule). `tokens` as in TrainEngineTime (all GPUs',
// padding included); TrainStep and ForwardPass add it outside the bubble
// and the recompute factor. A dense model's activations travel whole (ASSUMED:
// sequence parallel off, NeMo RL's default), an MoE model's split over the
// TP ranks (Megatron requires sequence parallel for MoE with TP > 1).
double MegatronPipelineSendTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only);

}  // namespace rlcost::perf
