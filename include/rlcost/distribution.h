// A non-negative quantity drawn per trajectory or per turn: a length in tokens,
// a count of turns, a latency in seconds (SCENARIO.md, "Distributions").
//
//   auto d = rlcost::Distribution::Make(DistKind::kLognormal, /*mean=*/2000, /*cv=*/0.8,
//                                       /*min=*/std::nullopt, /*max=*/8192);
//   d->mean();          // 2000: the mean of what is drawn, after clipping
//   d->Quantile(0.99);  // the 99th percentile of the clipped distribution
//
// `mean` is the mean *after* clipping: Make() solves for the underlying location
// parameter (keeping the shape set by `cv`) so a published average can be entered
// as it is. Sampling is deterministic for a given engine state.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/types.h"

namespace rlcost {

class Distribution {
 public:
  Distribution() = default;  // fixed at 0
  static Distribution Fixed(double value);
  // Errors (a plain message, the caller adds the field path) when the mean
  // cannot be reached inside [min, max], cv < 0, etc.
  // `clipped` = s in [0, 1) (needs max): a share s of draws sit exactly at max,
  // the rest follow the kind and cv clipped to [min, max]; the location is
  // solved so that s max + (1 - s) E[clip(X)] = mean (docs/model.md,
  // "Responses clipped at the maximum length").
  static tl::expected<Distribution, std::string> Make(DistKind kind, double mean, double cv,
                                                      std::optional<double> min,
                                                      std::optional<double> max, double clipped = 0);
  static tl::expected<Distribution, std::string> Empirical(std::vector<double> samples);

  DistKind kind() const { return kind_; }
  bool is_fixed() const { return kind_ == DistKind::kFixed && clip_ == 0; }
  double mean() const { return mean_; }        // of the clipped distribution
  double cv() const { return cv_; }            // as requested (of the unclipped shape)
  double min() const { return lo_; }           // smallest value that can be drawn
  double max() const { return hi_; }           // largest value that can be drawn (inf if none)
  double clipped() const { return clip_; }     // the share set at max by `clipped` (0 if none)
  // P(draw = the declared max): s + (1 - s) P(X >= max); 0 without a declared
  // max (a fixed value or samples have none).
  double ShareAtMax() const;
  // Inverse CDF of the clipped distribution, u in [0, 1].
  double Quantile(double u) const;
  // P(X <= x).
  double Cdf(double x) const;
  // One draw: Quantile(u) with u from the 53 high bits of rng().
  double Sample(std::mt19937_64& rng) const;
  // E[X^2] of the clipped distribution (closed form, computed when made).
  double SecondMoment() const;

 private:
  DistKind kind_ = DistKind::kFixed;
  double mean_ = 0;
  double cv_ = 0;
  double lo_ = 0;
  double hi_ = 0;
  double p1_ = 0;  // underlying location (lognormal mu, normal mean, exponential mean, uniform lo)
  double p2_ = 0;  // underlying scale (lognormal sigma, normal sd, -, uniform hi)
  double m2_ = 0;  // E[clip(X)^2] of the parametric kinds, computed once by Make
  double clip_ = 0;  // share of draws set exactly at the declared max (`clipped`)
  double limit_ = std::numeric_limits<double>::infinity();  // the declared max
  std::vector<double> samples_;  // empirical, sorted
  double UnclippedQuantile(double u) const;
  double UnclippedCdf(double x) const;
  // {E[clip(X)], E[clip(X)^2]} in closed form for the parametric kinds.
  std::pair<double, double> ClippedMoments() const;
};

// Uniform double in [0, 1) from the 53 high bits of a 64-bit draw.
inline double UniformDouble(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace rlcost
