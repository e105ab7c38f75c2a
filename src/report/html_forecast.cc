// The HTML report's forecast section: the run's own learning curve, its fit and band.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

namespace {

// The run's own learning curve (`rlcost report --progress LOG`): the logged
// points, the fitted curve, its band and the target (forecast/plot.h).
std::string ForecastChart(const forecast::Plot& p) {
  const int W = 1200, H = 420, L = 80, R = 30, T = 52, B = 50;
  std::string s = SvgOpen("chart-forecast", W, H, "the run's learning curve and its forecast");
  s += Text(10, 20, fmt::format("{} against training step: logged points, the fitted {} curve and its {:.0f}% band",
                                p.metric, p.curve.empty() ? "(no)" : p.curve, 100 * p.level),
            "start", "title");
  s += LegendSvg(L, 42, {{"logged, fitted", "#2f6fd6"}, {"logged, not fitted", "#9aa3b2"}, {"fitted curve", "#e07b00"},
                         {"band", "#f6d2a8"}, {"target", "#d64545"}});
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = p.target, y1 = p.target;
  for (const auto& pt : p.points) {
    x0 = std::min(x0, double(pt.step)); x1 = std::max(x1, double(pt.step));
    y0 = std::min(y0, pt.value); y1 = std::max(y1, pt.value);
  }
  for (size_t i = 0; i < p.steps.size(); ++i) {
    x0 = std::min(x0, p.steps[i]); x1 = std::max(x1, p.steps[i]);
    // The axis follows the points, the curve and the target; the band (wide
    // near step 0, where few points hold the refits) is clipped to the plot.
    if (std::isfinite(p.fit[i])) { y0 = std::min(y0, p.fit[i]); y1 = std::max(y1, p.fit[i]); }
  }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;
  const double pad = 0.05 * (y1 - y0);
  y0 -= pad; y1 += pad;
  auto X = [&](double v) { return L + (W - L - R) * (v - x0) / (x1 - x0); };
  auto Y = [&](double v) { return T + (H - T - B) * (1 - (v - y0) / (y1 - y0)); };
  for (double t : LinTicks(x1 - x0)) {
    if (x0 + t > x1 * 1.0001) break;
    s += Line(X(x0 + t), T, X(x0 + t), H - B, "grid");
    s += Text(X(x0 + t), H - B + 16, fmt::format("{:.0f}", x0 + t), "middle");
  }
  for (int i = 0; i <= 5; ++i) {
    const double v = y0 + (y1 - y0) * i / 5;
    s += Line(L, Y(v), W - R, Y(v), "grid");
    s += Text(L - 6, Y(v) + 4, fmt::format("{:.3g}", v), "end");
  }
  s += Text((L + W - R) / 2.0, H - 8, "training step", "middle");
  s += Line(L, T, L, H - B, "axis");
  s += Line(L, H - B, W - R, H - B, "axis");
  if (!p.low.empty()) {
    std::string d;
    for (size_t i = 0; i < p.steps.size(); ++i) d += fmt::format("{}{:.1f},{:.1f} ", i == 0 ? "M" : "L", X(p.steps[i]), Y(p.high[i]));
    for (size_t i = p.steps.size(); i-- > 0;) d += fmt::format("L{:.1f},{:.1f} ", X(p.steps[i]), Y(p.low[i]));
    s += fmt::format(R"(<clipPath id="forecast-plot"><rect x="{}" y="{}" width="{}" height="{}"/></clipPath>)", L, T,
                     W - L - R, H - T - B);
    s += fmt::format(R"svg(<path class="band" d="{}Z" fill="#f6d2a8" opacity="0.7" clip-path="url(#forecast-plot)" data-tip="{}"/>)svg", d,
                     HtmlEscape(fmt::format("{:.0f}% band: the bootstrap refits' curves between their {:.0f}% and {:.0f}% quantiles",
                                            100 * p.level, 50 * (1 - p.level), 100 - 50 * (1 - p.level))));
  }
  s += fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" stroke="#d64545" stroke-dasharray="6 4" data-tip="{}"/>)",
                   L + 0.0, Y(p.target), W - R + 0.0, Y(p.target), HtmlEscape(fmt::format("target {:.4g}", p.target)));
  if (!p.fit.empty()) {
    std::string d;
    for (size_t i = 0; i < p.steps.size(); ++i) d += fmt::format("{}{:.1f},{:.1f} ", i == 0 ? "M" : "L", X(p.steps[i]), Y(p.fit[i]));
    s += fmt::format(R"(<path class="fit" d="{}" fill="none" stroke="#e07b00" stroke-width="2.2" data-tip="fitted {} curve"/>)", d, p.curve);
  }
  for (const auto& pt : p.points) {
    s += fmt::format(R"(<circle class="point" cx="{:.2f}" cy="{:.2f}" r="2.5" fill="{}" data-step="{}" data-value="{:.9g}" data-tip="step {}: {:.4g}{}"/>)",
                     X(pt.step), Y(pt.value), pt.fitted ? "#2f6fd6" : "#9aa3b2", pt.step, pt.value, pt.step, pt.value,
                     pt.fitted ? "" : " (not fitted)");
  }
  if (p.forecast_ok) {
    s += fmt::format(R"(<line x1="{0:.1f}" y1="{1}" x2="{0:.1f}" y2="{2}" stroke="#1d2430" stroke-dasharray="2 3"/>)", X(p.steps_to_target), T, H - B);
    s += Text(X(p.steps_to_target) + 4, T + 12, fmt::format("forecast: step {:.0f}", p.steps_to_target));
  }
  return s + "</svg>";
}

}  // namespace

std::string ForecastSection(const HtmlInput& in) {
  if (!in.forecast && in.forecast_error.empty()) return "";
  std::string h = "<section id=\"forecast\"><h2>Your run's own learning curve (forecast)</h2>";
  if (!in.forecast) return h + "<p class=\"note\">Not available: " + HtmlEscape(in.forecast_error) + "</p></section>";
  const forecast::Plot& p = *in.forecast;
  if (p.forecast_ok) {
    h += "<p class=\"sub\">" + HtmlEscape(fmt::format(
             "The {} reaches {:.4g} at step {:.0f} ({:.0f}% interval {:.0f} to {}), fitted on the logged points up to step {}. "
             "The band is the spread of the bootstrap refits of the curve (docs/model.md, \"Forecasting steps from a run's own curve\").",
             p.metric, p.target, p.steps_to_target, 100 * p.level, p.interval_low,
             std::isfinite(p.interval_high) ? fmt::format("{:.0f}", p.interval_high) : std::string("beyond reach"), p.fit_until_step)) + "</p>";
  } else {
    h += "<p class=\"sub\">" + HtmlEscape("No forecast of the step: " + p.reason) + "</p>";
  }
  return h + ForecastChart(p) + "</section>";
}


}  // namespace rlcost::report::html
