// The simulator's scheduling structures (sim/event_queue.h, IdRing in
// sim/simulator_internal.h) against plain reference computations on random
// operation sequences: the same winner (time, then the lowest engine on ties)
// as a scan of every engine, the same least-loaded engine as TryStart's old
// scan, the same order as std::deque. Determinism of the simulator rests on
// these answering exactly as the structures they replaced.
#include <cstdint>
#include <deque>
#include <random>
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
    if (!ref.empty()) ASSERT_EQ(ring.front(), ref.front());
  }
  std::vector<int32_t> seen;
  for (int32_t id : ring) seen.push_back(id);
  EXPECT_EQ(seen, std::vector<int32_t>(ref.begin(), ref.end()));
}

}  // namespace
}  // namespace rlcost::sim
