// The HTML report's sections 5-6: the run's cost against its GPU count, and the
// cost per useful sample against the pass rate.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/strings.h"
#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

namespace {

std::string PassRateChart(const std::vector<levers::PassRateCurve>& curves, double scenario_mean) {
  const int W = 1200, H = 420, L = 80, R = 30, T = 52, B = 50;
  std::string s = SvgOpen("chart-passrate", W, H, "cost per useful sample against pass rate");
  s += Text(10, 20, "Cost per useful sample against the pass rate of every task (log scale), by group size G", "start", "title");
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& c : curves) {
    for (const auto& v : c.usd_per_useful_sample) {
      if (v && *v > 0) { lo = std::min(lo, *v); hi = std::max(hi, *v); }
    }
  }
  std::vector<Legend> lg;
  for (size_t k = 0; k < curves.size(); ++k) lg.push_back({fmt::format("G = {}", curves[k].group_size), kSeries[k % 5]});
  s += LegendSvg(L, 42, lg);
  if (!(hi > 0)) {
    s += Text(W / 2.0, H / 2.0, "no estimate available", "middle");
    return s + "</svg>";
  }
  double ylo = std::pow(10.0, std::floor(std::log10(lo))), yhi = std::pow(10.0, std::ceil(std::log10(hi)));
  if (yhi / ylo > 1e6) ylo = yhi / 1e6;
  auto X = [&](double p) { return L + (W - L - R) * p; };
  auto Y = [&](double v) {
    v = std::clamp(v, ylo, yhi);
    return T + (H - T - B) * (1 - (std::log10(v) - std::log10(ylo)) / (std::log10(yhi) - std::log10(ylo)));
  };
  for (double t : LogTicks(ylo, yhi)) {
    s += Line(L, Y(t), W - R, Y(t), "grid");
    s += Text(L - 6, Y(t) + 4, Usd(t), "end");
  }
  for (int i = 0; i <= 10; ++i) {
    s += Line(X(i / 10.0), T, X(i / 10.0), H - B, "grid");
    s += Text(X(i / 10.0), H - B + 16, fmt::format("{:.1f}", i / 10.0), "middle");
  }
  s += Text((L + W - R) / 2.0, H - 8, "pass rate p of every task (0..1)", "middle");
  s += Line(L, T, L, H - B, "axis");
  s += Line(L, H - B, W - R, H - B, "axis");
  if (scenario_mean > 0 && scenario_mean < 1) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#5a6475" stroke-dasharray="4 3"/>)", X(scenario_mean), T, H - B);
    s += Text(X(scenario_mean) + 4, T + 12, fmt::format("this scenario's mean p = {:.2f}", scenario_mean));
  }
  for (size_t k = 0; k < curves.size(); ++k) {
    const auto& c = curves[k];
    std::string d;
    for (size_t i = 0; i < c.pass_rate.size(); ++i) {
      if (!c.usd_per_useful_sample[i] || !(*c.usd_per_useful_sample[i] > 0)) continue;
      d += fmt::format("{}{:.1f},{:.1f} ", d.empty() ? "M" : "L", X(c.pass_rate[i]), Y(*c.usd_per_useful_sample[i]));
    }
    if (!d.empty()) {
      s += fmt::format(R"(<path d="{}" fill="none" stroke="{}" stroke-width="2.2" data-tip="G = {}"/>)", d, kSeries[k % 5], c.group_size);
    }
    for (size_t i = 0; i < c.pass_rate.size(); ++i) {
      if (!c.usd_per_useful_sample[i] || !(*c.usd_per_useful_sample[i] > 0)) continue;
      s += fmt::format(R"(<circle cx="{:.1f}" cy="{:.1f}" r="3" fill="{}" data-tip="G = {}, p = {:.2f}: {} per useful sample"/>)",
                       X(c.pass_rate[i]), Y(*c.usd_per_useful_sample[i]), kSeries[k % 5], c.group_size, c.pass_rate[i],
                       Usd(*c.usd_per_useful_sample[i]));
    }
  }
  return s + "</svg>";
}

