// The roofline time of one unit of work. Derivations: docs/model.md, "perf".
#include "core/numbers.h"
#include "rlcost/perf.h"
#include "perf/all_reducer.h"
#include "perf/decode_arms_kept.h"
#include "perf/dp_imbalance.h"
#include "perf/fsdp_overlap.h"
#include "perf/group_link.h"
#include "perf/megatron_comm.h"
#include "perf/packing.h"
#include "perf/pipeline_forward.h"
#include "perf/prefill_maker.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>

namespace rlcost::perf {
namespace {

// Small-message all-reduce latency inside an NVLink domain, per call. vLLM's
// custom all-reduce for decode-sized messages runs in ~5-10 us on 8xH100
// (vLLM PR #2192 benchmarks; NCCL's own small-message latency is ~10-20 us per
// nccl-tests). We take 8 us.
constexpr double kAllReduceLatencyS = 8e-6;
// vLLM's custom all-reduce serves a tensor-parallel group of 2, 4, 6 or 8
// GPUs inside one NVLink domain for messages under its 8 MiB buffer
// (vllm/distributed/device_communicators/custom_all_reduce.py @ 00d618aa:
// _SUPPORTED_WORLD_SIZES [2, 4, 6, 8], max_size=8192 * 1024,
// should_custom_ar: inp_size < self.max_size); larger messages go to NCCL.
// At these sizes it does not move the ring's bytes at the link's line rate.
// sgl-project/sglang PR #2904 (2025-01-15) timed vLLM's kernel on H100
// (tests/test_trt_reduce.py: float32 inputs, no CUDA graph) at 1, 2 and 4 MiB:
// tp 2 12.9 / 17.7 / 26.6 us, tp 4 20.6 / 26.9 / 40.2 us, tp 8 24.1 / 30.4 /
// 45.0 us. Past the 8 us latency above, the ring bytes 2(tp-1)/tp x size
// moved at 0.253 to 0.501 of the 450 GB/s NVLink across the nine points;
// we take the middle, (0.253 + 0.501) / 2 = 0.377 (docs/model.md,
// "Tensor-parallel all-reduce"). Measured on H100; other GPUs take the same
// share of their own link (ASSUMED).
constexpr double kCustomAllReduceMaxBytes = 8192.0 * 1024.0;
constexpr double kCustomAllReduceLinkShare = 0.377;
// Beyond one NVLink domain vLLM's custom all-reduce does not apply and NCCL
// runs the collective. NCCL's tuning model (NVIDIA/nccl src/graph/tuning.cc,
// commit 01afd20a, ring algorithm, LL protocol, the one it picks for small
// messages): base latency 3.6 us per collective, plus per ring step 0.47 us
// over NVLink (x1.8 when the ring spans nodes) and 2.7 us over the network;
// an all-reduce takes 2(n-1) steps, 2(nodes-1) of them across the network.
constexpr double kNcclRingLlBaseLatencyS = 3.6e-6;
constexpr double kNcclRingLlNvlinkHopS = 0.47e-6 * 1.8;
constexpr double kNcclRingLlNetHopS = 2.7e-6;
// Mixed-precision Adam keeps 16 bytes per trainable parameter: bf16 weights (2)
// and gradients (2), fp32 master weights (4), Adam moments (4 + 4).
// ZeRO (Rajbhandari et al., 2020), section 3.1: "16 Psi".
constexpr double kAdamBytesPerTrainableParam = 16.0;
// Left free on every GPU for activations, CUDA graphs and the allocator: 10%,
// as vLLM's default gpu_memory_utilization 0.9 leaves.
constexpr double kActivationReserveFraction = 0.10;
// Bytes per trainable parameter that stay on the GPU under ZeRO-Offload
// (bf16 weights and gradients); the 12 bytes of fp32 master weights and Adam
// moments live in host memory (Ren et al., 2021, "ZeRO-Offload").
constexpr double kOffloadedAdamGpuBytes = 4.0;
// HBM bytes one mixed-precision Adam(W) step moves per parameter of the
// local shard: it reads the fp32 gradient (4), master weight (4) and both
// moments (4 + 4) and writes the master weight and the moments back (12)
// (torch.optim.AdamW's update: exp_avg.lerp_(grad), exp_avg_sq.mul_().
// addcmul_(grad, grad), param.addcdiv_(exp_avg, denom); its fused kernel
// touches each tensor once), then writes the bf16 weights the next forward
// uses (2; Megatron's distributed optimizer copies its fp32 main params into
// the bf16 model params after each step). 16 + 12 + 2 = 30. The 16 bytes of
// state per parameter are ZeRO's (Rajbhandari et al. 2020, section 3.1).
constexpr double kAdamStepBytesPerParam = 30.0;
// FSDP per micro-batch: parameters gathered in bf16 (param_dtype), gradients
// reduce-scattered in fp32 (reduce_dtype): NeMo RL nemo_rl/models/dtensor/
// parallelize.py:464-468 @ v0.3.0; veRL's FSDP actor the same
// (mixed_precision param_dtype bf16, reduce_dtype fp32).
constexpr double kFsdpGatherBytes = 2.0;
constexpr double kFsdpReduceBytes = 4.0;

}  // namespace

double DecodeAttentionFlopsPerContextToken(const ModelSpec& m) {
  // Per new token, per token of context: QK^T and AV, 2 FLOPs per MAC each.
  if (m.attention == Attention::kMla) {
    // Absorbed MLA (DeepSeek-V2 paper sec. 2.1.2; what decode kernels such as
    // FlashMLA run): scores over (kv_lora_rank + rope) dims, values over kv_lora_rank.
    return 2.0 * m.layers * m.heads * (2.0 * m.kv_lora_rank + m.rope_head_dim);
  }
  return 4.0 * m.layers * m.heads * m.head_dim;
}

double AttentionFlopsPerContextToken(const ModelSpec& m) {
  if (m.attention == Attention::kMla) {
    // Per-head MLA, as prefill and training run it (the latent is expanded to
    // per-head keys and values once per token): QK^T over qk_nope + qk_rope
    // dims, AV over v_head_dim (DeepSeek-V3 config.json: 128 + 64, 128).
    const double v_dim = m.v_head_dim > 0 ? m.v_head_dim : m.head_dim;
    return 2.0 * m.layers * m.heads * (double(m.head_dim) + m.rope_head_dim + v_dim);
  }
  return 4.0 * m.layers * m.heads * m.head_dim;
}

double KvShards(const ModelSpec& m, int tp, bool dp_attention) {
  tp = std::max(tp, 1);
  if (dp_attention) return tp;
  if (m.attention == Attention::kMla) return 1;
  return std::min(tp, std::max(m.kv_heads, 1));
}

// AllReducer (src/perf/all_reducer.h): AllReduceTime, or (line_rate) the
// same with the custom kernel's share of the link taken as 1 (a floor of it
// that is affine in the bytes), with what depends on the engine only computed
// at construction.
AllReducer::AllReducer(const EngineConfig& e, bool line_rate) {
  if (e.tp <= 1) return;
  none_ = false;
  const GpuSpec& g = *e.gpu;
  ring_share_ = 2.0 * (e.tp - 1) / e.tp;
  const int domain = std::max(e.nvlink_domain > 0 ? e.nvlink_domain : g.nvlink_domain, 1);
  if (e.tp <= domain) {
    // vLLM's custom all-reduce (tp 2, 4, 6, 8; under 8 MiB) at its measured
    // share of the link; NCCL at line rate otherwise.
    link_ = std::max(g.intra_node_gb_per_s, 1.0) * kGB;
    custom_tp_ = (e.tp == 2 || e.tp == 4 || e.tp == 6 || e.tp == 8) && !line_rate;
    custom_link_ = link_ * kCustomAllReduceLinkShare;
    latency_s_ = kAllReduceLatencyS;
    return;
  }
  // The ring crosses ceil(tp / domain) domains; its slowest link is the network.
  const double domains = std::ceil(double(e.tp) / domain);
  const double steps = 2.0 * (e.tp - 1);
  const double net_steps = 2.0 * (domains - 1);
  latency_s_ = kNcclRingLlBaseLatencyS + (steps - net_steps) * kNcclRingLlNvlinkHopS + net_steps * kNcclRingLlNetHopS;
  link_ = std::max(std::min(g.inter_node_gb_per_s, g.intra_node_gb_per_s), 1.0) * kGB;
}

double AllReducer::Ring(double bytes, double count) const {
  const double ring_bytes = ring_share_ * bytes;
  const double link = custom_tp_ && bytes < kCustomAllReduceMaxBytes ? custom_link_ : link_;
  return count * (latency_s_ + ring_bytes / link);
}

namespace {

double AllReduceTimeAt(const EngineConfig& e, double bytes, double count, bool line_rate) {
  return AllReducer(e, line_rate)(bytes, count);
}

}  // namespace

double AllReduceTime(const EngineConfig& e, double bytes, double count) {
  return AllReduceTimeAt(e, bytes, count, false);
}

double AllReduceLineRateTime(const EngineConfig& e, double bytes, double count) {
  return AllReduceTimeAt(e, bytes, count, true);
}

namespace {

double LoraBytes(const EngineConfig& e) {
  if (e.lora_rank <= 0 || e.lora_tenants <= 0) return 0;
  // Adapters are served in bf16 (Punica/S-LoRA keep them in fp16/bf16).
  return e.lora_tenants * LoraParams(*e.model, e.lora_rank) * 2.0;
}

double LoraFlopsPerToken(const EngineConfig& e) {
  if (e.lora_rank <= 0 || e.lora_tenants <= 0) return 0;
  return 2.0 * LoraActiveParams(*e.model, e.lora_rank);
}

}  // namespace

double KvBytesPerToken(const ModelSpec& m, Precision kv) {
  if (m.attention == Attention::kMla) {
    return double(m.layers) * (m.kv_lora_rank + m.rope_head_dim) * BytesPer(kv);
  }
  return 2.0 * m.layers * m.kv_heads * m.head_dim * BytesPer(kv);
}

double WeightBytes(const ModelSpec& m, Precision p) { return m.params_b * 1e9 * BytesPer(p); }

double LoraParams(const ModelSpec& m, int rank) {
  if (rank <= 0) return 0;
  const double h = m.hidden;
  const double q = double(m.heads) * m.head_dim;
  const double kv = double(m.kv_heads) * m.head_dim;
  // Attention projections q, k, v, o: rank * (in + out) each.
  double attn = rank * ((h + q) + 2.0 * (h + kv) + (q + h));
  // MoE: an adapter per expert (routed and shared) on gate, up and down
  // (src/perf/moe.cc; docs/model.md "LoRA on MoE").
  if (m.is_moe()) {
    return m.layers * (attn + (m.experts + m.shared_experts) * 3.0 * rank * (h + ExpertIntermediate(m)));
  }
  // MLP width from the active parameters left per layer after attention and
  // embeddings (gate, up, down = 3 * h * I).
  double emb = 2.0 * m.vocab * h;
  double per_layer = (m.active_params_b * 1e9 - emb) / std::max(m.layers, 1);
  double attn_params = h * q + 2.0 * h * kv + q * h;
  double inter = std::max(0.0, (per_layer - attn_params) / (3.0 * h));
  double mlp = 3.0 * rank * (h + inter);
  return m.layers * (attn + mlp);
}

double ExpertsTouched(const ModelSpec& m, double tokens) {
  if (!m.is_moe()) return 0;
  const double e = m.experts, k = m.experts_per_token;
  return e * (1.0 - std::pow(1.0 - k / e, std::max(tokens, 0.0)));
}

double WeightBytesRead(const ModelSpec& m, Precision p, double tokens) {
  if (!m.is_moe()) return WeightBytes(m, p);
  double frac = ExpertsTouched(m, tokens) / m.experts;
  return (m.dense_params_b() + m.routed_expert_params_b() * frac) * 1e9 * BytesPer(p);
}

double ForwardFlopsPerToken(const ModelSpec& m, double context) {
  return 2.0 * m.active_params_b * 1e9 + AttentionFlopsPerContextToken(m) * context;
}

// A decode iteration of `batch` running sequences launches its kernels one by
// one: the engine is eager, or the batch is larger than the largest captured
// CUDA graph (docs/model.md, "CUDA-graph coverage").
bool RunsEagerly(const EngineConfig& e, double batch) { return RunsEagerlyAt(e, batch); }

// The two roofline arms of a decode iteration, per GPU, as linear functions of
// the total context C: memory time and compute time. What does not depend on
// the batch is computed once (DecodeArmsKept in perf/decode_arms_kept.h);
// DecodeArmsFor computes it for one batch, and both run DecodeArmsAt, so both
// give the same bits.
DecodeArmsParts DecodeArmsPartsOf(const EngineConfig& e) {
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  DecodeArmsParts k;
  k.bw = g.hbm_tb_per_s * 1e12 * e.eff.decode_bw;
  k.peak = g.PeakFlops(e.weights) * e.eff.decode_compute;
  k.lora_bytes = LoraBytes(e);
  k.linear_flops_per_token = 2.0 * m.active_params_b * 1e9 + LoraFlopsPerToken(e);
  if (!m.is_moe()) k.dense_weight_bytes = (WeightBytes(m, e.weights) + k.lora_bytes) / e.tp;
  // Attention part: each GPU reads its share of the KV cache (KvShards) and
  // computes its heads (or its sequences, with DP attention): 1/tp of the FLOPs.
  k.kv_per_token = KvBytesPerToken(m, e.kv) / KvShards(m, e.tp, e.dp_attention);
  k.attn_flops = DecodeAttentionFlopsPerContextToken(m) / e.tp;
  k.moe_floor_s = m.is_moe() ? m.layers * e.eff.moe_layer_decode_s : 0.0;
  k.eager_s = m.layers * kEagerLaunchPerLayerS;
  k.dense_weight_mem_s = k.dense_weight_bytes / k.bw;
  k.kv_mem_s = k.kv_per_token / k.bw;
  k.attn_compute_s = k.attn_flops / k.peak;
  return k;
}

DecodeArms DecodeArmsFor(const EngineConfig& e, double batch) {
  if (e.speculative) return SpeculativeDecodeArms(e, batch);  // src/perf/speculative.cc
  return DecodeArmsAt(e, DecodeArmsPartsOf(e), AllReducer(e, false), batch);
}

Work DecodeIteration(const EngineConfig& e, double batch, double context_tokens) {
  return DecodeIterations(e, batch, context_tokens, 1.0);
}

Work DecodeIterations(const EngineConfig& e, double batch, double context_tokens, double n) {
  if (n <= 0 || batch <= 0) return Work{};
  return DecodeIterations(DecodeArmsFor(e, batch), batch, context_tokens, n);
}

// DecodeIterations(const DecodeArms&, ...) is inline in perf.h (event loops call it).

Work Prefill(const EngineConfig& e, double tokens, double context_before, double sequences) {
  // One definition: the maker (below) made and used once, as DecodeArmsFor.
  if (tokens <= 0) return Work{};
  return PrefillMaker(e)(tokens, context_before, sequences);
}

// PrefillMaker (src/perf/prefill_maker.h): a prefill chunk priced with the
// engine-only factors computed once. Token j of a sequence's chunk attends to
// context_before + j tokens: per sequence t*C0 + t^2/2 with t = tokens /
// sequences.
PrefillMaker::PrefillMaker(const EngineConfig& e) : e_(&e), all_reduce_(e, false) {
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  linear_flops_per_token_ = 2.0 * m.active_params_b * 1e9 + LoraFlopsPerToken(e);
  attn_flops_ = AttentionFlopsPerContextToken(m);
  if (!m.is_moe()) dense_weight_bytes_ = WeightBytes(m, e.weights);
  lora_bytes_ = LoraBytes(e);
  kv_bytes_ = KvBytesPerToken(m, e.kv);
  kv_shards_ = KvShards(m, e.tp, e.dp_attention);
  peak_ = g.PeakFlops(e.weights) * e.eff.prefill_mfu;
  bw_ = g.hbm_tb_per_s * 1e12 * e.eff.decode_bw;
  all_reduces_ = 2.0 * m.layers;
}

Work PrefillMaker::operator()(double tokens, double context_before, double sequences) const {
  Work w;
  if (tokens <= 0) return w;
  const EngineConfig& e = *e_;
  const ModelSpec& m = *e.model;
  sequences = std::max(sequences, 1.0);
  double per_seq = tokens / sequences;
  double attn_ctx = sequences * (per_seq * context_before + per_seq * per_seq / 2.0);
  w.flops = (tokens * linear_flops_per_token_ + attn_flops_ * attn_ctx) / e.tp;
  double weight_bytes = m.is_moe() ? WeightBytesRead(m, e.weights, tokens) : dense_weight_bytes_;
  w.bytes = (weight_bytes + lora_bytes_) / e.tp + (sequences * context_before + tokens) * kv_bytes_ / kv_shards_;
  double t_compute = w.flops / peak_;
  double t_mem = w.bytes / bw_;
  w.compute_bound = t_compute >= t_mem;
  w.time_s = std::max(t_compute, t_mem) + all_reduce_(tokens * m.hidden * 2.0, all_reduces_);
  return w;
}

double MeanTrajectoryTokens(const Scenario& s) {
  const auto& env = s.environment;
  double turns = env.turns.mean();
  return env.prompt_tokens.mean() + turns * env.response_tokens.mean() +
         std::max(0.0, turns - 1.0) * env.tool_output_tokens.mean();
}

double TrainableParams(const Scenario& s) {
  if (s.algorithm.lora) return LoraParams(s.model, s.algorithm.lora->rank) * s.algorithm.lora->tenants;
  return s.model.params_b * 1e9;
}

Result<MemoryPlan> PlanMemory(const Scenario& s, std::optional<int> rollout_tp) {
  MemoryPlan p;
  const GpuSpec& g = s.hardware.gpu;
  const ModelSpec& m = s.model;
  const int tp = std::max(1, rollout_tp.value_or(s.placement.rollout_tp));
  p.gpu_memory_gb = g.memory_gb;
  // With engine.speculative the draft's weights sit beside the target's.
  p.rollout_weights_gb = (WeightBytes(m, s.precision.rollout) + DraftWeightBytes(s)) / tp / kGB;
  // Training state, ZeRO-3 sharded over the training GPUs. LoRA: the frozen
  // base in bf16 plus 16 bytes per adapter parameter.
  double trainable = TrainableParams(s);
  double base_bytes = s.algorithm.lora ? WeightBytes(m, Precision::kBf16) : 0.0;
  const int train_gpus = std::max(1, s.placement.train_gpus);
  const int shard = ShardGpus(s);  // ZeRO-3: all the training GPUs; hybrid sharding: a group
  p.activation_reserve_gb = kActivationReserveFraction * g.memory_gb;
  p.train_state_gb = (base_bytes + kAdamBytesPerTrainableParam * trainable) / shard / kGB;
  // PPO's critic: a second model of the policy's size, trained the same way
  // (its own FSDP weights, gradients and Adam state: veRL CriticWorker). The
  // reference: the frozen initial policy in bf16, sharded; with LoRA it is
  // the base with the adapters switched off and costs nothing (veRL
  // ref_in_actor). Both sit on the training GPUs.
  const double critic_fraction = s.algorithm.critic ? 1.0 : 0.0;
  p.critic_state_gb = critic_fraction * p.train_state_gb;
  p.reference_gb =
      s.algorithm.reference_model && !s.algorithm.lora ? WeightBytes(m, Precision::kBf16) / shard / kGB : 0.0;
  Error err(ErrorCode::kDoesNotFit, "", "");
  err.problems.clear();
  auto fits = [&](double gb) { return gb + p.activation_reserve_gb <= g.memory_gb; };
  const double full_gb = p.train_state_gb + p.critic_state_gb + p.reference_gb;
  if (!fits(full_gb)) {
    // 1. The optimizer states of the policy (and the critic) move to host
    //    memory (ZeRO-Offload).
    double offloaded_gb = (base_bytes + kOffloadedAdamGpuBytes * trainable) / shard / kGB;
    p.optimizer_offloaded = true;
    p.host_transfer_gb += (1.0 + critic_fraction) * (p.train_state_gb - offloaded_gb);
    p.train_state_gb = offloaded_gb;
    p.critic_state_gb = critic_fraction * offloaded_gb;
    // 2. Still short: the critic and the reference also live in host memory
    //    and are brought in, one at a time, for their own passes (veRL's
    //    critic / ref fsdp_config.param_offload). The frozen reference only
    //    comes in (half a round trip).
    double aux_gb = p.critic_state_gb + p.reference_gb;
    double swapped_gb = std::max(p.critic_state_gb, p.reference_gb);
    if (!fits(p.train_state_gb + aux_gb) && aux_gb > 0 && fits(p.train_state_gb + swapped_gb)) {
      p.host_transfer_gb += p.critic_state_gb + 0.5 * p.reference_gb;
      p.critic_state_gb = 0;
      p.reference_gb = 0;
    }
    if (!fits(p.train_state_gb + p.critic_state_gb + p.reference_gb)) {
      err.problems.push_back({"placement.train_gpus",
                              fmt::format("{} does not fit for training on {} x {}: needs {:.1f} GB per GPU for "
                                          "weights, gradients and optimizer state{} ({:.1f} GB even with the "
                                          "optimizer in host memory) + reserve {:.1f} GB, has {:.0f} GB; use more "
                                          "training GPUs or LoRA",
                                          m.id, train_gpus, g.id, full_gb + p.activation_reserve_gb,
                                          std::string(s.algorithm.critic ? " of the policy and the critic" : "") +
                                              (aux_gb > p.critic_state_gb ? ", plus the reference weights" : ""),
                                          p.train_state_gb + std::min(aux_gb, swapped_gb),
                                          p.activation_reserve_gb, g.memory_gb)});
    }
  }
  bool colocated = s.placement.mode == PlacementMode::kColocated;
  // The draft's own layers keep a KV cache too (DraftKvShare of the target's).
  double kv_per_token = KvBytesPerToken(m, s.precision.kv_cache) * (1.0 + DraftKvShare(s));
  // Each GPU holds 1/shards of the engine's cache (KvShards). With DP
  // attention one sequence lives whole on one rank.
  const double kv_shards = KvShards(m, tp, s.placement.dp_attention);
  double one_sequence_gb = MeanTrajectoryTokens(s) * kv_per_token / (s.placement.dp_attention ? 1.0 : kv_shards) / kGB;
  double resident = colocated ? p.train_state_gb + p.critic_state_gb + p.reference_gb : 0.0;
  // placement.gpu_memory_utilization u: the engine takes u of each GPU
  // (weights, KV cache) and leaves the rest; colocated, the training state
  // stays resident only if it fits in that rest (vLLM, SGLang and the RL
  // frameworks that wrap them size the engine this way).
  const std::optional<double> share = s.placement.gpu_memory_utilization;
  const bool over_share = share && resident > (1.0 - *share) * g.memory_gb;
  if (colocated && (over_share ||
                    g.memory_gb - p.rollout_weights_gb - resident - p.activation_reserve_gb < one_sequence_gb)) {
    // No room beside the training state (policy, critic, reference): move it
    // all to host memory while generating.
    p.train_state_offloaded = true;
    p.host_transfer_gb += resident;
    resident = 0;
  }
  p.needed_gb = p.rollout_weights_gb + resident + p.activation_reserve_gb;
  p.kv_budget_gb = g.memory_gb - p.needed_gb;
  if (share) p.kv_budget_gb = std::min(p.kv_budget_gb, *share * g.memory_gb - p.rollout_weights_gb);
  p.kv_tokens_per_engine = std::max(0.0, p.kv_budget_gb) * kGB * kv_shards / kv_per_token;
  if (p.kv_budget_gb < one_sequence_gb) {
    err.problems.push_back({"placement.rollout_tp",
                            fmt::format("{} does not fit on {} ({:.0f} GB): needs {:.1f} GB per GPU before the KV "
                                        "cache (inference weights {:.1f} GB + reserve {:.1f} GB) plus {:.2f} GB "
                                        "for one sequence of mean length; use a larger rollout_tp or a lower "
                                        "rollout precision",
                                        m.id, g.id, g.memory_gb, p.needed_gb, p.rollout_weights_gb,
                                        p.activation_reserve_gb, one_sequence_gb)});
  }
  if (!err.problems.empty()) return Fail(err);
  return p;
}

double TrajectoryLengthDispersion(const Scenario& s) {
  // s = P + sum_{T} R + sum_{T-1} O with P, R, O, T independent:
  // Var s = Var P + E[T] Var R + (E[T]-1) Var O + Var T (E[R] + E[O])^2.
  const auto& env = s.environment;
  auto var = [](const Distribution& d) { return std::max(0.0, d.SecondMoment() - d.mean() * d.mean()); };
  const double t = env.turns.mean();
  const double mean = MeanTrajectoryTokens(s);
  if (mean <= 0) return 1.0;
  const double per_turn = env.response_tokens.mean() + env.tool_output_tokens.mean();
  const double v = var(env.prompt_tokens) + t * var(env.response_tokens) +
                   std::max(0.0, t - 1.0) * var(env.tool_output_tokens) + var(env.turns) * per_turn * per_turn;
  return 1.0 + v / (mean * mean);
}

namespace {
// `attention_len` is E[s^2]/E[s] over the trained sequences: token i of a
// sequence of length s attends to i tokens, so a sequence costs s^2/2 token
// pairs and the mean per trained token is E[s^2]/(2 E[s]).
double TrainAttentionFlopsPerToken(const ModelSpec& m, double attention_len) {
  // Causal attention: the average token attends to half the sequence.
  return AttentionFlopsPerContextToken(m) * attention_len / 2.0;
}
}  // namespace

double TrainLinearFlopsPerToken(const Scenario& s, bool forward_only) {
  const double n_active = s.model.active_params_b * 1e9;
  if (forward_only) return 2.0 * n_active;
  // Frozen base under LoRA: forward (2N) + activation gradients (2N), no
  // weight gradients; the adapter takes the full 6 N_adapter.
  if (s.algorithm.lora) return 4.0 * n_active + 6.0 * LoraActiveParams(s.model, s.algorithm.lora->rank);
  return 6.0 * n_active;
}

int ShardGpus(const Scenario& s) {
  const int train_gpus = std::max(1, s.placement.train_gpus);
  const int shard = s.placement.train_shard_gpus;
  return shard > 0 ? std::min(shard, train_gpus) : train_gpus;
}

double PaddedTokenFactor(const Scenario& s, double mean_seq_len) {
  if (s.placement.train_padding != TrainPadding::kMaxLength || mean_seq_len <= 0) return 1.0;
  const auto& env = s.environment;
  const double padded = env.prompt_tokens.max() + env.response_tokens.max();
  if (!std::isfinite(padded)) return 1.0;  // refused at load; code-built scenarios read as packed
  return std::max(1.0, padded / mean_seq_len);
}

FsdpMicrobatchTraffic FsdpTrafficPerMicrobatch(const Scenario& s, double mean_seq_len, int gpus, bool forward_only) {
  const PlacementSpec& p = s.placement;
  if (p.train_backend != TrainBackend::kFsdp || gpus <= 0) return {};
  // The count of micro-batches sets the traffic; one sequence each (the
  // bubble's fallback) would overstate it for the usual multi-sequence
  // micro-batches, so without train_micro_batch_tokens it is not priced (the
  // estimate says so).
  if (MicrobatchTokens(s, mean_seq_len, forward_only) <= 0) return {};
  const int tp = std::max(1, p.train_tp);
  const int shard = FsdpShardRanks(s, gpus);
  if (shard <= 1) return {};
  // Per micro-batch each GPU receives (D - 1)/D of its TP shard's parameters
  // in bf16 for the forward, again for the backward (FSDP2 fully_shard per
  // layer reshards after forward), and reduce-scatters fp32 gradients of the
  // trainable ones (MixedPrecisionPolicy reduce_dtype float32, no
  // no_sync between micro-batches): NeMo RL nemo_rl/models/dtensor/
  // parallelize.py:464-479 and dtensor_policy_worker.py:757 @ v0.3.0.
  const double params = s.model.params_b * 1e9 / tp;
  const double trainable = TrainableParams(s) / tp;
  const double bytes_per_mb = forward_only ? kFsdpGatherBytes * params
                                           : 2.0 * kFsdpGatherBytes * params + kFsdpReduceBytes * trainable;
  // The sharding group spans shard x tp GPUs.
  return {bytes_per_mb * (shard - 1.0) / shard, GroupLinkBytesPerS(s, shard * tp)};
}

double FsdpTrafficTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only) {
  if (tokens <= 0) return 0;
  const FsdpMicrobatchTraffic per_mb = FsdpTrafficPerMicrobatch(s, mean_seq_len, gpus, forward_only);
  if (per_mb.bytes <= 0) return 0;
  return FsdpPassMicrobatches(s, tokens, mean_seq_len, gpus, forward_only) * per_mb.bytes / per_mb.link_bytes_per_s;
}

