// How the parts of an FSDP2 pass overlap: the compute stream (kernels and
// DTensor's in-line tensor-parallel collectives), the FSDP all-gathers and
// reduce-scatters, and the CPU that issues both. FSDP2 issues a layer's
// forward all-gather when the CPU reaches that layer (implicit prefetch), so a
// CPU slowed by DTensor's per-op dispatch leaves the gather exposed; the
// backward prefetches explicitly. docs/model.md, "DTensor dispatch paces the
// forward (`train_backend: fsdp`, `train_tp` > 1)".
//
//   perf::FsdpPassParts p;
//   p.compute_s = ...; p.traffic_s = ...;
//   p.units = microbatches * layers;
//   p.cpu_forward_s = p.units * perf::DtensorLayerForwardCpuTime(s);
//   double pass_s = perf::FsdpPassTime(p);
#pragma once

#include "rlcost/scenario.h"

namespace rlcost::perf {

// One DTensor op dispatch, sharding propagation cached: PyTorch's own check
// test/distributed/tensor/test_dtensor_dispatch_overhead.py (pytorch/pytorch
// PR #159699, 2025-08) expects 90 us for a cached `add` on a sharded DTensor
// (expected_dispatch_time = 90, in microseconds). NeMo RL v0.3.0 pins torch
// 2.7.0 (pyproject.toml), older than that check.
inline constexpr double kDtensorDispatchS = 90e-6;
// DTensor ops one decoder layer's forward dispatches under NeMo RL's Llama
// and Qwen plans with sequence parallel (nemo_rl/models/dtensor/
// parallelize.py:149-172 @ b1c86a81), counted from the code, a lower bound:
// - two SequenceParallel RMSNorms whose input and weight are DTensors, 8 ops
//   each in transformers' LlamaRMSNorm.forward (to(float32), pow, mean, add,
//   rsqrt, mul, to(input dtype), weight mul);
// - seven projections (q, k, v, o, gate, up, down) with DTensor weights, each
//   aten.linear on a 3-D input decomposed to t, view, mm, _unsafe_view (4).
// Not counted: the redistributes, from_local and to_local of the parallel
// styles, FSDP2's hooks, and the attention, RoPE and SwiGLU ops, which run on
// the local tensors the ColwiseParallel outputs hand back.
inline constexpr double kDtensorDispatchesPerLayer = 2 * 8 + 7 * 4;

// One pass on one GPU, each part summed over the pass.
struct FsdpPassParts {
  double compute_s = 0;          // compute stream: kernels and in-line TP collectives
  double compute_forward_s = 0;  // of which the forward's
  double traffic_s = 0;          // FSDP all-gathers and reduce-scatters
  double traffic_forward_s = 0;  // of which the forward's all-gathers
  double cpu_forward_s = 0;      // CPU time issuing the forward; 0 = the CPU runs ahead
  double units = 0;              // micro-batches x decoder layers (one forward gather each)
  bool backward = true;          // false for a forward-only pass
  // A host sync after every micro-batch (FsdpSyncEdges): per micro-batch, the
  // gathers before its first kernel and the reduce-scatters after its last,
  // which then overlap nothing; 0 = micro-batches run back to back.
  double microbatches = 0;
  double sync_head_s = 0;
  double sync_tail_s = 0;
};

// FSDP traffic at the two ends of one micro-batch on one GPU: the root
// unit's (embedding and output layer) and the first decoder layer's bf16
// gathers before its first kernel, the same two units' fp32 gradient
// reduce-scatters after its last. docs/model.md, "A host sync after every
// micro-batch".
struct FsdpMicrobatchEdges {
  double head_s = 0;
  double tail_s = 0;
};
FsdpMicrobatchEdges FsdpSyncEdges(const Scenario& s, int gpus);

// Ranks of one FSDP sharding group: the data- and context-parallel ranks of
// one tensor-parallel shard, within train_shard_gpus.
int FsdpShardRanks(const Scenario& s, int gpus);

// Wall time of the pass. Without CPU time (the CPU runs ahead of the GPU) the
// longer of compute and traffic, rlcost's rule before, the compute stretched
// by each micro-batch's exposed ends under a host sync; with it, the forward
// runs layer by layer, max(g, c) + max(0, a - max(0, g - c)) per unit (g the
// layer's compute, c its CPU time, a its gather), and the backward, whose
// gathers FSDP2 prefetches explicitly, the longest of its compute, its
// traffic and the CPU (a backward issues at least the forward's dispatches).
double FsdpPassTime(const FsdpPassParts& p);

// CPU seconds to issue one decoder layer's forward for one micro-batch under
// DTensor tensor parallel (train_backend fsdp, train_tp > 1): the layer's
// DTensor dispatches times the cost of one; 0 otherwise (FSDP2 alone computes
// on plain tensors).
double DtensorLayerForwardCpuTime(const Scenario& s);

// Share of an update's FSDP traffic that the forward's all-gathers are (1 for
// a forward-only pass); defined with FsdpTrafficTime's bytes (src/perf/perf.cc).
double FsdpForwardTrafficShare(const Scenario& s, bool forward_only);

// One micro-batch's FSDP traffic on one GPU: the bytes it moves and the
// sharding group's link, so that FsdpTrafficTime = FsdpPassMicrobatches x
// bytes / link_bytes_per_s. bytes is 0 where the traffic is not priced (not
// an FSDP trainer, no stated micro-batch, one rank a shard). A pass that
// needs the count of micro-batches for more than the traffic (the host syncs,
// DTensor's dispatch) works it out once and multiplies this.
struct FsdpMicrobatchTraffic {
  double bytes = 0;
  double link_bytes_per_s = 1;
};
FsdpMicrobatchTraffic FsdpTrafficPerMicrobatch(const Scenario& s, double mean_seq_len, int gpus, bool forward_only);

// Micro-batches a rank runs in a pass: what FsdpTrafficTime multiplies by.
// `tokens` are the pass's own (max-length padding included, not the padding
// of packs to their budget). Packed to a token budget (PassPackBudget):
// E[ceil(b / dp)] a mini-batch, the step's b packs dealt in turn and every
// rank run up to the most any rank holds (PackedMicrobatchesAt); else the
// rank's share over the micro-batch (PassMicrobatches). docs/model.md, "FSDP
// traffic per micro-batch".
double FsdpPassMicrobatches(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only);

}  // namespace rlcost::perf
