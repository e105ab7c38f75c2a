#include "explore/eta.h"

#include <algorithm>
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
  if (!cum_.empty()) {
    const double w = cum_[std::min<uint64_t>(done, total_)];
    w1_ += w;
    w2_ += w * w;
    tw_ += elapsed_s * w;
  }
  ++samples_;
  last_n_ = done;
  last_t_ = elapsed_s;
}

void EtaEstimator::SetPointCosts(const std::vector<double>& costs) {
  if (costs.size() != total_ || samples_ > 0) return;
  std::vector<double> cum(costs.size() + 1, 0.0);
  for (size_t k = 0; k < costs.size(); ++k) {
    if (!std::isfinite(costs[k]) || costs[k] < 0) return;
    cum[k + 1] = cum[k] + costs[k];
  }
  if (!(cum.back() > 0) || !std::isfinite(cum.back())) return;
  const double sum = cum.back();
  for (double& w : cum) w /= sum;
  cum_ = std::move(cum);
}

double EtaEstimator::RemainingByCost(double flat) const {
  const double w = cum_[last_n_];
  // Least squares of t = c + r w over every update (c: the start-up); with
  // fewer than two distinct w, the time per unit of cost so far.
  const double det = s0_ * w2_ - w1_ * w1_;
  double r = w > 0 ? last_t_ / w : -1;
  if (samples_ >= 2 && det > 1e-12 * s0_ * w2_) {
    const double fit = (s0_ * tw_ - w1_ * t0_) / det;
    if (std::isfinite(fit) && fit > 0) r = fit;
  }
  const double left = r * (1 - w);
  // Points done with no predicted cost yet (w = 0): nothing to scale.
  return std::isfinite(left) && left >= 0 && r > 0 ? left : flat;
}

double EtaEstimator::RemainingS() const {
  if (samples_ == 0) return -1;
  if (last_n_ >= total_) return 0;
  const double x = static_cast<double>(last_n_) / static_cast<double>(total_);
  // The rate so far, as if every point cost what the points done did on average.
  const double flat = last_t_ * (1 - x) / x;
  if (!cum_.empty()) return RemainingByCost(flat);
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
