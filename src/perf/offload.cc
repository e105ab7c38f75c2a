// Training state moved between GPU and host memory over PCIe: what PlanMemory
// offloads because it does not fit, and what the scenario offloads on purpose
// (placement.offload, veRL's param_offload / optimizer_offload). Derivation
// and sources: docs/model.md, "Offload".
#include <algorithm>

#include "core/numbers.h"
#include "perf/trainer_weights.h"
#include "rlcost/perf.h"

namespace rlcost::perf {
namespace {

// veRL keeps the actor's FSDP parameters in fp32 (model_dtype defaults to
// fp32 for the actor; bf16 is the compute dtype of its mixed precision):
// param_offload moves 4 bytes per parameter, optimizer_offload Adam's two
// fp32 moments, 8 bytes (volcengine/verl verl/workers/fsdp_workers.py,
// _build_model_optimizer; offload_fsdp_model_to_cpu / offload_fsdp_optimizer
// in verl/utils/fsdp_utils.py).
constexpr double kParamBytes = 4.0;
constexpr double kOptimizerBytes = 8.0;
// The optimizer state a NeMo RL refit moves per parameter with a Megatron
// trainer: its configs turn on Megatron-Core's precision-aware optimizer
// (v0.3.0 examples/configs/grpo_math_1B_megatron.yaml:111-112
// use_distributed_optimizer / use_precision_aware_optimizer: true, inherited
// by the 8B, 70B and Qwen3 Megatron configs @ b1c86a81), which hands the
// state to Transformer Engine's FusedAdam with master_weights=True and
// store_param_remainders (default True in Megatron-Core's OptimizerConfig;
// terrykong/Megatron-LM 2ff0f099 megatron/core/optimizer/optimizer_config.py:57,
// __init__.py:339-350): exp_avg and exp_avg_sq in fp32 plus the 16-bit
// remainder of each fp32 master weight, all in optimizer.state, so
// offload_before_refit moves 4 + 4 + 2 = 10 bytes. Measured: NeMo RL issue
// #3976's offload_before_refit moved 4.94 GB for Qwen2.5-0.5B (0.494 B
// parameters, one H100): 10.0 bytes per parameter. FSDP2 / DTensor: torch's
// AdamW keeps the two fp32 moments, 8 bytes.
constexpr double kPrecisionAwareOptimizerBytes = 10.0;

}  // namespace

double HostTransferTime(const MemoryPlan& plan) {
  // Out and back each step.
  return 2.0 * plan.host_transfer_gb / kHostLinkGbPerS;
}

double RefitOffloadGb(const Scenario& s, const MemoryPlan& plan) {
  if (s.placement.mode != PlacementMode::kColocated) return 0;
  if (s.placement.refit_offload == RefitOffload::kNone) return 0;
  // ZeRO-Offload keeps them on the host; placement.offload.optimizer prices
  // the same move its own way (veRL).
  if (plan.optimizer_offloaded || s.placement.offload.optimizer) return 0;
  // Adam's two fp32 moments of the policy (and of PPO's critic, trained the
  // same way), sharded over the training GPUs as the distributed optimizer
  // shards them (Megatron: over data parallel within each model-parallel
  // shard, so N / world per GPU in all).
  const double models = 1.0 + (s.algorithm.critic ? 1.0 : 0.0);
  const double bytes =
      s.placement.train_backend == TrainBackend::kMegatron ? kPrecisionAwareOptimizerBytes : kOptimizerBytes;
  return bytes * TrainableParams(s) * models / ShardGpus(s) / kGB;
}

double TrainerWeightBytesPerGpu(const Scenario& s) {
  const PlacementSpec& pl = s.placement;
  const double total = s.model.params_b * 1e9;
  // FSDP2 / DTensor: NeMo RL loads the model in fp32 to keep fp32 master
  // weights (v0.3.0 dtensor_policy_worker.py:188-192 @ b1c86a81), sharded over
  // the sharding group (TP x FSDP).
  if (pl.train_backend == TrainBackend::kFsdp) return 4.0 * total / ShardGpus(s);
  // Megatron: the bf16 _ParamAndGradBuffer.param_data of the rank's model
  // chunk. The distributed optimizer shards gradients and optimizer state over
  // data parallel, never the parameters (NVIDIA/Megatron-LM docs, "Distributed
  // Optimizer"; the buffer is all-gathered after each step), so data-parallel
  // ranks each hold the full model-parallel shard: a data-parallel-only
  // trainer holds the whole model in bf16 on every GPU.
  const double expert = std::min(total, s.model.routed_expert_params_b() * 1e9);
  const int tp = std::max(1, pl.train_tp), pp = std::max(1, pl.train_pp), ep = std::max(1, pl.train_ep);
  return 2.0 * ((total - expert) / (tp * pp) + expert / (static_cast<double>(tp) * ep * pp));
}

double RefitWeightsGb(const Scenario& s, const MemoryPlan& plan) {
  if (s.placement.mode != PlacementMode::kColocated) return 0;
  if (s.placement.refit_offload == RefitOffload::kNone) return 0;
  // PlanMemory already moves the whole training state (OffloadTime prices it);
  // placement.offload (veRL) prices its own moves and has no such refit step.
  if (plan.train_state_offloaded || plan.optimizer_offloaded) return 0;
  if (s.placement.offload.params || s.placement.offload.optimizer) return 0;
  // offload_after_refit: FSDP2 / DTensor moves the module to the CPU
  // (dtensor_policy_worker.py:1287-1292, model.to("cpu") parameter by
  // parameter, into pageable memory); Megatron moves its parameter buffer
  // (megatron_policy_worker.py:1585-1590 -> move_model ->
  // _ParamAndGradBuffer.offload_to_cpu, terrykong/Megatron-LM @ 2ff0f099
  // param_and_grad_buffer.py:780-793: copy_(non_blocking=True) into the pinned
  // host buffer it kept from the first step; the gradient buffer is freed, not
  // copied).
  return TrainerWeightBytesPerGpu(s) / kGB;
}

namespace {
// FSDP's module.to("cpu") copies each parameter into fresh pageable memory,
// as the optimizer states go (pinned when placement.refit_offload: pinned);
// Megatron's offload_to_cpu copies into a pinned buffer: the PCIe rate.
double RefitWeightsRate(const Scenario& s, bool out) {
  if (s.placement.train_backend != TrainBackend::kFsdp || s.placement.refit_offload == RefitOffload::kPinned) {
    return kHostLinkGbPerS;
  }
  return out ? PageableCopyGbPerS(s) : kPageableBackGbPerS;
}
}  // namespace

double RefitWeightsOutTime(const Scenario& s, const MemoryPlan& plan) {
  return RefitWeightsGb(s, plan) / RefitWeightsRate(s, true);
}

double RefitWeightsBackTime(const Scenario& s, const MemoryPlan& plan) {
  return RefitWeightsGb(s, plan) / RefitWeightsRate(s, false);
}

// The way back: prepare_for_training moves the states to the GPU before the
// update, from host pages already resident (docs/model.md, "Refit offload");
// and prepare_for_lp_inference the trainer's weights before the log-prob pass
// ("Trainer weights after the refit").
double RefitOffloadTime(const Scenario& s, const MemoryPlan& plan) {
  const double rate =
      s.placement.refit_offload == RefitOffload::kPinned ? kHostLinkGbPerS : kPageableBackGbPerS;
  return RefitOffloadGb(s, plan) / rate + RefitWeightsBackTime(s, plan);
}

// The way out: offload_before_refit, the first call of NeMo RL's
// refit_policy_generation, inside the refit it times (v0.3.0
// nemo_rl/algorithms/grpo.py:412 under timer "prepare_for_generation", 542).
double RefitOffloadOutTime(const Scenario& s, const MemoryPlan& plan) {
  const double rate =
      s.placement.refit_offload == RefitOffload::kPinned ? kHostLinkGbPerS : PageableCopyGbPerS(s);
  return RefitOffloadGb(s, plan) / rate;
}

double EngineSleepCopyTime(const Scenario& s) {
  if (s.placement.mode != PlacementMode::kColocated || s.placement.engine_sleep_level != 1) return 0;
  const bool vllm = s.placement.engine == InferenceEngine::kVllm || s.placement.engine == InferenceEngine::kVllmAsync;
  if (!vllm) return 0;
  // vLLM's CuMemAllocator.sleep copies every allocation tagged "weights" into
  // pinned host memory (cudaMemcpy) before unmapping it; NeMo RL calls
  // sleep(level=1) in finish_generation(), inside its "generation" timer
  // (v0.3.0 nemo_rl/models/generation/vllm.py:1240-1253 and
  // nemo_rl/algorithms/grpo.py:551-580 @ b1c86a81). One copy of the GPU's
  // shard of the rollout weights over PCIe.
  const double shard_gb = WeightBytes(s.model, s.precision.rollout) / std::max(1, s.placement.rollout_tp) / kGB;
  return shard_gb / kHostLinkGbPerS;
}

double OffloadTime(const Scenario& s, const MemoryPlan& plan) {
  const double refit_gb = RefitOffloadGb(s, plan);
  double t = HostTransferTime(plan) + RefitOffloadTime(s, plan) + EngineSleepCopyTime(s);
  // Already in host memory for the whole step: nothing more to move. Its
  // optimizer states are the refit offload's, priced above at their own rate.
  if (plan.train_state_offloaded) return t - 2.0 * std::min(refit_gb, plan.host_transfer_gb) / kHostLinkGbPerS;
  const auto& off = s.placement.offload;
  const double shard = ShardGpus(s);  // each GPU moves its own shard (docs/model.md, "Sharding groups")
  const double trainable = TrainableParams(s);
  double gb = 0;
  if (off.params) {
    // veRL loads the parameters for each worker call that needs them and
    // offloads them after it: the update, the old-policy log-prob pass, and
    // (colocated) the weight sync to the engine.
    double trips = 1.0 + (s.algorithm.recompute_logprobs ? 1.0 : 0.0) +
                   (s.placement.mode == PlacementMode::kColocated ? 1.0 : 0.0);
    double base = s.algorithm.lora ? WeightBytes(s.model, Precision::kBf16) : 0.0;  // frozen base, bf16
    gb += trips * (base + kParamBytes * trainable) / shard / kGB;
  }
  // ZeRO-Offload (PlanMemory) already keeps the optimizer states on the host.
  if (off.optimizer && !plan.optimizer_offloaded) gb += kOptimizerBytes * trainable / shard / kGB;
  return t + 2.0 * gb / kHostLinkGbPerS;
}

}  // namespace rlcost::perf
