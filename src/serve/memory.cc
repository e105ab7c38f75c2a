#include "serve/memory.h"

#include <malloc.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace rlcost::serve {

void TuneAllocator() {
  ::mallopt(M_ARENA_MAX, 2);
  ::mallopt(M_MMAP_THRESHOLD, 256 * 1024);  // setting it also stops its growth (mallopt(3))
}

struct IdleTrimmer::State {
  std::mutex mu;
  std::condition_variable cv;
  bool stop = false;
  std::thread thread;
};

IdleTrimmer::IdleTrimmer(std::function<bool()> busy, int period_ms) : state_(new State) {
  state_->thread = std::thread([this, busy = std::move(busy), period_ms] {
    unsigned long seen = requests_.load();
    std::unique_lock lock(state_->mu);
    while (!state_->cv.wait_for(lock, std::chrono::milliseconds(period_ms), [this] { return state_->stop; })) {
      unsigned long now = requests_.load();
      if (now == seen || busy()) continue;  // nothing new freed, or a computation still holds its memory
      seen = now;
      ::malloc_trim(0);
      trims_.fetch_add(1);
    }
  });
}

IdleTrimmer::~IdleTrimmer() {
  {
    std::lock_guard lock(state_->mu);
    state_->stop = true;
  }
  state_->cv.notify_all();
  state_->thread.join();
  delete state_;
}

}  // namespace rlcost::serve
