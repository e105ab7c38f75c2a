// The simulator's engines: KV blocks, admission and preemption, decode
// segments, idle accounting, and the pause for weight sync (sim/simulator_internal.h).
#include "sim/simulator_internal.h"

namespace rlcost::sim::internal {

// ---------------------------------------------------------------------------
// Engines: KV accounting

// Blocks held by the running set after `iter` iterations:
//   sum_i ceil((key_i + iter) / 16) = [sum_i (key_i + iter + 15) - sum_i ((key_i + iter + 15) mod 16)] / 16,
// the remainders taken from a histogram of key_i mod 16 (O(16), not O(batch)):
// with p_i = key_i mod 16 and s = (iter + 15) mod 16, (p_i + s) mod 16 is
// p_i + s, less 16 when p_i >= 16 - s, so the remainders sum to
// sum_i p_i + n s - 16 #{i : p_i >= 16 - s} (the same integers; a few adds
// instead of 16 multiplies).
int64_t Simulator::RunningBlocks(const Engine& en, int64_t iter) const {
  if (en.n_running == 0) return 0;
  int64_t total = en.sum_key + en.n_running * (iter + kBlockTokens - 1);
  const int shift = Mod16(iter + kBlockTokens - 1);
  int64_t wrapped = 0;
  for (int p = kBlockTokens - shift; p < kBlockTokens; ++p) wrapped += en.phase_cnt[p];
  const int64_t rem = en.phase_sum + en.n_running * shift - kBlockTokens * wrapped;
  return (total - rem) / kBlockTokens;
}

// The parked caches of an engine in LRU order: a list through the
// trajectories' Links (a parked trajectory is out on a tool call, never in
// the running list, so its Link is free). A cache joins the back when parked
// (Park) and leaves when evicted (the front, here) or pinned by its return
// (Admit, Unpark). Issue 41, twelfth pass: it was a queue of (trajectory,
// epoch) entries left stale on a pin and dropped by a sweep whenever the
// queue had doubled, each sweep reading every entry's trajectory; the live
// entries' order was the order of their latest Park, as here, so the same
// caches are evicted in the same order.
bool Simulator::EvictOneParked(Engine& en) {
  if (en.park_head == kNone) return false;
  const int32_t id = en.park_head;
  auto [t, l] = TL(id);
  assert(t.parked);
  Unpark(en, l);
  // Evicted from the prefix cache: on its return it prefills its whole context.
  t.parked = false;
  en.static_blocks -= t.blocks;
  t.blocks = 0;
  ++t.epoch;
  return true;
}

void Simulator::Park(Engine& en, int32_t id, Link& l) {
  assert(T(id).parked && &l == &L(id));
  l = Link{en.park_tail, kNone};
  if (en.park_tail != kNone) L(en.park_tail).next = id; else en.park_head = id;
  en.park_tail = id;
}

void Simulator::Unpark(Engine& en, Link& l) {
  if (l.prev != kNone) L(l.prev).next = l.next; else en.park_head = l.next;
  if (l.next != kNone) L(l.next).prev = l.prev; else en.park_tail = l.prev;
  l = Link{};
}

// Recompute preemption (vLLM's default): the sequence loses its KV and goes to
// the front of the queue; on resume its whole context is prefilled again.
void Simulator::Preempt(Engine& en, int32_t id) {
  LeaveRunning(en, id);
  Traj& t = T(id);
  t.pf_ctx = 0;
  t.pf_left = t.ctx;
  t.state = TrajState::kWaiting;
  en.waiting.push_front(id);
  preemptions_ += 1;
}

void Simulator::Admit(Engine& en) {
  // vLLM's scheduler admits no new request while max_num_seqs are running or
  // prefilling (engine.max_num_seqs; docs/model.md, "The engine's cap on
  // running sequences"); 0 = only the KV cache bounds the batch.
  // (Running and prefilling sequences: only the prefill queue grows in this
  // loop, by one an admission, so their count is kept, not recomputed; whole
  // numbers, exact in a double.)
  const double seats = ec_.max_num_seqs;
  const bool capped = seats > 0;
  double seated = double(en.n_running) + double(en.prefill_q.size());
  while (!en.waiting.empty()) {
    if (capped && seated >= seats) break;
    int32_t id = en.waiting.front();
    Traj& t = T(id);
    int64_t target = t.pf_ctx + t.pf_left;
    int64_t cached = 0;
    if (t.parked) cached = t.blocks;  // its context is still in the prefix cache
    int64_t need = Blocks(target) - cached;
    bool alone = en.n_running == 0 && en.prefill_q.empty();
    if (t.parked) {
      // Pin its cache so eviction below cannot take it.
      Unpark(en, L(id));
      t.parked = false;
      ++t.epoch;
    }
    if (!MakeRoom(en, need + watermark_blocks_) && !(alone && MakeRoom(en, need))) {
      if (cached > 0) {
        t.parked = true;  // unpin; stays at the back of the LRU order
        Park(en, id, L(id));
      }
      if (!alone) break;
      // A context larger than the whole budget: admit it anyway (overcommit)
      // rather than deadlock; PlanMemory normally rules this out.
    }
    if (cached == 0 && t.pf_ctx > 0 && t.blocks == 0) {
      // Its cache was evicted while it was away: recompute the whole context.
      t.pf_left += t.pf_ctx;
      t.pf_ctx = 0;
    }
    en.waiting.pop_front();
    t.blocks = Blocks(target);
    en.static_blocks += t.blocks - cached;
    t.state = TrajState::kPrefill;
    en.prefill_q.push_back(id);
    seated += 1.0;
  }
}

// ---------------------------------------------------------------------------
// Engines: scheduling

void Simulator::Kick(int e) {
  Engine& en = engines_[e];
  if (en.in_handler || en.paused) return;
  if (en.seg == SegKind::kNone) {
    Plan(e);
  } else {
    TruncateSegment(e);
  }
}

// New work arrived while a multi-iteration decode segment runs: end it at the
// boundary of the iteration in progress so the scheduler can admit the work.
[[gnu::flatten]] void Simulator::TruncateSegment(int e) {
  Engine& en = engines_[e];
  if (en.seg != SegKind::kDecode || en.seg_n <= 1) return;
  double elapsed = now_ - en.seg_t0;
  const perf::DecodeArms& arms = Arms(en.seg_b);
  const double b = double(en.seg_b), c0 = double(en.seg_ctx);
  auto time_of = [&](int64_t n) {
    return n <= 0 ? 0.0 : perf::DecodeIterations(arms, b, c0, double(n)).time_s;
  };
  // Iterations only get longer as the context grows, so elapsed / first and
  // elapsed / last bracket the count; a short search finishes it.
  double first = time_of(1);
  double last = perf::DecodeIterations(arms, b, double(en.seg_ctx + en.seg_b * (en.seg_n - 1)), 1.0).time_s;
  int64_t hi = en.seg_n - 1, lo = 0;
  if (first > 0) hi = std::min(hi, static_cast<int64_t>(elapsed / first));
  if (last > 0) lo = std::min(hi, static_cast<int64_t>(elapsed / last));
  if (lo > 0 && time_of(lo) > elapsed) lo = 0;
  // The answer is where time_of(n) <= elapsed turns false (time_of grows by
  // one iteration, milliseconds, per step: monotone far above rounding), so
  // any probe sequence finds the same n as plain bisection. Probe first where
  // the iteration times, linear from `first` to `last` (one roofline arm),
  // sum to `elapsed`: n A + D n (n - 1) / 2 = elapsed. It is usually exact,
  // and two probes settle it.
  if (lo < hi && first > 0) {
    double d = en.seg_n > 1 ? (last - first) / double(en.seg_n - 1) : 0.0;
    double est;
    if (d > 0) {
      double p = first - 0.5 * d;
      est = (std::sqrt(p * p + 2.0 * d * elapsed) - p) / d;
    } else {
      est = elapsed / first;
    }
    int64_t g = std::clamp(static_cast<int64_t>(est), lo, hi);
    if (time_of(g) <= elapsed) {
      lo = g;
      if (g < hi && time_of(g + 1) > elapsed) hi = g;
    } else {
      hi = g - 1;
    }
  }
  while (lo < hi) {  // largest n in [lo, hi] with time_of(n) <= elapsed
    int64_t mid = lo + (hi - lo + 1) / 2;
    if (time_of(mid) <= elapsed) lo = mid; else hi = mid - 1;
  }
  int64_t n = lo + 1;
  if (n >= en.seg_n) return;
  perf::Work w = perf::DecodeIterations(arms, b, c0, double(n));
  en.seg_n = n;
  en.seg_t1 = en.seg_t0 + w.time_s;
  en.seg_flops = w.flops;
  timers_.Set(e, en.seg_t1);
}

void Simulator::Plan(int e) {
  Engine& en = engines_[e];
  bool preempted = false;
  // Room for one more decode iteration of the running set: evict cached
  // contexts first, then preempt the most recently admitted sequence.
  while (en.n_running > 0 && !RunningFits(en, en.iter + 1, total_blocks_ - en.static_blocks)) {
    if (EvictOneParked(en)) continue;
    if (en.n_running == 1 && en.prefill_q.empty()) break;  // overcommit one sequence rather than stall
    Preempt(en, en.tail);
    preempted = true;
  }
  // vLLM does not admit new prompts in an iteration that preempted.
  if (!preempted && !en.waiting.empty()) Admit(en);

  double ctx = double(en.sum_key + en.n_running * en.iter);
  if (!en.prefill_q.empty()) {
    // One mixed iteration: a prefill chunk of up to kChunkTokens, plus one
    // decode step for the running set.
    double t = 0, flops = 0;
    int64_t budget = kChunkTokens;
    en.prefill_done.clear();
    while (budget > 0 && !en.prefill_q.empty()) {
      int32_t id = en.prefill_q.front();
      Traj& tr = T(id);
      int64_t piece = std::min(budget, tr.pf_left);
      if (piece > 0) {
        perf::Work w = PrefillChunk(piece, tr.pf_ctx);
        t += w.time_s;
        flops += w.flops;
        prefill_tokens_ += double(piece);
      }
      tr.pf_ctx += piece;
      tr.pf_left -= piece;
      budget -= piece;
      if (tr.pf_left == 0) {
        tr.ctx = tr.pf_ctx;
        en.prefill_q.pop_front();
        en.prefill_done.push_back(id);
      }
    }
    if (en.n_running > 0) {
      perf::Work w = Decode(en.n_running, ctx, 1.0);
      t += w.time_s;
      flops += w.flops;
    }
    en.seg = SegKind::kMixed;
    en.seg_n = en.n_running > 0 ? 1 : 0;
    en.seg_t0 = now_;
    en.seg_t1 = now_ + t;
    en.seg_b = en.n_running;
    en.seg_ctx = static_cast<int64_t>(ctx);
    en.seg_flops = flops;
  } else if (en.n_running > 0) {
    // Pure decode until the first sequence finishes its turn or the KV cache
    // runs out of blocks, whichever is first.
    while (!en.finish_heap.empty() && !Current(en.finish_heap.front())) en.finish_heap.pop();
    int64_t n = std::max<int64_t>(1, en.finish_heap.front().iter - en.iter);
    int64_t room = total_blocks_ - en.static_blocks;
    if (!RunningFits(en, en.iter + n, room)) {
      int64_t lo = 1, hi = n;  // largest n that fits; n = 1 fits or was overcommitted above
      while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        if (RunningFits(en, en.iter + mid, room)) lo = mid; else hi = mid - 1;
      }
      n = lo;
    }
    perf::Work w = Decode(en.n_running, ctx, double(n));
    en.seg = SegKind::kDecode;
    en.seg_n = n;
    en.seg_t0 = now_;
    en.seg_t1 = now_ + w.time_s;
    en.seg_b = en.n_running;
    en.seg_ctx = static_cast<int64_t>(ctx);
    en.seg_flops = w.flops;
  } else {
    en.seg = SegKind::kNone;
    OpenIdle(e);
    // No segment: no timer (it may still hold the end of the segment whose
    // handler called us, see NextEvent).
    if (timers_.time(e) != EngineTimers::kNever) timers_.Set(e, EngineTimers::kNever);
    return;
  }
  if (en.idle) CloseIdle(e);
  timers_.Set(e, en.seg_t1);
}

