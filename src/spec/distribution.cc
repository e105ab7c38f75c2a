// Distributions of lengths, turn counts and latencies (SCENARIO.md,
// "Distributions"). The requested mean is the mean of the CLIPPED variable
// clip(X, L, H): Make() keeps the shape fixed by cv and solves the location
// parameter by bisection on the closed-form clipped mean
//   E[clip(X, L, H)] = L F(L) + E[X; L < X < H] + H (1 - F(H)).
// The partial expectations are in docs/model.md (spec section).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "rlcost/distribution.h"
#include "spec/normal.h"

namespace rlcost {
namespace spec_internal {

double NormalPdf(double z) {
  if (std::isinf(z)) return 0.0;
  return std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  if (!(p > 0.0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1.0)) return std::numeric_limits<double>::infinity();
  // P. J. Acklam, "An algorithm for computing the inverse normal cumulative
  // distribution function" (2003): rational approximations on a central
  // region and two tails, relative error 1.15e-9 before refinement.
  static constexpr double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                                 1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static constexpr double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                                 6.680131188771972e+01,  -1.328068155288572e+01};
  static constexpr double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                                 -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static constexpr double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                                 3.754408661907416e+00};
  constexpr double kLow = 0.02425;
  double x;
  if (p < kLow) {
    double q = std::sqrt(-2.0 * std::log(p));
    x = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  } else if (p <= 1.0 - kLow) {
    double q = p - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  } else {
    double q = std::sqrt(-2.0 * std::log(1.0 - p));
    x = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
  }
  // Halley's method on Phi(x) - p (Acklam's suggested refinement).
  for (int i = 0; i < 2; ++i) {
    double e = NormalCdf(x) - p;
    double u = e * std::sqrt(2.0 * M_PI) * std::exp(0.5 * x * x);
    x = x - u / (1.0 + 0.5 * x * u);
  }
  return x;
}

}  // namespace spec_internal

namespace {

using spec_internal::NormalCdf;
using spec_internal::NormalPdf;
using spec_internal::NormalQuantile;
constexpr double kInf = std::numeric_limits<double>::infinity();

// P(a < X < b), E[X; a < X < b], E[X^2; a < X < b] of an unclipped distribution.
struct Partial {
  double p = 0, m1 = 0, m2 = 0;
};

double ZPhi(double z) { return std::isinf(z) ? 0.0 : z * NormalPdf(z); }

// Lognormal(mu, s): E[X^k; X < c] = exp(k mu + k^2 s^2 / 2) Phi((ln c - mu - k s^2) / s).
Partial LognormalPartial(double mu, double s, double a, double b) {
  auto upto = [&](double c, int k) {
    if (c <= 0) return 0.0;
    double z = (std::log(c) - mu - k * s * s) / s;
    return std::exp(k * mu + 0.5 * k * k * s * s) * NormalCdf(z);
  };
  return {upto(b, 0) - upto(a, 0), upto(b, 1) - upto(a, 1), upto(b, 2) - upto(a, 2)};
}

// Normal(mu, sd) with alpha, beta standardised bounds:
//   E[Z; alpha<Z<beta] = phi(alpha) - phi(beta),
//   E[Z^2; alpha<Z<beta] = P + alpha phi(alpha) - beta phi(beta).
Partial NormalPartial(double mu, double sd, double a, double b) {
  double al = (a - mu) / sd, be = (b - mu) / sd;
  double p = NormalCdf(be) - NormalCdf(al);
  double ez = NormalPdf(al) - NormalPdf(be);
  double ez2 = p + ZPhi(al) - ZPhi(be);
  return {p, mu * p + sd * ez, mu * mu * p + 2 * mu * sd * ez + sd * sd * ez2};
}

// Exponential(theta): F(c) = 1 - e^{-c/theta},
//   E[X; X<c] = theta - (c + theta) e^{-c/theta},
//   E[X^2; X<c] = 2 theta^2 - (c^2 + 2 c theta + 2 theta^2) e^{-c/theta}.
Partial ExponentialPartial(double theta, double a, double b) {
  auto tail = [&](double c) {  // P, E[X; X>c], E[X^2; X>c]
    if (std::isinf(c)) return Partial{};
    c = std::max(c, 0.0);
    double e = std::exp(-c / theta);
    return Partial{e, (c + theta) * e, (c * c + 2 * c * theta + 2 * theta * theta) * e};
  };
  Partial ta = tail(a), tb = tail(b);
  return {ta.p - tb.p, ta.m1 - tb.m1, ta.m2 - tb.m2};
}

// Uniform(u0, u1): densities 1/w on [u0, u1].
Partial UniformPartial(double u0, double u1, double a, double b) {
  double w = u1 - u0;
  double lo = std::clamp(a, u0, u1), hi = std::clamp(b, u0, u1);
  return {(hi - lo) / w, (hi * hi - lo * lo) / (2 * w), (hi * hi * hi - lo * lo * lo) / (3 * w)};
}

std::string Num(double v) { return fmt::format("{:g}", v); }

}  // namespace

