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
#include "scenario/normal.h"

namespace rlcost {
namespace scenario_internal {

double NormalPdf(double z) {
  if (std::isinf(z)) return 0.0;
  return std::exp(-0.5 * z * z) / std::sqrt(2.0 * M_PI);
}

double NormalCdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

double NormalQuantile(double p) {
  if (!(p > 0.0)) return -std::numeric_limits<double>::infinity();
  if (!(p < 1.0)) return std::numeric_limits<double>::infinity();
  // M. J. Wichura, "Algorithm AS 241: The Percentage Points of the Normal
  // Distribution", Applied Statistics 37(3):477-484 (1988), PPND16: rational
  // approximations of degree 7/7 on a central region and two tail regions,
  // relative accuracy about 1e-16 without any refinement (measured against a
  // long-double Newton solve: max relative error 7e-16 over 2e6 draws, tails
  // down to 1e-12 included). No erfc or exp: about 4x faster than Acklam's
  // approximation with Halley refinement, and more accurate in the upper tail
  // where Phi(x) - p cancels.
  const double q = p - 0.5;
  if (std::fabs(q) <= 0.425) {
    const double r = 0.180625 - q * q;
    return q *
           (((((((2.5090809287301226727e+3 * r + 3.3430575583588128105e+4) * r + 6.7265770927008700853e+4) * r +
                4.5921953931549871457e+4) * r + 1.3731693765509461125e+4) * r + 1.9715909503065514427e+3) * r +
             1.3314166789178437745e+2) * r + 3.3871328727963666080e+0) /
           (((((((5.2264952788528545610e+3 * r + 2.8729085735721942674e+4) * r + 3.9307895800092710610e+4) * r +
                2.1213794301586595867e+4) * r + 5.3941960214247511077e+3) * r + 6.8718700749205790830e+2) * r +
             4.2313330701600911252e+1) * r + 1.0);
  }
  double r = std::sqrt(-std::log(q < 0 ? p : 1.0 - p));
  double x;
  if (r <= 5.0) {  // p or 1 - p down to exp(-25) ~ 1.4e-11
    r -= 1.6;
    x = (((((((7.74545014278341407640e-4 * r + 2.27238449892691845833e-2) * r + 2.41780725177450611770e-1) * r +
             1.27045825245236838258e+0) * r + 3.64784832476320460504e+0) * r + 5.76949722146069140550e+0) * r +
          4.63033784615654529590e+0) * r + 1.42343711074968357734e+0) /
        (((((((1.05075007164441684324e-9 * r + 5.47593808499534494600e-4) * r + 1.51986665636164571966e-2) * r +
             1.48103976427480074590e-1) * r + 6.89767334985100004550e-1) * r + 1.67638483018380384940e+0) * r +
          2.05319162663775882187e+0) * r + 1.0);
  } else {
    r -= 5.0;
    x = (((((((2.01033439929228813265e-7 * r + 2.71155556874348757815e-5) * r + 1.24266094738807843860e-3) * r +
             2.65321895265761230930e-2) * r + 2.96560571828504891230e-1) * r + 1.78482653991729133580e+0) * r +
          5.46378491116411436990e+0) * r + 6.65790464350110377720e+0) /
        (((((((2.04426310338993978564e-15 * r + 1.42151175831644588870e-7) * r + 1.84631831751005468180e-5) * r +
             7.86869131145613259100e-4) * r + 1.48753612908506148525e-2) * r + 1.36929880922735805310e-1) * r +
          5.99832206555887937690e-1) * r + 1.0);
  }
  return q < 0 ? -x : x;
}

}  // namespace scenario_internal

namespace {

using scenario_internal::NormalCdf;
using scenario_internal::NormalPdf;
using scenario_internal::NormalQuantile;
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
                                                           std::optional<double> max, double clipped) {
  if (kind == DistKind::kEmpirical) return tl::unexpected(std::string("an empirical distribution needs samples"));
  if (clipped != 0) {
    // The mixture Y = max with probability s, else clip(X, L, H):
    //   E[Y] = s H + (1 - s) E[clip(X)]  =>  E[clip(X)] = (mean - s H) / (1 - s).
    const double s = clipped;
    if (!std::isfinite(s) || s < 0 || s >= 1)
      return tl::unexpected(fmt::format("clipped {} is out of range; expected a share in [0, 1)", Num(s)));
    if (!max)
      return tl::unexpected(std::string("clipped needs max (the length the clipped responses stop at)"));
    if (!std::isfinite(mean)) return tl::unexpected(std::string("mean must be a finite number"));
    const double h = *max, l = std::max(min.value_or(0.0), 0.0);
    const double rest = (mean - s * h) / (1 - s);
    if (!(rest >= l && rest < h))
      return tl::unexpected(fmt::format(
          "mean {} cannot be reached with a share {} at max {}: the unclipped responses would need a mean of {}; "
          "expected one in [{}, {}) (lower clipped or change mean)",
          Num(mean), Num(s), Num(h), Num(rest), Num(l), Num(h)));
    auto base = Make(kind, rest, cv, min, max, 0);
    if (!base) return base;
    Distribution d = *base;
    d.m2_ = s * h * h + (1 - s) * base->SecondMoment();
    d.clip_ = s;
    d.limit_ = h;
    d.hi_ = h;
    d.mean_ = mean;
    return d;
  }
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
    d.limit_ = hi;
    return d;
  }

  Distribution d;
  d.limit_ = hi;
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
  d.m2_ = d.ClippedMoments().second;
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
    default: return x >= p1_ ? 1.0 : 0.0;  // fixed at p1_
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
  if (clip_ > 0) {  // the top share s sits at max; the rest spreads over u / (1 - s)
    if (u >= 1 - clip_) return limit_;
    u /= 1 - clip_;
  }
  switch (kind_) {
    case DistKind::kFixed: return p1_;
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
  return (1 - clip_) * UnclippedCdf(x);
}

double Distribution::ShareAtMax() const {
  if (!std::isfinite(limit_)) return 0.0;
  double rest = 0;  // P(clip(X) = H) = P(X >= H)
  switch (kind_) {
    case DistKind::kFixed: rest = p1_ >= limit_ ? 1.0 : 0.0; break;
    case DistKind::kEmpirical: rest = 0; break;
    default: rest = 1.0 - UnclippedCdf(limit_); break;
  }
  return clip_ + (1 - clip_) * rest;
}

double Distribution::Sample(std::mt19937_64& rng) const { return Quantile(UniformDouble(rng)); }

double Distribution::SecondMoment() const {
  switch (kind_) {
    case DistKind::kFixed: return clip_ > 0 ? m2_ : mean_ * mean_;
    case DistKind::kEmpirical: {
      double s = 0;
      for (double x : samples_) s += x * x;
      return s / static_cast<double>(samples_.size());
    }
    default: return m2_;
  }
}

}  // namespace rlcost
