// Internal to src/sim: the discrete-event simulator's state and parts, one
// file per component (docs/model.md, "The event simulator"):
//   simulator.cc     set-up, the event loop, the result
//   trajectories.cc  batches, trajectories, tool calls and sandboxes, rewards and judges
//   engines.cc       KV blocks, admission and preemption, decode segments, idle time, pauses
//   pipeline.cc      the trainer, weight sync, and the sync / async pipelines
//
// Engines batch continuously under a KV budget counted in 16-token blocks;
// between two events an engine's batch is fixed, so n decode iterations are
// one closed-form perf::DecodeIterations call (no per-token loop). Trajectories
// leave the batch for tool calls on a FIFO sandbox pool and come back to
// prefill the tool output. The trainer, weight sync and the sync / async
// pipelines are a handful of events per step.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <deque>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <vector>
#include <fmt/format.h>
#include "rlcost/perf.h"
#include "sim/huge_pages.h"
#include "sim/slot_pool.h"
#include "rlcost/sim.h"
#include "perf/prefill_maker.h"
#include "sim/draws.h"
#include "sim/event_queue.h"
#include "sim/judge.h"
#include "sim/kv_cache.h"
#include "sim/trace.h"

namespace rlcost::sim::internal {


// Prefill tokens per engine iteration under chunked prefill: vLLM's
// max_num_batched_tokens = 8192 (a model assumption; the V1 default for large
// GPUs is in this range).
constexpr int64_t kChunkTokens = 8192;
// Trace only the first steps in detail (bounded file).
constexpr int kTraceSteps = 3;
// Above this many rollouts per step the simulation would take minutes.
constexpr double kMaxRolloutsPerStep = 2.0e6;
// Trajectories over the whole simulated run (steps x rollouts per step); see
// Setup() for the time and memory this stands for.
constexpr double kMaxSimulatedTrajectories = 5.0e7;
// Engines: 1e6 GPUs at tp 1 took 30 s and 2.4 GB before a single step ran.
constexpr int kMaxEngines = 100'000;

constexpr int32_t kNone = -1;

inline int64_t Blocks(int64_t tokens) { return tokens <= 0 ? 0 : (tokens + kBlockTokens - 1) / kBlockTokens; }
// x mod 16 in [0, 16), negative x included: the low four bits of its two's
// complement (C++20), one AND instead of two signed remainders.
inline int Mod16(int64_t x) {
  static_assert(kBlockTokens == 16);
  return static_cast<int>(static_cast<uint64_t>(x) & 15u);
}

inline uint64_t SplitMix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ULL;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
  return x ^ (x >> 31);
}

// n / d for a trajectory id n (31 bits, >= 0) and a fixed 1 <= d < 2^32, as
// a multiply and a shift instead of an integer divide on every lookup
// (Lemire, Kaser & Kurz, "Faster Remainder by Direct Computation", 2019,
// Theorem 1: with M = ceil(2^F / d) and d <= 2^(F - N), n / d = (M n) >> F
// exactly for every N-bit n). N = 31 and F = 63 serve every such d, 1
// included (M = 2^63 fits in 64 bits), so no d needs a branch of its own.
class IdDivider {
 public:
  IdDivider() = default;
  explicit IdDivider(int d) : m_(((uint64_t(1) << 63) - 1) / uint64_t(d) + 1) { assert(d >= 1); }
  int32_t operator()(int32_t n) const {
    assert(n >= 0);
    return static_cast<int32_t>((static_cast<unsigned __int128>(m_) * uint32_t(n)) >> 63);
  }

 private:
  uint64_t m_ = uint64_t(1) << 63;  // d = 1
};

enum class TrajState : uint8_t { kWaiting, kPrefill, kRunning, kTool, kSandboxQueue, kBarrier, kVerify, kJudge, kDone };
enum class IdleCause : uint8_t { kNone, kTail, kTrainer, kTools, kSync, kJudge };

struct Turn {
  int32_t response = 0;
  int32_t tool_out = 0;
  double tool_latency_s = 0;
};

