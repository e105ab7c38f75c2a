// The simulator's trajectories: batches drawn lazily, turns, tool calls on the
// sandbox pool, rewards and judge events (sim/simulator_internal.h).
#include "sim/simulator_internal.h"

#include "core/cancel.h"
#include "scenario/trajectory_bounds.h"

namespace rlcost::sim::internal {

// ---------------------------------------------------------------------------
// Trajectories

Batch& Simulator::MaterializeBatch(int b) {
  Batch& bt = batches_[b];
  if (bt.materialized) return bt;
  bt.materialized = true;
  if (!traj_pool_.empty()) {
    bt.trajs = std::move(traj_pool_.back());
    traj_pool_.pop_back();
    bt.turns = std::move(turn_pool_.back());
    turn_pool_.pop_back();
    bt.links = std::move(link_pool_.back());
    link_pool_.pop_back();
  }
  bt.trajs.assign(g_, Traj{});
  bt.links.assign(g_, Link{});
  bt.turns.clear();
  // One random stream per batch, drawn in trajectory order when the batch is
  // created: what a trajectory draws does not depend on the order of events.
  rng_.seed_state(SplitMix64(seed_ ^ SplitMix64(0x5EED0000ULL + uint64_t(b))));
  const auto& env = s_.environment;
  const Distribution& turns_d = env.unbounded ? env.unbounded->turns : env.turns;
  const int64_t budget = env.max_trajectory_tokens;
  // Room for the batch's turns up front (about the mean number each), not
  // grown by doubling and copying; capped at 64 Mi turns (1 GiB).
  const size_t want = size_t(std::min(double(g_) * std::max(1.0, turns_d.mean()) * 1.05, double(int64_t(1) << 26)));
  if (bt.turns.capacity() < want) bt.turns.reserve(want);
  int max_turns = 0;
  for (int i = 0; i < g_; ++i) {
    // A million trajectories take a second to draw: a cancelled run stops
    // here too (the callers return at once when too_long_ is set).
    if ((i & 4095) == 4095 && !too_long_ && CancelRequested()) {
      too_long_ = CancelledError();
      return bt;
    }
    Traj& t = bt.trajs[i];
    t.prompt = std::max<int64_t>(1, prompt_draws_(rng_));
    t.turn_off = static_cast<int>(bt.turns.size());
    int64_t ctx = t.prompt;  // the trajectory's whole context, summed as its turns are drawn
    // The tool call follows every turn but the last (turns - 1 calls).
    t.turns = scenario_internal::DrawBoundedTrajectory(
        rng_, turns_draws_, response_draws_, tool_out_draws_, latency_draws_, budget, env.tool_timeout_s,
        [&](const scenario_internal::DrawnTurn& d, bool) {
          Turn tu;
          tu.response = static_cast<int32_t>(d.response);
          tu.tool_out = static_cast<int32_t>(d.tool_out);
          tu.tool_latency_s = d.tool_latency_s;
          ctx += tu.response + tu.tool_out;
          bt.turns.push_back(tu);
        });
    t.verify_s = std::max(0.0, verify_draws_(rng_));
    max_turns = std::max(max_turns, t.turns);
    // A context longer than one engine's whole KV cache can never be
    // scheduled (vLLM rejects a request past max_model_len): the run would
    // preempt and recompute it forever. Stop with the numbers instead.
    if (ctx > total_blocks_ * kBlockTokens && !too_long_) {
      too_long_ = Error(ErrorCode::kDoesNotFit, "memory",
                        fmt::format("a trajectory of rollout batch {} reaches {} tokens of context ({} turns), more "
                                    "than one engine's KV cache holds ({} tokens): it could never be scheduled; "
                                    "use a larger placement.rollout_tp or lower environment.*.max",
                                    b + 1, ctx, t.turns, total_blocks_ * kBlockTokens));
    }
  }
  bt.barrier_need.assign(max_turns, 0);
  bt.barrier_arrived.assign(max_turns, 0);
  if (lockstep_) {
    bt.barrier_held.resize(max_turns);
    for (auto& h : bt.barrier_held) h.clear();
    for (const Traj& t : bt.trajs)
      for (int k = 0; k + 1 < t.turns; ++k) ++bt.barrier_need[k];
  }
  return bt;
}

// The trajectories' distributions as the batches draw them. With trajectory
// bounds (docs/model.md, "Trajectory bounds") the scenario's distributions
// are the bounded run's; each trajectory is drawn from the task's own and
// bounded in MaterializeBatch, as the framework bounds it. An integer draw
// gets its table when the run draws it at least 4 times per table entry
// (a table of n entries costs about 2n quantiles to build).
void Simulator::SetUpDraws() {
  const auto& env = s_.environment;
  const Distribution& turns_d = env.unbounded ? env.unbounded->turns : env.turns;
  const Distribution& response_d = env.unbounded ? env.unbounded->response_tokens : env.response_tokens;
  const Distribution& tool_out_d = env.unbounded ? env.unbounded->tool_output_tokens : env.tool_output_tokens;
  const Distribution& latency_d = env.unbounded ? env.unbounded->tool_latency_s : env.tool_latency_s;
  const double trajs = double(batches_.size()) * double(g_);
  const double turns = std::max(1.0, turns_d.mean());
  auto entries = [](double draws) { return static_cast<int64_t>(std::min(draws / 4.0, 1e9)); };
  prompt_draws_ = RoundedDraws(env.prompt_tokens, entries(trajs));
  turns_draws_ = RoundedDraws(turns_d, entries(trajs));
  response_draws_ = RoundedDraws(response_d, entries(trajs * turns));
  tool_out_draws_ = RoundedDraws(tool_out_d, entries(trajs * (turns - 1.0)));
  latency_draws_ = RealDraws(latency_d);
  verify_draws_ = RealDraws(env.reward.verify_s);
}

void Simulator::FreeBatchIfDone(int b) {
  Batch& bt = batches_[b];
  if (!bt.materialized || bt.finished < g_) return;
  traj_pool_.push_back(std::move(bt.trajs));
  turn_pool_.push_back(std::move(bt.turns));
  link_pool_.push_back(std::move(bt.links));
  bt.trajs = {};
  bt.turns = {};
  bt.links = {};
}

void Simulator::StartTrajectory(int32_t id, int e) {
  auto [t, bt, b] = TB(id);
  if (bt.created == 0) bt.t_first_start = now_;
  ++bt.created;
  t.engine = e;
  t.t_start = now_;
  t.ctx = 0;
  t.pf_ctx = 0;
  t.pf_left = t.prompt;
  t.resp_left = bt.turns[t.turn_off].response;
  StashCall(t, bt);
  t.state = TrajState::kWaiting;
  Engine& en = engines_[e];
  AddInflight(en, +1);
  ++inflight_total_;
  if (hold_sandbox_) {
    // Its container starts first (or it queues for a free one); it decodes once it is up.
    ++en.out;
    t.startup_paid = true;
    RequestSandbox(id, sandbox_.startup_s, EventType::kSandboxReady);
    return;
  }
  en.waiting.push_back(id);
}

// After a turn is decoded: a tool call (all turns but the last) or the reward.
void Simulator::ToolOrReward(int32_t id, const TrajBatch& r) {
  auto& [t, bt, b] = r;
  Engine& en = engines_[t.engine];
  if (t.turn + 1 < t.turns) {
    // (Its call's output, latency and the next response: stashed when the turn started.)
    const double latency_s = t.call_latency_s;
    ++en.out;
    if (has_sandbox_ && !hold_sandbox_) {
      RequestSandbox(id, latency_s, EventType::kToolDone);
    } else if (latency_s > 0) {
      t.state = TrajState::kTool;
      if (tool_workers_.slots() > 0) {
        RequestToolSlot(id, latency_s);
      } else {
        q_.Push(now_ + latency_s, EventType::kToolDone, id);
      }
    } else {
      t.state = TrajState::kTool;
      ReturnFromTool(id);
    }
    return;
  }
  // Last turn decoded: the trajectory leaves generation.
  AddInflight(en, -1);
  --inflight_total_;
  ++bt.gen_done;
  bt.t_last_gen_end = std::max(bt.t_last_gen_end, now_);
  gen_tokens_ += double(t.gen);
  if (tail_) TailDecoded(id);
  if (judges_.active()) {
    if (pipelined_) {
      if (++gen_done_total_ % g_ == 0) gen_done_t_.push_back(now_);
    } else if (bt.gen_done == g_) {
      StartJudgePhase();
    }
  }
  if (hold_sandbox_) {
    // Verified in the sandbox it holds, then released.
    if (t.verify_s > 0) {
      ++en.out;
      t.state = TrajState::kVerify;
      q_.Push(now_ + t.verify_s, EventType::kVerifyDone, id);
    } else {
      ReleaseSandbox();
      Rewarded(id, r);
    }
  } else if (has_sandbox_ && (t.verify_s > 0 || !t.startup_paid)) {
    ++en.out;
    RequestSandbox(id, t.verify_s, EventType::kVerifyDone);
  } else if (t.verify_s > 0) {
    ++en.out;
    t.state = TrajState::kVerify;
    q_.Push(now_ + t.verify_s, EventType::kVerifyDone, id);
  } else {
    Rewarded(id, r);
  }
  if (pipelined_ && update_pending_ && !partial_ && inflight_total_ == 0 && trainer_ == TrainerPhase::kWaitSync) {
    StartSync();
  }
}

void Simulator::RequestSandbox(int32_t id, double dur_s, EventType done) {
  Traj& t = T(id);
  // Sandbox start-up is paid once per trajectory, at its first use of a slot
  // (its first tool call, or its reward for a single-turn trajectory).
  if (!t.startup_paid) {
    dur_s += sandbox_.startup_s;
    t.startup_paid = true;
  }
  const SlotRequest r{id, dur_s, done};
  if (sandboxes_.Take(now_, r)) {
    StartSlot(r);
    if (Tracing()) trace_.Counter("sandbox slots busy", now_, sandboxes_.busy());
  } else {
    t.state = TrajState::kSandboxQueue;
    if (Tracing()) trace_.Counter("sandbox queue", now_, double(sandboxes_.queued()));
  }
}

void Simulator::StartSlot(const SlotRequest& r) {
  T(r.id).state = r.done == EventType::kVerifyDone ? TrajState::kVerify : TrajState::kTool;
  q_.Push(now_ + r.dur_s, r.done, r.id);
}

void Simulator::ReleaseSandbox() {
  if (auto next = sandboxes_.Release(now_)) {
    StartSlot(*next);
    if (Tracing()) trace_.Counter("sandbox queue", now_, double(sandboxes_.queued()));
  } else if (Tracing()) {
    trace_.Counter("sandbox slots busy", now_, sandboxes_.busy());
  }
}

void Simulator::RequestToolSlot(int32_t id, double dur_s) {
  const SlotRequest r{id, dur_s, EventType::kToolDone};
  if (tool_workers_.Take(now_, r)) StartSlot(r);
}

void Simulator::ReleaseToolSlot() {
  if (auto next = tool_workers_.Release(now_)) StartSlot(*next);
}

void Simulator::ReturnFromTool(int32_t id) {
  Traj& t = T(id);
  if (!lockstep_) {
    NextTurn(t, id);
    return;
  }
  // Lockstep: every turn waits for the slowest tool call of its batch.
  Batch& bt = batches_[BatchOf(id)];
  int k = t.turn;
  t.state = TrajState::kBarrier;
  bt.barrier_held[k].push_back(id);
  if (++bt.barrier_arrived[k] < bt.barrier_need[k]) return;
  std::vector<int32_t> released;
  released.swap(bt.barrier_held[k]);
  for (int32_t rid : released) NextTurn(T(rid), rid);
}

// Its tool output joins the context; its next turn waits on its engine.
void Simulator::NextTurn(Traj& r, int32_t rid) {
  ++r.turn;
  r.resp_left = r.next_response;
  r.pf_ctx = r.ctx;
  r.pf_left = r.call_out;
  StashCall(r, batches_[BatchOf(rid)]);
  r.state = TrajState::kWaiting;
  Engine& en = engines_[r.engine];
  --en.out;
  en.waiting.push_back(rid);
  Kick(r.engine);
}

void Simulator::TrajDone(const TrajBatch& r) {
  auto& [t, bt, b] = r;
  t.state = TrajState::kDone;
  bt.t_last_end = std::max(bt.t_last_end, now_);
  traj_time_.push_back(now_ - t.t_start);
  traj_tokens_.push_back(double(t.gen));
  // Under tail handling the step's books count what is trained (TailStepEnd).
  double trained = tail_ ? 0.0 : double(t.prompt + t.gen + ToolTokens(t, bt));
  ++bt.finished;
  if (pipelined_) {
    // The trainer takes trajectories in the order they finish.
    cum_tokens_ += trained;
    ++finished_total_;
    if (finished_total_ % g_ == 0) {
      finished_tokens_cum_.push_back(cum_tokens_);
    }
    FreeBatchIfDone(b);
    if (trainer_ == TrainerPhase::kWaitBatch) TrainerTry();
  } else {
    cum_tokens_ += trained;
    if (bt.finished == g_) sync_done_flag_ = true;
  }
}

// ---------------------------------------------------------------------------
// Judges (sim/judge.h; docs/model.md, "Judges in the simulator")

bool Simulator::SentToJudges(int32_t id, const TrajBatch& r) {
  // environment.failures: the failed share is not judged (as the closed form).
  judge_carry_ += 1.0 - s_.environment.failures.rate;
  if (judge_carry_ < 1.0 - 1e-9) return false;
  judge_carry_ -= 1.0;
  auto& [t, bt, b] = r;
  const int calls = judges_.Submit(now_, id, double(t.prompt + t.gen + ToolTokens(t, bt)), q_);
  if (calls == 0) return false;
  t.judge_left = calls;
  t.state = TrajState::kJudge;
  return true;
}

void Simulator::JudgeEvent(const Event& ev) {
  judge_done_.clear();
  judges_.OnEvent(now_, ev, q_, judge_done_);
  for (int32_t id : judge_done_) {
    const TrajBatch r = TB(id);
    if (--r.t.judge_left == 0) TrajDone(r);
  }
}

// Sync: the round's generation is over. Every engine waits for the judges
// from here; judges on the policy's GPUs start (veRL's RayPPOTrainer.fit
// scores the whole generated batch between generation and the log-prob pass).
void Simulator::StartJudgePhase() {
  judge_wait_ = true;
  judge_phase_t0_ = now_;
  ReclassifyAll();
  judge_idle0_ = idle_judge_;
  judges_.OpenShared(now_, q_);
}

// Sync: the round's rewards are in (after every engine's idle is booked).
void Simulator::EndJudgePhase() {
  if (!judge_wait_) return;
  judge_wait_ = false;
  if (!judges_.any_shared()) return;
  judges_.CloseShared();
  // A shared judge worked on the GPUs whose engines were idle meanwhile: its
  // busy GPU-seconds are work (other), the rest of the phase idle.
  const double moved = std::min(judges_.TakeSharedGpuS(), idle_judge_ - judge_idle0_);
  idle_judge_ -= moved;
  judge_shared_gpu_s_ += moved;
  judge_phase_s_ += now_ - judge_phase_t0_;
}

}  // namespace rlcost::sim::internal
