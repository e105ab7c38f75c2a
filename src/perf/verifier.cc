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

namespace {

// One model verifier `v` (at field path `path`): `calls` calls per step of
// `output_tokens` each.
Result<VerifierWork> ModelVerifierCost(const Scenario& s, const RewardSpec::Verifier& v, const std::string& path,
                                       double calls, double output_tokens) {
  VerifierWork w;
  w.on_gpu = true;
  w.shared = v.gpus <= 0;
  w.what = fmt::format("{} {}", ToString(v.kind), v.model_id);
  w.output_tokens = output_tokens;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  w.gpus = w.shared ? (colocated ? s.hardware.gpus : std::max(1, s.placement.rollout_gpus)) : v.gpus;
  const GpuSpec& g = s.hardware.gpu;
  const ModelSpec& m = v.model;
  const Precision wp = Precision::kBf16, kvp = Precision::kBf16;
  w.input_tokens = v.input_tokens > 0 ? v.input_tokens : MeanTrajectoryTokens(s);
  const double per_call_tokens = w.input_tokens + output_tokens;
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
        ErrorCode::kDoesNotFit, path + ".model",
        fmt::format("{} does not fit on {} {} GPU{}: {:.1f} GB of bf16 weights, split over at most {} GPUs of a "
                     "node, plus the KV cache of one call ({:.0f} tokens) must fit in the {:.1f} GB per GPU left to it{}; "
                     "give the judge GPUs of its own (gpus: N) or a smaller model",
                     v.model_id, w.gpus, g.id, w.gpus == 1 ? "" : "s", weights_gb, max_tp, per_call_tokens,
                     budget_gb, w.shared ? " beside the policy's training state" : ""));
  }
  w.tp = tp;
  w.kv_tokens = kv_tokens;
  w.engines = w.gpus / tp;
  w.calls = calls;
  const double per_engine = w.calls / w.engines;
  w.batch = std::max(1.0, std::min(per_engine, std::floor(kv_tokens / per_call_tokens)));

  EngineConfig e{&m, &g, RolloutEfficiency(s), tp, wp, kvp};  // served by the scenario's engine
  // Prefill of every call's input (attention within each call).
  const Work pre = Prefill(e, per_engine * w.input_tokens, 0, per_engine);
  // Decode in waves of `batch` calls, each writing output_tokens after its input.
  const double waves = per_engine / w.batch;
  Work wave;
  if (output_tokens > 0) wave = DecodeIterations(e, w.batch, w.batch * w.input_tokens, output_tokens);
  w.prefill_s = pre.time_s;
  w.decode_s = waves * wave.time_s;
  // Dedicated engines judge calls as rollouts finish; the last one is judged
  // alone after generation ends.
  w.last_call_s = Prefill(e, w.input_tokens, 0, 1).time_s +
                  (output_tokens > 0 ? DecodeIterations(e, 1, w.input_tokens, output_tokens).time_s : 0.0);
  if (w.shared) {
    // The policy's engines hold the GPUs during generation: the judge's shard
    // comes in from host memory over PCIe each step (and its KV is freed).
    w.weight_load_s = weights_gb / tp / kHostLinkGbPerS;
  }
  w.time_s = w.prefill_s + w.decode_s + w.weight_load_s;
  w.flops = (pre.flops + waves * wave.flops) * tp * w.engines;
  return w;
}

bool OnGpu(VerifierKind k) { return k == VerifierKind::kLlmJudge || k == VerifierKind::kRewardModel; }

}  // namespace

Result<VerifierWork> VerifierCost(const Scenario& s, double rollouts) {
  const auto& reward = s.environment.reward;
  const auto& v = reward.verifier;
  const std::string path = "environment.reward.verifier";
  if (v.kind == VerifierKind::kEnsemble) {
    // Every member judges every rollout; each is priced as a verifier of its own.
    VerifierWork w;
    for (size_t i = 0; i < v.members.size(); ++i) {
      const auto& m = v.members[i];
      if (!OnGpu(m.kind)) continue;
      auto mw = ModelVerifierCost(s, m, fmt::format("{}.members[{}]", path, i), rollouts * m.calls_per_rollout,
                                  m.output_tokens);
      if (!mw) return Fail(mw.error());
      w.on_gpu = true;
      w.calls += mw->calls;
      w.flops += mw->flops;
      if (!mw->shared) w.gpus += mw->gpus;
      w.members.push_back(std::move(*mw));
    }
    w.shared = w.gpus == 0;
    w.what = fmt::format("ensemble of {}", v.members.size());
    return w;
  }
  if (!OnGpu(v.kind)) return VerifierWork{};
  // A rubric: one judge call per llm-judge criterion, at the criteria's mean
  // verdict length (docs/model.md, "Rubrics").
  double judged = 1, out_tokens = v.output_tokens;
  if (!reward.rubric.empty() && v.kind == VerifierKind::kLlmJudge) {
    judged = 0;
    double sum_out = 0;
    for (const auto& it : reward.rubric) {
      if (!it.judged) continue;
      judged += 1;
      sum_out += it.output_tokens > 0 ? it.output_tokens : v.output_tokens;
    }
    if (judged == 0) return VerifierWork{};  // only rule criteria: no judge calls
    out_tokens = sum_out / judged;
  }
  return ModelVerifierCost(s, v, path, rollouts * v.calls_per_rollout * judged, out_tokens);
}

}  // namespace rlcost::perf