int FsdpShardRanks(const Scenario& s, int gpus) {
  // The sharding group: the data-parallel (and context-parallel) ranks of one
  // tensor-parallel shard, or veRL's fsdp_size groups (train_shard_gpus).
  const int tp = std::max(1, s.placement.train_tp);
  return std::max(1, std::min(gpus, ShardGpus(s)) / tp);
}

FsdpMicrobatchEdges FsdpSyncEdges(const Scenario& s, int gpus) {
  FsdpMicrobatchEdges e;
  const PlacementSpec& p = s.placement;
  const ModelSpec& m = s.model;
  const int shard = FsdpShardRanks(s, gpus);
  if (p.train_backend != TrainBackend::kFsdp || shard <= 1 || m.layers <= 0 || gpus <= 0) return e;
  // FSDP2 units (nemo_rl/models/dtensor/parallelize.py:470-484 @ b1c86a81;
  // veRL's auto-wrap policy wraps the decoder layers the same way): one per
  // decoder layer and the root, which holds the embedding and the output
  // layer (untied: vocab x hidden each, as PipelineStageFactor counts them).
  const double params = m.params_b * 1e9;
  const double root = std::min(params, 2.0 * double(m.vocab) * m.hidden);
  const double layer = (params - root) / m.layers;
  const int tp = std::max(1, p.train_tp);
  const double trainable_share = params > 0 ? TrainableParams(s) / params : 0.0;
  const double link = GroupLinkBytesPerS(s, shard * tp);
  const double spread = (shard - 1.0) / shard * (root + layer) / tp / link;
  // Before the first kernel: the root's gather, then the first layer's.
  e.head_s = kFsdpGatherBytes * spread;
  // After the last: the first layer's gradients, then the root's (its
  // post-backward runs once the embedding's gradient is in).
  e.tail_s = kFsdpReduceBytes * trainable_share * spread;
  return e;
}

