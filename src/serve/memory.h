// The server's memory between bursts (#40, "memory returned after a burst").
//
// glibc's allocator keeps what a burst freed: one arena per thread that
// allocated (up to 8 per core), and a mmap threshold that grows to the
// largest block freed (up to 32 MiB), after which megabyte request bodies and
// logs are carved from the arenas and stay there. Measured with
// scripts/load_test.py (64 forecasts of a 1 MiB log, 2-core machine): idle
// 10.5 MB at start, 39-45 MB after the burst; with the settings below and a
// trim once no computation runs, 14 MB.
#pragma once

#include <atomic>
#include <functional>

namespace rlcost::serve {

// Two arenas and a fixed 256 KiB mmap threshold (no growth): blocks of a
// request body or a log go to mmap and return to the system when freed.
// Call once, before the server's threads start.
void TuneAllocator();

// Gives freed memory back to the system (malloc_trim), at most once every
// `period_ms`, when requests have finished since the last trim and `busy()`
// says no computation runs. NoteRequest() after every request. A trim of
// the server's heap takes well under a millisecond.
class IdleTrimmer {
 public:
  IdleTrimmer(std::function<bool()> busy, int period_ms = 500);
  ~IdleTrimmer();
  IdleTrimmer(const IdleTrimmer&) = delete;
  IdleTrimmer& operator=(const IdleTrimmer&) = delete;
  void NoteRequest() { requests_.fetch_add(1, std::memory_order_relaxed); }
  int Trims() const { return trims_.load(); }

 private:
  struct State;
  std::atomic<unsigned long> requests_{0};
  std::atomic<int> trims_{0};
  State* state_;
};

}  // namespace rlcost::serve