void Simulator::EndSegment(int e) {
  Engine& en = engines_[e];
  double dur = en.seg_t1 - en.seg_t0;
  // Blocks in use (running sequences at the segment's start, each with half a
  // block of fragmentation on average, plus prefill and cached blocks).
  double blocks = double(en.sum_key + en.n_running * en.iter) / kBlockTokens + 0.5 * en.n_running +
                  double(en.static_blocks);
  en.busy_s += dur;
  en.batch_s += double(en.seg_b) * dur;
  en.blocks_s += double(blocks) * dur;
  rollout_flops_ += en.seg_flops * tp_;
  // Length tail, under-fill part: the engine decodes with nothing left to
  // admit and none of its trajectories out on a tool, below its peak batch.
  if (en.waiting.empty() && en.out == 0 && en.peak_batch > 0 && en.seg_b < en.peak_batch) {
    underfill_ += (1.0 - double(en.seg_b) / double(en.peak_batch)) * tp_ * dur;
  }
  if (Tracing()) {
    trace_.Span(e + 1, en.seg == SegKind::kMixed ? "prefill+decode" : "decode", en.seg_t0, en.seg_t1,
                fmt::format("\"batch\":{},\"iterations\":{},\"kv_blocks\":{:.0f}", en.seg_b, en.seg_n, blocks));
  }
  en.iter += en.seg_n;
  en.seg = SegKind::kNone;
  en.in_handler = true;
  for (int32_t id : en.prefill_done) JoinRunning(en, id);
  en.prefill_done.clear();
  // Sequences whose turn is decoded.
  scratch_.clear();
  en.finish_heap.TakeDue(en.iter, [&](const FinishEntry& f) { return Current(f); }, scratch_);
  // (Nothing below reaches EndSegment again, for any engine, so scratch_
  // stays this call's: StopTail skips the engine in its handler.)
  for (size_t k = 0; k < scratch_.size(); ++k) {
    const int32_t id = scratch_[k].traj;
    const TrajBatch r = TB(id);  // one lookup for the steps below
    Traj& t = r.t;
    Link& l = r.bt.links[IndexIn(id, r.b)];
    LeaveRunning(en, t, l);
    if (t.turn + 1 < t.turns) {
      // Out on a tool call: its KV stays in the prefix cache, evictable (LRU).
      t.parked = true;
      t.blocks = Blocks(t.ctx);
      en.static_blocks += t.blocks;
      Park(en, id, l);
    }
    ToolOrReward(id, r);
  }
  en.in_handler = false;
  if (en.paused) {
    en.pause_since = now_;
    en.resume_pending = true;
    timers_.Set(e, now_ + sync_s_);
    return;
  }
  if (tail_stop_) {  // pipeline.tail: the step has stopped; what still runs is aborted
    AbortEngine(e);
    return;
  }
  Plan(e);
}