double FsdpPassMicrobatches(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only) {
  // Micro-batches per rank: the update's mini-batches each run their own.
  const int minibatches = forward_only ? 1 : std::max(1, s.algorithm.minibatches);
  const double per_minibatch = tokens / minibatches;
  // Packed to a token budget, every rank runs the most packs any rank was
  // dealt: NeMo RL's DTensor worker all-reduces the rank's pack count with
  // MAX and runs dummy packs up to it (dtensor_policy_worker.py:571-591,
  // 853-869 @ v0.3.0 b1c86a81), of a deal that gives rank 0 ceil(b / dp)
  // of the step's b packs. In expectation over b: E[ceil(b / dp)]
  // (PackedMicrobatchesAt), not rounded up again (docs/model.md, "FSDP
  // traffic per micro-batch").
  const double budget = PassPackBudget(s, forward_only);
  if (budget > 0) return minibatches * PackedMicrobatchesAt(s, budget, gpus, per_minibatch, mean_seq_len);
  return minibatches * PassMicrobatches(s, gpus, per_minibatch, mean_seq_len, forward_only);
}

double FsdpForwardTrafficShare(const Scenario& s, bool forward_only) {
  if (forward_only) return 1.0;
  const double params = s.model.params_b * 1e9;
  const double total = 2.0 * kFsdpGatherBytes * params + kFsdpReduceBytes * TrainableParams(s);
  return total > 0 ? kFsdpGatherBytes * params / total : 0.0;
}