// 128 bytes, two cache lines (issue 41: a 1,024-GPU agentic run touches a
// random one several times an event; at 152 bytes most spanned three). Its
// batch is BatchOf(id); its finish iteration lives in the engine's finish
// heap; its place in the running list in its batch's links (Link).
struct Traj {
  int32_t engine = 0;
  int32_t turns = 1;
  int32_t turn = 0;            // current turn, 0-based
  int32_t turn_off = 0;        // first Turn in its batch's pool
  int32_t judge_left = 0;      // judge calls not yet answered (sim/judge.h)
  uint32_t epoch = 0;          // bumps when it leaves the running set or its cache changes
  // The tool call that ends the current turn (all turns but the last), read
  // from its Turns when the turn starts (StartTrajectory, NextTurn): the
  // call's output tokens and the next turn's response tokens here, its
  // latency in call_latency_s. ToolOrReward, at the turn's end, reads no Turn
  // (issue 41, twelfth pass: that load, a miss on a random line of ~10 MB of
  // Turns the call's time waited on, was ~9% of the 1,024-GPU run's time;
  // at the turn's start nothing waits on it).
  int32_t call_out = 0, next_response = 0;
  bool startup_paid = false;
  bool parked = false;     // its KV stays cached (evictable) while it is out on a tool call
  bool trained = true;     // pipeline.tail: false for a response stopped (aborted or carried) at the step's cut
  TrajState state = TrajState::kWaiting;
  int64_t ctx = 0;         // context tokens committed (valid while not running)
  int64_t key = 0;         // running: context = key + engine iteration counter
  int64_t resp_left = 0;   // tokens still to decode in this turn
  int64_t pf_left = 0;     // prefill tokens still to process
  int64_t pf_ctx = 0;      // context before the remaining prefill
  int64_t blocks = 0;      // blocks held outside the running set (prefill, parked cache)
  int64_t gen = 0;         // tokens decoded so far
  double call_latency_s = 0;  // see call_out (the tool tokens it took in: ToolTokens)
  int64_t prompt = 0;
  double verify_s = 0;
  double t_start = 0;
};
static_assert(sizeof(Traj) == 128);

// A running sequence's neighbours in its engine's running list (admission
// order), or a parked cache's in its engine's LRU list (Simulator::Park),
// beside the trajectories in a dense array: leaving a list writes 8-byte
// entries, not two other trajectories' cache lines.
struct Link {
  int32_t prev = kNone, next = kNone;
};

struct Batch {
  int index = 0;
  int created = 0;      // trajectories started
  int gen_done = 0;     // trajectories done decoding
  int finished = 0;     // trajectories rewarded
  BigVector<Traj> trajs;
  BigVector<Turn> turns;
  BigVector<Link> links;
  std::vector<int> barrier_need;     // lockstep: trajectories that make tool call k
  std::vector<int> barrier_arrived;
  std::vector<std::vector<int32_t>> barrier_held;
  double t_first_start = 0, t_last_gen_end = 0, t_last_end = 0;
  bool materialized = false;
};

struct FinishEntry {
  int64_t iter;
  int32_t traj;
  uint32_t epoch;
};

// An engine's running sequences by the iteration at which their turn is
// decoded: a 4-ary min-heap of 16-byte entries ordered by the iteration
// alone, so a comparison is one 64-bit integer compare (issue 41, twelfth
// pass: the 128-bit (iteration, trajectory, epoch) key cost ~47 instructions
// a level of a pop on default.yaml, 34 now). Entries of one iteration come out in the
// order the heap's history leaves them; TakeDue hands the due trajectories to
// the engine by (iteration, trajectory), the order a heap under that total
// key popped them in, so a run's events are the same. What else reads the
// heap reads front().iter after dropping stale entries: the earliest current
// entry's iteration, whichever of the entries tied with it comes first. Stale
// entries (an epoch the trajectory has left) stay until they come to the
// front. kHeapArity - 1 entries later than any real one stay past the last
// (HeapRefillRootPadded), so an empty heap's front is never due.
class FinishHeap {
 public:
  FinishHeap() : h_(kPad, kLater) {}
  bool empty() const { return h_.size() == kPad; }
  size_t size() const { return h_.size() - kPad; }
  void clear() { h_.assign(kPad, kLater); }
  const FinishEntry& front() const { return h_.front(); }
  void push(const FinishEntry& f) {
    assert(f.iter < kLater.iter);
    const size_t i = size();
    h_.push_back(kLater);  // the padding moves up one
    HeapSiftUp(h_.data(), i, f, Before);
  }
  // Out of line: the engines' planning pops only stale entries, rarely;
  // TakeDue's loop has its own copy.
  [[gnu::noinline]] void pop() { PopInline(); }
  // Pops every entry due by iteration `iter` and appends those that
  // `current(entry)` keeps to `out`, by iteration, then by trajectory id (the
  // heap pops iterations in order; a tie out of order is sorted, rare: two
  // turns ending at one iteration). `current` must not touch the heap.
  template <class Current>
  void TakeDue(int64_t iter, Current current, std::vector<FinishEntry>& out) {
    assert(iter < kLater.iter);
    const size_t first = out.size();
    while (h_.front().iter <= iter) {  // an empty heap's front is kLater
      const FinishEntry f = h_.front();
      PopInline();
      if (current(f)) out.push_back(f);
    }
    if (out.size() - first > 1) {
      auto by = [](const FinishEntry& x, const FinishEntry& y) {
        return x.iter != y.iter ? x.iter < y.iter : x.traj < y.traj;
      };
      const auto b = out.begin() + ptrdiff_t(first);
      if (!std::is_sorted(b, out.end(), by)) std::sort(b, out.end(), by);
    }
  }

