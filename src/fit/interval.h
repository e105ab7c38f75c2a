// econ/interval: how far off a headline figure may be, read off how far off
// rlcost was on the published runs (docs/model.md, "Intervals from the
// validation residuals").
//
//   const auto& band = interval::BandFor(est.method);   // catalog/intervals.yaml
//   for (auto& [key, r] : interval::Intervals(est, band)) key, r.low, r.high;
//
// A band is an 80% distribution-free prediction interval for predicted /
// measured, read off the absolute time figures (step.time_s, run.wall_time_h)
// of the out-of-sample validation cases of one path: with the n ratios sorted,
// [x_(j), x_(n+1-j)] with j = floor(0.1 (n + 1)), which holds a new ratio
// drawn like these with probability (n + 1 - 2j) / (n + 1) >= 80%
// (docs/model.md, "Intervals from the validation residuals"). A headline
// value v then lies in [v / high, v / low]. The band is written to
// catalog/intervals.yaml by `rlcost validate DIR --intervals`; a test
// recomputes it so it cannot go stale.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fit/validate.h"
#include "rlcost/error.h"
#include "rlcost/estimate.h"

namespace rlcost::interval {

struct Band {
  double low = 1, high = 1;  // bounds of predicted / measured (order statistics x_(j), x_(n+1-j))
  int cases = 0;             // residuals it was read off
  double nominal = 0;        // (n + 1 - 2j) / (n + 1): chance a new ratio falls inside, by construction
  // Of the `cases` figures, how many lie inside the band read off the other
  // runs only (LeaveOneRunOut): the coverage measured out of sample.
  int loo_inside = 0;
  std::string source;       // where it comes from (never empty in the catalog)
};

struct Bands {
  Band analytic, simulated;
};

// Parses `intervals: {analytic: {low, high, nominal, cases, source}, simulated: {...}}`.
Result<Bands> ParseBands(std::string_view text, const std::string& origin);
// The built-in bands (catalog/intervals.yaml, compiled in).
const Bands& BuiltinBands();
// "analytic" or "simulated" (Estimate::method).
const Band& BandFor(std::string_view method);

// predicted / measured of every absolute time check of one path
// (step.time_s, run.wall_time_h; no ratio metrics, no in-sample cases).
std::vector<double> TimeRatios(const validate::PathResult& p);
// The target coverage of every band.
inline constexpr double kBandCoverage = 0.80;
// The rank j of the lower bound: floor((1 - coverage) / 2 * (n + 1)), at least
// 1 (with n < 9 no pair of order statistics reaches 80%: the band is then
// [min, max] and its nominal coverage, (n - 1) / (n + 1), says so).
int LowerRank(int n);
// The band of these ratios (empty: 1..1, nominal 0).
Band BandFrom(std::vector<double> ratios);
// The q-quantile, linear between order statistics (numpy's default): kept for
// readers who compare with a percentile band.
double Percentile(std::vector<double> v, double q);

struct Range {
  double low = 0, high = 0;
};
// The headline keys that carry an interval, in display order.
const std::vector<std::string_view>& HeadlineKeys();
// Interval of each headline metric the estimate has (goal.usd only when reachable).
std::map<std::string, Range> Intervals(const Estimate& e, const Band& b);
Range Around(double predicted, const Band& b);
// One sentence: where the band comes from and its leave-one-out coverage.
std::string BandSentence(const Band& b, std::string_view method);

// How many published time figures fall inside the interval around their
// prediction on one path, with the band that path's estimates carry
// (in-sample: the band was read off these figures).
struct Coverage {
  int inside = 0, total = 0;
};
Coverage CoverageOf(const validate::PathResult& p, const Band& b);
// Out-of-sample coverage: each run's figures against the band read off the
// other runs only (leave one run out; a run's step and wall time leave together).
Coverage LeaveOneRunOut(const validate::PathResult& p);

// YAML text of catalog/intervals.yaml from the two paths of a report.
std::string BandsYaml(const validate::Report& r, const std::string& dir_label);

}  // namespace rlcost::interval