double MicrobatchTokens(const Scenario& s, double mean_seq_len, bool forward_only) {
  const PlacementSpec& p = s.placement;
  // Sequences are packed to their own lengths inside a micro-batch (veRL
  // use_remove_padding / Megatron THD packing, verl/models/mcore/util.py
  // preprocess_packed_seqs @ v0.4.1); under max-length padding each one
  // fills the padded length, as the tokens handed to the pass do.
  const double seq_tokens = std::max(mean_seq_len, 0.0) * PaddedTokenFactor(s, mean_seq_len);
  if (forward_only) {
    if (p.logprob_micro_batch_tokens > 0) return p.logprob_micro_batch_tokens;
    if (p.logprob_micro_batch_seqs > 0 && seq_tokens > 0) return p.logprob_micro_batch_seqs * seq_tokens;
  }
  if (p.train_micro_batch_tokens > 0) return p.train_micro_batch_tokens;
  if (p.train_micro_batch_seqs > 0 && seq_tokens > 0) return p.train_micro_batch_seqs * seq_tokens;
  return 0;
}

double PipelineStageFactor(const Scenario& s) {
  const int pp = s.placement.train_pp;
  const ModelSpec& m = s.model;
  if (s.placement.train_pp_split != PipelineSplit::kEven || pp <= 1 || m.vocab <= 0 || m.hidden <= 0) return 1.0;
  // Megatron-Core builds num_layers / pp layers on every stage unless the
  // first/last-stage counts or account_for_*_in_pipeline_split are set
  // (megatron/core/transformer/transformer_block.py:143 get_num_layers_to_build
  // @ core_v0.13.0 c550cf6c); GPTModel puts the embedding on the first stage
  // (a lookup) and the output layer on the last (models/gpt/gpt_model.py:135,
  // 203). The catalog's active parameters count the embedding and the output
  // layer (untied: vocab x hidden each).
  const double vh = double(m.vocab) * m.hidden;
  const double out = 2.0 * vh;
  const double layers = std::max(0.0, 2.0 * m.active_params_b * 1e9 - 2.0 * out);
  if (layers + out <= 0) return 1.0;
  return pp * (layers / pp + out) / (layers + out);
}

