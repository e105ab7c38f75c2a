// Cooperative cancellation of simulations: a flag, per thread, that the
// simulator polls every 1024 events. Set for a scope by whoever runs
// simulations whose answer may stop being wanted (the server's requests, a
// sweep's points); once the flag is true the simulation ends with an error
// ("the simulation was cancelled") instead of running to its end.
//
//   std::atomic<bool> stop{false};
//   sim::ScopedCancel cancel(&stop);   // this thread's simulations poll `stop`
//   auto e = EstimateSimulated(s, opt);
#pragma once

#include <atomic>

#include "rlcost/error.h"

namespace rlcost::sim {

// The flag of simulations run on this thread (nullptr: none).
const std::atomic<bool>* CancelFlag();

// True once this thread's flag is set.
inline bool CancelRequested() {
  const std::atomic<bool>* f = CancelFlag();
  return f && f->load(std::memory_order_relaxed);
}
inline Error CancelledError() { return Error(ErrorCode::kInternal, "simulate", "the simulation was cancelled"); }

class ScopedCancel {
 public:
  explicit ScopedCancel(const std::atomic<bool>* flag);
  ~ScopedCancel();
  ScopedCancel(const ScopedCancel&) = delete;
  ScopedCancel& operator=(const ScopedCancel&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

}  // namespace rlcost::sim
