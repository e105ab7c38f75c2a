// The roofline time of one unit of work. Derivations: docs/model.md, "perf".
#include "rlcost/perf.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace rlcost::perf {
namespace {

// Small-message all-reduce latency over NVLink, per call. vLLM's custom
// all-reduce for decode-sized messages runs in ~5-10 us on 8xH100 (vLLM PR
// #2192 benchmarks; NCCL's own small-message latency is ~10-20 us per
// nccl-tests). We take 8 us.
constexpr double kAllReduceLatencyS = 8e-6;
// Mixed-precision Adam keeps 16 bytes per trainable parameter: bf16 weights (2)
// and gradients (2), fp32 master weights (4), Adam moments (4 + 4).
// ZeRO (Rajbhandari et al., 2020), section 3.1: "16 Psi".
constexpr double kAdamBytesPerTrainableParam = 16.0;
// vLLM reserves 1 - gpu_memory_utilization (default 0.9) of HBM for
// activations, CUDA graphs and the allocator: 10%.
constexpr double kActivationReserveFraction = 0.10;
constexpr double kGB = 1e9;
// Bytes per trainable parameter that stay on the GPU under ZeRO-Offload
// (bf16 weights and gradients); the 12 bytes of fp32 master weights and Adam
// moments live in host memory (Ren et al., 2021, "ZeRO-Offload").
constexpr double kOffloadedAdamGpuBytes = 4.0;

double AttentionFlopsPerContextToken(const ModelSpec& m) {
  // Per new token, per token of context: QK^T and AV, 2 FLOPs per MAC each.
  if (m.attention == Attention::kMla) {
    // Absorbed MLA: scores over (kv_lora_rank + rope) dims, values over kv_lora_rank.
    return 2.0 * m.layers * m.heads * (2.0 * m.kv_lora_rank + m.rope_head_dim);
  }
  return 4.0 * m.layers * m.heads * m.head_dim;
}

// Time of `count` tensor-parallel all-reduces of `bytes` each (ring).
double AllReduceTime(const EngineConfig& e, double bytes, double count) {
  if (e.tp <= 1) return 0;
  double link = std::max(e.gpu->intra_node_gb_per_s, 1.0) * kGB;
  return count * (kAllReduceLatencyS + 2.0 * (e.tp - 1) / e.tp * bytes / link);
}

double LoraBytes(const EngineConfig& e) {
  if (e.lora_rank <= 0 || e.lora_tenants <= 0) return 0;
  // Adapters are served in bf16 (Punica/S-LoRA keep them in fp16/bf16).
  return e.lora_tenants * LoraParams(*e.model, e.lora_rank) * 2.0;
}

double LoraFlopsPerToken(const EngineConfig& e) {
  if (e.lora_rank <= 0 || e.lora_tenants <= 0) return 0;
  return 2.0 * LoraParams(*e.model, e.lora_rank);
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

// The two roofline arms of a decode iteration, per GPU, as linear functions of
// the total context C: memory time and compute time.
DecodeArms DecodeArmsFor(const EngineConfig& e, double batch) {
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  DecodeArms arms;
  double bw = g.hbm_tb_per_s * 1e12 * e.eff.decode_bw;
  double peak = g.PeakFlops(e.weights) * e.eff.decode_compute;
  double weight_bytes = (WeightBytesRead(m, e.weights, batch) + LoraBytes(e)) / e.tp;
  double kv_per_token = KvBytesPerToken(m, e.kv) / e.tp;
  arms.bytes = {weight_bytes, kv_per_token};
  double linear_flops = batch * (2.0 * m.active_params_b * 1e9 + LoraFlopsPerToken(e)) / e.tp;
  arms.flops = {linear_flops, AttentionFlopsPerContextToken(m) / e.tp};
  arms.mem_s = {arms.bytes.a / bw, arms.bytes.b / bw};
  arms.compute_s = {arms.flops.a / peak, arms.flops.b / peak};
  // Two all-reduces per layer (after attention and after the MLP) of the
  // batch's hidden states in bf16.
  arms.fixed_s = AllReduceTime(e, batch * m.hidden * 2.0, 2.0 * m.layers) + e.eff.decode_iter_overhead_s;
  return arms;
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
  Work w;
  if (tokens <= 0) return w;
  const ModelSpec& m = *e.model;
  const GpuSpec& g = *e.gpu;
  // Token j of a sequence's chunk attends to context_before + j tokens:
  // per sequence t*C0 + t^2/2 with t = tokens / sequences.
  sequences = std::max(sequences, 1.0);
  double per_seq = tokens / sequences;
  double attn_ctx = sequences * (per_seq * context_before + per_seq * per_seq / 2.0);
  w.flops = (tokens * (2.0 * m.active_params_b * 1e9 + LoraFlopsPerToken(e)) +
             AttentionFlopsPerContextToken(m) * attn_ctx) / e.tp;
  w.bytes = (WeightBytesRead(m, e.weights, tokens) + LoraBytes(e) +
             (sequences * context_before + tokens) * KvBytesPerToken(m, e.kv)) / e.tp;
  double t_compute = w.flops / (g.PeakFlops(e.weights) * e.eff.prefill_mfu);
  double t_mem = w.bytes / (g.hbm_tb_per_s * 1e12 * e.eff.decode_bw);
  w.compute_bound = t_compute >= t_mem;
  w.time_s = std::max(t_compute, t_mem) + AllReduceTime(e, tokens * m.hidden * 2.0, 2.0 * m.layers);
  return w;
}

namespace {
double MeanFinalContext(const Scenario& s) {
  const auto& env = s.environment;
  double turns = env.turns.mean();
  return env.prompt_tokens.mean() + turns * env.response_tokens.mean() +
         std::max(0.0, turns - 1.0) * env.tool_output_tokens.mean();
}
double TrainableParams(const Scenario& s) {
  if (s.algorithm.lora) return LoraParams(s.model, s.algorithm.lora->rank) * s.algorithm.lora->tenants;
  return s.model.params_b * 1e9;
}
}  // namespace

Result<MemoryPlan> PlanMemory(const Scenario& s) {
  MemoryPlan p;
  const GpuSpec& g = s.hardware.gpu;
  const ModelSpec& m = s.model;
  const int tp = std::max(1, s.placement.rollout_tp);
  p.gpu_memory_gb = g.memory_gb;
  p.rollout_weights_gb = WeightBytes(m, s.precision.rollout) / tp / kGB;
  // Training state, ZeRO-3 sharded over the training GPUs. LoRA: the frozen
  // base in bf16 plus 16 bytes per adapter parameter.
  double trainable = TrainableParams(s);
  double base_bytes = s.algorithm.lora ? WeightBytes(m, Precision::kBf16) : 0.0;
  int train_gpus = std::max(1, s.placement.train_gpus);
  p.activation_reserve_gb = kActivationReserveFraction * g.memory_gb;
  p.train_state_gb = (base_bytes + kAdamBytesPerTrainableParam * trainable) / train_gpus / kGB;
  Error err(ErrorCode::kDoesNotFit, "", "");
  err.problems.clear();
  if (p.train_state_gb + p.activation_reserve_gb > g.memory_gb) {
    double offloaded_gb = (base_bytes + kOffloadedAdamGpuBytes * trainable) / train_gpus / kGB;
    if (offloaded_gb + p.activation_reserve_gb > g.memory_gb) {
      err.problems.push_back({"placement.train_gpus",
                              fmt::format("{} does not fit for training on {} x {}: needs {:.1f} GB per GPU for "
                                          "weights, gradients and optimizer state ({:.1f} GB even with the "
                                          "optimizer in host memory) + reserve {:.1f} GB, has {:.0f} GB; use more "
                                          "training GPUs or LoRA",
                                          m.id, train_gpus, g.id, p.train_state_gb + p.activation_reserve_gb,
                                          offloaded_gb, p.activation_reserve_gb, g.memory_gb)});
    } else {
      p.optimizer_offloaded = true;
      p.host_transfer_gb += p.train_state_gb - offloaded_gb;
      p.train_state_gb = offloaded_gb;
    }
  }
  bool colocated = s.placement.mode == PlacementMode::kColocated;
  double kv_per_token = KvBytesPerToken(m, s.precision.kv_cache);
  double one_sequence_gb = MeanFinalContext(s) * kv_per_token / tp / kGB;
  double resident = colocated ? p.train_state_gb : 0.0;
  if (colocated && g.memory_gb - p.rollout_weights_gb - resident - p.activation_reserve_gb < one_sequence_gb) {
    // No room beside the training state: move it to host memory while generating.
    p.train_state_offloaded = true;
    p.host_transfer_gb += p.train_state_gb;
    resident = 0;
  }
  p.needed_gb = p.rollout_weights_gb + resident + p.activation_reserve_gb;
  p.kv_budget_gb = g.memory_gb - p.needed_gb;
  p.kv_tokens_per_engine = std::max(0.0, p.kv_budget_gb) * kGB * tp / kv_per_token;
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

namespace {
double TrainAttentionFlopsPerToken(const ModelSpec& m, double mean_seq_len) {
  // Causal attention: the average token attends to half the sequence.
  return AttentionFlopsPerContextToken(m) * mean_seq_len / 2.0;
}
}  // namespace

Work TrainStep(const Scenario& s, double tokens, double mean_seq_len, int gpus) {
  Work w;
  if (tokens <= 0 || gpus <= 0) return w;
  const ModelSpec& m = s.model;
  double n_active = m.active_params_b * 1e9;
  double per_token;
  if (s.algorithm.lora) {
    // Frozen base: forward (2N) + activation gradients (2N), no weight
    // gradients; the adapter takes the full 6 N_adapter.
    per_token = 4.0 * n_active + 6.0 * LoraParams(m, s.algorithm.lora->rank);
  } else {
    per_token = 6.0 * n_active;
  }
  per_token += 3.0 * TrainAttentionFlopsPerToken(m, mean_seq_len);
  w.flops = tokens * per_token / gpus;
  const Efficiency& eff = s.hardware.gpu.efficiency;
  w.time_s = w.flops / (s.hardware.gpu.PeakFlops(s.precision.train) * eff.train_mfu);
  w.compute_bound = true;
  return w;
}

Work ForwardPass(const Scenario& s, double tokens, double mean_seq_len, int gpus) {
  Work w;
  if (tokens <= 0 || gpus <= 0) return w;
  const ModelSpec& m = s.model;
  double per_token = 2.0 * m.active_params_b * 1e9 + TrainAttentionFlopsPerToken(m, mean_seq_len);
  w.flops = tokens * per_token / gpus;
  const Efficiency& eff = s.hardware.gpu.efficiency;
  w.time_s = w.flops / (s.hardware.gpu.PeakFlops(s.precision.train) * eff.logprob_mfu);
  w.compute_bound = true;
  return w;
}

}  // namespace rlcost::perf