double PassMicrobatches(const Scenario& s, int gpus, double tokens, double mean_seq_len, bool forward_only) {
  const PlacementSpec& p = s.placement;
  const double mb_tokens = MicrobatchTokens(s, mean_seq_len, forward_only);
  if (mb_tokens <= 0) return TrainMicrobatches(p, gpus, tokens, mean_seq_len);
  return MicrobatchesOf(DataParallelRanks(p, gpus), tokens, mb_tokens);
}

Work TrainStep(const Scenario& s, double tokens, double mean_seq_len, int gpus) {
  Work w;
  if (tokens <= 0 || gpus <= 0) return w;
  const ModelSpec& m = s.model;
  const double linear = TrainLinearFlopsPerToken(s, /*forward_only=*/false);
  const double attention = TrainAttentionFlopsPerToken(m, mean_seq_len * TrajectoryLengthDispersion(s));
  const double per_token = linear + 3.0 * attention;
  // algorithm.ppo_epochs: the update passes over the batch that many times
  // (docs/model.md, "Optimizer steps per RL step").
  // (In doubles: both counts may be up to 1e9 each.)
  const double epochs = std::max(1, s.algorithm.ppo_epochs);
  const double optimizer_steps = epochs * std::max(1, s.algorithm.minibatches);
  w.flops = epochs * tokens * per_token / gpus;
  // Padded sequences: the linear layers run on the padding too; attention
  // (FlashAttention's variable-length path) on the real tokens only. The
  // model FLOPs (w.flops, MFU) stay the real tokens'.
  // Packed micro-batches held to one length (FixedLengthPackFactor,
  // src/perf/packing.cc) pad the same way.
  const double pad = PaddedTokenFactor(s, mean_seq_len) * FixedLengthPackFactor(s, gpus, tokens, mean_seq_len);
  const double executed = tokens * (linear * pad + 3.0 * attention) / gpus;
  // FSDP's per-micro-batch traffic overlaps the compute (FSDP2 prefetches the
  // next layer's gather), as far as the CPU issuing them lets it
  // (FsdpPassTime). DTensor's tensor-parallel collectives run on the compute
  // stream, in line with it.
  // The ranks wait for the slowest one's share (SlowestRankFactor,
  // src/perf/dp_imbalance.cc): its compute and its in-line collectives.
  const double recompute = RecomputeFactor(s, per_token, attention);
  const double slowest = SlowestRankFactor(s, tokens, mean_seq_len, gpus, /*forward_only=*/false);
  const double engine =
      TrainEngineTime(s, tokens * pad, mean_seq_len, gpus, executed, /*forward_only=*/false) * recompute * slowest;
  const double tp = DtensorTpCollectiveTime(s, tokens * pad, gpus, /*forward_only=*/false) * slowest;
  FsdpPassParts parts;
  parts.compute_s = engine + tp;
  // The forward's share of the executed FLOPs (the recomputed forward runs in
  // the backward) and one of the two ways of the TP collectives.
  const double forward_flops = TrainLinearFlopsPerToken(s, /*forward_only=*/true) * pad + attention;
  parts.compute_forward_s = engine * forward_flops / ((linear * pad + 3.0 * attention) * recompute) + tp / 2.0;
  // The count of micro-batches, which the pass's own tokens set
  // (FsdpPassMicrobatches: the packs dealt, each padded to the budget;
  // max-length padding widens each sequence), is worked out once, where a
  // micro-batch is stated: it sets the traffic, the host syncs below and,
  // where DTensor's dispatch is priced, the CPU's time per layer.
  const double handed = tokens * PaddedTokenFactor(s, mean_seq_len);
  const bool stated = MicrobatchTokens(s, mean_seq_len, /*forward_only=*/false) > 0;
  if (stated) parts.microbatches = FsdpPassMicrobatches(s, handed, mean_seq_len, gpus, /*forward_only=*/false);
  const FsdpMicrobatchTraffic per_mb = FsdpTrafficPerMicrobatch(s, mean_seq_len, gpus, /*forward_only=*/false);
  parts.traffic_s = per_mb.bytes > 0 ? parts.microbatches * per_mb.bytes / per_mb.link_bytes_per_s : 0.0;
  parts.traffic_forward_s = parts.traffic_s * FsdpForwardTrafficShare(s, /*forward_only=*/false);
  if (stated) {
    const double cpu_layer_s = DtensorLayerForwardCpuTime(s);
    if (cpu_layer_s > 0) {
      parts.units = parts.microbatches * m.layers;
      parts.cpu_forward_s = parts.units * cpu_layer_s;
    }
  }
  // The trainer reads a loss value to the host after every micro-batch's
  // backward (NeMo RL dtensor_policy_worker.py:760 `loss.item()` @ b1c86a81;
  // veRL verl/workers/actor/dp_actor.py:515-518 `.detach().item()` @ v0.4.1
  // 8d9e350e): the next micro-batch's first gathers and this one's last
  // reduce-scatters overlap nothing.
  if (parts.traffic_s > 0) {
    const FsdpMicrobatchEdges edges = FsdpSyncEdges(s, gpus);
    parts.sync_head_s = edges.head_s;
    parts.sync_tail_s = edges.tail_s;
  }
  // A pipeline's stages wait for their point-to-point sends in every slot of
  // the schedule, the bubble's included; recomputation sends nothing.
  const double pass =
      FsdpPassTime(parts) + MegatronPipelineSendTime(s, tokens * pad, mean_seq_len, gpus, /*forward_only=*/false);
  // Each optimizer step beyond the one the measured MFU holds: Adam over the
  // GPU's shard and the data-parallel gradient sync one micro-batch does not
  // hide (docs/model.md, "Megatron communication left exposed").
  w.time_s = epochs * pass + (optimizer_steps - 1) * (OptimizerStepTime(s) +
                                                      MegatronGradSyncExposedTime(s, mean_seq_len, gpus));
  w.compute_bound = true;
  return w;
}