 private:
  void PopInline() {
    FinishEntry* h = h_.data();
    const size_t n = size() - 1;  // entries left
    const FinishEntry last = h[n];
    h[n] = kLater;
    h_.pop_back();
    HeapRefillRootPadded(h, n, last, [](const FinishEntry& f) { return f.iter; });
  }
  static constexpr size_t kPad = kHeapArity - 1;
  static constexpr FinishEntry kLater{std::numeric_limits<int64_t>::max(), 0, 0};
  static bool Before(const FinishEntry& x, const FinishEntry& y) { return x.iter < y.iter; }
  std::vector<FinishEntry> h_;  // size() entries, then kPad of kLater
};

enum class SegKind : uint8_t { kNone, kDecode, kMixed };

// An engine's queues (trajectory ids waiting or prefilling; parked caches in
// LRU order): a growable ring buffer, the operations of std::deque that the
// engines use without its per-operation block bookkeeping (a deque allocates
// and frees a block every 64 entries of 8 bytes).
template <class T>
class Ring {
 public:
  bool empty() const { return n_ == 0; }
  size_t size() const { return n_; }
  const T& front() const { return buf_[head_]; }
  void push_back(const T& id) {
    if (n_ == buf_.size()) Grow();
    buf_[(head_ + n_) & (buf_.size() - 1)] = id;
    ++n_;
  }
  void push_front(const T& id) {
    if (n_ == buf_.size()) Grow();
    head_ = (head_ + buf_.size() - 1) & (buf_.size() - 1);
    buf_[head_] = id;
    ++n_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (buf_.size() - 1);
    --n_;
  }
  void clear() { head_ = n_ = 0; }
  const T& operator[](size_t k) const { return buf_[(head_ + k) & (buf_.size() - 1)]; }
  // In queue order: for (int32_t id : ring).
  class Iter {
   public:
    Iter(const Ring* r, size_t k) : r_(r), k_(k) {}
    const T& operator*() const { return (*r_)[k_]; }
    Iter& operator++() {
      ++k_;
      return *this;
    }
    bool operator!=(const Iter& o) const { return k_ != o.k_; }

   private:
    const Ring* r_;
    size_t k_;
  };
  Iter begin() const { return Iter(this, 0); }
  Iter end() const { return Iter(this, n_); }

 private:
  void Grow() {
    std::vector<T> b(buf_.empty() ? 16 : 2 * buf_.size());
    for (size_t k = 0; k < n_; ++k) b[k] = (*this)[k];
    buf_.swap(b);
    head_ = 0;
  }
  std::vector<T> buf_;  // capacity a power of two
  size_t head_ = 0, n_ = 0;
};
using IdRing = Ring<int32_t>;

struct Engine {
  int id = 0;
  // Running set: context of sequence i is key_i + iter.
  int64_t iter = 0;
  int64_t n_running = 0;
  int64_t sum_key = 0;
  int64_t phase_cnt[kBlockTokens] = {};  // running sequences by key mod 16
  int64_t phase_sum = 0;                  // sum of their keys mod 16
  int32_t head = kNone, tail = kNone;   // admission order: tail = most recent
  FinishHeap finish_heap;
  IdRing waiting;
  IdRing prefill_q;
  std::vector<int32_t> prefill_done;    // completed by the iteration in flight
  int32_t park_head = kNone, park_tail = kNone;  // parked caches, LRU first (through their Links; Park)
  int64_t static_blocks = 0;            // prefill + parked
  // Current segment.
  SegKind seg = SegKind::kNone;
  double seg_t0 = 0, seg_t1 = 0;
  int64_t seg_n = 0, seg_b = 0, seg_ctx = 0;
  double seg_flops = 0;                 // per GPU
  uint32_t seg_version = 0;
  bool in_handler = false;
  bool paused = false;
  bool recompute_on_resume = false;
  bool resume_pending = false;  // its timer is a pause ending, not a segment
  // Trajectories assigned and not done decoding; of those, out on a tool.
  int inflight = 0;
  int out = 0;
  int64_t peak_batch = 0;
  // Idle interval.
  bool idle = false;
  double idle_since = 0;
  IdleCause idle_cause = IdleCause::kNone;
  double pause_since = 0;
  // Totals.
  double busy_s = 0, batch_s = 0, blocks_s = 0, pause_s = 0;
};

