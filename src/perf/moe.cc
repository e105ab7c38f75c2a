// MoE at training time and the trainer's Megatron layout: expert sizes, the
// expert-parallel all-to-all, grouped-GEMM tile quantisation, the pipeline
// bubble, and the MFU a pass runs at. Derivations: docs/model.md, "MoE and
// the training layout".
#include <algorithm>
#include <cmath>

#include "core/numbers.h"
#include "perf/megatron_comm.h"
#include "perf/packing.h"
#include "rlcost/perf.h"

namespace rlcost::perf {
namespace {

// Tile edge of the grouped GEMMs that Megatron-Core's --moe-grouped-gemm
// runs (CUTLASS / cuBLASLt grouped GEMM on Hopper): 128 x 128 output tiles,
// the CUTLASS default threadblock shape; NVIDIA "Matrix Multiplication
// Background User's Guide", section "Tile quantization".
constexpr double kGemmTile = 128.0;
// Expert activations travel in bf16 in both directions (Megatron-Core's
// alltoall / DeepEP dispatchers with BF16 training).
constexpr double kDispatchBytesPerValue = 2.0;
// Forward: dispatch + combine; backward: their gradients, the same bytes.
constexpr double kAllToAllsForward = 2.0;
constexpr double kAllToAllsUpdate = 4.0;

}  // namespace

double ExpertIntermediate(const ModelSpec& m) {
  if (!m.is_moe() || m.layers <= 0 || m.hidden <= 0) return 0;
  // Every layer is taken as an MoE layer (the catalog has no dense-layer
  // count): DeepSeek-V3's 3 dense of 61 make this 1948 instead of its 2048.
  return m.routed_expert_params_b() * 1e9 / (double(m.experts) * m.layers * 3.0 * m.hidden);
}

double ActiveRoutedParams(const ModelSpec& m) {
  if (!m.is_moe()) return 0;
  return m.routed_expert_params_b() * m.experts_per_token / m.experts;
}

double LoraActiveParams(const ModelSpec& m, int rank) {
  double all = LoraParams(m, rank);
  if (!m.is_moe() || rank <= 0) return all;
  // Each expert carries its own adapter on gate, up and down: r * (h + I)
  // each. A token multiplies through its k experts' adapters only.
  double per_expert = 3.0 * rank * (m.hidden + ExpertIntermediate(m));
  return all - double(m.layers) * (m.experts - m.experts_per_token) * per_expert;
}

double PipelineBubbleFraction(int pp, double microbatches) {
  if (pp <= 1) return 0;
  microbatches = std::max(microbatches, 1.0);
  return (pp - 1.0) / (microbatches + pp - 1.0);
}

double TrainMicrobatches(const PlacementSpec& p, int gpus, double tokens, double mean_seq_len) {
  // Not stated: one sequence of mean length per micro-batch.
  const double mb_tokens = p.train_micro_batch_tokens > 0 ? p.train_micro_batch_tokens : mean_seq_len;
  return MicrobatchesOf(DataParallelRanks(p, gpus), tokens, mb_tokens);
}

double TileEfficiency(double n, double tile) {
  if (n <= 0 || tile <= 0) return 1.0;
  return n / (std::ceil(n / tile - 1e-9) * tile);
}

double ExpertGemmEfficiency(const Scenario& s, double mean_seq_len) {
  const ModelSpec& m = s.model;
  if (!m.is_moe()) return 1.0;
  const PlacementSpec& p = s.placement;
  // N is each expert's whole intermediate size (expert tensor parallel 1,
  // NeMo RL's megatron_cfg.expert_tensor_parallel_size default): >= 768 for
  // every catalog MoE, so only M is quantised.
  double eff = 1.0;
  // M: tokens per local expert per micro-batch, known only when the
  // micro-batch is stated: the micro-batch's tokens (split over the context-
  // and tensor-parallel ranks, sequence parallel) go k times each to the
  // E / ep experts each rank of the EP group holds: tokens * k * ep / E per
  // expert under balanced routing.
  if (p.train_micro_batch_tokens > 0) {
    double tokens = double(p.train_micro_batch_tokens) / (std::max(1, p.train_cp) * std::max(1, p.train_tp));
    double per_expert = tokens * m.experts_per_token * std::max(1, p.train_ep) / m.experts;
    eff *= TileEfficiency(per_expert, kGemmTile);
  }
  return eff;
}

int SmallestDomainPart(int group, int gpus, int domain) {
  group = std::max(group, 1);
  domain = std::max(domain, 1);
  if (group > domain) return domain;
  int smallest = group;
  if (domain % group == 0) return smallest;  // every boundary falls between groups
  // Group k holds ranks [k group, (k + 1) group); a domain boundary at m
  // domain strictly inside it leaves (m domain) mod group ranks on one side.
  // The residues repeat after at most `group` boundaries.
  long long seen = 0;
  for (long long b = domain; b < gpus && seen < group; b += domain, ++seen) {
    const int in_first = int(b % group);
    if (in_first == 0) continue;
    smallest = std::min({smallest, in_first, group - in_first});
  }
  return smallest;
}

double ExpertAllToAllTime(const Scenario& s, double tokens, int gpus, double passes) {
  const ModelSpec& m = s.model;
  const PlacementSpec& p = s.placement;
  if (!m.is_moe() || p.train_ep <= 1 || tokens <= 0 || gpus <= 0) return 0;
  const GpuSpec& g = s.hardware.gpu;
  // Each GPU sends its share of the tokens, k copies of the hidden state,
  // once per MoE layer of its pipeline stage: over all stages that is
  // tokens * k * h * bytes * layers / gpus per GPU per all-to-all.
  double bytes = tokens * m.experts_per_token * m.hidden * kDispatchBytesPerValue * m.layers / gpus * passes;
  // With expert tensor parallel 1 the EP group is ep consecutive ranks
  // (Megatron-Core's expert rank order etp-ep-dp-pp): those inside one NVLink
  // domain (a node; GB200 NVL72: 72 GPUs over 18 trays) reach each other
  // over NVLink (docs/model.md, "NVLink domain").
  // A group that straddles two NVLink domains (docs/model.md, "Groups across
  // NVLink domains") holds its slowest GPUs in the smaller part.
  const int ep = p.train_ep;
  const int per_node = std::clamp(SmallestDomainPart(ep, gpus, NvlinkDomainGpus(s.hardware)), 1, ep);
  double local = bytes * (per_node - 1.0) / ep;
  double remote = bytes * double(ep - per_node) / ep;
  // NVLink and the NIC carry their parts at once (DeepEP's normal kernels
  // forward over both); the slower side sets the time.
  double t_local = local / (std::max(g.intra_node_gb_per_s, 1.0) * kGB);
  double t_remote = remote / (std::max(g.inter_node_gb_per_s, 1.0) * kGB);
  return std::max(t_local, t_remote);
}

double MoeLayerFloorTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only) {
  const ModelSpec& m = s.model;
  const double floor_s = s.hardware.gpu.efficiency.moe_layer_train_s;
  if (!m.is_moe() || floor_s <= 0 || tokens <= 0 || gpus <= 0 || m.layers <= 0) return 0;
  // Megatron-Core's alltoall dispatcher copies the split sizes to the host
  // and waits for them in every MoE layer's forward (cuda_sync_point
  // "before_ep_alltoall"; "before_permutation_1" when tokens are dropped),
  // so the host cannot run ahead of a layer's small kernels: each layer of
  // each micro-batch takes at least the time the host needs to issue it.
  // The floor is read for forward + backward; a forward alone issues a third
  // of it (the FLOP ratio, an assumption). Every layer of an MoE model counts
  // (the catalog does not separate DeepSeek-V3's 3 dense layers).
  const double share = forward_only ? 1.0 / 3.0 : 1.0;
  const int minibatches = forward_only ? 1 : std::max(1, s.algorithm.minibatches);
  // The update's micro-batches are the packed bins when a token budget is
  // stated (a sequence longer than half the budget takes one alone).
  const double per_minibatch = tokens / minibatches;
  const double microbatches =
      minibatches * (!forward_only && s.placement.train_micro_batch_tokens > 0
                         ? PackedMicrobatches(s, gpus, per_minibatch, mean_seq_len)
                         : PassMicrobatches(s, gpus, per_minibatch, mean_seq_len, forward_only));
  const double layers_per_stage = double(m.layers) / std::max(1, s.placement.train_pp);
  return microbatches * layers_per_stage * floor_s * share;
}

double TrainEngineTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, double flops_per_gpu,
                       bool forward_only) {
  if (tokens <= 0 || gpus <= 0) return 0;
  const ModelSpec& m = s.model;
  const Efficiency& eff = s.hardware.gpu.efficiency;
  const GpuSpec& g = s.hardware.gpu;
  // The MFUs are measured on BF16 runs (catalog/efficiency.yaml), so the step
  // is first priced at the BF16 peak; FP8 training then speeds up only its
  // GEMMs (below). The MoE MFU is measured on Megatron-Core MoE runs;
  // forward-only passes keep the dense ratio logprob_mfu / train_mfu.
  const double peak = g.PeakFlops(Precision::kBf16);
  const double mfu =
      forward_only ? eff.logprob_mfu * (m.is_moe() ? eff.train_mfu_moe / eff.train_mfu : 1.0) : UpdateMfu(s);
  double t = flops_per_gpu / (peak * mfu);
  double gemm_slowdown = 1.0;  // expert GEMMs' tile waste stretches the GEMM time too
  if (m.is_moe()) {
    // Routed-expert GEMMs run at ExpertGemmEfficiency of the rest: forward
    // 2 N_routed_active per token, update 6 (LoRA's frozen base: 4).
    double mult = forward_only ? 2.0 : (s.algorithm.lora ? 4.0 : 6.0);
    double expert_flops = mult * ActiveRoutedParams(m) * 1e9 * tokens / gpus;
    double share = flops_per_gpu > 0 ? std::min(1.0, expert_flops / flops_per_gpu) : 0.0;
    gemm_slowdown = (1.0 - share) + share / ExpertGemmEfficiency(s, mean_seq_len);
    t *= gemm_slowdown;
  }
  if (s.precision.train == Precision::kFp8 && g.Supports(Precision::kFp8)) {
    // FP8 training (Transformer Engine) runs the linear layers' GEMMs in FP8;
    // attention (bf16 fused attention unless fp8_dpa) and everything that is
    // not a GEMM keep their BF16 time. The GEMM part of the BF16 step is the
    // linear-layer FLOPs at the measured BF16 matmul rate; it is replaced by
    // the same FLOPs at the measured FP8 rate.
    const double linear_flops = TrainLinearFlopsPerToken(s, forward_only) * tokens / gpus;
    const double gemm_bf16 =
        std::min(t, gemm_slowdown * linear_flops / (peak * g.MatmulFraction(Precision::kBf16)));
    const double gemm_fp8 =
        gemm_bf16 * (peak * g.MatmulFraction(Precision::kBf16)) /
        (g.PeakFlops(Precision::kFp8) * g.MatmulFraction(Precision::kFp8));
    t += gemm_fp8 - gemm_bf16;
  }
  // Megatron-Core's tensor-parallel reductions wait in line with the compute
  // (docs/model.md, "Megatron communication left exposed").
  t += MegatronTpCollectiveTime(s, tokens, gpus);
  if (m.is_moe()) {
    // The all-to-all overlaps compute across micro-batches (the published
    // MoE MFU already contains the share it could not hide); only an
    // all-to-all longer than the compute sets the pace.
    t = std::max(t, ExpertAllToAllTime(s, tokens, gpus, forward_only ? kAllToAllsForward : kAllToAllsUpdate));
    // Small micro-batches leave the GPU waiting for the host: the pass takes
    // at least the per-layer floor (docs/model.md, "MoE layer floor").
    t = std::max(t, MoeLayerFloorTime(s, tokens, mean_seq_len, gpus, forward_only));
  }
  // The update drains the pipeline once per optimizer step: each of the
  // algorithm.minibatches mini-batches is its own 1F1B schedule over its own
  // micro-batches (docs/model.md, "Optimizer steps per RL step"). The
  // forward-only passes are not split into optimizer steps.
  const int minibatches = forward_only ? 1 : std::max(1, s.algorithm.minibatches);
  double bubble = PipelineBubbleFraction(s.placement.train_pp,
                                         PassMicrobatches(s, gpus, tokens / minibatches, mean_seq_len, forward_only));
  // Stages split evenly leave the last one the output layer besides: the
  // pipeline runs at its pace (docs/model.md, "Pipeline stages split evenly").
  return t * PipelineStageFactor(s) / (1.0 - bubble);
}

}  // namespace rlcost::perf
