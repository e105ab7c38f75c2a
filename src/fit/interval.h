// econ/interval: how far off a headline figure may be, read off how far off
// rlcost was on the published runs (docs/model.md, "Intervals from the
// validation residuals").
//
//   const auto& band = interval::BandFor(est.method);   // catalog/intervals.yaml
//   for (auto& [key, r] : interval::Intervals(est, band)) key, r.low, r.high;
//
// A band is the 10th and 90th percentile of predicted / measured over the
// absolute time figures (step.time_s, run.wall_time_h) of the out-of-sample
// validation cases of one path. A headline value v then lies in
// [v / p90, v / p10]. The band is written to catalog/intervals.yaml by
// `rlcost validate DIR --intervals`; a test recomputes it so it cannot go stale.
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
  double p10 = 1, p90 = 1;  // percentiles of predicted / measured
  int cases = 0;            // residuals it was read off
  std::string source;       // where it comes from (never empty in the catalog)
};

struct Bands {
  Band analytic, simulated;
};

// Parses `intervals: {analytic: {p10, p90, cases, source}, simulated: {...}}`.
Result<Bands> ParseBands(std::string_view text, const std::string& origin);
// The built-in bands (catalog/intervals.yaml, compiled in).
const Bands& BuiltinBands();
// "analytic" or "simulated" (Estimate::method).
const Band& BandFor(std::string_view method);

// predicted / measured of every absolute time check of one path
// (step.time_s, run.wall_time_h; no ratio metrics, no in-sample cases).
std::vector<double> TimeRatios(const validate::PathResult& p);
// The 10th and 90th percentile (linear between order statistics).
Band BandFrom(std::vector<double> ratios);
double Percentile(std::vector<double> v, double q);

struct Range {
  double low = 0, high = 0;
};
// The headline keys that carry an interval, in display order.
const std::vector<std::string_view>& HeadlineKeys();
// Interval of each headline metric the estimate has (goal.usd only when reachable).
std::map<std::string, Range> Intervals(const Estimate& e, const Band& b);
Range Around(double predicted, const Band& b);
// One sentence: where the band comes from.
std::string BandSentence(const Band& b, std::string_view method);

// How many published time figures fall inside the interval around their
// prediction on one path, with the band that path's estimates carry.
struct Coverage {
  int inside = 0, total = 0;
};
Coverage CoverageOf(const validate::PathResult& p, const Band& b);

// YAML text of catalog/intervals.yaml from the two paths of a report.
std::string BandsYaml(const validate::Report& r, const std::string& dir_label);

}  // namespace rlcost::interval
