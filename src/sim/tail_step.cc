// Tail handling in the event simulator (pipeline.tail; docs/model.md, "Tail
// handling", "In the event simulator"): each step's responses are drawn and
// decoded by the engines as any batch's (KV budget, waves, preemptions); the
// mode's stop rule is checked as each response finishes decoding, in time:
//   over_provision / tail_batching: the step stops when prompts_per_step
//     prompts have G responses decoded (their first G);
//   partial_rollout: when n = prompts_per_step x G responses are decoded.
// At the stop every engine ends the iteration in progress and aborts what it
// still runs or holds: over_provision drops those responses, tail_batching
// queues the prompts not finished for a long round of their own (at full
// length, the first G lengths each drew: no speculation), partial_rollout
// carries each unfinished response with what it generated into the next step,
// where its context (prompt + generated) is prefilled again under the new
// weights before it decodes the rest. The same rules as the closed form
// (perf::TailRounds) and sim::SampledTail, which read the finish order off
// the lengths; here it is the engines' order in time.
#include <algorithm>
#include <numeric>

#include "sim/simulator_internal.h"

namespace rlcost::sim::internal {

int Simulator::ApplyTail(Batch& bt, int b) {
  const int G = tail_group_, P = tail_prompts_;
  tail_batch_ = b;
  tail_stop_ = false;
  tail_long_ = false;
  tail_decoded_ = 0;
  tail_prompts_done_ = 0;
  tail_prompt_fin_.assign(g_ / std::max(1, tail_per_prompt_) + 1, 0);
  tail_rank_.assign(g_, 0);
  tail_done_.assign(g_, 0);
  tail_age_.assign(g_, 0);
  tail_orig_prompt_.resize(g_);
  for (int i = 0; i < g_; ++i) tail_orig_prompt_[i] = bt.trajs[i].prompt;
  auto set_resp = [&](int i, int64_t v) { bt.turns[bt.trajs[i].turn_off].response = int32_t(std::max<int64_t>(1, v)); };

  if (tail_spec_.mode == TailMode::kPartialRollout) {
    // The unfinished of the last step first: their context re-prefilled.
    const int carried = std::min<int>(int(tail_carry_.size()), g_);
    for (int i = 0; i < carried; ++i) {
      const TailCarried& c = tail_carry_[i];
      tail_orig_prompt_[i] = c.prompt;
      tail_done_[i] = c.done;
      tail_age_[i] = c.age;
      bt.trajs[i].prompt = c.prompt + c.done;
      set_resp(i, c.rem);
    }
    tail_carry_.clear();
    tail_launched_ += g_ - carried;
    return g_;
  }
  if (tail_spec_.mode == TailMode::kTailBatching && int(tail_queue_.size()) >= P) {
    tail_long_ = true;
    int i = 0;
    for (int p = 0; p < P; ++p) {
      const auto& [prompt, lens] = tail_queue_.front();
      for (int j = 0; j < G; ++j, ++i) {
        bt.trajs[i].prompt = prompt;
        tail_orig_prompt_[i] = prompt;
        set_resp(i, lens[j]);
      }
      tail_queue_.pop_front();
    }
    tail_launched_ += double(P) * G;
    return P * G;
  }
  tail_launched_ += g_;
  return g_;
}

void Simulator::TailDecoded(int32_t id) {
  const int i = id - tail_batch_ * g_;
  tail_rank_[i] = ++tail_decoded_;
  if (tail_stop_ || tail_long_) return;
  if (tail_spec_.mode == TailMode::kPartialRollout) {
    if (tail_decoded_ >= tail_trained_n_) StopTail();
    return;
  }
  if (++tail_prompt_fin_[i / tail_per_prompt_] == tail_group_ && ++tail_prompts_done_ >= tail_prompts_) StopTail();
}

void Simulator::StopTail() {
  tail_stop_ = true;
  for (int e = 0; e < n_engines_; ++e) {
    Engine& en = engines_[e];
    if (en.in_handler) continue;  // its EndSegment aborts once its finished sequences are handled
    if (en.seg != SegKind::kNone) {
      TruncateSegment(e);  // ends at the iteration in progress; EndSegment then aborts
    } else {
      AbortEngine(e);
    }
  }
}

void Simulator::AbortEngine(int e) {
  Engine& en = engines_[e];
  Batch& bt = batches_[tail_batch_];
  auto abort = [&](int32_t id) {
    Traj& t = T(id);
    if (t.blocks > 0) {
      en.static_blocks -= t.blocks;
      t.blocks = 0;
    }
    t.trained = false;
    t.state = TrajState::kDone;
    AddInflight(en, -1);
    --inflight_total_;
    gen_tokens_ += double(t.gen);
    const int i = id - tail_batch_ * g_;
    if (tail_spec_.mode == TailMode::kPartialRollout) {
      tail_carry_.push_back({tail_orig_prompt_[i], tail_done_[i] + t.gen, std::max<int64_t>(1, t.resp_left),
                             tail_age_[i] + (t.gen > 0 || tail_done_[i] > 0 ? 1 : 0)});
    }
    ++bt.finished;
  };
  for (int32_t id = en.head; id != kNone;) {
    const int32_t next = L(id).next;
    LeaveRunning(en, id);
    abort(id);
    id = next;
  }
  for (int32_t id : en.prefill_q) abort(id);
  for (int32_t id : en.waiting) abort(id);
  en.prefill_q.clear();
  en.waiting.clear();
  en.finish_heap.clear();
  bt.t_last_gen_end = std::max(bt.t_last_gen_end, now_);
  if (bt.finished >= g_) sync_done_flag_ = true;
  en.seg = SegKind::kNone;
  OpenIdle(e);
  if (timers_.time(e) != EngineTimers::kNever) timers_.Set(e, EngineTimers::kNever);
}

void Simulator::TailStepEnd(Batch& bt) {
  const int G = tail_group_, Gp = tail_per_prompt_;
  const int active = tail_long_ ? tail_prompts_ * G : g_;
  tail_step_trained_ = 0;
  double tokens = 0, longest = 0;
  auto train = [&](int i) {
    const Traj& t = bt.trajs[i];
    tail_step_trained_ += 1;
    tokens += double(t.prompt + t.gen);  // a carried response: its prompt holds what it generated before
    tail_trained_len_ += double(tail_done_[i] + t.gen);
    tail_old_ += tail_age_[i] > 0 ? 1 : 0;
    tail_age_sum_ += tail_age_[i];
    longest = std::max(longest, double(t.gen));
  };
  if (tail_spec_.mode == TailMode::kPartialRollout || tail_long_) {
    for (int i = 0; i < active; ++i) {
      if (tail_rank_[i] > 0) train(i);
    }
    if (tail_long_) {
      tail_long_rounds_ += 1;
      tail_deferred_ += tail_prompts_;
    }
  } else {
    const int L = g_ / Gp;
    for (int p = 0; p < L; ++p) {
      // Its responses in the order they finished decoding; a prompt with G is
      // kept and trains on those G, every other response decoded is waste.
      std::vector<int> idx(Gp);
      std::iota(idx.begin(), idx.end(), p * Gp);
      std::stable_sort(idx.begin(), idx.end(), [&](int a, int b) {
        const int ra = tail_rank_[a] > 0 ? tail_rank_[a] : INT32_MAX, rb = tail_rank_[b] > 0 ? tail_rank_[b] : INT32_MAX;
        return ra < rb;
      });
      const bool kept = tail_prompt_fin_[p] >= G;
      for (int r = 0; r < Gp; ++r) {
        const int i = idx[r];
        if (kept && r < G) {
          train(i);
        } else {
          tail_wasted_ += double(bt.trajs[i].gen);
        }
      }
      if (!kept) {
        if (tail_spec_.mode == TailMode::kTailBatching) {
          std::vector<int64_t> first_g(G);
          for (int j = 0; j < G; ++j) first_g[j] = bt.turns[bt.trajs[p * Gp + j].turn_off].response;
          tail_queue_.emplace_back(tail_orig_prompt_[p * Gp], std::move(first_g));
        } else {
          tail_dropped_ += G;
        }
      }
    }
  }
  if (!tail_long_) {
    tail_cut_sum_ += longest;
    tail_short_rounds_ += 1;
  }
  tail_trained_sum_ += tail_step_trained_;
  cum_tokens_ = tokens;
}

}  // namespace rlcost::sim::internal