// Nearest-rank percentiles of a run's per-trajectory records (>= 0: times
// and token counts), which it may reorder or overwrite. They are order
// statistics, one value each whatever finds them: found here by radix
// selection on the values' bit patterns (non-negative doubles order as
// their bits do), one digit of 11 bits a pass over the candidates left, each
// pass without data-dependent branches (issue 41: std::nth_element's
// mispredicted branches were ~4% of default.yaml's run). Test:
// tests/sim/percentile_test.cc.
struct Percentile {
  template <class Vec>
  static Percentiles Of(Vec& v) {
    Percentiles p;
    if (v.empty()) return p;
    const size_t n = v.size();
    auto rank = [&](double q) {
      size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(n)));
      return std::min(n - 1, i == 0 ? 0 : i - 1);
    };
    // The values' bits, in place (a double and its bits have the same size).
    static_assert(sizeof(typename Vec::value_type) == sizeof(uint64_t));
    uint64_t* keys = reinterpret_cast<uint64_t*>(v.data());
    uint64_t lo = ~uint64_t(0), hi = 0;
    for (size_t i = 0; i < n; ++i) {
      const uint64_t k = std::bit_cast<uint64_t>(std::bit_cast<double>(keys[i]) + 0.0);  // -0 as +0
      keys[i] = k;
      lo = std::min(lo, k);
      hi = std::max(hi, k);
    }
    p.max = std::bit_cast<double>(hi);
    if (lo == hi) {
      p.p50 = p.p90 = p.p99 = p.max;
      return p;
    }
    // The first digit's histogram once for the three ranks; one pass then
    // keeps each rank's bucket's keys (issue 41, tenth pass: one pass, not one
    // a rank, was 20 M of default.yaml's 31.5 M instructions here), and each
    // rank goes on digit by digit in its copy.
    const int top = 64 - std::countl_zero(lo ^ hi);  // bits [top, 64) are the same in every key
    const int shift = std::max(0, top - kDigit);
    const uint64_t mask = (uint64_t(1) << (top - shift)) - 1;
    std::vector<uint32_t> hist(size_t(1) << kDigit, 0u);
    for (size_t i = 0; i < n; ++i) ++hist[(keys[i] >> shift) & mask];
    double* out[3] = {&p.p50, &p.p90, &p.p99};
    const double q[3] = {0.50, 0.90, 0.99};
    size_t r[3], b[3];
    std::vector<uint64_t> cand[3];
    for (int k = 0; k < 3; ++k) {
      r[k] = rank(q[k]);
      b[k] = 0;
      while (r[k] >= hist[b[k]]) r[k] -= hist[b[k]++];
      cand[k].resize(hist[b[k]] + 1);  // (+1: the filter's last write may land one past)
    }
    size_t m[3] = {0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
      const uint64_t key = keys[i], d = (key >> shift) & mask;
      for (int k = 0; k < 3; ++k) {
        cand[k][m[k]] = key;
        m[k] += d == b[k];
      }
    }
    for (int k = 0; k < 3; ++k) {
      cand[k].resize(m[k]);
      *out[k] = std::bit_cast<double>(Select(cand[k], r[k], shift));
    }
    return p;
  }

 private:
  static constexpr int kDigit = 11;
  // The keys of c[0, m) whose digit (>> shift & mask) is b, in order, into
  // out (room for their count + 1); returns their count. out may be c.
  static size_t Filter(const uint64_t* c, size_t m, uint64_t* out, int shift, uint64_t mask, uint64_t b) {
    size_t j = 0;
    for (size_t i = 0; i < m; ++i) {
      const uint64_t k = c[i];
      out[j] = k;
      j += ((k >> shift) & mask) == b;
    }
    return j;
  }
  // The r-th smallest (0-based) of c, whose keys agree on bits [top, 64);
  // c is filtered in place.
  static uint64_t Select(std::vector<uint64_t>& c, size_t r, int top) {
    size_t m = c.size();
    std::vector<uint32_t> hist(size_t(1) << kDigit);
    while (top > 0 && m > 1) {
      const int shift = std::max(0, top - kDigit);
      const uint64_t mask = (uint64_t(1) << (top - shift)) - 1;
      std::fill(hist.begin(), hist.end(), 0u);
      for (size_t i = 0; i < m; ++i) ++hist[(c[i] >> shift) & mask];
      size_t b = 0;
      while (r >= hist[b]) r -= hist[b++];
      m = Filter(c.data(), m, c.data(), shift, mask, b);
      top = shift;
    }
    return c[std::min(r, m - 1)];
  }
};

class Simulator {
 public:
  Simulator(const Scenario& s, const signal::Summary& sig, const Options& opt) : s_(s), sig_(sig), opt_(opt) {}
  Result<SimResult> Run();

 private:
  // Setup and the two drivers.
  Result<void> Setup();
  Result<void> RunSyncColocated();
  Result<void> RunPipelined();
  Result<void> Dispatch(const Event& ev);
  bool NextEvent();  // processes the earliest event; false when none is left
  Result<void> Finish();

