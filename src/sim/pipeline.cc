// The simulator's trainer and pipelines: starting trajectories, the trainer's
// phases, weight sync, the event loop's step boundaries, and the sync
// colocated and pipelined drivers (sim/simulator_internal.h).
#include "sim/simulator_internal.h"

#include "core/cancel.h"

namespace rlcost::sim::internal {

// ---------------------------------------------------------------------------
// Pipelined: starting trajectories under bounded staleness, and the trainer

// Trajectory j (0-based, in start order) may start once the rollout policy is
// at least floor(j / G) - k versions old: started < (version + k + 1) * G.
bool Simulator::CanStart() const {
  if (started_ >= max_start_) return false;
  if (update_pending_ && !partial_) return false;  // drain for the weight update
  double allowed = std::floor((double(version_) + staleness_ + 1.0) * double(g_) + 1e-9);
  return double(started_) < allowed;
}

void Simulator::TryStart() {
  bool any = false;
  while (CanStart()) {
    int b = static_cast<int>(started_ / g_);
    int i = static_cast<int>(started_ % g_);
    MaterializeBatch(b);
    if (too_long_) return;  // cut short (cancelled) or unschedulable: the run ends with it
    // Least-loaded engine (fewest trajectories in flight), lowest index on ties.
    StartTrajectory(b * g_ + i, least_loaded_.top());
    ++started_;
    any = true;
  }
  if (!any) return;
  for (int e = 0; e < n_engines_; ++e) {
    if (!engines_[e].waiting.empty()) Kick(e);
  }
}

Simulator::Phases Simulator::TrainOn(double tokens, double trajs) {
  const double mean_len = trajs > 0 ? tokens / trajs : 0;
  Phases p;
  double lp_f = 0, ref_f = 0;
  if (s_.algorithm.recompute_logprobs) {
    perf::Work w = perf::ForwardPass(s_, tokens, mean_len, train_gpus_);
    p.lp = w.time_s;
    lp_f = w.flops * train_gpus_;
  }
  if (s_.algorithm.reference_model) {
    perf::Work w = perf::ForwardPass(s_, tokens, mean_len, train_gpus_);
    p.ref = w.time_s;
    ref_f = w.flops * train_gpus_;
  }
  perf::Work w = perf::TrainStep(s_, tokens, mean_len, train_gpus_);
  p.tr = w.time_s;
  double tr_f = w.flops * train_gpus_;
  if (s_.algorithm.critic) {
    // PPO's critic, the policy's size (as the analytic path): a value forward
    // pass and a critic update.
    perf::Work v = perf::ForwardPass(s_, tokens, mean_len, train_gpus_);
    p.tr += w.time_s + v.time_s;
    tr_f += (w.flops + v.flops) * train_gpus_;
  }
  trained_tokens_ += tokens;
  sum_lp_s_ += p.lp;
  sum_ref_s_ += p.ref;
  sum_train_s_ += p.tr;
  train_flops_ += tr_f;
  other_flops_ += lp_f + ref_f;
  return p;
}

void Simulator::TrainerTry() {
  if (trainer_ != TrainerPhase::kWaitBatch) return;
  if (finished_total_ < int64_t(trainer_step_ + 1) * g_) return;
  double wait = now_ - trainer_since_;
  // With judges, what the trainer waits after the batch's generation is done
  // is waiting for their rewards.
  double reward_wait = 0;
  if (judges_.active() && size_t(trainer_step_) < gen_done_t_.size())
    reward_wait = std::clamp(now_ - std::max(trainer_since_, gen_done_t_[trainer_step_]), 0.0, wait);
  sum_rollout_s_ += wait - reward_wait;
  sum_reward_s_ += reward_wait;
  idle_wait_rollout_ += wait * train_gpus_;
  if (Tracing()) trace_.Span(n_engines_ + 1, "wait for rollouts", trainer_since_, now_);
  double tok_all = finished_tokens_cum_[trainer_step_] - (trainer_step_ > 0 ? finished_tokens_cum_[trainer_step_ - 1] : 0);
  double tokens = tok_all * trained_ratio_;
  const auto [lp, ref, tr] = TrainOn(tokens, g_ * trained_ratio_);
  gpu_s_train_ += tr * train_gpus_;
  gpu_s_other_ += (lp + ref) * train_gpus_;
  if (Tracing()) {
    trace_.Span(n_engines_ + 1, "log-prob", now_, now_ + lp);
    trace_.Span(n_engines_ + 1, "reference", now_ + lp, now_ + lp + ref);
    trace_.Span(n_engines_ + 1, "train", now_ + lp + ref, now_ + lp + ref + tr,
                fmt::format("\"tokens\":{:.0f}", tokens));
  }
  sum_offload_s_ += offload_s_;
  gpu_s_other_ += offload_s_ * train_gpus_;
  trainer_ = TrainerPhase::kBusy;
  trainer_since_ = now_;
  q_.Push(now_ + lp + ref + tr + offload_s_, EventType::kTrainerPhaseEnd, 0);
}

void Simulator::StartSync() {
  if (trainer_ == TrainerPhase::kWaitSync) {
    double wait = now_ - trainer_since_;
    sum_sync_wait_s_ += wait;
    idle_sync_ += wait * train_gpus_;
    if (Tracing()) trace_.Span(n_engines_ + 1, "wait for rollout drain", trainer_since_, now_);
  }
  trainer_ = TrainerPhase::kSync;
  trainer_since_ = now_;
  sum_sync_s_ += sync_s_;
  gpu_s_other_ += sync_s_ * train_gpus_;
  PauseEngines();
  q_.Push(now_ + sync_s_, EventType::kSyncEnd, 0);
}

void Simulator::StepDone() {
  ++trainer_step_;
  trace_step_ = trainer_step_;
  if (trainer_step_ >= steps_) {
    trainer_ = TrainerPhase::kDone;
    end_time_ = now_;
    return;
  }
  trainer_ = TrainerPhase::kWaitBatch;
  trainer_since_ = now_;
  TrainerTry();
}

// ---------------------------------------------------------------------------
// Drivers

Result<void> Simulator::RunPipelined() {
  trainer_ = TrainerPhase::kWaitBatch;
  trainer_since_ = 0;
  for (int e = 0; e < n_engines_; ++e) OpenIdle(e);
  TryStart();
  while (trainer_ != TrainerPhase::kDone) {
    if (too_long_) return Fail(*too_long_);
    if (!NextEvent()) {
      return Fail(ErrorCode::kInternal, "simulate",
                  fmt::format("the pipelined simulation stalled at t = {:.3f} s, step {}", now_, trainer_step_));
    }
  }
  // Close the books at the end of the last step.
  for (int e = 0; e < n_engines_; ++e) {
    Engine& en = engines_[e];
    if (en.seg != SegKind::kNone) {
      double d = std::min(now_, en.seg_t1) - en.seg_t0;
      en.busy_s += d;
      en.batch_s += double(en.seg_b) * d;
    }
    if (en.paused && en.resume_pending) {  // (a paused engine still in its segment has not stopped yet)
      en.pause_s += now_ - en.pause_since;
    }
    CloseIdle(e);
  }
  return {};
}

Result<void> Simulator::RunSyncColocated() {
  int64_t batch = 0;  // the next generation round's batch
  for (int step = 0; step < steps_; ++step) {
    trace_step_ = step;
    const double idle0 = IdleSum();
    cum_tokens_ = 0;
    // Without dynamic sampling one round; with it, rounds_[step] rounds, each
    // drained and rewarded before the next starts (veRL's DAPO loop).
    const int rounds = rounds_mode_ ? rounds_[step] : 1;
    double rollout = 0, reward = 0;
    for (int round = 0; round < rounds; ++round, ++batch) {
      const int b = static_cast<int>(batch);
      const double r0 = now_;
      MaterializeBatch(b);
      if (too_long_) return Fail(*too_long_);  // cut short (cancelled) or unschedulable
      sync_done_flag_ = false;
      // Tail handling decides which of the batch's responses run and how far
      // (sim/tail_step.cc); the slots it leaves unused count as finished.
      const int active = tail_ ? ApplyTail(batches_[b], b) : g_;
      batches_[b].finished = g_ - active;
      for (int i = 0, e = 0; i < active; ++i, e = e + 1 == n_engines_ ? 0 : e + 1) {  // e = i mod engines
        if ((i & 4095) == 4095 && CancelRequested()) return Fail(CancelledError());
        StartTrajectory(b * g_ + i, e);
      }
      for (int e = 0; e < n_engines_; ++e) {
        Engine& en = engines_[e];
        en.peak_batch = 0;
        en.finish_heap.clear();  // only stale entries are left from the last round
        // No cache is parked between rounds (a parked trajectory is out on a
        // tool call; the last round's all finished): the list is empty.
        assert(en.park_head == kNone);
        en.park_head = en.park_tail = kNone;
        Plan(e);
      }
      while (!sync_done_flag_) {
        if (too_long_) return Fail(*too_long_);
        if (!NextEvent()) {
          return Fail(ErrorCode::kInternal, "simulate",
                      fmt::format("the rollout of step {} (round {}) stalled at t = {:.3f} s", step, round + 1, now_));
        }
      }
      for (int e = 0; e < n_engines_; ++e) CloseIdle(e);
      if (tail_) TailStepEnd(batches_[b]);
      EndJudgePhase();
      double gen_end = batches_[b].t_last_gen_end;
      rollout += gen_end - r0;
      reward += now_ - gen_end;
      if (Tracing()) {
        const std::string name = rounds > 1 ? fmt::format("rollout (round {})", round + 1) : std::string("rollout");
        trace_.Span(n_engines_ + 1, name.c_str(), r0, gen_end);
        trace_.Span(n_engines_ + 1, "rewards", gen_end, now_);
      }
      FreeBatchIfDone(b);
    }
    {
      // After each round's last generation every engine is idle until the
      // rewards are in; the rest of the step's engine idle is rollout's.
      double idle = IdleSum() - idle0;
      double in_reward = std::min(idle, reward * n_engines_ * tp_);
      idle_in_reward_ += in_reward;
      idle_in_rollout_ += idle - in_reward;
    }
    // The trainer takes prompts_per_step groups of what was generated (veRL: batch[:traj_bsz]).
    // (In rounds, g_ is one round's rollouts: the step's generated are rounds * g_.)
    double ratio = rounds_mode_ ? std::min(1.0, trained_per_step_ / (double(rounds) * g_)) : trained_ratio_;
    double trajs = double(rounds) * g_ * ratio;
    if (tail_) {  // the tokens of the responses trained on (TrajDone counts only those)
      ratio = 1;
      trajs = tail_step_trained_;
    }
    double tokens = cum_tokens_ * ratio;
    const auto [lp, ref, tr] = TrainOn(tokens, trajs);
    sum_rollout_s_ += rollout;
    sum_reward_s_ += reward;
    sum_rollout_busy_s_ += rollout;
    sum_sync_s_ += sync_s_;
    sum_overhead_s_ += overhead_s_;
    sum_offload_s_ += offload_s_;
    double t = now_;
    if (Tracing()) {
      int tid = n_engines_ + 1;
      trace_.Span(tid, "log-prob", t, t + lp);
      trace_.Span(tid, "reference", t + lp, t + lp + ref);
      trace_.Span(tid, "train", t + lp + ref, t + lp + ref + tr, fmt::format("\"tokens\":{:.0f}", tokens));
      trace_.Span(tid, "weight sync", t + lp + ref + tr, t + lp + ref + tr + sync_s_);
      trace_.Span(tid, "overhead", t + lp + ref + tr + sync_s_, t + lp + ref + tr + sync_s_ + overhead_s_);
      trace_.Span(tid, "offload", t + lp + ref + tr + sync_s_ + overhead_s_,
                  t + lp + ref + tr + sync_s_ + overhead_s_ + offload_s_);
    }
    now_ = t + lp + ref + tr + sync_s_ + overhead_s_ + offload_s_;
  }
  end_time_ = now_;
  return {};
}

}  // namespace rlcost::sim::internal
