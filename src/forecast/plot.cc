#include "forecast/plot.h"

#include <algorithm>
#include <cmath>

namespace rlcost::forecast {
namespace {

// The q-quantile of v (linear between order statistics; v not empty).
double QuantileOf(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * double(v.size() - 1);
  const size_t i = size_t(std::floor(at));
  const size_t j = std::min(i + 1, v.size() - 1);
  return v[i] + (at - double(i)) * (v[j] - v[i]);
}

}  // namespace

Plot BuildPlot(const ProgressSeries& s, const Outcome& r, int grid) {
  Plot p;
  p.metric = s.metric;
  p.target = r.target;
  p.level = r.level;
  p.fit_until_step = r.fit_until_step;
  for (const auto& pt : s.points) p.points.push_back({pt.step, pt.value, pt.step <= r.fit_until_step});
  p.forecast_ok = r.ok;
  p.reason = r.reason;
  if (r.ok) {
    p.steps_to_target = r.steps_to_target;
    p.interval_low = r.interval_low;
    p.interval_high = r.interval_high;
  }
  p.fitted = r.fitted;
  if (!r.fitted || s.points.empty()) return p;
  p.curve = CurveName(r.curve.kind);
  const double first = s.first_step, last = std::max(s.points.back().step, s.first_step);
  double end = last;
  if (r.ok) {
    end = std::max(end, r.steps_to_target);
    if (std::isfinite(r.interval_high)) end = std::max(end, r.interval_high);
  }
  end = std::min(end, first + 5.0 * (last - first + 1));
  grid = std::max(grid, 2);
  const double qlo = (1 - r.level) / 2, qhi = 1 - qlo;
  std::vector<double> at(r.replicate_curves.size());
  for (int i = 0; i < grid; ++i) {
    const double step = first + (end - first) * i / (grid - 1);
    const double c = step - first + 1;  // compute as the fit counts it (forecast.h)
    p.steps.push_back(step);
    p.fit.push_back(r.curve.Value(c));
    if (r.replicate_curves.empty()) continue;
    for (size_t k = 0; k < at.size(); ++k) at[k] = r.replicate_curves[k].Value(c);
    p.low.push_back(QuantileOf(at, qlo));
    p.high.push_back(QuantileOf(at, qhi));
  }
  return p;
}

nlohmann::json PlotToJson(const Plot& p) {
  nlohmann::json j = {{"metric", p.metric}, {"target", p.target}, {"level", p.level}, {"fit_until_step", p.fit_until_step},
                      {"curve", p.curve}};
  nlohmann::json pts = nlohmann::json::array();
  for (const auto& x : p.points) pts.push_back({x.step, x.value, x.fitted});
  j["points"] = pts;
  j["steps"] = p.steps;
  j["fit"] = p.fit;
  j["band_low"] = p.low;
  j["band_high"] = p.high;
  if (p.forecast_ok) {
    j["steps_to_target"] = p.steps_to_target;
    j["interval"] = {p.interval_low, std::isfinite(p.interval_high) ? nlohmann::json(p.interval_high)
                                                                    : nlohmann::json("beyond reach")};
  } else {
    j["reason"] = p.reason;
  }
  return j;
}

}  // namespace rlcost::forecast