  // Trajectories.
  // id = batch * g_ + index (the division: IdDivider).
  int32_t BatchOf(int32_t id) const { return g_div_(id); }
  // Its index inside batch b = BatchOf(id).
  int32_t IndexIn(int32_t id, int32_t b) const { return id - b * g_; }
  Traj& T(int32_t id) { return TB(id).t; }
  Link& L(int32_t id) { return TL(id).l; }
  // A trajectory with its batch and the batch's index: one lookup for all.
  struct TrajBatch {
    Traj& t;
    Batch& bt;
    int32_t b;
  };
  TrajBatch TB(int32_t id) {
    const int32_t b = BatchOf(id);
    Batch& bt = batches_[b];
    return TrajBatch{bt.trajs[IndexIn(id, b)], bt, b};
  }
  // A trajectory and its link: one batch lookup (JoinRunning, LeaveRunning).
  struct TrajLink {
    Traj& t;
    Link& l;
  };
  TrajLink TL(int32_t id) {
    const int32_t b = BatchOf(id);
    Batch& bt = batches_[b];
    const int32_t i = IndexIn(id, b);
    return TrajLink{bt.trajs[i], bt.links[i]};
  }
  // A finish-heap entry is current while its trajectory runs in the epoch it
  // names; its batch may be finished and its storage recycled (stale entries
  // may still name it). One batch lookup (Plan, EndSegment).
  bool Current(const FinishEntry& f) const {
    const int32_t b = BatchOf(f.traj);
    const BigVector<Traj>& trajs = batches_[b].trajs;
    if (trajs.empty()) return false;
    const Traj& t = trajs[IndexIn(f.traj, b)];
    return t.epoch == f.epoch && t.state == TrajState::kRunning;
  }
  Batch& MaterializeBatch(int b);
  void SetUpDraws();
  void StartTrajectory(int32_t id, int engine);
  // The steps of a turn's end take its trajectory found once (EndSegment):
  // r = TB(id).
  void ToolOrReward(int32_t id, const TrajBatch& r);
  void RequestSandbox(int32_t id, double dur_s, EventType done);
  void ReleaseSandbox();
  // environment.tool_concurrency: a tool call waits for one of the pool's workers.
  void RequestToolSlot(int32_t id, double dur_s);
  void ReleaseToolSlot();
  // A slot's request starts: its trajectory's state, its end event.
  void StartSlot(const SlotRequest& r);
  void DrawRounds();
  void ReturnFromTool(int32_t id);
  void NextTurn(Traj& r, int32_t rid);
  // The tool call ending t's current turn, from its Turns (see Traj::call_out).
  static void StashCall(Traj& t, const Batch& bt) {
    if (t.turn + 1 >= t.turns) return;
    const Turn& tu = bt.turns[t.turn_off + t.turn];
    t.call_out = tu.tool_out;
    t.call_latency_s = tu.tool_latency_s;
    t.next_response = (&tu)[1].response;
  }
  // Tool output tokens t's context took in: its calls that returned, turns
  // [0, t.turn) (at its end, every call).
  static int64_t ToolTokens(const Traj& t, const Batch& bt) {
    int64_t sum = 0;
    for (int k = 0; k < t.turn; ++k) sum += bt.turns[t.turn_off + k].tool_out;
    return sum;
  }
  void TrajDone(const TrajBatch& r);
  // Its reward is asked for: judged by the model verifiers (sim/judge.h), or
  // done. Inline: once a trajectory, and most runs have no judges.
  void Rewarded(int32_t id, const TrajBatch& r) {
    if (judges_.active() && SentToJudges(id, r)) return;
    TrajDone(r);
  }
  bool SentToJudges(int32_t id, const TrajBatch& r);  // false: not judged, done now
  void StartJudgePhase();
  void EndJudgePhase();
  void JudgeEvent(const Event& ev);
  void FreeBatchIfDone(int b);

