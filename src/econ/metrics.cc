// The one definition of every output metric: key, unit, meaning, getter.
// JSON (report/json.cc), the terminal table and the HTML report read this list.
#include <optional>

#include "rlcost/estimate.h"

namespace rlcost {
namespace {

using Opt = std::optional<double>;

std::optional<double> GoalValue(const Estimate& e, double v) {
  if (!e.goal.requested || !e.goal.reachable) return std::nullopt;
  return v;
}

Opt Energy(const Estimate& e, double v) {
  if (!e.energy.known) return std::nullopt;
  return v;
}

std::vector<MetricDef> MakeMetrics() {
  // clang-format off
  return {
    {"step.time_s", "s", "wall time of one training step (mean over the run)", true, [](const Estimate& e) -> Opt { return e.step.time_s; }},
    {"step.rollout_s", "s", "of which generating rollouts, tool calls included, not hidden by overlap", true, [](const Estimate& e) -> Opt { return e.step.rollout_s; }},
    {"step.train_s", "s", "of which the policy update", true, [](const Estimate& e) -> Opt { return e.step.train_s; }},
    {"step.other_s", "s", "of which log-prob / reference passes, weight sync, rewards, overhead", true, [](const Estimate& e) -> Opt { return e.step.other_s; }},
    {"step.logprob_s", "s", "old-policy log-prob pass on the critical path", false, [](const Estimate& e) -> Opt { return e.step.logprob_s; }},
    {"step.reference_s", "s", "reference-model pass on the critical path", false, [](const Estimate& e) -> Opt { return e.step.reference_s; }},
    {"step.weight_sync_s", "s", "weight sync on the critical path", false, [](const Estimate& e) -> Opt { return e.step.weight_sync_s; }},
    {"step.reward_s", "s", "reward computation on the critical path", false, [](const Estimate& e) -> Opt { return e.step.reward_s; }},
    {"step.overhead_s", "s", "fixed per-step overhead (scheduling, data loading)", false, [](const Estimate& e) -> Opt { return e.step.overhead_s; }},
    {"step.offload_s", "s", "moving offloaded training state between GPU and host memory", false, [](const Estimate& e) -> Opt { return e.step.offload_s; }},
    {"step.refit_offload_s", "s", "of which the optimizer states copied back to the GPU before the update and the trainer's weights before the log-prob pass (colocated; their way out is in the weight sync)", false, [](const Estimate& e) -> Opt { return e.step.refit_offload_s; }},
    {"weight_sync.gather_s", "s", "one weight sync: trainer all-gathers its shards into full tensors", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.gather_s; }},
    {"weight_sync.transfer_s", "s", "one weight sync: NCCL broadcast trainer -> rollout GPUs (disaggregated)", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.transfer_s; }},
    {"weight_sync.load_s", "s", "one weight sync: engines copy their shards into their weights", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.load_s; }},
    {"weight_sync.calls_s", "s", "one weight sync: fixed cost of its collective calls (per tensor or per bucket)", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.calls_s; }},
    {"weight_sync.ipc_s", "s", "one weight sync: CUDA IPC handles of the trainer's tensors relayed through the driver to every engine GPU and rebuilt there (colocated)", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.ipc_s; }},
    {"weight_sync.engine_s", "s", "one weight sync: colocated engine wake-up and sleep", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.engine_s; }},
    {"weight_sync.offload_s", "s", "one weight sync: the trainer's optimizer states, then its own weights, to host memory inside the refit (colocated, placement.refit_offload)", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.offload_s; }},
    {"weight_sync.overlap_s", "s", "one weight sync: of the gather and the broadcast, time hidden by running both at once (pipelined buckets); subtracted from the parts", false, [](const Estimate& e) -> Opt { return e.step.sync_parts.overlap_s; }},
    {"rollout_fraction", "", "share of GPU time spent generating", true, [](const Estimate& e) -> Opt { return e.rollout_fraction; }},
    // The step's wall time by phase (the brief's "step:" line); rollout_fraction above is the GPU-time share.
    {"step.rollout_share", "", "share of the step's wall time in the rollout phase (step.rollout_s / step.time_s)", false, [](const Estimate& e) -> Opt { if (!(e.step.time_s > 0)) return std::nullopt; return e.step.rollout_s / e.step.time_s; }},
    {"step.train_share", "", "share of the step's wall time in the policy update (step.train_s / step.time_s)", false, [](const Estimate& e) -> Opt { if (!(e.step.time_s > 0)) return std::nullopt; return e.step.train_s / e.step.time_s; }},
    {"step.other_share", "", "share of the step's wall time in log-prob and reference passes, weight sync and rewards (step.other_s / step.time_s)", false, [](const Estimate& e) -> Opt { if (!(e.step.time_s > 0)) return std::nullopt; return e.step.other_s / e.step.time_s; }},
    {"mfu.rollout", "", "model FLOPs utilisation while generating (0..1)", true, [](const Estimate& e) -> Opt { return e.mfu_rollout; }},
    {"mfu.train", "", "model FLOPs utilisation of the policy update (0..1)", true, [](const Estimate& e) -> Opt { return e.mfu_train; }},
    {"throughput.tokens_per_s_per_gpu", "tok/s", "prompt + response tokens trained on per second per GPU (all GPUs)", true, [](const Estimate& e) -> Opt { return e.tokens_per_s_per_gpu; }},
    {"rollout.output_tokens_per_s_per_gpu", "tok/s", "generated tokens per second of rollout time per rollout GPU", true, [](const Estimate& e) -> Opt { return e.output_tokens_per_s_per_gpu; }},
    {"rollout.generated_tokens_per_step", "tok", "tokens decoded per step, all turns", false, [](const Estimate& e) -> Opt { return e.step.generated_tokens; }},
    {"rollout.mean_batch", "seq", "mean running sequences per engine while generating", false, [](const Estimate& e) -> Opt { return e.step.mean_batch; }},
    {"rollout.clipped_share", "", "share of generated responses that stop at the maximum length (environment.response_tokens: its clipped share, or the tail its distribution puts beyond max)", false, [](const Estimate& e) -> Opt { return e.clipped_share; }},
    {"rollout.kv_capacity_sequences", "seq", "sequences of mean length one engine's KV cache holds", false, [](const Estimate& e) -> Opt { return e.step.kv_capacity_sequences; }},
    {"gpu_time.rollout_s", "GPU-s", "GPU-seconds per step generating", false, [](const Estimate& e) -> Opt { return e.step.gpu_s_rollout; }},
    {"gpu_time.train_s", "GPU-s", "GPU-seconds per step in the policy update", false, [](const Estimate& e) -> Opt { return e.step.gpu_s_train; }},
    {"gpu_time.other_s", "GPU-s", "GPU-seconds per step in log-prob/reference passes, sync, rewards", false, [](const Estimate& e) -> Opt { return e.step.gpu_s_other; }},
    {"gpu_time.idle_s", "GPU-s", "GPU-seconds per step idle (waiting on the other side, tools, sync)", false, [](const Estimate& e) -> Opt { return e.step.gpu_s_idle; }},
    {"signal.rollouts_per_step", "", "trajectories generated per step", true, [](const Estimate& e) -> Opt { return e.signal.rollouts_per_step; }},
    {"signal.informative_fraction", "", "share of rollouts whose advantage is not zero", true, [](const Estimate& e) -> Opt { return e.signal.informative_fraction; }},
    {"signal.useful_samples_per_step", "", "rollouts that carry gradient signal", true, [](const Estimate& e) -> Opt { return e.signal.useful_samples_per_step; }},
    {"signal.reward_bits_per_rollout", "bit", "information in the reward (1 at most for one pass/fail)", true, [](const Estimate& e) -> Opt { return e.signal.reward_bits_per_rollout; }},
    {"signal.oversampling", "", "rollouts generated per rollout trained on (dynamic sampling)", false, [](const Estimate& e) -> Opt { return e.signal.oversampling; }},
    {"signal.hard_task_fraction", "", "share of tasks whose expected rollouts to a first success exceed what the run spends on them", false, [](const Estimate& e) -> Opt { return e.signal.hard_task_fraction; }},
    {"cost.usd_per_step", "USD", "GPU and sandbox dollars per step", true, [](const Estimate& e) -> Opt { return e.usd_per_step; }},
    {"cost.usd_gpu_per_step", "USD", "GPU dollars per step", false, [](const Estimate& e) -> Opt { return e.usd_gpu_per_step; }},
    {"cost.usd_sandbox_per_step", "USD", "sandbox CPU dollars per step", false, [](const Estimate& e) -> Opt { return e.usd_sandbox_per_step; }},
    {"cost.usd_per_useful_sample", "USD", "dollars per rollout that carries signal", true, [](const Estimate& e) -> Opt { return e.usd_per_useful_sample; }},
    {"cost.usd_per_reward_bit", "USD", "dollars per bit of reward information", false, [](const Estimate& e) -> Opt { return e.usd_per_reward_bit; }},
    {"cost.usd_per_million_trained_tokens", "USD", "dollars per million prompt + response tokens trained on", false, [](const Estimate& e) -> Opt { return e.usd_per_million_trained_tokens; }},
    {"cost.gpu_hours", "GPU-h", "GPU-hours for the whole run", true, [](const Estimate& e) -> Opt { return e.gpu_hours; }},
    {"sandbox.peak_in_use", "", "most sandboxes in use at once (each held from a trajectory's start-up to its verification)", false, [](const Estimate& e) -> Opt { if (!(e.step.sandbox_peak_in_use > 0)) return std::nullopt; return e.step.sandbox_peak_in_use; }},
    {"sandbox.mean_in_use", "", "mean sandboxes in use over the step's wall time", false, [](const Estimate& e) -> Opt { if (!(e.step.sandbox_peak_in_use > 0)) return std::nullopt; return e.step.sandbox_mean_in_use; }},
    {"cost.cpu_hours", "CPU-h", "sandbox CPU-hours for the whole run", true, [](const Estimate& e) -> Opt { return e.cpu_hours; }},
    {"run.wall_time_h", "h", "wall time of the whole run", true, [](const Estimate& e) -> Opt { return e.wall_time_h; }},
    {"run.usd", "USD", "dollars for the whole run", true, [](const Estimate& e) -> Opt { return e.usd; }},
    {"run.breakdown_h.steps", "h", "of the run's wall time: the training steps", false, [](const Estimate& e) -> Opt { return e.run.steps_h; }},
    {"run.breakdown_h.startup", "h", "of which start-up: model load from storage, engine warm-up", false, [](const Estimate& e) -> Opt { return e.run.startup_h; }},
    {"run.breakdown_h.checkpoints", "h", "of which waiting for checkpoint writes", false, [](const Estimate& e) -> Opt { return e.run.checkpoints_h; }},
    {"run.breakdown_h.evaluation", "h", "of which evaluation passes", false, [](const Estimate& e) -> Opt { return e.run.evaluation_h; }},
    {"run.breakdown_h.restarts", "h", "of which expected failures: detection, restart, lost work", false, [](const Estimate& e) -> Opt { return e.run.restarts_h; }},
    {"run.checkpoint_gb", "GB", "size of one checkpoint", false, [](const Estimate& e) -> Opt { return e.run.checkpoints > 0 ? Opt(e.run.checkpoint_gb) : std::nullopt; }},
    {"run.expected_interruptions", "", "expected failures over the run (run.failures)", false, [](const Estimate& e) -> Opt { return e.run.expected_interruptions > 0 ? Opt(e.run.expected_interruptions) : std::nullopt; }},
    {"goal.steps", "", "steps to reach goal.target_pass_rate on the learning curve (by the view goal.steps_view names)", false, [](const Estimate& e) { return GoalValue(e, e.goal.steps); }},
    {"goal.steps_useful_samples", "", "steps to the target counting useful samples: the curve's useful samples, whatever the batch", false, [](const Estimate& e) { return GoalValue(e, e.goal.steps_useful_samples); }},
    {"goal.steps_noise_scale", "", "steps to the target by the gradient noise scale, S_min (1 + B_noise / B) (needs goal.b_noise)", false, [](const Estimate& e) -> Opt { if (e.goal.steps_noise_scale < 0) return std::nullopt; return GoalValue(e, e.goal.steps_noise_scale); }},
    {"goal.useful_samples_per_step", "", "useful samples a step on the way to the target (mean; B of the noise-scale view)", false, [](const Estimate& e) { return GoalValue(e, e.goal.useful_samples_per_step); }},
    {"goal.gpu_hours", "GPU-h", "GPU-hours to reach the target", false, [](const Estimate& e) { return GoalValue(e, e.goal.gpu_hours); }},
    {"goal.usd", "USD", "dollars to reach the target", false, [](const Estimate& e) { return GoalValue(e, e.goal.usd); }},
    {"run.usd_by_phase.rollout", "USD", "of the run's dollars: GPUs generating rollouts during the steps", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.rollout; }},
    {"run.usd_by_phase.train", "USD", "of which GPUs in the policy update", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.train; }},
    {"run.usd_by_phase.other", "USD", "of which GPUs in log-prob/reference passes, weight sync, rewards", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.other; }},
    {"run.usd_by_phase.idle", "USD", "of which GPUs idle during the steps", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.idle; }},
    {"run.usd_by_phase.sandbox", "USD", "of which sandbox CPUs", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.sandbox; }},
    {"run.usd_by_phase.startup", "USD", "of which GPUs held through start-up", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.startup; }},
    {"run.usd_by_phase.checkpoints", "USD", "of which GPUs waiting for checkpoint writes", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.checkpoints; }},
    {"run.usd_by_phase.evaluation", "USD", "of which GPUs in evaluation passes", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.evaluation; }},
    {"run.usd_by_phase.restarts", "USD", "of which GPUs through expected failures and restarts", false, [](const Estimate& e) -> Opt { return e.usd_by_phase.restarts; }},
    {"gpu_time.reward_s", "GPU-s", "GPU-seconds per step a model verifier (judge, reward model) works; part of gpu_time.other_s", false, [](const Estimate& e) -> Opt { return e.step.gpu_s_reward; }},
    {"cost.usd_verifier_per_step", "USD", "GPU dollars per step of a model verifier (policy's GPUs held while it runs, or its own GPUs all step); part of cost.usd_gpu_per_step", false, [](const Estimate& e) -> Opt { return e.usd_verifier_per_step; }},
    {"signal.reward_signal_factor", "", "expected gradient of a noisy reward relative to a correct one (1 - false positive - false negative rate)", false, [](const Estimate& e) -> Opt { return e.signal.reward_signal_factor; }},
    {"signal.wasted_rollouts_per_step", "", "trajectories per step whose environment failed (environment.failures): generated and paid for, not trained on", false, [](const Estimate& e) -> Opt { if (!(e.signal.wasted_rollouts_per_step > 0)) return std::nullopt; return e.signal.wasted_rollouts_per_step; }},
    {"gpu_time.wasted_s", "GPU-s", "GPU-seconds per step generating trajectories whose environment failed; part of gpu_time.rollout_s", false, [](const Estimate& e) -> Opt { if (!(e.signal.wasted_rollouts_per_step > 0)) return std::nullopt; return e.wasted_gpu_s; }},
    {"cost.usd_wasted_per_step", "USD", "GPU and sandbox dollars per step spent on trajectories whose environment failed; part of cost.usd_per_step", false, [](const Estimate& e) -> Opt { if (!(e.signal.wasted_rollouts_per_step > 0)) return std::nullopt; return e.usd_wasted_per_step; }},
    {"cost.usd_per_gpu_hour", "USD", "mean price paid per GPU-hour over the run's GPUs (spot roles at their price: hardware.spot)", false, [](const Estimate& e) -> Opt { return e.usd_per_gpu_hour; }},
    {"spot.rollout_lost_share", "", "share of the spot rollout pool's time lost to preemptions: restarts and partial rollouts redone (hardware.spot.rollout)", false, [](const Estimate& e) -> Opt { if (e.step.spot_lost_share <= 0) return std::nullopt; return e.step.spot_lost_share; }},
    {"spot.rollout_redone_s", "s", "seconds per step the rollout pool spends redoing work lost to spot preemptions", false, [](const Estimate& e) -> Opt { if (e.step.spot_lost_share <= 0) return std::nullopt; return e.step.spot_lost_s; }},
    {"resplit.steps_h_fixed", "h", "wall hours of the run's steps with the rollout/train split as written (placement.resplit compares)", false, [](const Estimate& e) -> Opt { if (!e.resplit) return std::nullopt; return e.resplit->fixed_steps_h; }},
    {"resplit.steps_h", "h", "wall hours of the run's steps with the split re-chosen per phase of the run, re-split stops included (placement.resplit)", false, [](const Estimate& e) -> Opt { if (!e.resplit) return std::nullopt; return e.resplit->steps_h; }},
    {"resplit.usd_fixed", "USD", "GPU dollars of the run's steps with the split as written (placement.resplit compares)", false, [](const Estimate& e) -> Opt { if (!e.resplit) return std::nullopt; return e.resplit->fixed_usd; }},
    {"resplit.usd", "USD", "GPU dollars of the run's steps with the split re-chosen per phase, re-split stops included (placement.resplit)", false, [](const Estimate& e) -> Opt { if (!e.resplit) return std::nullopt; return e.resplit->usd; }},
    {"resplit.changes", "", "changes of the rollout/train split during the run (placement.resplit)", false, [](const Estimate& e) -> Opt { if (!e.resplit) return std::nullopt; return double(e.resplit->resplits); }},
    {"tail.rollout_saved_s", "s", "generation seconds per step saved by tail handling against waiting for the longest response (pipeline.tail)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active || e.method == "simulated") return std::nullopt; return e.step.tail_rollout_saved_s; }},
    {"tail.cut_tokens", "tokens", "response length at which a round stops under tail handling (pipeline.tail)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_cut_tokens; }},
    {"tail.wasted_tokens_per_step", "tokens", "decoded tokens per step never trained on: aborted or dropped responses (pipeline.tail)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_wasted_tokens; }},
    {"tail.dropped_share", "", "share of launched responses dropped for good (pipeline.tail over_provision: the trained ones are the shorter)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_dropped_share; }},
    {"tail.deferred_share", "", "share of trained prompts deferred to a long round (pipeline.tail tail_batching)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_deferred_share; }},
    {"tail.carried_share", "", "share of trained responses begun in an earlier step, partly generated by older weights (pipeline.tail partial_rollout)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_carried_share; }},
    {"tail.mean_staleness", "versions", "policy versions the trained responses lag the trainer, mean (pipeline.tail partial_rollout)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_mean_staleness; }},
    {"tail.trained_mean_response_tokens", "tokens", "mean response length trained on under tail handling (below the distribution's mean: a length bias)", false, [](const Estimate& e) -> Opt { if (!e.step.tail_active) return std::nullopt; return e.step.tail_trained_mean_tokens; }},
    {"energy.kwh", "kWh", "electricity of the whole run at the GPU boards (host, network and cooling not included)", false, [](const Estimate& e) { return Energy(e, e.energy.kwh); }},
    {"energy.co2e_kg", "kg", "emissions of that electricity on the scenario's grid (energy.grid, `grid`)", false, [](const Estimate& e) { return Energy(e, e.energy.co2e_kg); }},
    {"energy.grid_g_co2e_per_kwh", "g/kWh", "carbon intensity of the grid the run draws from", false, [](const Estimate& e) { return Energy(e, e.energy.g_co2e_per_kwh); }},
    {"energy.kwh_by_phase.rollout", "kWh", "of the run's electricity: GPUs generating rollouts", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.rollout); }},
    {"energy.kwh_by_phase.train", "kWh", "of which GPUs in the policy update", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.train); }},
    {"energy.kwh_by_phase.other", "kWh", "of which GPUs in log-prob/reference passes, weight sync, rewards", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.other); }},
    {"energy.kwh_by_phase.idle", "kWh", "of which GPUs idle during the steps", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.idle); }},
    {"energy.kwh_by_phase.startup", "kWh", "of which GPUs held through start-up", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.startup); }},
    {"energy.kwh_by_phase.checkpoints", "kWh", "of which GPUs waiting for checkpoint writes", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.checkpoints); }},
    {"energy.kwh_by_phase.evaluation", "kWh", "of which GPUs in evaluation passes", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.evaluation); }},
    {"energy.kwh_by_phase.restarts", "kWh", "of which GPUs through expected failures and restarts", false, [](const Estimate& e) { return Energy(e, e.energy.kwh_by_phase.restarts); }},
    {"signal.observed_pass_rate", "", "share of rollouts the verifier rewards (true pass rate seen through its errors)", false, [](const Estimate& e) -> Opt { return e.signal.observed_pass_rate; }},
    {"layout.rollout_tp", "GPUs", "tensor-parallel size of one inference engine (placement.rollout_tp, as given or planned)", false, [](const Estimate& e) -> Opt { return e.layout.rollout_tp; }},
    {"layout.engines", "", "inference engines (rollout GPUs / rollout_tp)", false, [](const Estimate& e) -> Opt { return e.layout.engines; }},
    {"layout.rollout_gpus", "GPUs", "GPUs that generate (all of them when colocated)", false, [](const Estimate& e) -> Opt { return e.layout.rollout_gpus; }},
    {"layout.train_gpus", "GPUs", "GPUs that train (all of them when colocated)", false, [](const Estimate& e) -> Opt { return e.layout.train_gpus; }},
    {"layout.colocated", "", "1 when generation and training share every GPU, 0 when disaggregated", false, [](const Estimate& e) -> Opt { return e.layout.colocated ? 1.0 : 0.0; }},
    {"layout.dp_attention", "", "1 when each engine runs attention data-parallel (placement.dp_attention)", false, [](const Estimate& e) -> Opt { return e.layout.dp_attention ? 1.0 : 0.0; }},
    {"layout.train_state_offloaded", "", "1 when the training state moves to host memory while generating (colocated)", false, [](const Estimate& e) -> Opt { return e.layout.train_state_offloaded ? 1.0 : 0.0; }},
    {"plan.candidates", "", "layouts the planner tried for the placement fields the scenario leaves out", false, [](const Estimate& e) -> Opt { return e.plan ? Opt(e.plan->candidates) : std::nullopt; }},
    {"plan.fitting", "", "of which fit in GPU memory", false, [](const Estimate& e) -> Opt { return e.plan ? Opt(e.plan->fitting) : std::nullopt; }},
    {"plan.runner_up_usd_per_step", "USD", "dollars per step of the best layout the planner did not choose", false, [](const Estimate& e) -> Opt { return e.plan && !e.plan->runner_up.empty() ? Opt(e.plan->runner_up_usd_per_step) : std::nullopt; }},
    {"plan.runner_up_step_s", "s", "step wall time of the best layout the planner did not choose", false, [](const Estimate& e) -> Opt { return e.plan && !e.plan->runner_up.empty() ? Opt(e.plan->runner_up_step_s) : std::nullopt; }},
    {"plan.literal_usd_per_step", "USD", "dollars per step of the scenario's layout read literally (`no_plan`)", false, [](const Estimate& e) -> Opt { return e.plan ? e.plan->literal_usd_per_step : std::nullopt; }},
    {"plan.literal_step_s", "s", "step wall time of the scenario's layout read literally (`no_plan`)", false, [](const Estimate& e) -> Opt { return e.plan ? e.plan->literal_step_s : std::nullopt; }},
  };
  // clang-format on
}

}  // namespace

const std::vector<MetricDef>& Metrics() {
  static const std::vector<MetricDef> metrics = MakeMetrics();
  return metrics;
}

const MetricDef* FindMetric(std::string_view key) {
  for (const auto& m : Metrics()) {
    if (m.key == key) return &m;
  }
  return nullptr;
}

}  // namespace rlcost
