// The simulator's calendar: a 4-ary min-heap of plain events ordered by time,
// ties broken by insertion order so a run is deterministic. No std::function,
// no allocation once the heap has grown to its working size. Engines' own
// next events live in EngineTimers below.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <new>
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

// 64-byte aligned storage: a 4-ary heap or tree whose sibling groups start on
// a cache line (after a pad of three entries) reads each group from one line.
template <class T>
struct LineAlloc {
  using value_type = T;
  LineAlloc() = default;
  template <class U>
  LineAlloc(const LineAlloc<U>&) {}
  T* allocate(size_t n) { return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(64))); }
  void deallocate(T* p, size_t) { ::operator delete(p, std::align_val_t(64)); }
  bool operator==(const LineAlloc&) const { return true; }
};

// Events come out by time, ties by insertion order, so a run is
// deterministic. Any priority queue under that total order pops the same
// sequence; this one is laid out for the simulator's working set (issue 41:
// ~30,000 pending tool returns on a 1,024-GPU agentic run):
//   - an entry is 16 bytes: the time's bits (times are >= +0, whose bit
//     patterns order as the numbers do) and a tag = insertion order (high
//     kOrderBits) | type (4 bits) | a (32 bits); compared as one 128-bit
//     integer, without branches. The order is unique, so the type and a
//     bits never decide. b travels beside, in a slot array, only for the
//     one type that has it (a judge segment's version).
//   - a 4-ary heap whose four children share one 64-byte line (the array is
//     offset so that each sibling group starts on a line);
//   - pop moves the hole down to a leaf along the earliest children and
//     sifts the last entry up from there (it belongs near the bottom), one
//     comparison fewer per level than the textbook sift-down.
// The insertion order wraps at 2^kOrderBits: before it does, the pending
// entries are renumbered 0..n-1 in their order (a sorted array is a heap),
// which keeps every comparison's answer.
class EventQueue {
 public:
  EventQueue() { heap_.resize(kPad); }
  void Push(double t, EventType type, int32_t a, uint32_t b = 0) {
    assert(t >= 0);
    if (next_order_ == order_limit_) Renumber();
    uint64_t low = uint32_t(a);
    if (b != 0 || type == EventType::kJudgeSegmentEnd) low = Slot(a, b);  // b beside, in a slot
    const Entry ev{std::bit_cast<uint64_t>(t + 0.0), (next_order_++ << kLowBits) | (uint64_t(type) << 32) | low};
    // Sift up: move parents down into the hole until the new event's place.
    size_t i = heap_.size() - kPad;
    heap_.push_back(ev);
    Entry* h = heap_.data() + kPad;
    while (i > 0) {
      size_t parent = (i - 1) / kArity;
      if (!Before(ev, h[parent])) break;
      h[i] = h[parent];
      i = parent;
    }
    h[i] = ev;
  }
  Event Pop() {
    Entry* h = heap_.data() + kPad;
    const Entry top = h[0];
    const Entry last = heap_.back();
    heap_.pop_back();
    const size_t n = heap_.size() - kPad;
    if (n > 0) {
      // The hole goes down to a leaf along the earliest child...
      size_t i = 0;
      for (;;) {
        const size_t c = kArity * i + 1;
        size_t best;
        if (c + kArity <= n) {
          const size_t b01 = c + size_t(Before(h[c + 1], h[c]));
          const size_t b23 = c + 2 + size_t(Before(h[c + 3], h[c + 2]));
          const size_t take = 0 - size_t(Before(h[b23], h[b01]));
          best = (b23 & take) | (b01 & ~take);
        } else if (c < n) {
          best = c;
          for (size_t k = c + 1; k < n; ++k)
            if (Before(h[k], h[best])) best = k;
        } else {
          break;
        }
        h[i] = h[best];
        i = best;
      }
      // ... and the last entry rises from there to its place.
      while (i > 0) {
        const size_t parent = (i - 1) / kArity;
        if (!Before(last, h[parent])) break;
        h[i] = h[parent];
        i = parent;
      }
      h[i] = last;
    }
    Event ev;
    ev.t = std::bit_cast<double>(top.t);
    ev.order = top.tag >> kLowBits;
    ev.type = EventType((top.tag >> 32) & 0xF);
    const uint32_t low = uint32_t(top.tag);
    if (ev.type == EventType::kJudgeSegmentEnd) {
      ev.a = slots_[low].a;
      ev.b = slots_[low].b;
      free_.push_back(low);
    } else {
      ev.a = int32_t(low);
    }
    return ev;
  }
  bool empty() const { return heap_.size() == kPad; }
  size_t size() const { return heap_.size() - kPad; }
  double top_time() const { return std::bit_cast<double>(heap_[kPad].t); }
  void Reserve(size_t n) { heap_.reserve(n + kPad); }
  // Tests: wrap the insertion order sooner (at `limit` < 2^kOrderBits pushes).
  void SetOrderLimitForTest(uint64_t limit) { order_limit_ = limit; }

 private:
  static constexpr size_t kArity = 4;
  static constexpr int kLowBits = 36;  // type (4) | a (32)
  static constexpr int kOrderBits = 64 - kLowBits;
  // Entry k lives at heap_[kPad + k]: the children of k, kPad + 4k + 1 ..
  // kPad + 4k + 4, start at a multiple of 4 entries (64 bytes).
  static constexpr size_t kPad = 3;
  struct Entry {
    uint64_t t;    // the time's bits
    uint64_t tag;  // order | type | a
  };
  static bool Before(const Entry& x, const Entry& y) {
    using U = unsigned __int128;
    return ((U(x.t) << 64) | x.tag) < ((U(y.t) << 64) | y.tag);
  }
  struct SlotPayload {
    int32_t a;
    uint32_t b;
  };
  uint32_t Slot(int32_t a, uint32_t b) {
    uint32_t s;
    if (free_.empty()) {
      s = uint32_t(slots_.size());
      slots_.push_back({a, b});
    } else {
      s = free_.back();
      free_.pop_back();
      slots_[s] = {a, b};
    }
    return s;
  }
  // The pending entries renumbered 0..n-1 in the order they will come out.
  void Renumber() {
    std::sort(heap_.begin() + kPad, heap_.end(), Before);
    uint64_t k = 0;
    const uint64_t low_mask = (uint64_t(1) << kLowBits) - 1;
    for (auto it = heap_.begin() + kPad; it != heap_.end(); ++it) it->tag = (k++ << kLowBits) | (it->tag & low_mask);
    next_order_ = k;
  }
  std::vector<Entry, LineAlloc<Entry>> heap_;
  std::vector<SlotPayload> slots_;
  std::vector<uint32_t> free_;
  uint64_t next_order_ = 0;
  uint64_t order_limit_ = uint64_t(1) << kOrderBits;
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
      // The sibling wins on an earlier time; on a tie only when it is the
      // left child (i odd), whose engines are the lower indices: st < ct + 1
      // is st <= ct (ct < 2^63), so the engine indices are never compared.
      const uint64_t mask = 0 - uint64_t(st < ct + uint64_t(i & 1));
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
  std::vector<Node, LineAlloc<Node>> tree_;
};

}  // namespace rlcost::sim
