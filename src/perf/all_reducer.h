#pragma once
// perf::AllReduceTime (or, line_rate, AllReduceLineRateTime) with its
// engine-only parts computed once: the ring's share 2(tp-1)/tp, the path
// (inside the NVLink domain or across it), its latency and link rates. The
// one definition of the formula: AllReduceTime makes one and uses it once,
// so a kept one gives the same bits (issue 41, thirteenth pass). Kept by the
// prefill maker (perf/prefill_maker.h); defined in src/perf/perf.cc.
//
//   const perf::AllReducer all_reduce(engine, /*line_rate=*/false);
//   double s = all_reduce(bytes, 2.0 * layers);  // seconds for that many all-reduces

#include "rlcost/perf.h"

namespace rlcost::perf {

class AllReducer {
 public:
  AllReducer(const EngineConfig& e, bool line_rate);
  // Seconds for `count` all-reduces of `bytes` each. tp 1 answers inline
  // (no call): the analytic fluid models ask at every event.
  double operator()(double bytes, double count) const { return none_ ? 0.0 : Ring(bytes, count); }

 private:
  double Ring(double bytes, double count) const;  // src/perf/perf.cc
  bool none_ = true;         // tp <= 1: no all-reduce
  bool custom_tp_ = false;   // vLLM's custom kernel serves this tp (message size checked per call)
  double ring_share_ = 0;    // 2 (tp - 1) / tp
  double latency_s_ = 0;     // per all-reduce
  double link_ = 1;          // bytes/s at line rate (the slowest link of the ring)
  double custom_link_ = 1;   // bytes/s through the custom kernel
};

}  // namespace rlcost::perf