Distribution Distribution::Fixed(double value) {
  Distribution d;
  d.kind_ = DistKind::kFixed;
  d.mean_ = value;
  d.lo_ = value;
  d.hi_ = value;
  d.p1_ = value;
  return d;
}

tl::expected<Distribution, std::string> Distribution::Make(DistKind kind, double mean, double cv,
                                                           std::optional<double> min,
                                                           std::optional<double> max) {
  if (kind == DistKind::kEmpirical) return tl::unexpected(std::string("an empirical distribution needs samples"));
  if (!std::isfinite(mean)) return tl::unexpected(std::string("mean must be a finite number"));
  if (mean < 0) return tl::unexpected(fmt::format("mean {} is negative; expected a mean >= 0", Num(mean)));
  if (!std::isfinite(cv) || cv < 0) return tl::unexpected(fmt::format("cv {} is invalid; expected cv >= 0", Num(cv)));
  if (min && (std::isnan(*min) || *min < 0))
    return tl::unexpected(fmt::format("min {} is negative; expected min >= 0", Num(*min)));
  if (max && (std::isnan(*max) || *max < 0))
    return tl::unexpected(fmt::format("max {} is negative; expected max >= 0", Num(*max)));
  if (min && max && *min > *max)
    return tl::unexpected(fmt::format("min {} is above max {}", Num(*min), Num(*max)));
  // Lengths, counts and latencies are non-negative: everything is clipped at 0.
  const double lo = std::max(min.value_or(0.0), 0.0);
  const double hi = max.value_or(kInf);
  if (mean > hi)
    return tl::unexpected(fmt::format("mean {} is above max {}; the mean of the clipped values must lie in [min, max]",
                                      Num(mean), Num(hi)));
  if (mean < lo)
    return tl::unexpected(fmt::format("mean {} is below min {}; the mean of the clipped values must lie in [min, max]",
                                      Num(mean), Num(lo)));
  if (kind == DistKind::kExponential) cv = 1.0;  // an exponential's cv is 1 by definition
  // Degenerate cases: no spread, or a mean sitting on a bound (only reachable
  // as the limit where all mass piles onto that bound).
  if (kind == DistKind::kFixed || cv == 0 || mean == lo || mean == hi) {
    Distribution d = Fixed(mean);
    d.cv_ = kind == DistKind::kFixed ? 0 : cv;
    return d;
  }

  Distribution d;
  d.kind_ = kind;
  d.cv_ = cv;
  d.lo_ = lo;
  d.hi_ = hi;
  // Shape parameter fixed by cv, location `loc` solved below.
  double shape = 0, guess = 0, step = 1;
  switch (kind) {
    case DistKind::kLognormal:  // cv^2 = exp(s^2) - 1
      shape = std::sqrt(std::log1p(cv * cv));
      guess = std::log(mean) - 0.5 * shape * shape;
      step = std::max(shape, 0.1);
      break;
    case DistKind::kNormal:  // sd = cv * mean (of the unclipped normal)
      shape = cv * mean;
      guess = mean;
      step = shape;
      break;
    case DistKind::kUniform:  // sd = w / sqrt(12) = cv * mean  =>  half-width sqrt(3) cv mean
      shape = std::sqrt(3.0) * cv * mean;
      guess = mean;
      step = std::max(shape, 1e-3 * mean);
      break;
    case DistKind::kExponential:  // loc = ln(theta)
      guess = std::log(mean);
      step = 1;
      break;
    default:
      return tl::unexpected(std::string("unsupported distribution kind"));
  }
  auto set_loc = [&](Distribution& x, double loc) {
    switch (kind) {
      case DistKind::kLognormal: x.p1_ = loc; x.p2_ = shape; break;
      case DistKind::kNormal: x.p1_ = loc; x.p2_ = shape; break;
      case DistKind::kUniform: x.p1_ = loc - shape; x.p2_ = loc + shape; break;
      case DistKind::kExponential: x.p1_ = std::exp(loc); x.p2_ = 0; break;
      default: break;
    }
  };
  auto clipped_mean = [&](double loc) {
    set_loc(d, loc);
    return d.ClippedMoments().first;
  };
  // Bracket the root: the clipped mean is non-decreasing in loc and runs
  // from lo (loc -> -inf) to hi (loc -> +inf).
  double a = guess - step, b = guess + step;
  int guard = 0;
  while (clipped_mean(a) > mean && guard++ < 200) { a -= step; step *= 2; }
  guard = 0;
  while (clipped_mean(b) < mean && guard++ < 200) { b += step; step *= 2; }
  double fa = clipped_mean(a), fb = clipped_mean(b);
  if (!(fa <= mean && fb >= mean))
    return tl::unexpected(fmt::format("cannot reach mean {} inside [{}, {}] with cv {}", Num(mean), Num(lo),
                                      std::isinf(hi) ? std::string("inf") : Num(hi), Num(cv)));
  for (int i = 0; i < 300 && b - a > 1e-14 * std::max(1.0, std::abs(a) + std::abs(b)); ++i) {
    double m = 0.5 * (a + b);
    if (clipped_mean(m) < mean) a = m; else b = m;
  }
  set_loc(d, 0.5 * (a + b));
  if (kind == DistKind::kUniform) {  // bounded support: the drawable range is narrower
    d.lo_ = std::clamp(d.p1_, lo, hi);
    d.hi_ = std::clamp(d.p2_, lo, hi);
  }
  d.mean_ = mean;
  return d;
}

