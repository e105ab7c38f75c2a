// explore/eta: the time a sweep has left, for its progress line.
//
//   explore::EtaEstimator eta(total);
//   eta.Observe(done, elapsed_s);          // at every progress update
//   double left_s = eta.RemainingS();      // < 0: not known yet
//
// A sweep's points do not cost the same: a grid runs its first --vary slowest,
// and when that field makes a point dearer (more prompts per step, a larger
// group, more GPUs to simulate), every later point costs more than the early
// ones. The rate over the points done so far (done / elapsed) then promises
// too early an end: with a per-point cost rising linearly over the grid, the
// time to finish n of N points grows as n², so at half way the rate's ETA is
// about half the real remaining time (issue #27, item 12). The estimator fits
// the elapsed time as T(n) = c + a n + b n² (least squares over every update:
// c is the start-up, b = 0 when the points cost the same, b > 0 reads the
// rise off the sweep itself) and answers T(N) - T(n). Nothing is assumed
// about which field costs what.
#pragma once

#include <cstdint>

namespace rlcost::explore {

class EtaEstimator {
 public:
  explicit EtaEstimator(uint64_t total) : total_(total) {}
  // `done` points had finished `elapsed_s` seconds after the sweep began.
  void Observe(uint64_t done, double elapsed_s);
  // Seconds left to the last point; -1 before two updates with points done.
  double RemainingS() const;
  // Points per second over the sweep so far (for display).
  double MeanRate() const { return last_t_ > 0 ? static_cast<double>(last_n_) / last_t_ : 0; }

 private:
  uint64_t total_;
  uint64_t last_n_ = 0;
  double last_t_ = 0;
  int samples_ = 0;
  // Sums of the normal equations of t = c + a x + b x², x = n / total (so
  // that x⁴ stays well inside a double for any sweep size).
  double s0_ = 0, s1_ = 0, s2_ = 0, s3_ = 0, s4_ = 0, t0_ = 0, t1_ = 0, t2_ = 0;
};

}  // namespace rlcost::explore
