// The analytic (closed-form) step model. Derivation: docs/model.md, "Analytic step".
//
// Rollout time per engine models the draining batch, not just the mean: the
// response-length distribution is cut into quantile slices; while the batch
// drains, each slice runs DecodeIterations with the sequences still alive.
// When the step's sequences do not all fit in the KV cache, an
// admission-ordered fluid model of the scheduler (FullCache) follows the
// cache as it fills, preempts, resumes and drains.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "rlcost/tail.h"
#include "core/count.h"
#include "core/slices.h"
#include "sim/kv_cache.h"
#include "perf/dp_imbalance.h"

#include "sim/analytic_rollout.h"

namespace rlcost::sim {

using namespace analytic_internal;

double BusiestEngineFactor(double engines, double sequences, double length_cv) {
  return perf::SlowestOfSumsFactor(engines, sequences, length_cv);
}

Result<StepTiming> AnalyticStep(const Scenario& s, const signal::Summary& sig, TextDetail detail) {
  return analytic_internal::AnalyticStepOf(s, sig, detail, false);
}

// AnalyticStep, or with `rollout_bound` its lower bound (analytic_rollout.h,
// AnalyticStepLowerBound): the single-turn rollout's time replaced by
// SingleTurnLowerBound, every other part as the step has it.
Result<StepTiming> analytic_internal::AnalyticStepOf(const Scenario& s, const signal::Summary& sig, TextDetail detail,
                                                     bool rollout_bound, const perf::MemoryPlan* known_mem) {
  const bool text = detail == TextDetail::kFull;
  std::optional<Result<perf::MemoryPlan>> planned;
  const perf::MemoryPlan* mem = known_mem;
  if (!mem) {
    planned.emplace(perf::PlanMemory(s));
    if (!*planned) return Fail(planned->error());
    mem = &**planned;
  }
  const auto& env = s.environment;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  const bool async = s.pipeline.mode == PipelineMode::kAsync && !colocated;
  const int gpus = s.hardware.gpus;
  const int rollout_gpus = colocated ? gpus : s.placement.rollout_gpus;
  const int train_gpus = colocated ? gpus : s.placement.train_gpus;
  const int tp = std::max(1, s.placement.rollout_tp);
  const double engines = std::max(1, rollout_gpus / tp);
  const Efficiency eff = perf::RolloutEfficiency(s);  // the engine's defaults derived here

  const perf::EngineConfig e = perf::RolloutEngine(s);

  StepTiming t;
  // Dynamic sampling generates in rounds, as veRL's DAPO trainer loops
  // (recipe/dapo/dapo_ray_trainer.py): each round is a batch of its own that
  // drains with its own length tail and then computes its rewards, and a step
  // runs sig.gen_rounds_per_step of them (expected). Without dynamic sampling,
  // and in a steady-state (partial-rollout) pipeline, one round of the step's rollouts.
  const bool steady = async && s.pipeline.partial_rollouts;
  const bool in_rounds = !steady && sig.rollouts_per_round > 0;
  const double rounds = in_rounds ? std::max(1.0, sig.gen_rounds_per_step) : 1.0;
  const double n_total = in_rounds ? sig.rollouts_per_round : sig.rollouts_per_step;  // one round
  const double n = n_total / engines;
  const bool multi_turn = env.turns.mean() > 1.0 + 1e-9;
  const double startup_s = env.sandbox ? env.sandbox->startup_s : 0.0;
  RolloutResult roll;
  // How long one trajectory holds its sandbox before its verification: a
  // multi-turn trajectory's container lives from its start-up to its last turn
  // (tool calls and decoding alike); a single-turn one uses a sandbox only for
  // its reward.
  double sandbox_life_s = startup_s;
  if (steady) {
    roll = SteadyState(e, s, n, InFlightPerEngine(n, s.pipeline.max_staleness), mem->kv_tokens_per_engine);
    if (multi_turn) {
      // Decode wall time of one trajectory at the steady batch: time * batch / n.
      sandbox_life_s = startup_s + std::max(0.0, env.turns.mean() - 1) * env.tool_latency_s.mean() +
                       roll.time_s * roll.mean_batch / std::max(n, 1e-9);
      // Tool time still bounds a trajectory, but other trajectories fill the batch.
      if (text) t.notes.push_back("partial rollouts: generation modelled as steady state, no length tail");
    }
  } else if (multi_turn) {
    auto mt = MultiTurn(e, s, n, n_total, mem->kv_tokens_per_engine);
    roll = mt.roll;
    sandbox_life_s = mt.sandbox_life_s;
  } else if (rollout_bound) {
    roll.time_s = SingleTurnLowerBound(e, s, n, n_total, mem->kv_tokens_per_engine);
  } else {
    roll = SingleTurn(e, s, n, n_total, mem->kv_tokens_per_engine);
  }
  perf::TailStep tail;
  if (s.pipeline.tail.Active()) {
    // docs/model.md, "Tail handling": synchronous single-turn steps only.
    const char* why = async ? "an asynchronous pipeline (pipeline.mode async already overlaps the tail)"
                      : multi_turn ? "multi-turn trajectories"
                      : in_rounds && s.algorithm.dynamic_sampling ? "dynamic sampling's generation rounds"
                                  : nullptr;
    if (why) {
      return Fail(ErrorCode::kNotImplemented, "pipeline.tail",
                  fmt::format("not yet: tail handling ({}) is priced for synchronous single-turn steps, not for {}; "
                              "use pipeline.tail: none",
                              ToString(s.pipeline.tail.mode), why));
    }
    auto tr = TailRollout(e, s, n_total, engines, mem->kv_tokens_per_engine, &tail);
    if (!tr) return Fail(tr.error());
    t.tail_active = true;
    t.tail_rollout_saved_s = roll.time_s - tr->time_s;
    roll = *tr;
    t.tail_cut_tokens = tail.cut_tokens;
    t.tail_wasted_tokens = tail.wasted_tokens;
    t.tail_dropped_share = tail.dropped_share;
    t.tail_deferred_share = tail.deferred_share;
    t.tail_long_round_share = tail.long_round_share;
    t.tail_carried_share = tail.carried_share;
    t.tail_mean_staleness = tail.mean_staleness;
    t.tail_trained_mean_tokens = tail.trained_mean_tokens;
    t.tail_launched = tail.launched;
    if (text) {
      t.notes.push_back(fmt::format(
          "tail handling {} (launch {:g}x): rounds stop at {:.0f} response tokens, {:.1f} s of generation per step "
          "saved against waiting for the longest; {:.0f} tokens per step decoded and not trained on",
          ToString(s.pipeline.tail.mode), 1 + s.pipeline.tail.over_launch, tail.cut_tokens, t.tail_rollout_saved_s,
          tail.wasted_tokens));
    }
  }
  double round_s = roll.time_s;

  // Sandbox pool: every trajectory holds a sandbox from start-up to the end of
  // its verification; at most max_concurrent are in flight, so a round lasts at
  // least its sandbox-seconds / max_concurrent, its last verification included
  // (which reward_s counts: subtracted here so that it is counted once).
  const double verify_s = env.reward.verify_s.mean();
  double sandbox_held_s = 0;  // sandbox-seconds per step
  if (env.sandbox) {
    const int slots = std::max(1, env.sandbox->max_concurrent);
    const double held_round_s = n_total * (sandbox_life_s + verify_s);
    double pool_bound_s = held_round_s / slots - verify_s;
    if (pool_bound_s > round_s) {
      if (text) t.notes.push_back(fmt::format("sandbox-bound: {} sandboxes, each held for a whole trajectory ({:.0f} s), "
                                    "need {:.0f} s per round, more than generation ({:.0f} s)",
                                    slots, sandbox_life_s + verify_s, pool_bound_s, round_s));
      round_s = pool_bound_s;
    }
    sandbox_held_s = rounds * held_round_s;
    t.sandbox_cpu_s = sandbox_held_s * env.sandbox->cpus_per_rollout;
    // Analytic: a round's trajectories may all be in flight at once (they start together).
    t.sandbox_peak_in_use = std::min<double>(slots, std::ceil(n_total));
  }
  if (rounds != 1.0) {
    roll.time_s *= rounds;
    roll.flops *= rounds;
    roll.decode_tokens *= rounds;
    roll.prefill_tokens *= rounds;
    if (text) t.notes.push_back(fmt::format("dynamic sampling: {:.2f} generation rounds of {:.0f} rollouts per step, each a "
                                  "batch with its own length tail and rewards",
                                  rounds, n_total));
  }
  double rollout_side_s = rounds * round_s;
  // Spot rollout GPUs (docs/model.md, "Spot GPUs"): preemptions take u of the
  // pool's capacity, so its work takes 1 / (1 - u) as long. A rollout is in
  // flight for the whole batch when the batch starts together; in a steady
  // pipeline, for its own decode time (time x batch / n, as the sandbox's life).
  if (s.hardware.spot.Rollout() && !colocated) {
    const double in_flight_s = steady ? roll.time_s * roll.mean_batch / std::max(n, 1e-9) : round_s;
    const double u = perf::SpotRolloutLostShare(s, in_flight_s);
    if (!(u < 1.0)) {
      return Fail(ErrorCode::kInvalidInput, "hardware.spot.rollout.preemptions_per_hour",
                  fmt::format("{:g} preemptions per node-hour with {:.0f} s lost to each (restart {:.0f} s + half a "
                              "rollout of {:.0f} s) leave the rollout pool no time to work; expected fewer "
                              "preemptions or a shorter restart_s",
                              s.hardware.spot.rollout->preemptions_per_hour, perf::SpotRolloutRestartS(s) + in_flight_s / 2,
                              perf::SpotRolloutRestartS(s), in_flight_s));
    }
    t.spot_lost_share = u;
    t.spot_lost_s = rollout_side_s * u / (1.0 - u);
    rollout_side_s += t.spot_lost_s;
    if (text) t.notes.push_back(fmt::format(
        "spot rollout GPUs: {:g} preemptions per node-hour, each losing {:.0f} s of restart and half a rollout in "
        "flight ({:.0f} s): {:.2f}% of the pool's time redone, +{:.1f} s of generation per step",
        s.hardware.spot.rollout->preemptions_per_hour, perf::SpotRolloutRestartS(s), in_flight_s, u * 100,
        t.spot_lost_s));
  }
  // Rewards overlap generation except for each round's last verification.
  t.reward_s = rounds * verify_s;

  // Trainer side.
  const double traj_tokens = perf::MeanTrajectoryTokens(s);
  t.rollouts_generated = n_total * rounds;
  t.rollouts_trained = sig.rollouts_trained_per_step;
  t.trained_tokens = t.rollouts_trained * traj_tokens;
  if (t.tail_active) {
    // over_provision trains on the responses that finished first (shorter).
    t.rollouts_generated = tail.launched;
    t.trained_tokens = t.rollouts_trained * (traj_tokens - tail.none_mean_tokens + tail.trained_mean_tokens);
  }
  t.generated_tokens = roll.decode_tokens * engines;
  t.prefill_tokens = roll.prefill_tokens * engines;
  // The log-prob, reference and value passes are one forward pass of the
  // policy's size over the same tokens: computed once (a pure function of the
  // same arguments, so the same bits) and used by each that runs.
  const bool forward_needed = s.algorithm.recompute_logprobs || s.algorithm.reference_model || s.algorithm.critic;
  const perf::Work forward =
      forward_needed ? perf::ForwardPass(s, t.trained_tokens, traj_tokens, train_gpus) : perf::Work{};
  auto logprob = s.algorithm.recompute_logprobs ? forward : perf::Work{};
  auto reference = s.algorithm.reference_model ? forward : perf::Work{};
  auto update = perf::TrainStep(s, t.trained_tokens, traj_tokens, train_gpus);
  double critic_s = 0, critic_flops = 0;
  if (s.algorithm.critic) {
    // PPO with a critic of the policy's size: a value forward and a critic update.
    const perf::Work& v = forward;
    critic_s = update.time_s + v.time_s;
    critic_flops = (update.flops + v.flops) * train_gpus;
  }
  perf::WeightSyncParts sync = perf::WeightSync(s);
  perf::ChargeRefitOffloadOut(s, *mem, sync);
  double sync_s = sync.total_s;
  t.sync_parts = sync;
  if (text) t.notes.push_back(perf::DescribeWeightSync(s, sync));
  t.overhead_s = eff.step_overhead_s;
  t.offload_s = perf::OffloadTime(s, *mem);
  t.refit_offload_s = perf::RefitOffloadTime(s, *mem);
  if (t.refit_offload_s > 0) {
    if (text) t.notes.push_back(fmt::format("the optimizer states ({:.1f} GB per GPU) go to host memory inside each weight sync "
                                  "({:.1f} s, part of step.weight_sync_s) and come back before the update ({:.1f} s), {} "
                                  "(placement.refit_offload: none keeps them on the GPU)",
                                  perf::RefitOffloadGb(s, *mem), sync.offload_s, t.refit_offload_s,
                                  s.placement.refit_offload == RefitOffload::kPinned
                                      ? "over PCIe from pinned memory"
                                      : "tensor by tensor through pageable memory (NeMo RL)"));
  }
  if ((s.placement.offload.params || s.placement.offload.optimizer) && !mem->train_state_offloaded) {
    if (text) t.notes.push_back(fmt::format("placement.offload: {} moved to host memory between phases and back, {:.2f} s per "
                                  "step over PCIe",
                                  s.placement.offload.params && s.placement.offload.optimizer
                                      ? "parameters and optimizer states"
                                      : (s.placement.offload.params ? "parameters" : "optimizer states"),
                                  t.offload_s - perf::HostTransferTime(*mem) - t.refit_offload_s));
  }
  if (mem->train_state_offloaded) {
    if (text) t.notes.push_back(fmt::format("the training state ({:.1f} GB per GPU{}) does not fit beside the inference "
                                  "engine: it is moved to host memory while generating ({:.1f} s per step over PCIe)",
                                  mem->train_state_gb + mem->critic_state_gb + mem->reference_gb,
                                  std::string(mem->critic_state_gb > 0 ? ", critic included" : "") +
                                      (mem->reference_gb > 0 ? ", reference included" : ""),
                                  t.offload_s - t.refit_offload_s));
  }
  if (mem->optimizer_offloaded) {
    if (text) t.notes.push_back("optimizer states do not fit on the training GPUs: kept in host memory (ZeRO-Offload)");
  }
  t.train_busy_s = logprob.time_s + reference.time_s + update.time_s + critic_s;

  t.rollout_flops = roll.flops * tp * engines;
  t.train_flops = (update.flops * train_gpus) + critic_flops;
  t.other_flops = (logprob.flops + reference.flops) * train_gpus;
  t.rollout_gpus = rollout_gpus;
  t.mean_batch = roll.mean_batch;
  t.kv_capacity_sequences = mem->kv_tokens_per_engine / std::max(traj_tokens, 1.0);

  if (!async) {
    // Sync: rollout, rewards, log-prob and reference passes, update, sync, in turn.
    t.rollout_s = rollout_side_s;
    t.logprob_s = logprob.time_s;
    t.reference_s = reference.time_s;
    t.train_s = update.time_s + critic_s;
    t.weight_sync_s = sync_s;
    t.other_s = t.logprob_s + t.reference_s + t.weight_sync_s + t.reward_s + t.overhead_s + t.offload_s;
    t.time_s = t.rollout_s + t.train_s + t.other_s;
    t.rollout_busy_s = rollout_side_s;
    if (colocated) {
      t.gpu_s_rollout = t.rollout_s * gpus;
      t.gpu_s_train = t.train_s * gpus;
      t.gpu_s_other = t.other_s * gpus;
      t.gpu_s_idle = 0;
    } else {
      // Disaggregated but synchronous: each side waits while the other works.
      t.gpu_s_rollout = t.rollout_s * rollout_gpus;
      t.gpu_s_train = t.train_s * train_gpus;
      t.gpu_s_other = (t.logprob_s + t.reference_s) * train_gpus + (t.weight_sync_s) * gpus;
      t.gpu_s_idle = t.time_s * gpus - t.gpu_s_rollout - t.gpu_s_train - t.gpu_s_other;
    }
  } else {
    // Async, staleness k: the two sides overlap; the step is set by the slower
    // side plus the weight sync that pauses generation. k < 1 overlaps only
    // part of the faster side: step = max + (1 - k) * min.
    double k = std::clamp(s.pipeline.max_staleness, 0.0, 1.0);
    double rside = rollout_side_s + t.reward_s;
    double tside = t.train_busy_s + t.overhead_s + t.offload_s;
    double slow = std::max(rside, tside), fast = std::min(rside, tside);
    t.time_s = slow + (1.0 - k) * fast + sync_s;
    t.weight_sync_s = sync_s;
    t.rollout_busy_s = rollout_side_s;
    if (rside >= tside) {
      t.rollout_s = rollout_side_s;
      t.train_s = (1.0 - k) * (update.time_s + critic_s);
      t.logprob_s = (1.0 - k) * logprob.time_s;
      t.reference_s = (1.0 - k) * reference.time_s;
      if (text) t.notes.push_back(fmt::format("rollout-bound: the trainer is busy {:.1f} s of each {:.1f} s step", tside,
                                    t.time_s));
    } else {
      t.rollout_s = (1.0 - k) * rollout_side_s;
      t.reward_s = (1.0 - k) * t.reward_s;
      t.train_s = update.time_s + critic_s;
      t.logprob_s = logprob.time_s;
      t.reference_s = reference.time_s;
      if (text) t.notes.push_back(fmt::format("train-bound: rollout GPUs generate {:.1f} s of each {:.1f} s step",
                                    rside, t.time_s));
    }
    t.other_s = t.time_s - t.rollout_s - t.train_s;
    t.overhead_s = std::max(0.0, t.other_s - t.logprob_s - t.reference_s - t.weight_sync_s - t.reward_s);
    t.gpu_s_rollout = rollout_side_s * rollout_gpus;
    t.gpu_s_train = (update.time_s + critic_s) * train_gpus;
    t.gpu_s_other = (logprob.time_s + reference.time_s) * train_gpus + sync_s * gpus;
    t.gpu_s_idle = std::max(0.0, t.time_s * gpus - t.gpu_s_rollout - t.gpu_s_train - t.gpu_s_other);
  }
  if (env.sandbox) t.sandbox_mean_in_use = t.time_s > 0 ? sandbox_held_s / t.time_s : 0;
  if (s.pipeline.mode == PipelineMode::kAsync && colocated) {
    if (text) t.notes.push_back("pipeline.mode async with colocated placement runs synchronously: rollout and training "
                      "share the same GPUs");
  }
  return t;
}

}  // namespace rlcost::sim