// ---------------------------------------------------------------------------
// Idle accounting

IdleCause Simulator::Classify(const Engine& en) const {
  if (en.paused) return IdleCause::kSync;
  if (judge_wait_) return IdleCause::kJudge;
  if (en.out > 0) return IdleCause::kTools;
  if (!pipelined_) return IdleCause::kTail;
  if (update_pending_ && !partial_) return IdleCause::kSync;
  if (trainer_ == TrainerPhase::kDone) return IdleCause::kNone;
  if (started_ >= max_start_) return IdleCause::kTail;
  return CanStart() ? IdleCause::kTail : IdleCause::kTrainer;
}

void Simulator::OpenIdle(int e) {
  Engine& en = engines_[e];
  if (en.idle) return;
  en.idle = true;
  en.idle_since = now_;
  en.idle_cause = Classify(en);
}

void Simulator::CloseIdle(int e) {
  Engine& en = engines_[e];
  if (!en.idle) return;
  en.idle = false;
  double gs = (now_ - en.idle_since) * tp_;
  switch (en.idle_cause) {
    case IdleCause::kTail: idle_tail_ += gs; break;
    case IdleCause::kTrainer: idle_trainer_ += gs; break;
    case IdleCause::kTools: idle_tools_ += gs; break;
    case IdleCause::kSync: idle_sync_ += gs; break;
    case IdleCause::kJudge: idle_judge_ += gs; break;
    case IdleCause::kNone: break;
  }
  if (Tracing() && now_ > en.idle_since) {
    static const char* kNames[] = {"idle", "idle: length tail", "idle: waiting for trainer", "idle: tools",
                                   "idle: weight sync", "idle: waiting for the judge"};
    trace_.Span(e + 1, kNames[int(en.idle_cause)], en.idle_since, now_);
  }
}

