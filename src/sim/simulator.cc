// The discrete-event simulation of the RL loop (docs/model.md, "The
// event simulator"): set-up, the event loop and the result. The simulator's state
// and its other parts: sim/simulator_internal.h.
#include "sim/simulator_internal.h"

#include "rlcost/tail.h"

#include "core/cancel.h"
#include "core/strings.h"

namespace rlcost::sim {
namespace internal {

// ---------------------------------------------------------------------------
// Setup

Result<void> Simulator::Setup() {
  steps_ = opt_.steps > 0 ? opt_.steps : s_.algorithm.steps;
  if (steps_ <= 0) return Fail(ErrorCode::kInvalidInput, "algorithm.steps", "need at least one step to simulate");
  double gen = sig_.rollouts_per_step > 0 ? sig_.rollouts_per_step
                                          : double(s_.algorithm.prompts_per_step) * s_.algorithm.group_size;
  if (!(gen >= 1) || gen > kMaxRolloutsPerStep) {
    return Fail(ErrorCode::kInvalidInput, "signal.rollouts_per_step",
                fmt::format("{:.4g} rollouts per step cannot be simulated (1 to {:.0f})", gen, kMaxRolloutsPerStep));
  }
  g_ = static_cast<int>(std::llround(gen));
  if (s_.pipeline.tail.Active()) {
    // pipeline.tail (sim/tail_step.cc): a step launches more than it trains.
    tail_ = true;
    tail_spec_ = s_.pipeline.tail;
    tail_group_ = std::max(1, s_.algorithm.group_size);
    tail_prompts_ = std::max(1, s_.algorithm.prompts_per_step);
    tail_trained_n_ = tail_prompts_ * tail_group_;
    tail_per_prompt_ = perf::TailResponsesPerPrompt(tail_spec_, tail_group_);
    const double f = tail_spec_.over_launch;
    if (tail_spec_.mode == TailMode::kPartialRollout) {
      g_ = std::max(tail_trained_n_, static_cast<int>(std::lround(tail_trained_n_ * (1 + f))));
    } else {
      const int launch = std::max(tail_prompts_, static_cast<int>(std::lround(tail_prompts_ * (1 + f))));
      g_ = launch * tail_per_prompt_;
    }
    gen = g_;
  }
  // The simulator keeps a record per trajectory (its time and tokens, for
  // the percentiles) and takes about 1 us of CPU per single-turn trajectory
  // (default.yaml: 3.1e6 trajectories in 2.7 s, 55 MB). Bounded up front
  // instead of running for hours or exhausting memory.
  if (double(steps_) * gen > kMaxSimulatedTrajectories) {
    const bool from_cli = opt_.steps > 0;
    return Fail(ErrorCode::kInvalidInput, from_cli ? "steps" : "algorithm.steps",
                fmt::format("{} steps x {:.0f} rollouts = {:.3g} trajectories; the simulator handles at most {:.0e} "
                            "(about a minute and 1 GB); simulate fewer steps{}",
                            steps_, gen, double(steps_) * gen, kMaxSimulatedTrajectories,
                            from_cli ? "" : " with `steps` (the per-step figures do not need the whole run)"));
  }
  g_div_ = IdDivider(g_);
  double trained = sig_.rollouts_trained_per_step > 0 ? sig_.rollouts_trained_per_step : gen;
  trained_ratio_ = std::min(1.0, trained / gen);

  const auto& pl = s_.placement;
  gpus_ = s_.hardware.gpus;
  pipelined_ = pl.mode == PlacementMode::kDisaggregated;
  rollout_gpus_ = pipelined_ ? pl.rollout_gpus : gpus_;
  train_gpus_ = pipelined_ ? pl.train_gpus : gpus_;
  tp_ = std::max(1, pl.rollout_tp);
  n_engines_ = rollout_gpus_ / tp_;
  if (n_engines_ > kMaxEngines) {
    return Fail(ErrorCode::kInvalidInput, "hardware.gpus",
                fmt::format("{} inference engines; the simulator models each one (about 2.4 kB and its own events) "
                            "and handles at most {}; use `rlcost estimate` for larger clusters",
                            n_engines_, kMaxEngines));
  }
  if (n_engines_ < 1) {
    return Fail(ErrorCode::kDoesNotFit, "placement.rollout_tp",
                fmt::format("{} rollout GPUs cannot hold one engine of tensor-parallel size {}", rollout_gpus_, tp_));
  }
  if (train_gpus_ < 1) return Fail(ErrorCode::kDoesNotFit, "placement.train_gpus", "no GPUs to train on");
  if (rollout_gpus_ % tp_ != 0) {
    notes_.push_back(fmt::format("{} rollout GPUs are not a multiple of rollout_tp {}: {} stay idle",
                                 rollout_gpus_, tp_, GpuCount(rollout_gpus_ % tp_)));
  }
  const auto& pp = s_.pipeline;
  if (pp.mode == PipelineMode::kAsync && !pipelined_) {
    notes_.push_back("an async pipeline needs disaggregated placement: simulated as sync colocated");
  }
  async_ = pipelined_ && pp.mode == PipelineMode::kAsync;
  // Sync on disaggregated GPUs is the pipelined loop with staleness 0.
  staleness_ = async_ ? std::clamp(pp.max_staleness, 0.0, double(steps_)) : 0.0;
  partial_ = async_ && pp.partial_rollouts;
  lockstep_ = pp.dispatch == Dispatch::kLockstep;
  has_sandbox_ = s_.environment.sandbox.has_value();
  if (has_sandbox_) {
    sandbox_ = *s_.environment.sandbox;
    if (sandbox_.max_concurrent < 1) {
      return Fail(ErrorCode::kInvalidInput, "environment.sandbox.max_concurrent", "need at least one sandbox slot");
    }
    sandboxes_.Reset(sandbox_.max_concurrent);
  }
  tool_workers_.Reset(std::max(0, s_.environment.tool_concurrency));

  auto mem = perf::PlanMemory(s_);
  if (!mem) return tl::unexpected(mem.error());
  kv_tokens_ = mem->kv_tokens_per_engine;
  total_blocks_ = static_cast<int64_t>(std::floor(kv_tokens_ / double(kBlockTokens)));
  if (total_blocks_ < 1) {
    return Fail(ErrorCode::kDoesNotFit, "memory",
                fmt::format("the KV budget holds {:.0f} tokens per engine: not one 16-token block", kv_tokens_));
  }
  watermark_blocks_ = static_cast<int64_t>(std::floor(kWatermarkFraction * double(total_blocks_)));

  ec_ = perf::RolloutEngine(s_);
  prefill_.emplace(ec_);
  sync_parts_ = perf::WeightSync(s_);
  perf::ChargeRefitOffloadOut(s_, *mem, sync_parts_);
  sync_s_ = sync_parts_.total_s;
  notes_.push_back(perf::DescribeWeightSync(s_, sync_parts_));
  overhead_s_ = s_.hardware.gpu.efficiency.step_overhead_s;
  offload_s_ = perf::OffloadTime(s_, *mem);
  refit_offload_s_ = perf::RefitOffloadTime(s_, *mem);
  seed_ = opt_.seed;
  hold_sandbox_ = has_sandbox_ && s_.environment.turns.mean() > 1.0 + 1e-9;
  rounds_mode_ = s_.algorithm.dynamic_sampling && !pipelined_ && sig_.rollouts_per_round >= 1;
  if (rounds_mode_) {
    g_ = static_cast<int>(std::llround(sig_.rollouts_per_round));
    g_div_ = IdDivider(g_);
    trained_per_step_ = trained;
    DrawRounds();
    if (double(total_rounds_) * g_ > double(std::numeric_limits<int32_t>::max())) {
      return Fail(ErrorCode::kInvalidInput, "algorithm.steps",
                  fmt::format("{} steps x {:.2f} generation rounds x {} rollouts are too many to simulate; "
                              "simulate fewer steps",
                              steps_, double(total_rounds_) / steps_, g_));
    }
  } else if (s_.algorithm.dynamic_sampling && pipelined_) {
    notes_.push_back(fmt::format("dynamic sampling on disaggregated GPUs: the step's {:.0f} rollouts ({:.2f} rounds' "
                                 "worth) are simulated as one stream, not round by round",
                                 gen, sig_.gen_rounds_per_step));
  }

  engines_.resize(n_engines_);
  timers_.Reset(n_engines_);
  least_loaded_.Reset(n_engines_);
  for (int e = 0; e < n_engines_; ++e) engines_[e].id = e;
  // A staleness past the run's length never binds: cap it there before it
  // sizes the batch list (1e9 would ask for 1e9 batches).
  int extra = async_ ? static_cast<int>(std::ceil(std::min(staleness_, double(steps_)))) + 1 : 0;
  batches_.resize(rounds_mode_ ? size_t(total_rounds_) : size_t(steps_ + extra));
  for (int b = 0; b < static_cast<int>(batches_.size()); ++b) batches_[b].index = b;
  max_start_ = int64_t(batches_.size()) * g_;
  SetUpDraws();
  traj_time_.reserve(size_t(std::min<int64_t>(max_start_, 4000000)));
  traj_tokens_.reserve(traj_time_.capacity());
  q_.Reserve(1024);
  // Model verifiers as engine work (sim/judge.h); failed trajectories are not judged.
  if (auto ok = judges_.Setup(s_, gen * (1.0 - s_.environment.failures.rate), pipelined_); !ok) return ok;
  if (!judges_.not_simulated().empty()) notes_.push_back(judges_.not_simulated());

  if (!opt_.trace_path.empty()) {
    if (auto ok = trace_.Open(opt_.trace_path); !ok) return ok;
    for (int e = 0; e < n_engines_; ++e) trace_.ThreadName(e + 1, fmt::format("engine {} (tp {})", e, tp_));
    trace_.ThreadName(n_engines_ + 1, "trainer");
    trace_.ThreadName(n_engines_ + 2, "sandbox pool");
  }
  return {};
}

// Dynamic sampling, as veRL's DAPO trainer loops (recipe/dapo/dapo_ray_trainer.py):
// a round generates g_ / G groups, each informative with probability q
// (signal::Summary); rounds go on until prompts_per_step informative groups are
// kept, or max_gen_batches rounds. The rounds of every step are drawn up front
// from their own stream, so they do not depend on the order of events.
void Simulator::DrawRounds() {
  const auto& alg = s_.algorithm;
  const int need = alg.prompts_per_step;
  const int per_round = std::max(1, static_cast<int>(std::llround(double(g_) / std::max(1, alg.group_size))));
  const double q = sig_.informative_group_probability;
  rounds_.assign(steps_, 1);
  if ((sig_.full_batch_impractical && alg.max_gen_batches <= 0) || !(q > 0)) {
    // The costing cap of signal (kMaxOversampling): a fixed number of rounds.
    const int r = std::max(1, static_cast<int>(std::llround(sig_.gen_rounds_per_step)));
    std::fill(rounds_.begin(), rounds_.end(), r);
  } else {
    std::mt19937_64 rng(SplitMix64(seed_ ^ 0xD1A9500000000000ULL));
    std::binomial_distribution<int> informative(per_round, std::min(1.0, q));
    for (int& r : rounds_) {
      int found = 0;
      r = 0;
      do {
        found += informative(rng);
        ++r;
      } while (found < need && (alg.max_gen_batches <= 0 || r < alg.max_gen_batches));
    }
  }
  total_rounds_ = 0;
  for (int r : rounds_) total_rounds_ += r;
}

// ---------------------------------------------------------------------------
// The event loop

bool Simulator::NextEvent() {
  if ((events_ & 1023) == 0 && !too_long_ && CancelRequested()) too_long_ = CancelledError();
  double te = timers_.top_time();
  if (te < EngineTimers::kNever && (q_.empty() || te <= q_.top_time())) {
    int e = timers_.top();
    now_ = te;
    ++events_;
    // The engine's timer is not cleared here: its handler always ends by
    // setting it (Plan: the next segment's end, or kNever when it goes idle;
    // EndSegment: the pause's end), so one tree update instead of two. Only
    // NextEvent reads the tree, after the handler.
    Engine& en = engines_[e];
    if (en.resume_pending) {
      en.resume_pending = false;
      ResumeEngine(e);
    } else {
      EndSegment(e);
    }
    return true;
  }
  if (q_.empty()) return false;
  Event ev = q_.Pop();
  now_ = ev.t;
  ++events_;
  // The next calendar event is usually a trajectory's (a tool's return, a
  // verification) at a random place in its batch's arrays (issue 41: ~15 MB
  // on a 1,024-GPU agentic run): start loading it now, while this one and
  // the engine events before it are handled.
  if (!q_.empty()) {
    const EventType nt = q_.top_type();
    if (nt == EventType::kToolDone || nt == EventType::kVerifyDone || nt == EventType::kSandboxReady) {
      const int32_t id = q_.top_a();
      const int32_t nbi = BatchOf(id);
      const Batch& nb = batches_[nbi];
      if (!nb.trajs.empty()) {
        const Traj& nt_traj = nb.trajs[IndexIn(id, nbi)];
        __builtin_prefetch(&nt_traj);
        __builtin_prefetch(reinterpret_cast<const char*>(&nt_traj) + 64);
      }
    }
  }
  (void)Dispatch(ev);
  return true;
}

Result<void> Simulator::Dispatch(const Event& ev) {
  switch (ev.type) {
    case EventType::kEngineSegmentEnd:
    case EventType::kEngineResume:
      break;  // engine events live in timers_
    case EventType::kToolDone:
      if (has_sandbox_ && !hold_sandbox_) {
        ReleaseSandbox();
      } else if (tool_workers_.slots() > 0) {
        ReleaseToolSlot();
      }
      ReturnFromTool(ev.a);
      break;
    case EventType::kSandboxReady: {
      Traj& t = T(ev.a);
      Engine& en = engines_[t.engine];
      --en.out;
      t.state = TrajState::kWaiting;
      en.waiting.push_back(ev.a);
      Kick(t.engine);
      break;
    }
    case EventType::kVerifyDone: {
      if (has_sandbox_) ReleaseSandbox();
      const TrajBatch r = TB(ev.a);
      Engine& en = engines_[r.t.engine];
      --en.out;
      int e = r.t.engine;
      Rewarded(ev.a, r);
      Reclassify(e);
      break;
    }
    case EventType::kTrainerPhaseEnd:
      update_pending_ = true;
      if (partial_ || inflight_total_ == 0) {
        StartSync();
      } else {
        trainer_ = TrainerPhase::kWaitSync;
        trainer_since_ = now_;
        ReclassifyAll();
      }
      break;
    case EventType::kSyncEnd:
      ++version_;
      update_pending_ = false;
      if (Tracing()) trace_.Span(n_engines_ + 1, "weight sync", trainer_since_, now_);
      trainer_ = TrainerPhase::kOverhead;
      trainer_since_ = now_;
      sum_overhead_s_ += overhead_s_;
      gpu_s_other_ += overhead_s_ * train_gpus_;
      if (overhead_s_ > 0) {
        q_.Push(now_ + overhead_s_, EventType::kOverheadEnd, 0);
      } else {
        StepDone();
      }
      TryStart();
      ReclassifyAll();
      break;
    case EventType::kOverheadEnd:
      if (Tracing()) trace_.Span(n_engines_ + 1, "overhead", trainer_since_, now_);
      StepDone();
      break;
    case EventType::kJudgeOpen:
    case EventType::kJudgeSegmentEnd:
      JudgeEvent(ev);
      break;
  }
  return {};
}

// ---------------------------------------------------------------------------
// The run and its result

Result<SimResult> Simulator::Run() {
  if (auto ok = Setup(); !ok) return tl::unexpected(ok.error());
  if (pipelined_) {
    if (auto ok = RunPipelined(); !ok) return tl::unexpected(ok.error());
  } else {
    if (auto ok = RunSyncColocated(); !ok) return tl::unexpected(ok.error());
  }
  if (auto ok = trace_.Close(); !ok) return tl::unexpected(ok.error());

  const double n = double(steps_);
  SimResult r;
  StepTiming& st = r.mean_step;
  st.time_s = end_time_ / n;
  st.train_s = sum_train_s_ / n;
  st.logprob_s = sum_lp_s_ / n;
  st.reference_s = sum_ref_s_ / n;
  st.weight_sync_s = (sum_sync_s_ + sum_sync_wait_s_) / n;
  st.reward_s = sum_reward_s_ / n;
  st.overhead_s = sum_overhead_s_ / n;
  st.offload_s = sum_offload_s_ / n;
  st.refit_offload_s = offload_s_ > 0 ? st.offload_s * refit_offload_s_ / offload_s_ : 0.0;
  st.sync_parts = sync_parts_;
  st.other_s = st.logprob_s + st.reference_s + st.weight_sync_s + st.reward_s + st.overhead_s + st.offload_s;
  // Sync: the rollout phase as measured. Pipelined: what the trainer waited
  // for rollouts, i.e. the rollout time not hidden behind training.
  st.rollout_s = sum_rollout_s_ / n;
  st.rollout_gpus = rollout_gpus_;
  double busy = 0, batch = 0, blocks = 0, pause = 0;
  for (const Engine& en : engines_) {
    busy += en.busy_s;
    batch += en.batch_s;
    blocks += en.blocks_s;
    pause += en.pause_s;
  }
  st.rollout_busy_s = pipelined_ ? busy / n_engines_ / n : sum_rollout_busy_s_ / n;
  st.train_busy_s = st.train_s + st.logprob_s + st.reference_s;
  if (pipelined_) {
    // Each side as measured: engines' busy time, the trainer's phases, the
    // rollout GPUs' weight-sync pauses; the rest is idle.
    st.gpu_s_rollout = busy * tp_ / n;
    st.gpu_s_train = gpu_s_train_ / n;
    st.gpu_s_other = (gpu_s_other_ + pause * tp_) / n;
    st.gpu_s_idle = std::max(0.0, st.time_s * gpus_ - st.gpu_s_rollout - st.gpu_s_train - st.gpu_s_other);
  } else {
    // Colocated: by phase, less the engines' idle time by cause (an engine
    // with nothing to decode while the step waits for its last sequences,
    // tools or rewards): gpu_s_idle is the sum of SimResult's idle causes.
    st.gpu_s_rollout = st.rollout_s * gpus_ - idle_in_rollout_ / n;
    st.gpu_s_train = st.train_s * gpus_;
    st.gpu_s_other = st.other_s * gpus_ - idle_in_reward_ / n;
    st.gpu_s_idle = (idle_in_rollout_ + idle_in_reward_) / n;
  }
  st.rollout_flops = rollout_flops_ / n;
  st.train_flops = train_flops_ / n;
  st.other_flops = other_flops_ / n;
  st.rollouts_generated = rounds_mode_ ? double(total_rounds_) * g_ / n : g_;
  st.rollouts_trained = rounds_mode_ ? std::min(trained_per_step_, st.rollouts_generated) : g_ * trained_ratio_;
  st.generated_tokens = gen_tokens_ / n;
  st.prefill_tokens = prefill_tokens_ / n;
  st.trained_tokens = trained_tokens_ / n;
  if (has_sandbox_) {
    now_ = std::max(now_, end_time_);
    sandboxes_.Close(now_);  // close the integral of sandboxes in use
    st.sandbox_peak_in_use = sandboxes_.peak();
    st.sandbox_mean_in_use = end_time_ > 0 ? sandboxes_.busy_s() / end_time_ : 0;
  }
  st.sandbox_cpu_s = has_sandbox_ ? sandboxes_.busy_s() * sandbox_.cpus_per_rollout / n : 0;
  st.mean_batch = busy > 0 ? batch / busy : 0;
  // Sequences the KV budget holds at the mean final context of a trajectory.
  const double ctx_sum = perf::MeanTrajectoryTokens(s_);
  st.kv_capacity_sequences = ctx_sum > 0 ? kv_tokens_ / ctx_sum : 0;
  st.notes = notes_;
  if (preemptions_ > 0) {
    st.notes.push_back(fmt::format("KV cache full: {:.1f} preemptions per step (recomputed)", preemptions_ / n));
  }
  if (sandboxes_.wait_s() > 0) {
    st.notes.push_back(fmt::format("sandbox pool saturated: trajectories queue {:.1f} s per step for a slot",
                                   sandboxes_.wait_s() / n));
  }
  if (tool_workers_.wait_s() > 0) {
    st.notes.push_back(fmt::format("tool pool saturated (environment.tool_concurrency {}): tool calls queue {:.1f} s "
                                   "per step, summed over trajectories",
                                   tool_workers_.slots(), tool_workers_.wait_s() / n));
  }
  if (pipelined_ && st.rollout_s > 0.05 * st.time_s) {
    st.notes.push_back(fmt::format("rollout-bound: the trainer waits {:.1f} s per step for rollouts", st.rollout_s));
  }

  r.idle_waiting_judge_gpu_s = idle_judge_ / n;
  if (judges_.active()) {
    // The judges as the events ran them: their work is `other` GPU time (and
    // its dollars the verifier's); dedicated judge GPUs join the run's.
    const Judges::Totals& jt = judges_.totals();
    r.judge_simulated = true;
    r.judge_calls = jt.calls / n;
    r.judge_busy_gpu_s = (judge_shared_gpu_s_ + jt.dedicated_gpu_s) / n;
    r.judge_phase_s = judge_phase_s_ / n;
    r.judge_queue_wait_s = jt.calls > 0 ? jt.queue_wait_s / jt.calls : 0;
    r.judge_max_queue = jt.max_queue;
    st.verifier_calls = r.judge_calls;
    st.gpu_s_reward = r.judge_busy_gpu_s;
    st.verifier_shared_s = r.judge_phase_s;
    st.other_flops += jt.flops / n;
    if (const int dg = judges_.dedicated_gpus(); dg > 0) {
      st.verifier_gpus = dg;
      st.gpu_s_other += jt.dedicated_gpu_s / n;
      r.idle_judge_pool_gpu_s = std::max(0.0, st.time_s * dg - jt.dedicated_gpu_s / n);
      st.gpu_s_idle += r.idle_judge_pool_gpu_s;
    }
    for (const Judges::PoolInfo& p : judges_.Pools()) {
      const double busy_s = p.busy_gpu_s / std::max(1, p.gpus) / n;
      st.notes.push_back(fmt::format(
          "verifier (simulated): {} answers {:.0f} calls per step on {} {} GPU{} ({} engine{} of tp {}, {:.0f}k "
          "tokens of KV each): busy {:.1f} s per GPU per step{}; a call waits {:.2f} s on average for a place in "
          "a batch",
          p.what, p.calls / n, p.gpus, p.shared ? "of the policy's" : "dedicated", p.gpus == 1 ? "" : "s",
          p.engines, p.engines == 1 ? "" : "s", p.tp, p.kv_tokens / 1e3, busy_s,
          p.shared ? fmt::format(" (loading its weights {:.1f} s included)", p.weight_load_s) : std::string(),
          p.calls > 0 ? p.queue_wait_s / p.calls : 0.0));
    }
    if (!pipelined_) {
      st.notes.push_back(fmt::format(
          "verifier (simulated): the step waits {:.1f} s after generation for its rewards{}", st.reward_s,
          judges_.any_shared() ? fmt::format(", {:.1f} s of it judging on the policy's GPUs", r.judge_phase_s)
                               : std::string()));
    } else if (st.reward_s > 0.05 * st.time_s) {
      st.notes.push_back(fmt::format("verifier (simulated): the trainer waits {:.1f} s per step for judges after "
                                     "its batch is generated",
                                     st.reward_s));
    }
  }
  if (tail_) {
    // Per step, as the closed form's TailStep (docs/model.md, "Tail handling").
    st.tail_active = true;
    st.tail_cut_tokens = tail_short_rounds_ > 0 ? tail_cut_sum_ / tail_short_rounds_ : 0;
    st.tail_wasted_tokens = tail_wasted_ / n;
    st.tail_launched = tail_launched_ / n;
    st.tail_dropped_share = tail_launched_ > 0 ? tail_dropped_ / tail_launched_ : 0;
    st.tail_long_round_share = tail_long_rounds_ / n;
    st.tail_deferred_share = tail_deferred_ / std::max(1.0, tail_deferred_ + tail_short_rounds_ * tail_prompts_);
    st.tail_carried_share = tail_trained_sum_ > 0 ? tail_old_ / tail_trained_sum_ : 0;
    st.tail_mean_staleness = tail_trained_sum_ > 0 ? tail_age_sum_ / tail_trained_sum_ : 0;
    st.tail_trained_mean_tokens = tail_trained_sum_ > 0 ? tail_trained_len_ / tail_trained_sum_ : 0;
    st.rollouts_trained = tail_trained_sum_ / n;
    st.rollouts_generated = tail_launched_ / n;  // started afresh (carried ones were counted when they started)
    st.notes.push_back(fmt::format(
        "tail handling {} (simulated, launch {:g}x): rounds stop at {:.0f} response tokens on average, {:.0f} "
        "tokens per step decoded and not trained on",
        ToString(tail_spec_.mode), 1 + tail_spec_.over_launch, st.tail_cut_tokens, st.tail_wasted_tokens));
  }
  r.trajectory_time_s = Percentile::Of(traj_time_);
  r.trajectory_tokens = Percentile::Of(traj_tokens_);
  r.idle_length_tail_gpu_s = idle_tail_ / n;
  r.idle_waiting_trainer_gpu_s = idle_trainer_ / n;
  r.idle_tools_gpu_s = idle_tools_ / n;
  r.idle_weight_sync_gpu_s = idle_sync_ / n;
  r.idle_waiting_rollout_gpu_s = idle_wait_rollout_ / n;
  r.length_tail_underfill_gpu_s = underfill_ / n;
  r.sandbox_wait_s = sandboxes_.wait_s() / n;
  r.mean_batch_occupancy = busy > 0 ? blocks / busy / double(total_blocks_) : 0;
  r.events = events_;
  r.steps_simulated = steps_;
  r.seed = seed_;
  r.preemptions = preemptions_ / n;
  r.engines = n_engines_;
  r.kv_blocks_per_engine = double(total_blocks_);
  return r;
}

}  // namespace internal

int SteadyWarmupSteps(const Scenario& s) {
  // The pipeline fills over the steps its staleness allows (the first
  // batches are generated before the trainer has anything to do); one more
  // step holds the first weight sync. A synchronous run: its first step.
  const double stale = s.pipeline.mode == PipelineMode::kAsync ? std::max(0.0, s.pipeline.max_staleness) : 0.0;
  return static_cast<int>(std::ceil(std::min(stale, 1e6))) + 2;
}

// Each per-step total of a run of n steps on the line through the totals of
// runs of w.warmup and r steps: a run's total is a fixed part (the warm-up,
// the drain at the end) plus a steady cost per step, so
//   total(n) = total(k) + (n - k) (total(k) - total(w)) / (k - w)
// and the per-step figure is total(n) / n: an affine mix of the two runs'
// per-step figures with weights a and 1 - a, a = k (n - w) / (n (k - w)).
// Linear identities between the figures (time = rollout + train + other,
// GPU time = wall x GPUs) hold for the mix. Ratios that are not per-step
// totals (mean batch, KV capacity, shares, percentiles, peaks) are the
// longer run's.
void ExtrapolateSteps(SimResult& r, const SimResult& w, int n) {
  const double k = r.steps_simulated, ws = w.steps_simulated;
  const double a = k * (n - ws) / (double(n) * (k - ws));
  auto mix = [&](double& x, double y) { x = a * x + (1 - a) * y; };
  StepTiming& t = r.mean_step;
  const StepTiming& u = w.mean_step;
  for (auto f : {&StepTiming::time_s, &StepTiming::rollout_s, &StepTiming::train_s, &StepTiming::other_s,
                 &StepTiming::logprob_s, &StepTiming::reference_s, &StepTiming::weight_sync_s,
                 &StepTiming::reward_s, &StepTiming::overhead_s, &StepTiming::offload_s,
                 &StepTiming::refit_offload_s, &StepTiming::gpu_s_rollout, &StepTiming::gpu_s_train,
                 &StepTiming::gpu_s_other, &StepTiming::gpu_s_idle, &StepTiming::rollout_busy_s,
                 &StepTiming::train_busy_s, &StepTiming::rollout_flops, &StepTiming::train_flops,
                 &StepTiming::other_flops, &StepTiming::rollouts_generated, &StepTiming::rollouts_trained,
                 &StepTiming::generated_tokens, &StepTiming::prefill_tokens, &StepTiming::trained_tokens,
                 &StepTiming::sandbox_cpu_s, &StepTiming::tail_wasted_tokens, &StepTiming::tail_launched,
                 &StepTiming::tail_long_round_share, &StepTiming::gpu_s_reward, &StepTiming::verifier_calls,
                 &StepTiming::verifier_shared_s}) {
    mix(t.*f, u.*f);
  }
  for (auto f : {&SimResult::idle_length_tail_gpu_s, &SimResult::idle_waiting_trainer_gpu_s,
                 &SimResult::idle_tools_gpu_s, &SimResult::idle_weight_sync_gpu_s, &SimResult::sandbox_wait_s,
                 &SimResult::idle_waiting_rollout_gpu_s, &SimResult::preemptions,
                 &SimResult::length_tail_underfill_gpu_s, &SimResult::idle_waiting_judge_gpu_s,
                 &SimResult::idle_judge_pool_gpu_s, &SimResult::judge_calls, &SimResult::judge_busy_gpu_s,
                 &SimResult::judge_phase_s}) {
    mix(r.*f, w.*f);
  }
  r.events += w.events;
  r.warmup_steps = w.steps_simulated;
  r.extrapolated_to_steps = n;
  t.notes.push_back(fmt::format(
      "simulated {} and {} steps (the same seed) and extrapolated to the run's {}: per-step figures from the "
      "steady steps {} to {} (docs/model.md, \"Steady steps\")",
      w.steps_simulated, r.steps_simulated, n, w.steps_simulated + 1, r.steps_simulated));
}

Result<SimResult> Simulate(const Scenario& s, const signal::Summary& sig, const Options& opt) {
  if (s.pipeline.tail.Active()) {
    // docs/model.md, "Tail handling": the simulator runs it on synchronous,
    // colocated, single-turn steps without dynamic sampling (sim/tail_step.cc).
    const char* why = s.pipeline.mode == PipelineMode::kAsync ? "an asynchronous pipeline"
                      : s.placement.mode == PlacementMode::kDisaggregated ? "a disaggregated placement"
                      : s.environment.turns.mean() > 1.0 + 1e-9 ? "multi-turn trajectories"
                      : s.algorithm.dynamic_sampling ? "dynamic sampling's generation rounds"
                      : s.environment.reward.verifier.kind != VerifierKind::kRule &&
                              s.environment.reward.verifier.kind != VerifierKind::kTests
                          ? "a model verifier on GPUs (its judging phase waits for the whole batch)"
                          : nullptr;
    if (why) {
      return Fail(ErrorCode::kNotImplemented, "pipeline.tail",
                  fmt::format("not yet: the event simulator runs tail handling ({}) for synchronous, colocated, "
                              "single-turn steps without dynamic sampling or a model verifier, not for {}; rlcost "
                              "estimate prices {}",
                              ToString(s.pipeline.tail.mode), why,
                              s.placement.mode == PlacementMode::kDisaggregated &&
                                      s.pipeline.mode != PipelineMode::kAsync
                                  ? "it in closed form"
                                  : "what its closed form supports"));
    }
  }
  // Tail handling (pipeline.tail) carries prompts and partial responses from
  // step to step and runs a long round every few steps: its steps are not
  // alike, and such a run is simulated whole.
  if (opt.measure_steps > 0 && !s.pipeline.tail.Active()) {
    const int n = opt.steps > 0 ? opt.steps : s.algorithm.steps;
    const int warm = SteadyWarmupSteps(s);
    const int k = warm + opt.measure_steps;
    if (n > k + warm) {
      // docs/model.md, "Steady steps": two shorter runs instead of the whole one.
      Options part = opt;
      part.measure_steps = 0;
      part.steps = warm;
      part.trace_path.clear();
      internal::Simulator short_sim(s, sig, part);
      auto w = short_sim.Run();
      if (!w) return w;
      part.steps = k;
      part.trace_path = opt.trace_path;  // the trace is the longer run's
      internal::Simulator long_sim(s, sig, part);
      auto r = long_sim.Run();
      if (!r) return r;
      ExtrapolateSteps(*r, *w, n);
      return r;
    }
  }
  internal::Simulator sim(s, sig, opt);
  return sim.Run();
}

}  // namespace rlcost::sim
