// A reference measured in the same run as each benchmark (issue 41): the
// machines are shared and noisy, so a figure is reported beside its ratio to
// a fixed CPU workload timed in the same process right after it. A loaded
// core slows both alike; the ratio moves far less than the figure.
//
//   for (auto _ : state) { ... }
//   bench::ReportAgainstReference(state, cpu_s, events);   // after the loop
//
// Counters: "ref_ms" (the reference's CPU time, the best of five runs),
// "x_ref" (the benchmark's CPU time per iteration over the reference's: lower
// is faster) and, given `work` units per iteration (events, points), "per_ref"
// (units per reference time: higher is faster). docs/performance.md reads
// them.
#pragma once

#include <time.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <benchmark/benchmark.h>

namespace bench {

inline double CpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

// The workload: 400,000 pushes and pops on a binary heap of up to 4,096
// (time, order) pairs drawn from SplitMix64, the operations an event loop
// spends its time on (comparisons, branches, cache-resident memory). About
// 20 ms of CPU on the 2-core development machine.
inline double ReferenceOnce() {
  struct Ev {
    double t;
    uint64_t order;
    bool operator>(const Ev& o) const { return t > o.t || (t == o.t && order > o.order); }
  };
  std::vector<Ev> heap;
  heap.reserve(4096);
  uint64_t x = 0x9E3779B97F4A7C15ULL, order = 0;
  auto next = [&] {
    x += 0x9E3779B97F4A7C15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  };
  double now = 0, sum = 0;
  const double t0 = CpuSeconds();
  for (int i = 0; i < 400000; ++i) {
    if (heap.size() < 4096 && (heap.size() < 2048 || (next() & 1))) {
      heap.push_back({now + double(next() >> 11) * 0x1.0p-53, order++});
      std::push_heap(heap.begin(), heap.end(), std::greater<>());
    } else {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      now = heap.back().t;
      sum += now;
      heap.pop_back();
    }
  }
  benchmark::DoNotOptimize(sum);
  return CpuSeconds() - t0;
}

inline double ReferenceSeconds() {
  double best = ReferenceOnce();
  for (int r = 0; r < 4; ++r) best = std::min(best, ReferenceOnce());
  return best;
}

// `cpu_s`: the CPU seconds the benchmark's loop took (CpuSeconds() around it).
inline void ReportAgainstReference(benchmark::State& state, double cpu_s, double work_per_iteration = 0) {
  const double ref = ReferenceSeconds();
  const double per_iter = cpu_s / double(std::max<int64_t>(1, state.iterations()));
  state.counters["ref_ms"] = 1e3 * ref;
  state.counters["x_ref"] = per_iter / ref;
  if (work_per_iteration > 0) state.counters["per_ref"] = work_per_iteration / (per_iter / ref);
}

}  // namespace bench
