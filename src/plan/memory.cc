#include "core/numbers.h"
#include "core/strings.h"
#include "plan/memory.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace rlcost::plan {
namespace {

// Korthikanti et al. 2022 (arXiv:2205.05198), sec. 4.1, eq. (1): one
// transformer layer stores s b h (34 + 5 a s / h) bytes of activations in
// 16-bit training; the 5 a s / h term is the attention scores, which flash
// attention does not store (all the frameworks here use it): 34 s b h.
constexpr double kLayerActivationBytesPerTokenHidden = 34.0;
// Full recompute (sec. 4.2, "activation checkpointing"): only each layer's
// input is kept, 2 s b h bytes, and one layer's 34 s b h is rebuilt at a time.
constexpr double kCheckpointBytesPerTokenHidden = 2.0;
// Sec. 4.3: the output layer's logits are computed in fp32 for the cross
// entropy, 4 s b v bytes.
constexpr double kLogitBytes = 4.0;
// The longest trajectory a micro-batch will meet: the 99.9th percentile of
// each length (or its clip), as the step's batch holds hundreds of them.
constexpr double kLongestQuantile = 0.999;
// Bytes per trainable parameter under mixed-precision Adam (ZeRO, sec. 3.1:
// "16 Psi"): bf16 parameters 2, bf16 gradients 2, fp32 master, m, v 12.
constexpr double kParamBytes = 2.0, kGradBytes = 2.0, kOptimizerBytes = 12.0;

double TrainerNeedGb(const Scenario&, const perf::MemoryPlan& mem, const TrainActivations& a) {
  // The state as PlanMemory holds it (its optimizer offload included), the
  // activations of the longest micro-batch with recompute and the logits.
  const double state = mem.train_state_gb + mem.critic_state_gb + mem.reference_gb;
  return state + a.recompute_gb + a.logits_gb;
}

double Longest(const Distribution& d) { return d.Quantile(kLongestQuantile); }

}  // namespace

TrainActivations TrainActivationMemory(const Scenario& s) {
  TrainActivations a;
  const ModelSpec& m = s.model;
  const PlacementSpec& p = s.placement;
  const auto& env = s.environment;
  // The longest trajectory: every part at its 99.9th percentile (or clip),
  // but no more than three standard deviations above the mean length (many
  // turns are not all at their longest at once).
  const double turns = std::max(1.0, Longest(env.turns));
  const double extremes = Longest(env.prompt_tokens) + turns * Longest(env.response_tokens) +
                          (turns - 1.0) * Longest(env.tool_output_tokens);
  const double mean = perf::MeanTrajectoryTokens(s);
  const double sd = mean * std::sqrt(std::max(0.0, perf::TrajectoryLengthDispersion(s) - 1.0));
  const double longest = std::min(extremes, mean + 3.0 * sd);
  a.tokens = p.train_micro_batch_tokens > 0 ? std::max<double>(p.train_micro_batch_tokens, longest) : longest;
  // Tensor parallel with sequence parallelism and context parallel split the
  // sequence's activations; pipeline parallel holds 1/pp of the layers (1F1B
  // keeps up to pp micro-batches in flight on the first stage: the same total).
  const double split = std::max(1, p.train_tp) * std::max(1, p.train_cp);
  const double layers_here = double(m.layers) / std::max(1, p.train_pp);
  const double sh = a.tokens * m.hidden / split;
  a.no_recompute_gb = layers_here * kLayerActivationBytesPerTokenHidden * sh / kGB;
  a.recompute_gb = (layers_here * kCheckpointBytesPerTokenHidden * sh + kLayerActivationBytesPerTokenHidden * sh) / kGB;
  // The vocabulary is split over tensor parallel ranks (Megatron's parallel
  // cross entropy); FSDP ranks compute all of it.
  a.logits_gb = kLogitBytes * a.tokens * std::max(0, m.vocab) / std::max(1, p.train_tp) / std::max(1, p.train_cp) / kGB;
  return a;
}

