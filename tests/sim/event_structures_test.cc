// The simulator's scheduling structures (sim/event_queue.h, IdRing in
// sim/simulator_internal.h) against plain reference computations on random
// operation sequences: the event queue's order (time, then insertion) and an
// engine's finish heap's (iteration, trajectory, epoch) as a scan, the same winner (time, then the lowest engine on ties)
// as a scan of every engine, the same least-loaded engine as TryStart's old
// scan, the same order as std::deque. Determinism of the simulator rests on
// these answering exactly as the structures they replaced.
#include <algorithm>
#include <cstdint>
#include <deque>
#include <random>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>

#include "sim/event_queue.h"
#include "sim/simulator_internal.h"

namespace rlcost::sim {
namespace {

// The engine a scan picks: the earliest time, the lowest index on ties.
int ScanEarliest(const std::vector<double>& t) {
  int best = 0;
  for (int e = 1; e < int(t.size()); ++e)
    if (t[e] < t[best]) best = e;
  return best;
}

TEST(EngineTimers, SameWinnerAsAScanUnderRandomUpdates) {
  for (int n : {1, 2, 3, 7, 8, 64, 513}) {
    std::mt19937_64 rng(1000 + n);
    EngineTimers timers;
    timers.Reset(n);
    std::vector<double> t(n, EngineTimers::kNever);
    for (int step = 0; step < 20000; ++step) {
      const int e = int(rng() % uint64_t(n));
      // Few distinct times, so ties are frequent; sometimes "never".
      const uint64_t r = rng() % 10;
      const double v = r == 0 ? EngineTimers::kNever : double(rng() % 16);
      t[e] = v;
      timers.Set(e, v);
      ASSERT_EQ(timers.top(), ScanEarliest(t)) << "n " << n << " step " << step;
      ASSERT_EQ(timers.top_time(), t[ScanEarliest(t)]);
      ASSERT_EQ(timers.time(e), v);
    }
  }
}

TEST(LeastLoaded, SameEngineAsAScanUnderRandomLoads) {
  for (int n : {1, 3, 8, 100}) {
    std::mt19937_64 rng(7 + n);
    LeastLoaded ll;
    ll.Reset(n);
    std::vector<int> load(n, 0);
    for (int step = 0; step < 20000; ++step) {
      const int e = int(rng() % uint64_t(n));
      load[e] = std::max(0, load[e] + (rng() % 2 ? 1 : -1));
      ll.Set(e, load[e]);
      int best = 0;
      for (int k = 1; k < n; ++k)
        if (load[k] < load[best]) best = k;
      ASSERT_EQ(ll.top(), best) << "n " << n << " step " << step;
    }
  }
}

// The reference: every pending event in a list, the earliest (time, then
// insertion) found by a scan.
struct RefEvent {
  double t;
  uint64_t seq;
  EventType type;
  int32_t a;
  uint32_t b;
};

TEST(EventQueue, SameSequenceAsAScanUnderRandomPushesAndPops) {
  // limit: the insertion order wraps (renumbering) every `limit` pushes.
  for (uint64_t limit : {uint64_t(0), uint64_t(700), uint64_t(97)}) {
    std::mt19937_64 rng(4100 + limit);
    EventQueue q;
    if (limit > 0) q.SetOrderLimitForTest(limit);
    std::vector<RefEvent> ref;
    uint64_t seq = 0;
    double now = 0;
    for (int step = 0; step < 60000; ++step) {
      // Grow and shrink the queue (up to ~90 pending, below the smallest limit).
      const bool push = ref.empty() || (ref.size() < 90 && rng() % 100 < (step % 3000 < 1500 ? 60u : 40u));
      if (push) {
        // Few distinct times, so ties are frequent; never before now.
        const double t = now + double(rng() % 8) * 0.25;
        const auto type = EventType(rng() % 10);
        const int32_t a = int32_t(rng() % 3 == 0 ? rng() % 2000000000 : rng() % 50);
        const uint32_t b = type == EventType::kJudgeSegmentEnd ? uint32_t(rng()) : 0u;
        q.Push(t, type, a, b);
        ref.push_back({t, seq++, type, a, b});
      } else {
        size_t best = 0;
        for (size_t k = 1; k < ref.size(); ++k)
          if (ref[k].t < ref[best].t || (ref[k].t == ref[best].t && ref[k].seq < ref[best].seq)) best = k;
        ASSERT_EQ(q.top_time(), ref[best].t);
        const Event ev = q.Pop();
        ASSERT_EQ(ev.t, ref[best].t) << "limit " << limit << " step " << step;
        ASSERT_EQ(ev.type, ref[best].type);
        ASSERT_EQ(ev.a, ref[best].a);
        ASSERT_EQ(ev.b, ref[best].b);
        now = ev.t;
        ref.erase(ref.begin() + long(best));
      }
      ASSERT_EQ(q.size(), ref.size());
      ASSERT_EQ(q.empty(), ref.empty());
    }
  }
}

TEST(FinishHeap, FrontIsAnEarliestEntryUnderRandomPushesAndPops) {
  std::mt19937_64 rng(77);
  internal::FinishHeap heap;
  std::vector<internal::FinishEntry> ref;
  auto key = [](const internal::FinishEntry& f) { return std::tuple(f.iter, f.traj, f.epoch); };
  for (int step = 0; step < 60000; ++step) {
    const bool push = ref.empty() || (ref.size() < 300 && rng() % 100 < (step % 4000 < 2000 ? 60u : 40u));
    if (push) {
      // Few iterations and trajectories, so equal iterations (and equal
      // trajectories at other epochs) are frequent; some iterations negative.
      const internal::FinishEntry f{int64_t(rng() % 40) - 5, int32_t(rng() % 30), uint32_t(rng() % 4)};
      heap.push(f);
      ref.push_back(f);
    } else {
      int64_t earliest = ref[0].iter;
      for (const internal::FinishEntry& r : ref) earliest = std::min(earliest, r.iter);
      const internal::FinishEntry f = heap.front();
      ASSERT_EQ(f.iter, earliest) << "step " << step;
      auto it = std::find_if(ref.begin(), ref.end(), [&](const internal::FinishEntry& r) { return key(r) == key(f); });
      ASSERT_NE(it, ref.end()) << "step " << step;  // an entry that was pushed
      heap.pop();
      ref.erase(it);
    }
    ASSERT_EQ(heap.size(), ref.size());
  }
}

// The engine's order of finishing sequences: by iteration, then trajectory,
// whatever order the heap keeps entries of one iteration in; entries that
// `current` refuses are dropped, those not yet due stay.
TEST(FinishHeap, TakeDueGivesTheDueCurrentTrajectoriesByIterationThenTrajectory) {
  std::mt19937_64 rng(5);
  internal::FinishHeap heap;
  std::vector<internal::FinishEntry> ref;
  auto current = [](const internal::FinishEntry& f) { return f.epoch % 3 != 0; };
  int64_t now = 0;
  size_t taken_total = 0, ties = 0;
  for (int round = 0; round < 3000; ++round) {
    // Runs of equal iterations (up to 200 entries, in a random order of
    // trajectories) and scattered ones, some already due.
    const int n = int(rng() % (round % 50 == 0 ? 200 : 12));
    const bool tied = rng() % 4 == 0;
    const int64_t base = now + int64_t(rng() % 8) - 2;
    for (int k = 0; k < n; ++k) {
      const internal::FinishEntry f{tied ? base : now + int64_t(rng() % 30) - 2, int32_t(rng() % 500),
                                    uint32_t(rng() % 6)};
      heap.push(f);
      ref.push_back(f);
    }
    now += int64_t(rng() % 6);
    std::vector<internal::FinishEntry> out{{-1, -7, 0}};  // appended to, not cleared
    heap.TakeDue(now, current, out);
    std::vector<std::pair<int64_t, int32_t>> want;
    std::vector<internal::FinishEntry> left;
    for (const internal::FinishEntry& f : ref) {
      if (f.iter > now) left.push_back(f);
      else if (current(f)) want.push_back({f.iter, f.traj});
    }
    std::sort(want.begin(), want.end());
    for (size_t k = 1; k < want.size(); ++k) ties += want[k].first == want[k - 1].first;
    ASSERT_EQ(out.size(), want.size() + 1) << "round " << round;
    ASSERT_EQ(out[0].traj, -7);
    for (size_t k = 0; k < want.size(); ++k) {
      ASSERT_EQ(out[k + 1].iter, want[k].first) << "round " << round << " k " << k;
      ASSERT_EQ(out[k + 1].traj, want[k].second) << "round " << round << " k " << k;
    }
    taken_total += want.size();
    ref.swap(left);
    ASSERT_EQ(heap.size(), ref.size()) << "round " << round;
  }
  EXPECT_GT(taken_total, 5000u);
  EXPECT_GT(ties, 1000u);  // equal iterations were ordered, many times
}

TEST(IdRing, SameOrderAsADeque) {
  std::mt19937_64 rng(3);
  internal::IdRing ring;
  std::deque<int32_t> ref;
  for (int step = 0; step < 50000; ++step) {
    const uint64_t op = rng() % 8;
    const int32_t id = int32_t(rng() % 100000);
    if (op < 3) {
      ring.push_back(id);
      ref.push_back(id);
    } else if (op < 4) {
      ring.push_front(id);
      ref.push_front(id);
    } else if (op < 7 && !ref.empty()) {
      ring.pop_front();
      ref.pop_front();
    } else if (op == 7 && rng() % 500 == 0) {
      ring.clear();
      ref.clear();
    }
    ASSERT_EQ(ring.size(), ref.size());
    ASSERT_EQ(ring.empty(), ref.empty());
    if (!ref.empty()) {
      ASSERT_EQ(ring.front(), ref.front());
    }
  }
  std::vector<int32_t> seen;
  for (int32_t id : ring) seen.push_back(id);
  EXPECT_EQ(seen, std::vector<int32_t>(ref.begin(), ref.end()));
}

// BatchOf's division of a trajectory id by the rollouts per batch: the
// integer quotient for every divisor tried, 1 and 2^31 - 1 included, at ids
// next to each multiple of the divisor and at the top of the 31-bit range.
TEST(IdDivider, GivesTheIntegerQuotientForEveryDivisor) {
  std::mt19937_64 rng(41);
  std::vector<int32_t> divisors = {1, 2, 3, 7, 16, 1000, 1024, 4095, 32768, 65537, 1 << 30, INT32_MAX};
  for (int k = 0; k < 200; ++k) divisors.push_back(int32_t(1 + rng() % INT32_MAX));
  for (int32_t d : divisors) {
    const internal::IdDivider div(d);
    std::vector<int64_t> ids = {0, 1, INT32_MAX, INT32_MAX - 1};
    for (int k = 0; k < 200; ++k) {
      const int64_t q = int64_t(rng() % (uint64_t(INT32_MAX) / uint64_t(d) + 1));
      for (int64_t delta = -1; delta <= 1; ++delta) ids.push_back(q * d + delta);
      ids.push_back(int64_t(rng() % uint64_t(INT32_MAX)));
    }
    for (int64_t n : ids) {
      if (n < 0 || n > INT32_MAX) continue;
      ASSERT_EQ(div(int32_t(n)), int32_t(n / d)) << n << " / " << d;
    }
  }
}

}  // namespace
}  // namespace rlcost::sim