double OptimizerStepTime(const Scenario& s) {
  const double bytes_per_s = s.hardware.gpu.hbm_tb_per_s * 1e12;
  if (bytes_per_s <= 0) return 0;
  return TrainableParams(s) / ShardGpus(s) * kAdamStepBytesPerParam / bytes_per_s;
}

OptimizerStepsCost OptimizerStepsOverhead(const Scenario& s, double tokens, double mean_seq_len, int gpus) {
  OptimizerStepsCost c;
  const double epochs = std::max(1, s.algorithm.ppo_epochs);
  c.steps = epochs * std::max(1, s.algorithm.minibatches);
  if (c.steps == 1 || tokens <= 0 || gpus <= 0) return c;
  const double adam_s = OptimizerStepTime(s);
  const double sync_s = MegatronGradSyncExposedTime(s, mean_seq_len, gpus);
  c.optimizer_s = (c.steps - 1) * adam_s;
  // The same passes with one mini-batch each: their bubble is the one the
  // measured MFU's single optimizer step per pass already has.
  Scenario one = s;
  one.algorithm.minibatches = 1;
  c.flush_s = (TrainStep(s, tokens, mean_seq_len, gpus).time_s - c.optimizer_s - (c.steps - 1) * sync_s) -
              (TrainStep(one, tokens, mean_seq_len, gpus).time_s - (epochs - 1) * (adam_s + sync_s));
  return c;
}