void Simulator::Reclassify(int e) {
  Engine& en = engines_[e];
  if (!en.idle || Classify(en) == en.idle_cause) return;
  CloseIdle(e);
  OpenIdle(e);
}

void Simulator::ReclassifyAll() {
  for (int e = 0; e < n_engines_; ++e) Reclassify(e);
}

// ---------------------------------------------------------------------------
// Weight sync on the rollout side (pipelined)

void Simulator::PauseEngines() {
  for (int e = 0; e < n_engines_; ++e) {
    Engine& en = engines_[e];
    en.paused = true;
    en.recompute_on_resume = partial_;
    if (en.seg != SegKind::kNone) {
      TruncateSegment(e);  // pause at the end of the iteration in progress
    } else if (!en.in_handler) {  // (in its handler, EndSegment starts the pause)
      CloseIdle(e);
      en.pause_since = now_;
      en.resume_pending = true;
      timers_.Set(e, now_ + sync_s_);
    }
  }
}

void Simulator::ResumeEngine(int e) {
  Engine& en = engines_[e];
  en.pause_s += now_ - en.pause_since;
  if (Tracing()) trace_.Span(e + 1, "weight sync", en.pause_since, now_);
  en.paused = false;
  en.peak_batch = 0;
  if (en.recompute_on_resume) {
    // Partial rollouts continue under the new policy: their KV was computed
    // with the old weights and is recomputed (AReaL's interruptible generation).
    double kept = preemptions_;
    while (en.tail != kNone) Preempt(en, en.tail);
    preemptions_ = kept;  // recomputes after a sync are not KV preemptions
    for (int32_t id : en.prefill_q) {
      Traj& t = T(id);
      t.pf_left += t.pf_ctx;
      t.pf_ctx = 0;
    }
    while (EvictOneParked(en)) {
    }
  }
  en.recompute_on_resume = false;
  Plan(e);
}

}  // namespace rlcost::sim::internal
