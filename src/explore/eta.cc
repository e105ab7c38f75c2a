#include "explore/eta.h"

#include <cmath>

namespace rlcost::explore {
namespace {

double Det3(double a, double b, double c, double d, double e, double f, double g, double h, double i) {
  return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g);
}

}  // namespace

void EtaEstimator::Observe(uint64_t done, double elapsed_s) {
  if (!(elapsed_s > 0) || !std::isfinite(elapsed_s) || done == 0 || total_ == 0) return;
  const double x = static_cast<double>(done) / static_cast<double>(total_);
  s0_ += 1;
  s1_ += x;
  s2_ += x * x;
  s3_ += x * x * x;
  s4_ += x * x * x * x;
  t0_ += elapsed_s;
  t1_ += elapsed_s * x;
  t2_ += elapsed_s * x * x;
  ++samples_;
  last_n_ = done;
  last_t_ = elapsed_s;
}

double EtaEstimator::RemainingS() const {
  if (samples_ == 0) return -1;
  if (last_n_ >= total_) return 0;
  const double x = static_cast<double>(last_n_) / static_cast<double>(total_);
  // The rate so far, as if every point cost what the points done did on average.
  const double flat = last_t_ * (1 - x) / x;
  // Normal equations of min Σ (t - c - a x - b x²)², solved by Cramer's rule:
  //   [s0 s1 s2] [c]   [t0]
  //   [s1 s2 s3] [a] = [t1]
  //   [s2 s3 s4] [b]   [t2]
  const double det = Det3(s0_, s1_, s2_, s1_, s2_, s3_, s2_, s3_, s4_);
  // Too few updates, or all at nearly one n: no trend to read yet.
  // (det / (s0 s2 s4) does not change with the span of x: about 7e-3 for
  // updates spread evenly from 0.)
  if (samples_ < 3 || !(std::fabs(det) > 1e-6 * s0_ * s2_ * s4_)) return flat;
  const double a = Det3(s0_, t0_, s2_, s1_, t1_, s3_, s2_, t2_, s4_) / det;
  const double b = Det3(s0_, s1_, t0_, s1_, s2_, t1_, s2_, s3_, t2_) / det;
  // T(1) - T(x): the fitted time of the points still to run.
  const double left = a * (1 - x) + b * (1 - x * x);
  // A fit that leaves nothing (or less) for the points still to run has read
  // noise, not a trend: the rate so far is the better guess then.
  return std::isfinite(left) && left > 0 ? left : flat;
}

}  // namespace rlcost::explore
