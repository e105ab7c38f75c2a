// The simulator's calendar: a 4-ary min-heap of plain events ordered by time,
// ties broken by insertion order so a run is deterministic. No std::function,
// no allocation once the heap has grown to its working size.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
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
  kSandboxReady,      // a = trajectory: its sandbox is started, its first turn may run
  kJudgeOpen,         // a = judge pool: its weights are in, it starts on its queue (sim/judge.h)
  kJudgeSegmentEnd,   // a = judge engine, b = the segment's version (stale ones are skipped)
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
    // Sift up: move parents down into the hole until the new event's place.
    Event ev{t, next_order_++, type, a, b};
    size_t i = heap_.size();
    heap_.push_back(ev);
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!Before(ev, heap_[parent])) break;
      heap_[i] = heap_[parent];
      i = parent;
    }
    heap_[i] = ev;
  }
  Event Pop() {
    Event top = heap_.front();
    Event last = heap_.back();
    heap_.pop_back();
    size_t n = heap_.size();
    if (n > 0) {
      // Sift down the last event from the root: the earliest child moves up.
      size_t i = 0;
      for (;;) {
        size_t c = kArity * i + 1;
        if (c >= n) break;
        size_t best = c;
        size_t end = std::min(c + kArity, n);
        for (size_t k = c + 1; k < end; ++k)
          if (Before(heap_[k], heap_[best])) best = k;
        if (!Before(heap_[best], last)) break;
        heap_[i] = heap_[best];
        i = best;
      }
      heap_[i] = last;
    }
    return top;
  }
  bool empty() const { return heap_.empty(); }
  double top_time() const { return heap_.front().t; }
  void Reserve(size_t n) { heap_.reserve(n); }

 private:
  // A 4-ary heap: half the levels of a binary heap, and a node's children
  // share a cache line or two. The order (time, then insertion) is total, so
  // events come out in the same sequence as from any other priority queue.
  static constexpr size_t kArity = 4;
  static bool Before(const Event& x, const Event& y) {
    return x.t < y.t || (x.t == y.t && x.order < y.order);
  }
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
  // Walks the leaf's path carrying its subtree's winner and reads only the
  // sibling at each level: the same winners as recomputing each node from
  // both children, with half the loads and a select instead of a branch.
  void Set(int e, double t) {
    int i = size_ + e;
    Node cur{t, e};
    Node* tree = tree_.data();
    tree[i] = cur;
    // Times are >= +0, whose bit patterns order as the numbers do: the walk
    // compares and selects integers. The left child wins ties, and it holds
    // the lower engine indices: the earlier time, then the lower index. The
    // select is a mask, not a branch: which node wins at a level is close to
    // a coin toss, and the branches g++ made of `take ? a : b` on doubles
    // cost more than the extra instructions (issue 41: the 1,024-GPU run
    // 10% less CPU time, 10% more instructions; docs/performance.md).
    assert(t >= 0 && !std::signbit(t));
    uint64_t ct = std::bit_cast<uint64_t>(t);
    uint32_t ce = uint32_t(e);
    while (i > 1) {
      const Node sib = tree[i ^ 1];
      const uint64_t st = std::bit_cast<uint64_t>(sib.t);
      const uint32_t se = uint32_t(sib.e);
      const uint64_t take = uint64_t((st < ct) | ((st == ct) & (se < ce)));
      const uint64_t mask = 0 - take;
      ct = (st & mask) | (ct & ~mask);
      ce = (se & uint32_t(mask)) | (ce & ~uint32_t(mask));
      i >>= 1;
      tree[i] = Node{std::bit_cast<double>(ct), int32_t(ce)};
    }
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

// The least-loaded engine (fewest trajectories in flight, the lowest index on
// ties) for starting trajectories: a tournament tree over the engines' loads,
// O(log engines) per change instead of a scan of every engine per start.
class LeastLoaded {
 public:
  void Reset(int n) {
    size_ = 1;
    while (size_ < n) size_ *= 2;
    tree_.assign(2 * size_, Node{kAbsent, 0});
    for (int i = 0; i < size_; ++i) tree_[size_ + i] = Node{i < n ? 0 : kAbsent, i};
    for (int i = size_ - 1; i >= 1; --i) tree_[i] = Min(tree_[2 * i], tree_[2 * i + 1]);
  }
  void Set(int e, int load) {
    int i = size_ + e;
    tree_[i].load = load;
    for (i /= 2; i >= 1; i /= 2) tree_[i] = Min(tree_[2 * i], tree_[2 * i + 1]);
  }
  int top() const { return tree_[1].e; }

 private:
  static constexpr int32_t kAbsent = INT32_MAX;
  struct Node {
    int32_t load;
    int32_t e;
  };
  // The left child holds the lower engine indices: it wins ties.
  static Node Min(const Node& a, const Node& b) { return b.load < a.load ? b : a; }
  int size_ = 1;
  std::vector<Node> tree_;
};

}  // namespace rlcost::sim