  // Engines.
  // Trajectories in flight on engine e change by delta (kept in least_loaded_).
  void AddInflight(Engine& en, int delta) {
    en.inflight += delta;
    if (pipelined_) least_loaded_.Set(en.id, en.inflight);
  }
  void Kick(int e);
  void Plan(int e);
  void EndSegment(int e);
  void TruncateSegment(int e);
  void Admit(Engine& en);
  // Evicts parked caches (LRU) until the running set's next iteration and
  // `need` more blocks fit; false when they cannot. Inline: once an admission.
  bool MakeRoom(Engine& en, int64_t need) {
    while (!RunningFits(en, en.iter, total_blocks_ - en.static_blocks - need)) {
      if (!EvictOneParked(en)) return false;
    }
    return true;
  }
  bool EvictOneParked(Engine& en);
  void Park(Engine& en, int32_t id, Link& l);  // (l = L(id))
  void Unpark(Engine& en, Link& l);  // out of the parked list (its trajectory's Link)
  // Into and out of the running set, inline: once a turn each, in EndSegment
  // (issue 41, sixth pass: the calls were ~5% of default.yaml's instructions).
  void JoinRunning(Engine& en, int32_t id) {
    auto [t, link] = TL(id);
    t.state = TrajState::kRunning;
    // Its prefill blocks now count in the running set.
    en.static_blocks -= t.blocks;
    t.blocks = 0;
    t.key = t.ctx - en.iter;
    ++en.n_running;
    en.sum_key += t.key;
    ++en.phase_cnt[Mod16(t.key)];
    en.phase_sum += Mod16(t.key);
    link = Link{en.tail, kNone};
    if (en.tail != kNone) L(en.tail).next = id; else en.head = id;
    en.tail = id;
    en.finish_heap.push(FinishEntry{en.iter + t.resp_left, id, t.epoch});
    en.peak_batch = std::max(en.peak_batch, en.n_running);
  }
  void LeaveRunning(Engine& en, Traj& t, Link& l) {
    int64_t ctx = t.key + en.iter;
    int64_t decoded = ctx - t.ctx;
    t.gen += decoded;
    t.resp_left -= decoded;
    t.ctx = ctx;
    --en.n_running;
    en.sum_key -= t.key;
    --en.phase_cnt[Mod16(t.key)];
    en.phase_sum -= Mod16(t.key);
    if (l.prev != kNone) L(l.prev).next = l.next; else en.head = l.next;
    if (l.next != kNone) L(l.next).prev = l.prev; else en.tail = l.prev;
    l = Link{};
    ++t.epoch;  // its finish-heap entry is now stale
  }
  void LeaveRunning(Engine& en, int32_t id) {
    auto [t, l] = TL(id);
    LeaveRunning(en, t, l);
  }
  void Preempt(Engine& en, int32_t id);
  int64_t RunningBlocks(const Engine& en, int64_t iter) const;
  // sum_i ceil(x_i / 16) is at least sum_i x_i / 16 and less than that + n:
  // most checks are decided by these bounds without the exact sum. Inline:
  // it runs a few times an event (issue 41, twelfth pass).
  bool RunningFits(const Engine& en, int64_t iter, int64_t room) const {
    const int64_t lower = (en.sum_key + en.n_running * iter) / kBlockTokens;
    if (lower + en.n_running <= room) return true;
    if (lower > room) return false;
    return RunningBlocks(en, iter) <= room;
  }
  void OpenIdle(int e);
  void CloseIdle(int e);
  IdleCause Classify(const Engine& en) const;
  void Reclassify(int e);
  void ReclassifyAll();
  void PauseEngines();
  void ResumeEngine(int e);

  // pipeline.tail (sim/tail_step.cc): the step's batch set up (carried
  // responses, a long round's deferred prompts; returns the trajectories it
  // starts), each decoded response counted against the stop rule, the stop
  // (every engine aborts what it still runs), and the step's books.
  int ApplyTail(Batch& bt, int b);
  void TailDecoded(int32_t id);
  void StopTail();
  void AbortEngine(int e);
  void TailStepEnd(Batch& bt);

  // Pipelined trainer.
  bool CanStart() const;
  void TryStart();
  void TrainerTry();
  void StartSync();
  void StepDone();
  // The trainer's passes over `tokens`, this step's `trajs` trained
  // trajectories: their times, added with their FLOPs to the run's sums
  // (both pipelines).
  struct Phases {
    double lp = 0, ref = 0, tr = 0;
  };
  Phases TrainOn(double tokens, double trajs);

