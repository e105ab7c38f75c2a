// The simulator's calendar: a binary min-heap of plain events ordered by time,
// ties broken by insertion order so a run is deterministic. No std::function,
// no allocation once the heap has grown to its working size.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace rlcost::sim {

enum class EventType : uint8_t {
  kEngineSegmentEnd,  // a = engine, b = the segment's version (stale ones are skipped)
  kEngineResume,      // a = engine: a weight-sync pause is over
  kToolDone,          // a = trajectory: its tool call returned
  kVerifyDone,        // a = trajectory: its reward is computed
  kTrainerPhaseEnd,   // the trainer finished log-prob + reference + update
  kSyncEnd,           // the trainer finished sending weights
  kOverheadEnd,       // the trainer's fixed per-step overhead is over
};

struct Event {
  double t = 0;
  uint64_t order = 0;
  EventType type = EventType::kEngineSegmentEnd;
  int32_t a = 0;
  uint32_t b = 0;
};

class EventQueue {
 public:
  void Push(double t, EventType type, int32_t a, uint32_t b = 0) {
    heap_.push_back(Event{t, next_order_++, type, a, b});
    std::push_heap(heap_.begin(), heap_.end(), Later);
  }
  Event Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later);
    Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  static bool Later(const Event& x, const Event& y) {
    return x.t > y.t || (x.t == y.t && x.order > y.order);
  }
  std::vector<Event> heap_;
  uint64_t next_order_ = 0;
};

}  // namespace rlcost::sim
