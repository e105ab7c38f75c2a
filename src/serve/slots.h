// Computations of requests, each on its own thread, at most `max` at once:
// a request takes a slot (or is refused, 503), and the thread gives it back
// when the computation ends, however the request ended (answered, 504, its
// client gone). A thread that cannot start gives its slot back at once, so a
// server short of threads answers 503 now and recovers, instead of leaking
// the slot and refusing everything after (#40).
//
//   static Slots sims(4);
//   if (!sims.TryTake()) return Busy();
//   if (!RunDetached(sims, [..] { ... })) return Busy();   // slot given back
#pragma once

#include <atomic>
#include <functional>
#include <system_error>
#include <thread>
#include <utility>

namespace rlcost::serve {

class Slots {
 public:
  explicit Slots(int max) : max_(max) {}
  bool TryTake() {
    if (running_.fetch_add(1) >= max_) {
      running_.fetch_sub(1);
      return false;
    }
    return true;
  }
  void Give() { running_.fetch_sub(1); }
  int Running() const { return running_.load(); }
  int Max() const { return max_; }

 private:
  int max_;
  std::atomic<int> running_{0};
};

// How a thread is started: std::thread, detached.
struct StartThread {
  void operator()(std::function<void()> f) const { std::thread(std::move(f)).detach(); }
};

// Runs `work` on a thread of its own that gives back the slot (taken by the
// caller) when `work` ends. False when the thread could not start
// (std::system_error: no more threads, no memory): the slot is given back.
template <typename Start = StartThread>
bool RunDetached(Slots& slots, std::function<void()> work, Start start = {}) {
  try {
    start([&slots, work = std::move(work)] {
      work();
      slots.Give();
    });
    return true;
  } catch (const std::system_error&) {
  } catch (const std::bad_alloc&) {
  }
  slots.Give();
  return false;
}

}  // namespace rlcost::serve
