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
//
// When the cost of each point can be predicted ahead (SetPointCosts: a
// simulated sweep's points, whose simulator work grows with the rollouts it
// simulates), the estimator uses that instead of a trend: it fits the elapsed
// time as T(n) = c + r W(n), W(n) the predicted cost of the first n points,
// and answers r (W(N) - W(n)). A grid whose first axis makes points dearer
// then costs what its remaining points are predicted to cost, at the rate
// measured so far, whatever the shape of the rise.
#pragma once

#include <cstdint>
#include <vector>

namespace rlcost::explore {

class EtaEstimator {
 public:
  explicit EtaEstimator(uint64_t total) : total_(total) {}
  // `done` points had finished `elapsed_s` seconds after the sweep began.
  void Observe(uint64_t done, double elapsed_s);
  // The predicted cost of each point in the order rows are delivered (any
  // unit; only ratios matter). Ignored unless it has one entry per point, all
  // finite and >= 0, with a positive sum.
  void SetPointCosts(const std::vector<double>& costs);
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
  // With predicted costs: cum_[n] = W(n) / W(N), and the sums of the normal
  // equations of t = c + r w, w = cum_[done].
  std::vector<double> cum_;
  double w1_ = 0, w2_ = 0, tw_ = 0;
  double RemainingByCost(double flat) const;
};

}  // namespace rlcost::explore
