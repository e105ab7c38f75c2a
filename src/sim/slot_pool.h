// The simulator's pools of slots — sandboxes (environment.sandbox.
// max_concurrent) and tool workers (environment.tool_concurrency): a request
// takes a free slot or waits, first come first served. The pool integrates
// its slots in use over time (slot-seconds held), keeps their peak, and sums
// the time requests waited.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>

#include "sim/event_queue.h"

namespace rlcost::sim::internal {

// What a slot is asked for: trajectory `id` holds it `dur_s`, then event `done` fires.
struct SlotRequest {
  int32_t id = 0;
  double dur_s = 0;
  EventType done = EventType::kToolDone;
};

class SlotPool {
 public:
  void Reset(int slots) { *this = SlotPool(), slots_ = free_ = slots; }
  int slots() const { return slots_; }
  int busy() const { return slots_ - free_; }
  size_t queued() const { return waiting_.size(); }
  int peak() const { return peak_; }
  double busy_s() const { return busy_s_; }  // slot-seconds held, up to the last change
  double wait_s() const { return wait_s_; }  // seconds requests waited for a slot, summed

  // At `now`: true when a slot was free and `r` holds it (the caller starts
  // it), false when `r` waits for one.
  bool Take(double now, const SlotRequest& r) {
    if (free_ > 0) {
      --free_;
      InUse(now, +1);
      return true;
    }
    waiting_.push_back({r, now});
    return false;
  }
  // Closes the integral of slots in use at `now` (the end of the run).
  void Close(double now) { InUse(now, 0); }
  // At `now` a slot comes back: the first waiting request holds it (returned,
  // for the caller to start), else it is free.
  std::optional<SlotRequest> Release(double now) {
    if (waiting_.empty()) {
      ++free_;
      InUse(now, -1);
      return std::nullopt;
    }
    const Waiting w = waiting_.front();
    waiting_.pop_front();
    wait_s_ += now - w.since;
    return w.request;
  }

 private:
  struct Waiting {
    SlotRequest request;
    double since = 0;
  };
  // Slots in use change only here: busy_s_ integrates their number over time.
  void InUse(double now, int delta) {
    busy_s_ += double(in_use_) * (now - mark_t_);
    mark_t_ = now;
    in_use_ += delta;
    peak_ = std::max(peak_, in_use_);
  }
  int slots_ = 0, free_ = 0, in_use_ = 0, peak_ = 0;
  double busy_s_ = 0, wait_s_ = 0, mark_t_ = 0;
  std::deque<Waiting> waiting_;
};

}  // namespace rlcost::sim::internal