  bool Tracing() const { return trace_.on() && trace_step_ < kTraceSteps; }
  // The decode roofline arms at a batch size, computed once per size: they do
  // not depend on the context (perf::DecodeArmsFor), and batch sizes repeat.
  // The lookup inline, the first computation at a size out of line.
  const perf::DecodeArms& Arms(int64_t batch) {
    if (size_t(batch) < arms_ok_.size() && arms_ok_[size_t(batch)]) [[likely]] return arms_[size_t(batch)];
    return NewArms(batch);
  }
  [[gnu::noinline]] const perf::DecodeArms& NewArms(int64_t batch) {
    if (batch >= int64_t(arms_.size())) {
      arms_.resize(size_t(batch) + 1);
      arms_ok_.resize(size_t(batch) + 1, 0);
    }
    arms_[batch] = perf::DecodeArmsFor(ec_, double(batch));
    arms_ok_[batch] = 1;
    return arms_[batch];
  }
  // A prefill chunk of `tokens` onto `context_before` tokens. A prompt's
  // first chunk (no context before it) depends on its length only, and
  // lengths repeat: computed once per length (the same perf::Prefill call,
  // so the same bits).
  perf::Work PrefillChunk(int64_t tokens, int64_t context_before) {
    // Onto a context (a tool output, a resumed turn): perf::Prefill's bits
    // with its engine-only factors computed once (perf::PrefillMaker).
    if (context_before != 0 || tokens > kChunkTokens) return (*prefill_)(double(tokens), double(context_before));
    if (tokens >= int64_t(prefill0_.size())) {
      prefill0_.resize(size_t(tokens) + 1);
      prefill0_ok_.resize(size_t(tokens) + 1, 0);
    }
    if (!prefill0_ok_[tokens]) {
      prefill0_[tokens] = perf::Prefill(ec_, double(tokens), 0.0);
      prefill0_ok_[tokens] = 1;
    }
    return prefill0_[tokens];
  }
  // Flattened into its callers (Plan): perf::DecodeIterations inline, so the
  // parts of its Work a caller does not read are not computed (issue 41,
  // twelfth pass; the same expressions, so the same bits).
  [[gnu::flatten]] perf::Work Decode(int64_t batch, double ctx, double n) {
    if (n <= 0 || batch <= 0) return perf::Work{};
    return perf::DecodeIterations(Arms(batch), double(batch), ctx, n);
  }

  const Scenario& s_;
  const signal::Summary& sig_;
  const Options& opt_;

  // Configuration.
  perf::EngineConfig ec_;
  int steps_ = 0;
  int g_ = 0;                // trajectories generated per step
  IdDivider g_div_;          // by g_, for BatchOf
  double trained_ratio_ = 1; // trained / generated
  int n_engines_ = 0;
  int tp_ = 1;
  int rollout_gpus_ = 0, train_gpus_ = 0, gpus_ = 0;
  bool pipelined_ = false;   // disaggregated: rollout and trainer sides apart
  bool async_ = false;
  double staleness_ = 0;
  bool partial_ = false;
  bool lockstep_ = false;
  bool has_sandbox_ = false;
  // Multi-turn: a trajectory holds its sandbox from start-up to verification
  // (the container lives for the whole episode); single-turn: only for its reward.
  bool hold_sandbox_ = false;
  SandboxSpec sandbox_;
  // Dynamic sampling in rounds (sync colocated, veRL's DAPO loop): a batch is
  // one generation round of g_ rollouts; step k runs rounds_[k] of them.
  bool rounds_mode_ = false;
  std::vector<int> rounds_;
  int64_t total_rounds_ = 0;
  double trained_per_step_ = 0;
  int64_t total_blocks_ = 0, watermark_blocks_ = 0;
  double kv_tokens_ = 0;
  double sync_s_ = 0;
  double overhead_s_ = 0;
  double offload_s_ = 0;  // offloaded training state to host and back, per step
  double refit_offload_s_ = 0;  // of which the optimizer states around the refit (colocated)
  perf::WeightSyncParts sync_parts_;  // one sync, by part (sync_s_ is its total)
  uint64_t seed_ = 1;
  std::vector<std::string> notes_;
  std::vector<perf::DecodeArms> arms_;  // by batch size
  std::vector<uint8_t> arms_ok_;
  std::optional<perf::PrefillMaker> prefill_;  // over ec_, from Setup
  std::vector<perf::Work> prefill0_;  // by chunk length, no context before it (PrefillChunk)
  std::vector<uint8_t> prefill0_ok_;

  // State.
  double now_ = 0;
  EventQueue q_;
  EngineTimers timers_;
  LeastLoaded least_loaded_;  // pipelined: by trajectories in flight (TryStart)
  std::vector<Engine> engines_;
  std::vector<Batch> batches_;
  std::vector<BigVector<Traj>> traj_pool_;
  std::vector<BigVector<Turn>> turn_pool_;
  std::vector<BigVector<Link>> link_pool_;
  Mt64 rng_;  // std::mt19937_64's sequence (sim/draws.h)
  // The trajectories' draws (sim/draws.h), made in Setup: the same values as
  // Distribution::Sample, the integer ones from exact tables.
  RoundedDraws prompt_draws_, turns_draws_, response_draws_, tool_out_draws_;
  RealDraws latency_draws_, verify_draws_;
  std::vector<FinishEntry> scratch_;  // EndSegment: the turns it ends
  SlotPool sandboxes_;     // environment.sandbox.max_concurrent
  SlotPool tool_workers_;  // environment.tool_concurrency (no slots: no pool)
  long long events_ = 0;
  int trace_step_ = 0;
  TraceWriter trace_;