tl::expected<Distribution, std::string> Distribution::Empirical(std::vector<double> samples) {
  if (samples.empty()) return tl::unexpected(std::string("an empirical distribution needs at least one sample"));
  for (size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i]) || samples[i] < 0)
      return tl::unexpected(fmt::format("sample {} is {}; expected a non-negative number", i + 1, Num(samples[i])));
  }
  std::sort(samples.begin(), samples.end());
  Distribution d;
  d.kind_ = DistKind::kEmpirical;
  double n = static_cast<double>(samples.size());
  d.mean_ = std::accumulate(samples.begin(), samples.end(), 0.0) / n;
  double sq = 0;
  for (double x : samples) sq += (x - d.mean_) * (x - d.mean_);
  d.cv_ = d.mean_ > 0 ? std::sqrt(sq / n) / d.mean_ : 0.0;
  d.lo_ = samples.front();
  d.hi_ = samples.back();
  d.samples_ = std::move(samples);
  return d;
}

double Distribution::UnclippedQuantile(double u) const {
  switch (kind_) {
    case DistKind::kLognormal: return std::exp(p1_ + p2_ * NormalQuantile(u));
    case DistKind::kNormal: return p1_ + p2_ * NormalQuantile(u);
    case DistKind::kUniform: return p1_ + u * (p2_ - p1_);
    case DistKind::kExponential: return u >= 1 ? kInf : -p1_ * std::log1p(-u);
    default: return mean_;
  }
}

double Distribution::UnclippedCdf(double x) const {
  switch (kind_) {
    case DistKind::kLognormal: return x <= 0 ? 0.0 : NormalCdf((std::log(x) - p1_) / p2_);
    case DistKind::kNormal: return NormalCdf((x - p1_) / p2_);
    case DistKind::kUniform: return std::clamp((x - p1_) / (p2_ - p1_), 0.0, 1.0);
    case DistKind::kExponential: return x <= 0 ? 0.0 : -std::expm1(-x / p1_);
    default: return x >= mean_ ? 1.0 : 0.0;
  }
}

std::pair<double, double> Distribution::ClippedMoments() const {
  // For the parametric kinds: the clipping bounds are the requested [lo, hi]
  // (for uniform, lo_/hi_ are narrowed after solving; the clip is the same).
  const double lo = lo_, hi = hi_;
  Partial mid;
  switch (kind_) {
    case DistKind::kLognormal: mid = LognormalPartial(p1_, p2_, lo, hi); break;
    case DistKind::kNormal: mid = NormalPartial(p1_, p2_, lo, hi); break;
    case DistKind::kUniform: mid = UniformPartial(p1_, p2_, lo, hi); break;
    case DistKind::kExponential: mid = ExponentialPartial(p1_, lo, hi); break;
    default: return {mean_, mean_ * mean_};
  }
  double below = UnclippedCdf(lo);
  double above = std::isinf(hi) ? 0.0 : 1.0 - UnclippedCdf(hi);
  double m1 = lo * below + mid.m1 + (std::isinf(hi) ? 0.0 : hi * above);
  double m2 = lo * lo * below + mid.m2 + (std::isinf(hi) ? 0.0 : hi * hi * above);
  return {m1, m2};
}

double Distribution::Quantile(double u) const {
  u = std::clamp(u, 0.0, 1.0);
  switch (kind_) {
    case DistKind::kFixed: return mean_;
    case DistKind::kEmpirical: {
      // Inverse of the empirical step CDF: each sample has probability 1/n.
      size_t n = samples_.size();
      size_t i = std::min(n - 1, static_cast<size_t>(u * static_cast<double>(n)));
      return samples_[i];
    }
    default: return std::clamp(UnclippedQuantile(u), lo_, hi_);
  }
}

double Distribution::Cdf(double x) const {
  if (kind_ == DistKind::kEmpirical) {
    auto it = std::upper_bound(samples_.begin(), samples_.end(), x);
    return static_cast<double>(it - samples_.begin()) / static_cast<double>(samples_.size());
  }
  if (x < lo_) return 0.0;
  if (x >= hi_) return 1.0;
  return UnclippedCdf(x);
}

double Distribution::Sample(std::mt19937_64& rng) const { return Quantile(UniformDouble(rng)); }

double Distribution::SecondMoment() const {
  switch (kind_) {
    case DistKind::kFixed: return mean_ * mean_;
    case DistKind::kEmpirical: {
      double s = 0;
      for (double x : samples_) s += x * x;
      return s / static_cast<double>(samples_.size());
    }
    default: return ClippedMoments().second;
  }
}

}  // namespace rlcost
