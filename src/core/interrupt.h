// core/interrupt: Ctrl-C (or SIGTERM) as a request to stop, for the long runs
// of a program (a sweep): the first sets `Interrupted()`, which the run polls;
// a second, a second or more after it, ends the process at once.
//
//   InterruptGuard guard;                       // from here until it goes out of scope
//   opt.stop = &InterruptGuard::Interrupted();  // polled by the sweep
#pragma once

#include <atomic>
#include <csignal>

namespace rlcost {

// Restores the signal handlers it found on destruction.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static std::atomic<bool>& Interrupted();

 private:
  struct sigaction old_int_{}, old_term_{};
};

}  // namespace rlcost
