// The GPU cost of a model verifier: an LLM judge or a reward model served by
// its own inference engines, priced with the same roofline as the policy's
// rollouts (Prefill, DecodeIterations). docs/model.md, "Verifiers".
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "rlcost/perf.h"

namespace rlcost::perf {

namespace {
// Share of each GPU the judge's engine may fill: vLLM's default
// gpu_memory_utilization 0.9, as the policy's engine (kActivationReserveFraction).
constexpr double kJudgeMemoryShare = 0.9;
}  // namespace

Result<VerifierWork> VerifierCost(const Scenario& s, double rollouts) {
  const auto& v = s.environment.reward.verifier;
  VerifierWork w;
  if (v.kind != VerifierKind::kLlmJudge && v.kind != VerifierKind::kRewardModel) return w;
  w.on_gpu = true;
  w.shared = v.gpus <= 0;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  w.gpus = w.shared ? (colocated ? s.hardware.gpus : std::max(1, s.placement.rollout_gpus)) : v.gpus;
  const GpuSpec& g = s.hardware.gpu;
  const ModelSpec& m = v.model;
  const Precision wp = Precision::kBf16, kvp = Precision::kBf16;
  w.input_tokens = v.input_tokens > 0 ? v.input_tokens : MeanTrajectoryTokens(s);
  const double per_call_tokens = w.input_tokens + v.output_tokens;
  // Dedicated GPUs: the judge's engine takes 90% of each. Shared: the policy's
  // engine sleeps while the judge runs, but the training state it keeps
  // resident beside it (colocated, unless moved to host memory) stays.
  double budget_gb = kJudgeMemoryShare * g.memory_gb;
  if (w.shared && colocated) {
    auto mem = PlanMemory(s);
    if (!mem) return Fail(mem.error());
    if (!mem->train_state_offloaded)
      budget_gb = g.memory_gb - mem->activation_reserve_gb - mem->train_state_gb - mem->critic_state_gb -
                  mem->reference_gb;
  }
  const double weights_gb = WeightBytes(m, wp) / 1e9;

  // Smallest power-of-two tensor-parallel size within a node that holds the
  // weights and one call's KV cache (as the policy's rollout_tp is chosen by hand).
  const int max_tp = std::min(w.gpus, std::max(1, s.hardware.gpus_per_node));
  int tp = 0;
  double kv_tokens = 0;
  for (int t = 1; t <= max_tp; t *= 2) {
    const double free_gb = budget_gb - weights_gb / t;
    const double kv_gb_per_token = KvBytesPerToken(m, kvp) / KvShards(m, t, false) / 1e9;
    if (free_gb > 0 && free_gb / kv_gb_per_token >= per_call_tokens) {
      tp = t;
      kv_tokens = free_gb / kv_gb_per_token;
      break;
    }
  }
  if (tp == 0) {
    return Fail(
        ErrorCode::kDoesNotFit, "environment.reward.verifier.model",
        fmt::format("{} does not fit on {} {} GPU{}: {:.1f} GB of bf16 weights, split over at most {} GPUs of a "
                     "node, plus the KV cache of one call ({:.0f} tokens) must fit in the {:.1f} GB per GPU left to it{}; "
                     "give the judge GPUs of its own (gpus: N) or a smaller model",
                     v.model_id, w.gpus, g.id, w.gpus == 1 ? "" : "s", weights_gb, max_tp, per_call_tokens,
                     budget_gb, w.shared ? " beside the policy's training state" : ""));
  }
  w.tp = tp;
  w.engines = w.gpus / tp;
  w.calls = rollouts * v.calls_per_rollout;
  const double per_engine = w.calls / w.engines;
  w.batch = std::max(1.0, std::min(per_engine, std::floor(kv_tokens / per_call_tokens)));

  EngineConfig e{&m, &g, g.efficiency, tp, wp, kvp};
  // Prefill of every call's input (attention within each call).
  const Work pre = Prefill(e, per_engine * w.input_tokens, 0, per_engine);
  // Decode in waves of `batch` calls, each writing output_tokens after its input.
  const double waves = per_engine / w.batch;
  Work wave;
  if (v.output_tokens > 0) wave = DecodeIterations(e, w.batch, w.batch * w.input_tokens, v.output_tokens);
  w.prefill_s = pre.time_s;
  w.decode_s = waves * wave.time_s;
  // Dedicated engines judge calls as rollouts finish; the last one is judged
  // alone after generation ends.
  w.last_call_s = Prefill(e, w.input_tokens, 0, 1).time_s +
                  (v.output_tokens > 0 ? DecodeIterations(e, 1, w.input_tokens, v.output_tokens).time_s : 0.0);
  if (w.shared) {
    // The policy's engines hold the GPUs during generation: the judge's shard
    // comes in from host memory over PCIe each step (and its KV is freed).
    w.weight_load_s = weights_gb / tp / kHostLinkGbPerS;
  }
  w.time_s = w.prefill_s + w.decode_s + w.weight_load_s;
  w.flops = (pre.flops + waves * wave.flops) * tp * w.engines;
  return w;
}

}  // namespace rlcost::perf