MemoryReport MemoryOf(const Scenario& s) {
  MemoryReport r;
  const GpuSpec& g = s.hardware.gpu;
  r.activations = TrainActivationMemory(s);
  auto mem = perf::PlanMemory(s);
  if (!mem) {
    r.fits = false;
    std::string why;
    for (const auto& p : mem.error().problems) why += (why.empty() ? "" : "; ") + p.message;
    r.verdict = "does not fit: " + why;
    return r;
  }
  r.plan = *mem;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  const int train_gpus = std::max(1, s.placement.train_gpus);
  const double trainable = perf::TrainableParams(s);
  const bool lora = s.algorithm.lora.has_value();

  RoleMemory eng;
  eng.role = colocated ? "every GPU, generating" : "rollout GPU";
  eng.capacity_gb = g.memory_gb;
  eng.parts.push_back({"engine weights", mem->rollout_weights_gb,
                       fmt::format("{} at {}, one of rollout_tp {} shards", s.model.id, ToString(s.precision.rollout),
                                   s.placement.rollout_tp)});
  eng.parts.push_back({"KV cache", std::max(0.0, mem->kv_budget_gb),
                       fmt::format("what is left: {:.0f}k tokens per engine", mem->kv_tokens_per_engine / 1e3)});
  eng.parts.push_back({"activations, CUDA graphs, allocator", mem->activation_reserve_gb,
                       "10% of the GPU, as vLLM's default gpu_memory_utilization 0.9 leaves"});
  if (colocated && !mem->train_state_offloaded) {
    eng.parts.push_back({"training state (resident)", mem->train_state_gb + mem->critic_state_gb + mem->reference_gb,
                         "stays on the GPU while generating"});
  } else if (colocated) {
    eng.parts.push_back({"training state", 0.0, "in host memory while generating"});
  }
  for (const auto& p : eng.parts) eng.total_gb += p.gb;
  r.roles.push_back(eng);

  RoleMemory tr;
  tr.role = colocated ? "every GPU, training" : "training GPU";
  tr.capacity_gb = g.memory_gb;
  const int shard = perf::ShardGpus(s);
  const double per = 1.0 / shard / kGB;
  const std::string over = shard == train_gpus ? "sharded over " + GpuCount(shard)
                                               : fmt::format("sharded over groups of {}, {} copies", GpuCount(shard),
                                                             train_gpus / shard);
  if (lora) {
    tr.parts.push_back({"frozen base weights", perf::WeightBytes(s.model, Precision::kBf16) * per,
                        fmt::format("bf16, ZeRO-3 {}", over)});
  }
  tr.parts.push_back({"parameters", kParamBytes * trainable * per,
                      fmt::format("bf16, {:.3g}B trainable, {}", trainable / 1e9, over)});
  tr.parts.push_back({"gradients", kGradBytes * trainable * per, "bf16, sharded"});
  tr.parts.push_back({"optimizer states", mem->optimizer_offloaded ? 0.0 : kOptimizerBytes * trainable * per,
                      mem->optimizer_offloaded ? "in host memory (ZeRO-Offload): they do not fit"
                                               : "fp32 master weights and Adam moments, sharded"});
  if (mem->critic_state_gb > 0) tr.parts.push_back({"critic", mem->critic_state_gb, "a value model of the policy's size"});
  if (mem->reference_gb > 0) tr.parts.push_back({"reference weights", mem->reference_gb, "bf16, sharded"});
  tr.parts.push_back({"activations (full recompute)", r.activations.recompute_gb,
                      fmt::format("the longest micro-batch, {:.0f} tokens; {:.1f} GB without recompute",
                                  r.activations.tokens, r.activations.no_recompute_gb)});
  tr.parts.push_back({"logits (fp32)", r.activations.logits_gb,
                      s.model.vocab > 0 ? fmt::format("{:.0f} tokens x {} vocabulary x 4 bytes", r.activations.tokens,
                                                      s.model.vocab)
                                        : "the catalog states no vocabulary: not counted"});
  for (const auto& p : tr.parts) tr.total_gb += p.gb;
  tr.fits = TrainerNeedGb(s, *mem, r.activations) <= tr.capacity_gb;
  r.roles.push_back(tr);

  r.fits = tr.fits;
  if (!tr.fits) {
    r.verdict = fmt::format("does not fit: training needs {:.1f} GB per GPU (state {:.1f}, activations {:.1f}, "
                            "logits {:.1f}), {} has {:.0f} GB; use more training GPUs, a shorter micro-batch or "
                            "train_tp",
                            tr.total_gb, tr.total_gb - r.activations.recompute_gb - r.activations.logits_gb,
                            r.activations.recompute_gb, r.activations.logits_gb, g.id, g.memory_gb);
  } else if (mem->optimizer_offloaded) {
    r.verdict = "fits, with the optimizer states in host memory";
  } else if (colocated && mem->train_state_offloaded) {
    r.verdict = "fits; the training state waits in host memory while generating";
  } else {
    r.verdict = "fits";
  }
  return r;
}

bool TrainerFits(const Scenario& s, const perf::MemoryPlan& mem) {
  return TrainerNeedGb(s, mem, TrainActivationMemory(s)) <= s.hardware.gpu.memory_gb;
}

bool Fits(const Scenario& s) {
  auto mem = perf::PlanMemory(s);
  return mem && TrainerFits(s, *mem);
}

}  // namespace rlcost::plan
