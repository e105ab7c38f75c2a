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

#include "sim/four_ary_heap.h"

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
//     kOrderBits) | type (4 bits) | a (32 bits). The order is unique, so the
//     type and a bits never decide. b travels beside, in a slot array, only
//     for the one type that has it (a judge segment's version).
//   - a 4-ary heap ordered by the time's bits alone, one 64-bit compare
//     (issue 41, twelfth pass: the 128-bit key cost ~47 instructions a level
//     of a pop). Entries of one time, the root's ties, form a subtree at the
//     root (an entry's ancestors are no later than it and no earlier than
//     the root): when a child of the root has the root's time, Pop first
//     swaps the earliest inserted of them into the root (two entries of one
//     time swapped keep the heap's order). So events come out by (time,
//     insertion) as before; top_type() and top_a() may name another of the
//     root's ties (a prefetch hint).
//   - its four children share one 64-byte line (the array is offset so that
//     each sibling group starts on a line), and kTail entries later than any
//     event stay past the last, so every group is read whole;
//   - pop moves the hole down to a leaf along the earliest children and
//     sifts the last entry up from there (it belongs near the bottom), one
//     comparison fewer per level than the textbook sift-down.
// The insertion order wraps at 2^kOrderBits: before it does, the pending
// entries are renumbered 0..n-1 in their order (a sorted array is a heap),
// which keeps every comparison's answer.
class EventQueue {
 public:
  EventQueue() { heap_.assign(kPad + kTail, kLater); }
  void Push(double t, EventType type, int32_t a, uint32_t b = 0) {
    assert(t >= 0);
    if (next_order_ == order_limit_) Renumber();
    uint64_t low = uint32_t(a);
    if (b != 0 || type == EventType::kJudgeSegmentEnd) low = Slot(a, b);  // b beside, in a slot
    const Entry ev{std::bit_cast<uint64_t>(t + 0.0), (next_order_++ << kLowBits) | (uint64_t(type) << 32) | low};
    assert(ev.t < kLater.t);
    // Sift up: move parents down into the hole until the new event's place.
    const size_t i = size();
    heap_.push_back(kLater);  // the tail moves up one
    HeapSiftUp(heap_.data() + kPad, i, ev, Before);
  }
  Event Pop() {
    Entry* h = heap_.data() + kPad;
    const size_t n = size() - 1;  // entries left
    const uint64_t t0 = h[0].t;
    // (h[1..4] exist: kTail >= 4.)
    if ((h[1].t == t0) | (h[2].t == t0) | (h[3].t == t0) | (h[4].t == t0)) EarliestTieToRoot(h, n + 1);
    const Entry top = h[0];
    const Entry last = h[n];
    h[n] = kLater;
    heap_.pop_back();
    // The hole goes down to a leaf along the earliest children, and the last
    // entry rises from there to its place.
    HeapRefillRootPadded(h, n, last, [](const Entry& e) { return e.t; });
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
  bool empty() const { return heap_.size() == kPad + kTail; }
  size_t size() const { return heap_.size() - kPad - kTail; }
  // The next event's type and `a` (valid when not empty): what the caller
  // may prefetch while it handles the current one.
  EventType top_type() const { return EventType((heap_[kPad].tag >> 32) & 0xF); }
  int32_t top_a() const { return int32_t(uint32_t(heap_[kPad].tag)); }
  double top_time() const { return std::bit_cast<double>(heap_[kPad].t); }
  void Reserve(size_t n) { heap_.reserve(n + kPad + kTail); }
  // Tests: wrap the insertion order sooner (at `limit` < 2^kOrderBits pushes).
  void SetOrderLimitForTest(uint64_t limit) { order_limit_ = limit; }

 private:
  static constexpr int kLowBits = 36;  // type (4) | a (32)
  static constexpr int kOrderBits = 64 - kLowBits;
  // Entry k lives at heap_[kPad + k]: the children of k, kPad + 4k + 1 ..
  // kPad + 4k + 4, start at a multiple of 4 entries (64 bytes).
  static constexpr size_t kPad = 3;
  static constexpr size_t kTail = 4;  // >= kHeapArity - 1 (the refill), and h[4] for a one-entry Pop
  struct Entry {
    uint64_t t;    // the time's bits
    uint64_t tag;  // order | type | a
  };
  static constexpr Entry kLater{~uint64_t(0), ~uint64_t(0)};  // later than any time's bits (a NaN's)
  static bool Before(const Entry& x, const Entry& y) { return x.t < y.t; }
  // The (time, insertion) order: Pop's ties, Renumber.
  static bool BeforeWithTies(const Entry& x, const Entry& y) {
    using U = unsigned __int128;
    return ((U(x.t) << 64) | x.tag) < ((U(y.t) << 64) | y.tag);
  }
  // The root's ties (entries of its time, a subtree at the root): the one
  // inserted first goes to the root, in the place of the root's entry.
  void EarliestTieToRoot(Entry* h, size_t n) {
    const uint64_t t0 = h[0].t;
    size_t best = 0;
    tie_stack_.clear();
    tie_stack_.push_back(0);
    while (!tie_stack_.empty()) {
      const size_t k = tie_stack_.back();
      tie_stack_.pop_back();
      if (h[k].tag < h[best].tag) best = k;
      for (size_t c = kHeapArity * k + 1; c <= kHeapArity * k + kHeapArity && c < n; ++c)
        if (h[c].t == t0) tie_stack_.push_back(c);
    }
    std::swap(h[0], h[best]);
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
    const auto b = heap_.begin() + kPad, e = b + ptrdiff_t(size());
    std::sort(b, e, BeforeWithTies);
    uint64_t k = 0;
    const uint64_t low_mask = (uint64_t(1) << kLowBits) - 1;
    for (auto it = b; it != e; ++it) it->tag = (k++ << kLowBits) | (it->tag & low_mask);
    next_order_ = k;
  }
  std::vector<Entry, LineAlloc<Entry>> heap_;  // kPad unused, size() entries, kTail of kLater
  std::vector<size_t> tie_stack_;
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
// Each node holds its winner's key, the time's bits above the engine index,
// so an update walks the path reading sibling nodes only (no indirection
// through the time array) and compares keys as 128-bit integers.
class EngineTimers {
 public:
  static constexpr double kNever = 1e300;
  void Reset(int n) {
    size_ = 1;
    depth_ = 0;
    while (size_ < n) {
      size_ *= 2;
      ++depth_;
    }
    tree_.assign(2 * size_, Node{0, Bits(kNever)});
    for (int i = 0; i < size_; ++i) tree_[size_ + i] = Node{uint64_t(i), Bits(kNever)};
    for (int i = size_ - 1; i >= 1; --i) tree_[i] = Key(tree_[2 * i + 1]) < Key(tree_[2 * i]) ? tree_[2 * i + 1] : tree_[2 * i];
  }
  // Walks the leaf's path carrying its subtree's winner and reads only the
  // sibling at each level: the same winners as recomputing each node from
  // both children, with half the loads.
  void Set(int e, double t) {
    // Times are >= +0, whose bit patterns order as the numbers do, so the
    // key (time bits, engine) orders by the earlier time, then the lower
    // engine index: the old rule (the left child, which holds the lower
    // indices, wins ties) without a branch on which child we are. g++ makes
    // the 128-bit comparison a cmp/sbb and the select two cmovs (issue 41:
    // ~16 instructions a level, was ~30 with 64-bit masks; which node wins
    // is close to a coin toss, so a branch would be mispredicted half the time).
    assert(t >= 0 && !std::signbit(t));
    // The walk goes by byte offsets into the tree (node i at i * 16): a
    // sibling is offset ^ 16 and a parent offset / 2 rounded down to a node,
    // each an address the load or store takes as it is (issue 41, sixth pass:
    // an index needed a shift and an add per access, 16 bytes being no
    // addressing scale).
    static_assert(sizeof(Node) == 16);
    size_t o = (size_t(size_) + size_t(e)) * sizeof(Node);
    U cur = (U(Bits(t)) << 64) | uint64_t(e);
    char* tree = reinterpret_cast<char*>(tree_.data());
    auto at = [tree](size_t off) -> Node& { return *reinterpret_cast<Node*>(tree + off); };
    auto up = [](size_t off) { return (off >> 1) & ~size_t(sizeof(Node) - 1); };
    at(o) = Node{uint64_t(cur), uint64_t(cur >> 64)};
    // Two levels a turn (the tree's depth, log2 of a power of two, is
    // known): fewer loop tests on the 9-level walk of 512 engines.
    int levels = depth_;
    for (; levels >= 2; levels -= 2) {
      const U s1 = Key(at(o ^ sizeof(Node)));
      cur = s1 < cur ? s1 : cur;
      o = up(o);
      at(o) = Node{uint64_t(cur), uint64_t(cur >> 64)};
      const U s2 = Key(at(o ^ sizeof(Node)));
      cur = s2 < cur ? s2 : cur;
      o = up(o);
      at(o) = Node{uint64_t(cur), uint64_t(cur >> 64)};
    }
    if (levels == 1) {
      const U s1 = Key(at(o ^ sizeof(Node)));
      cur = s1 < cur ? s1 : cur;
      tree_[1] = Node{uint64_t(cur), uint64_t(cur >> 64)};
    }
  }
  int top() const { return int(tree_[1].e); }
  double top_time() const { return std::bit_cast<double>(tree_[1].t); }
  double time(int e) const { return std::bit_cast<double>(tree_[size_ + e].t); }

 private:
  using U = unsigned __int128;
  struct Node {
    uint64_t e;  // engine (the key's low half)
    uint64_t t;  // the time's bits (its high half)
  };
  static uint64_t Bits(double t) { return std::bit_cast<uint64_t>(t + 0.0); }
  static U Key(const Node& n) { return (U(n.t) << 64) | n.e; }
  int size_ = 1;
  int depth_ = 0;  // levels above the leaves: size_ = 2^depth_
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