double RecomputeFactor(const Scenario& s, double update_flops_per_token, double attention_flops_per_token) {
  if (!s.placement.gradient_checkpointing || update_flops_per_token <= 0) return 1.0;
  // Full activation checkpointing runs each layer's forward a second time in
  // the backward pass (Chen et al. 2016, arXiv 1604.06174, sec. 4: "one extra
  // forward pass"): the forward's linear FLOPs (2N, the frozen base's under
  // LoRA) and its attention (A) again, at the update's own efficiency. The
  // model FLOPs (w.flops, MFU) stay those of the update without it.
  const double forward = TrainLinearFlopsPerToken(s, /*forward_only=*/true) + attention_flops_per_token;
  return (update_flops_per_token + forward) / update_flops_per_token;
}

Work ForwardPass(const Scenario& s, double tokens, double mean_seq_len, int gpus) {
  Work w;
  if (tokens <= 0 || gpus <= 0) return w;
  const ModelSpec& m = s.model;
  const double linear = TrainLinearFlopsPerToken(s, /*forward_only=*/true);
  const double attention = TrainAttentionFlopsPerToken(m, mean_seq_len * TrajectoryLengthDispersion(s));
  w.flops = tokens * (linear + attention) / gpus;
  // A Megatron pipeline pads its packs to one length here too
  // (PipelineForwardPackFactor, src/perf/pipeline_forward.cc).
  const double pad = PaddedTokenFactor(s, mean_seq_len) * PipelineForwardPackFactor(s, gpus, tokens, mean_seq_len);
  const double executed = tokens * (linear * pad + attention) / gpus;
  // The forward passes run the same tensor-parallel plan as the update
  // (NeMo RL v0.3.0 b1c86a81 dtensor_policy_worker.py:814 get_logprobs on
  // the model parallelized once by nemo_rl/models/dtensor/parallelize.py:
  // 149-172; the reference pass is the same call, :1104-1105), so DTensor's
  // activation collectives run in line with their compute, forward only.
  // They pack without padding to the budget (:884-892, pack_sequences
  // without min_seq_len): on the real tokens.
  FsdpPassParts parts;
  parts.backward = false;
  parts.compute_s = (TrainEngineTime(s, tokens * pad, mean_seq_len, gpus, executed, /*forward_only=*/true) +
                     DtensorTpCollectiveTime(s, tokens * pad, gpus, /*forward_only=*/true)) *
                    SlowestRankFactor(s, tokens, mean_seq_len, gpus, /*forward_only=*/true);
  parts.compute_forward_s = parts.compute_s;
  // One count of micro-batches for the traffic and DTensor's dispatch, worked
  // out only where either is priced.
  const double handed = tokens * PaddedTokenFactor(s, mean_seq_len);
  const FsdpMicrobatchTraffic per_mb = FsdpTrafficPerMicrobatch(s, mean_seq_len, gpus, /*forward_only=*/true);
  const double cpu_layer_s = DtensorLayerForwardCpuTime(s);
  const bool stated = MicrobatchTokens(s, mean_seq_len, /*forward_only=*/true) > 0;
  const double microbatches = per_mb.bytes > 0 || (cpu_layer_s > 0 && stated)
                                  ? FsdpPassMicrobatches(s, handed, mean_seq_len, gpus, /*forward_only=*/true)
                                  : 0.0;
  parts.traffic_s = per_mb.bytes > 0 ? microbatches * per_mb.bytes / per_mb.link_bytes_per_s : 0.0;
  parts.traffic_forward_s = parts.traffic_s;
  if (cpu_layer_s > 0 && stated) {
    parts.units = microbatches * m.layers;
    parts.cpu_forward_s = parts.units * cpu_layer_s;
  }
  w.time_s = FsdpPassTime(parts) + MegatronPipelineSendTime(s, tokens * pad, mean_seq_len, gpus, /*forward_only=*/true);
  w.compute_bound = true;
  return w;
}

}  // namespace rlcost::perf