  // Pipelined state.
  int64_t started_ = 0, max_start_ = 0;
  int64_t inflight_total_ = 0;
  int64_t finished_total_ = 0;
  int version_ = 0;
  bool update_pending_ = false;
  int next_engine_rr_ = 0;
  int trainer_step_ = 0;
  enum class TrainerPhase { kWaitBatch, kBusy, kWaitSync, kSync, kOverhead, kDone } trainer_ = TrainerPhase::kWaitBatch;
  double trainer_since_ = 0;
  std::vector<double> finished_tokens_cum_;   // trained tokens after each multiple of g_ finished
  double cum_tokens_ = 0;
  bool sync_done_flag_ = false;  // sync colocated: the step's batch is rewarded

  // Totals over the run.
  double sum_rollout_s_ = 0, sum_train_s_ = 0, sum_lp_s_ = 0, sum_ref_s_ = 0, sum_sync_s_ = 0, sum_reward_s_ = 0,
         sum_overhead_s_ = 0, sum_sync_wait_s_ = 0, sum_offload_s_ = 0;
  double sum_rollout_busy_s_ = 0;
  double rollout_flops_ = 0, train_flops_ = 0, other_flops_ = 0;
  double gen_tokens_ = 0, prefill_tokens_ = 0, trained_tokens_ = 0;
  double idle_tail_ = 0, idle_trainer_ = 0, idle_tools_ = 0, idle_sync_ = 0, idle_wait_rollout_ = 0;
  // Under-filled decode in the length tail: busy GPU-seconds, not idle.
  double underfill_ = 0;
  // Colocated sync: engine idle GPU-seconds inside the rollout phase and
  // inside the reward phase after it (every engine waits for the verifier).
  double idle_in_rollout_ = 0, idle_in_reward_ = 0;
  double IdleSum() const { return idle_tail_ + idle_trainer_ + idle_tools_ + idle_sync_ + idle_judge_; }
  // Model verifiers as engine work (sim/judge.h). Sync: from the end of a
  // round's generation every policy engine waits for the judges (idle_judge_;
  // a shared judge's own work on those GPUs is moved out of it to other).
  Judges judges_;
  bool judge_wait_ = false;
  double judge_phase_t0_ = 0;
  double judge_idle0_ = 0;
  double judge_carry_ = 0;         // environment.failures: share of trajectories judged, carried
  double idle_judge_ = 0;          // policy GPU-seconds waiting for the judges
  double judge_shared_gpu_s_ = 0;  // shared judges' busy GPU-seconds (other, not idle)
  double judge_phase_s_ = 0;       // wall time shared judges hold the policy's GPUs
  std::vector<double> gen_done_t_;  // pipelined: when each multiple of g_ trajectories finished generating
  int64_t gen_done_total_ = 0;
  std::vector<int32_t> judge_done_;
  double gpu_s_rollout_ = 0, gpu_s_train_ = 0, gpu_s_other_ = 0;
  double preemptions_ = 0;
  // pipeline.tail (synchronous, colocated, single-turn; sim/tail_step.cc).
  bool tail_ = false;
  TailSpec tail_spec_;
  int tail_group_ = 1, tail_per_prompt_ = 1, tail_prompts_ = 0, tail_trained_n_ = 0;
  struct TailCarried {
    int64_t prompt = 0, done = 0, rem = 0;
    int age = 0;
  };
  std::vector<TailCarried> tail_carry_;             // partial_rollout: unfinished, into the next step
  std::deque<std::pair<int64_t, std::vector<int64_t>>> tail_queue_;  // tail_batching: aborted prompts (prompt, G lengths)
  double tail_step_trained_ = 0;                    // responses trained this step
  int tail_batch_ = -1;                             // the step's batch
  bool tail_stop_ = false, tail_long_ = false;      // stopped; a long round (tail_batching)
  int tail_decoded_ = 0, tail_prompts_done_ = 0;    // this step, before the stop
  std::vector<int> tail_prompt_fin_;                // per prompt: responses decoded
  std::vector<int> tail_rank_;                      // per slot: order in which it finished decoding (0 = not)
  std::vector<int64_t> tail_orig_prompt_, tail_done_;  // per slot: prompt tokens, tokens carried in
  std::vector<int> tail_age_;                       // per slot: steps it was carried
  double tail_cut_sum_ = 0, tail_short_rounds_ = 0, tail_long_rounds_ = 0, tail_wasted_ = 0, tail_launched_ = 0,
         tail_dropped_ = 0, tail_deferred_ = 0, tail_trained_sum_ = 0, tail_trained_len_ = 0, tail_old_ = 0,
         tail_age_sum_ = 0;
  std::optional<Error> too_long_;  // set by MaterializeBatch: a context no engine can hold
  BigVector<double> traj_time_, traj_tokens_;
  double end_time_ = 0;
};

}  // namespace rlcost::sim::internal