// Dollars for the run (bars, log scale) at each GPU count, wall time written
// on each bar; a count that does not run shows why.
std::string GpuCountChart(const std::vector<GpuCountPoint>& pts, int current) {
  const int W = 1200, H = 400, L = 90, R = 30, T = 52, B = 70;
  std::string s = SvgOpen("chart-gpucount", W, H, "cost of the run against GPU count");
  s += Text(10, 20, "Dollars for the whole run against the number of GPUs (log scale); wall time on each bar", "start", "title");
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& p : pts) {
    if (p.usd && *p.usd > 0) { lo = std::min(lo, *p.usd); hi = std::max(hi, *p.usd); }
  }
  if (!(hi > 0)) {
    s += Text(W / 2.0, H / 2.0, "no GPU count produced an estimate", "middle");
    return s + "</svg>";
  }
  double ylo = std::pow(10.0, std::floor(std::log10(lo * 0.8))), yhi = std::pow(10.0, std::ceil(std::log10(hi * 1.2)));
  auto Y = [&](double v) { return T + (H - T - B) * (1 - (std::log10(v) - std::log10(ylo)) / (std::log10(yhi) - std::log10(ylo))); };
  for (double t : LogTicks(ylo, yhi)) {
    s += Line(L, Y(t), W - R, Y(t), "grid");
    s += Text(L - 6, Y(t) + 4, Usd(t), "end");
  }
  s += Line(L, T, L, H - B, "axis");
  s += Line(L, H - B, W - R, H - B, "axis");
  s += Text((L + W - R) / 2.0, H - 8, "GPUs", "middle");
  const double slot = double(W - L - R) / std::max<size_t>(pts.size(), 1);
  for (size_t i = 0; i < pts.size(); ++i) {
    const auto& p = pts[i];
    double x = L + slot * i + slot * 0.2, w = slot * 0.6;
    s += Text(x + w / 2, H - B + 18, fmt::format("{}{}", p.gpus, p.gpus == current ? " (this scenario)" : ""), "middle");
    if (!p.usd) {
      s += Rect(x, H - B - 4, w, 4, kColIdle, fmt::format("{}: {}", GpuCount(p.gpus), p.error));
      s += Text(x + w / 2, H - B - 10, "does not run", "middle");
      continue;
    }
    std::string tip = fmt::format("{}: {} for the run, {} wall time, {} per useful sample", GpuCount(p.gpus), Usd(*p.usd),
                                  FormatValue(p.wall_time_h.value_or(0), "h") + " h", Usd(p.usd_per_useful_sample.value_or(0)));
    s += Rect(x, Y(*p.usd), w, H - B - Y(*p.usd), p.gpus == current ? kColRollout : "#8fb3ea", tip);
    s += Text(x + w / 2, Y(*p.usd) - 6, Usd(*p.usd), "middle");
    if (p.wall_time_h) s += Text(x + w / 2, H - B + 34, FormatValue(*p.wall_time_h, "h") + " h", "middle");
  }
  return s + "</svg>";
}

}  // namespace

std::string ScalingSections(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  std::string body;
  body += "<section><h2>5. Cost against GPU count</h2>";
  if (!in.gpu_counts.empty()) {
    body += "<p class=\"sub\">The same scenario on fewer or more GPUs of the same kind (a disaggregated split keeps its proportions). "
            "More GPUs shorten the run; the bill moves with how well the work spreads over them.</p>";
    body += GpuCountChart(in.gpu_counts, sc.hardware.gpus);
  } else {
    body += "<p class=\"note\">Not computed for this report.</p>";
  }
  body += "</section>";

  // Pass rate.
  body += "<section><h2>6. Cost per useful sample against pass rate</h2>";
  body += "<p class=\"sub\">Every task at the same pass rate p; a group of G is informative with probability 1 − p^G − (1−p)^G. "
          "Small groups are cheap per rollout but waste more of them when p is near 0 or 1.</p>";
  body += PassRateChart(in.curves, sc.environment.pass_rate.mean());
  body += "</section>";
  return body;
}

}  // namespace rlcost::report::html
