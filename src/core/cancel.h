// core/cancel: cooperative cancellation of long computations — a flag, per
// thread, that the long loops poll (the simulator every 1024 events, the
// analytic estimate at its start, the fluid and re-split loops, a
// forecast's bootstrap refits). Set for a scope by whoever runs work whose
// answer may stop being wanted (the server's requests under their time
// budget or after the client left, a sweep's points); once the flag is true
// the work ends with an error ("... was cancelled") instead of running on.
//
//   std::atomic<bool> stop{false};
//   ScopedCancel cancel(&stop);   // this thread's long loops poll `stop`
//   auto e = EstimateSimulated(s, opt);
#pragma once

#include <atomic>
#include <string_view>

#include "rlcost/error.h"

namespace rlcost {

// The flag polled on this thread (nullptr: none).
const std::atomic<bool>* CancelFlag();

// True once this thread's flag is set.
inline bool CancelRequested() {
  const std::atomic<bool>* f = CancelFlag();
  return f && f->load(std::memory_order_relaxed);
}

// The error a cancelled computation returns: `where` is the command or stage
// ("simulate", "forecast"), `what` names the work ("the simulation").
inline Error CancelledError(std::string_view where = "simulate", std::string_view what = "the simulation") {
  return Error(ErrorCode::kInternal, std::string(where), std::string(what) + " was cancelled");
}

class ScopedCancel {
 public:
  explicit ScopedCancel(const std::atomic<bool>* flag);
  ~ScopedCancel();
  ScopedCancel(const ScopedCancel&) = delete;
  ScopedCancel& operator=(const ScopedCancel&) = delete;

 private:
  const std::atomic<bool>* previous_;
};

}  // namespace rlcost
