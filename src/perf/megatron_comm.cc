// Communication a Megatron-Core trainer leaves on its critical path in an RL
// update. Derivations: docs/model.md, "Megatron communication left exposed".
#include "perf/megatron_comm.h"

#include <algorithm>
#include <cmath>

#include "core/numbers.h"
#include "perf/group_link.h"
#include "rlcost/perf.h"

namespace rlcost::perf {
namespace {

// Activations, gradients and parameters travel in bf16: NeMo RL v0.3.0
// (b1c86a81) examples/configs/grpo_math_1B_megatron.yaml:42 precision
// bfloat16, :84 pipeline_dtype the same, :126 grad_reduce_in_fp32 false.
constexpr double kMegatronCommBytesPerValue = 2.0;
// Row-parallel layers whose output is reduced over the TP group in the
// forward, per decoder layer: the attention output projection and the MLP's
// second linear (megatron/core/tensor_parallel/layers.py:1225
// reduce_from_tensor_model_parallel_region in RowParallelLinear.forward, or
// its sequence-parallel reduce-scatter, with the matching all-gather before
// the column-parallel layer: the same bytes) @ terrykong/Megatron-LM 2ff0f099.
constexpr double kDenseLayerTpReductions = 2.0;
// An MoE layer's MLP is its experts (expert tensor parallel 1): only the
// attention block reduces over the TP group.
constexpr double kMoeLayerTpReductions = 1.0;
// Share of an update micro-batch's compute in its backward: 4N of the 6N
// model FLOPs a token (Kaplan et al. 2020; Narayanan et al. 2021).
constexpr double kBackwardShare = 2.0 / 3.0;

// A ring reduce-scatter or all-gather of `bytes` (each rank's full buffer)
// over `ranks` ranks: each GPU sends and receives (n - 1)/n of it.
double RingHalfTime(double bytes, int ranks, double bytes_per_s) {
  if (ranks <= 1 || bytes <= 0) return 0;
  return (ranks - 1.0) / ranks * bytes / bytes_per_s;
}

}  // namespace

double MegatronTpCollectiveTime(const Scenario& s, double tokens, int gpus) {
  const PlacementSpec& p = s.placement;
  const int tp = std::max(1, p.train_tp);
  if (p.train_backend != TrainBackend::kMegatron || tp <= 1 || tokens <= 0 || gpus <= 0) return 0;
  const ModelSpec& m = s.model;
  const int cp = std::max(1, p.train_cp), pp = std::max(1, p.train_pp);
  const int dp = std::max(1, gpus / (tp * cp * pp));
  // A TP group runs its data-parallel rank's tokens (split over the context-
  // parallel ranks) through its stage's layers; each reduction is a ring
  // all-reduce of [tokens x hidden] (2 (tp - 1)/tp of it through each GPU).
  const double group_tokens = tokens / (dp * cp);
  const double per_layer = m.is_moe() ? kMoeLayerTpReductions : kDenseLayerTpReductions;
  const double reductions = per_layer * double(m.layers) / pp;
  const double bytes = group_tokens * m.hidden * kMegatronCommBytesPerValue;
  // Megatron's rank order tp-cp-ep-dp-pp: a TP group is tp consecutive ranks.
  return reductions * 2.0 * RingHalfTime(bytes, tp, GroupLinkBytesPerS(s, tp));
}

double MegatronGradSyncExposedTime(const Scenario& s, double mean_seq_len, int gpus) {
  const PlacementSpec& p = s.placement;
  // No Megatron layout stated: rlcost's trainer is ZeRO-3 data parallel,
  // which syncs in every micro-batch (FsdpTrafficTime), not once a step.
  if (p.train_backend != TrainBackend::kMegatron || !p.stated.train_layout || gpus <= 0) return 0;
  const ModelSpec& m = s.model;
  const GpuSpec& g = s.hardware.gpu;
  const int tp = std::max(1, p.train_tp), cp = std::max(1, p.train_cp), pp = std::max(1, p.train_pp);
  const int ep = std::max(1, p.train_ep);
  const int dp = std::max(1, gpus / (tp * cp * pp));
  // Dense parameters are sharded over tp x pp and reduced over the dp ranks
  // (stride tp x cp in Megatron's rank order tp-cp-ep-dp-pp: the group spans
  // tp x cp x dp ranks); routed experts (expert tensor parallel 1) over
  // ep x pp, reduced over the gpus / (ep x pp) expert-data-parallel ranks
  // (stride ep: spanning gpus / pp ranks). LoRA's adapters count as dense.
  const bool experts = m.is_moe() && !s.algorithm.lora;
  const double dense = experts ? m.dense_params_b() * 1e9 : TrainableParams(s);
  const double routed = experts ? m.routed_expert_params_b() * 1e9 : 0.0;
  const int edp = std::max(1, gpus / (ep * pp));
  const double dense_bytes = dense / (tp * pp) * kMegatronCommBytesPerValue;
  const double routed_bytes = routed / (ep * pp) * kMegatronCommBytesPerValue;
  // Reduce-scatter of the gradients, then all-gather of the updated
  // parameters: the same bytes each way.
  const double one_way = RingHalfTime(dense_bytes, dp, GroupLinkBytesPerS(s, tp * cp * dp)) +
                         RingHalfTime(routed_bytes, edp, GroupLinkBytesPerS(s, gpus / pp));
  if (one_way <= 0) return 0;
  // One micro-batch of the update on one GPU: its tokens' model FLOPs over
  // the model-parallel ranks, at the measured train MFU.
  const double stated_tokens = MicrobatchTokens(s, mean_seq_len, /*forward_only=*/false);
  const double mb_tokens = stated_tokens > 0 ? stated_tokens : std::max(mean_seq_len, 0.0);
  const double peak = g.PeakFlops(Precision::kBf16) * UpdateMfu(s);
  if (peak <= 0) return 0;
  const double microbatch_s =
      mb_tokens * TrainLinearFlopsPerToken(s, /*forward_only=*/false) / (double(tp) * cp * pp) / peak;
  return std::max(0.0, one_way - kBackwardShare * microbatch_s) +
         std::max(0.0, one_way - (1.0 - kBackwardShare) * microbatch_s);
}

double MegatronPipelineSendTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only) {
  const PlacementSpec& p = s.placement;
  const int pp = std::max(1, p.train_pp);
  if (p.train_backend != TrainBackend::kMegatron || pp <= 1 || tokens <= 0 || gpus <= 0) return 0;
  const ModelSpec& m = s.model;
  const int tp = std::max(1, p.train_tp), cp = std::max(1, p.train_cp);
  const int dp = std::max(1, gpus / (tp * cp * pp));
  const int minibatches = forward_only ? 1 : std::max(1, s.algorithm.minibatches);
  const double microbatches = PassMicrobatches(s, gpus, tokens / minibatches, mean_seq_len, forward_only);
  // megatron/core/pipeline_parallel/p2p_communication.py:388-390 @ 2ff0f099:
  // _communicate waits on its requests unless overlap_p2p_comm, which only
  // the interleaved schedule sets (:598, :627).
  const double slots = minibatches * (microbatches + pp - 1.0);
  const double sends_per_slot = forward_only ? 1.0 : 2.0;
  // One micro-batch of one data-parallel rank (its context-parallel share),
  // [tokens x hidden] in bf16, split over the TP ranks under sequence
  // parallel.
  const double microbatch_tokens = tokens / (double(dp) * minibatches * microbatches * cp);
  const double split = m.is_moe() ? tp : 1.0;
  const double bytes = microbatch_tokens * m.hidden * kMegatronCommBytesPerValue / split;
  // Stages lie tp x cp x dp ranks apart (rank order tp-cp-ep-dp-pp): the
  // sends leave the NVLink domain once the pipeline spans more than one.
  return slots * sends_per_slot * bytes / GroupLinkBytesPerS(s, gpus);
}

}  // namespace rlcost::perf
