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
    std::push_heap(heap_.begin(), heap_.end(), Later{});
  }
  Event Pop() {
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  bool empty() const { return heap_.empty(); }
  double top_time() const { return heap_.front().t; }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  // A function object, not a function pointer, so the heap operations inline it.
  struct Later {
    bool operator()(const Event& x, const Event& y) const {
      return x.t > y.t || (x.t == y.t && x.order > y.order);
    }
  };
  std::vector<Event> heap_;
  uint64_t next_order_ = 0;
};

}  // namespace rlcost::sim

namespace rlcost::sim {

// One pending time per engine in a tournament tree: setting an engine's next
// event (a segment truncated, a pause) replaces it in O(log engines) instead
// of leaving a stale entry in the heap. Ties go to the lower engine index.
// Each node holds its winner's time beside its index, so an update walks the
// path reading sibling nodes only (no indirection through the time array).
class EngineTimers {
 public:
  static constexpr double kNever = 1e300;
  void Reset(int n) {
    size_ = 1;
    while (size_ < n) size_ *= 2;
    tree_.assign(2 * size_, Node{kNever, 0});
    for (int i = 0; i < size_; ++i) tree_[size_ + i] = Node{kNever, i};
    for (int i = size_ - 1; i >= 1; --i) tree_[i] = Min(tree_[2 * i], tree_[2 * i + 1]);
  }
  void Set(int e, double t) {
    int i = size_ + e;
    tree_[i].t = t;
    for (i /= 2; i >= 1; i /= 2) tree_[i] = Min(tree_[2 * i], tree_[2 * i + 1]);
  }
  int top() const { return tree_[1].e; }
  double top_time() const { return tree_[1].t; }
  double time(int e) const { return tree_[size_ + e].t; }

 private:
  struct Node {
    double t;
    int32_t e;
  };
  // The left child holds the lower engine indices: it wins ties.
  static Node Min(const Node& a, const Node& b) { return b.t < a.t ? b : a; }
  int size_ = 1;
  std::vector<Node> tree_;
};

}  // namespace rlcost::sim
