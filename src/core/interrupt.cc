// Ctrl-C as a request to stop (core/interrupt.h).
#include "core/interrupt.h"

#include <ctime>

namespace rlcost {
namespace {

std::atomic<bool> g_interrupted{false};
std::atomic<long long> g_first_interrupt_ns{0};
// The first Ctrl-C asks the run to stop; one more, a second or more later,
// ends the process at once. (Closer repeats are the same signal delivered twice,
// e.g. `timeout` signals the command and then its process group.)
extern "C" void OnInterrupt(int sig) {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);  // async-signal-safe
  const long long now = static_cast<long long>(ts.tv_sec) * 1'000'000'000LL + ts.tv_nsec;
  if (!g_interrupted.exchange(true)) {
    g_first_interrupt_ns.store(now);
    return;
  }
  if (now - g_first_interrupt_ns.load() > 1'000'000'000LL) {
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

}  // namespace

InterruptGuard::InterruptGuard() {
  g_interrupted.store(false);
  struct sigaction act{};
  act.sa_handler = OnInterrupt;
  sigemptyset(&act.sa_mask);
  sigaction(SIGINT, &act, &old_int_);
  sigaction(SIGTERM, &act, &old_term_);
}

InterruptGuard::~InterruptGuard() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
}

std::atomic<bool>& InterruptGuard::Interrupted() { return g_interrupted; }

}  // namespace rlcost
