// The HTML report's sensitivity section: which input a figure hangs on (a tornado).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

namespace {

// One bar per input, largest swing first: from the figure at the scenario's
// values to the figure with the input at the low end (blue) and at the high
// end (orange) of its range. Each bar's group carries the row's numbers
// (data-input, data-metric-low, data-metric-high, ...) as `rlcost sensitivity
// --json` prints them, so a test can hold the drawing to the JSON.
std::string TornadoChart(const sensitivity::Tornado& t) {
  const std::string mu(t.metric_unit);
  const int W = 1200, L = 430, R = 150, T = 56, row_h = 26;
  const int H = T + row_h * static_cast<int>(std::max<size_t>(t.rows.size(), 1)) + 40;
  std::string s = SvgOpen("chart-tornado", W, H, "sensitivity of " + t.metric + " to each input");
  s += Text(10, 20, fmt::format("{} ({}) when one input moves over its range; line: {} at the scenario's values", t.metric,
                                t.metric_description, FormatValue(t.base, mu)),
            "start", "title");
  s += LegendSvg(10, 42, {{"input at the low end", "#4a7bd0"}, {"input at the high end", "#e8894a"}});
  double lo = t.base, hi = t.base;
  for (const auto& r : t.rows) {
    for (const auto& v : {r.metric_low, r.metric_high}) {
      if (v && std::isfinite(*v)) { lo = std::min(lo, *v); hi = std::max(hi, *v); }
    }
  }
  if (!(hi > lo)) hi = lo + 1;
  auto X = [&](double v) { return L + (W - L - R) * (v - lo) / (hi - lo); };
  const double xb = X(t.base);
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const auto& r = t.rows[i];
    const double y = T + row_h * i;
    auto num = [](const std::optional<double>& v) { return v ? fmt::format("{:.9g}", *v) : std::string("null"); };
    s += fmt::format(R"(<g class="tornado-row" data-input="{}" data-low-value="{:.9g}" data-high-value="{:.9g}" data-metric-low="{}" data-metric-high="{}" data-base="{:.9g}">)",
                     HtmlEscape(r.input), r.low_value, r.high_value, num(r.metric_low), num(r.metric_high), t.base);
    s += Text(L - 8, y + 17, fmt::format("{} {} .. {}", r.label, InputValue(r.low_value, r.unit), InputValue(r.high_value, r.unit)),
              "end");
    std::string ends;
    for (int end = 0; end < 2; ++end) {
      const auto& v = end == 0 ? r.metric_low : r.metric_high;
      const double in_v = end == 0 ? r.low_value : r.high_value;
      if (!v) continue;
      const double x = X(*v);
      s += Rect(std::min(x, xb), y + 4, std::fabs(x - xb), row_h - 8, end == 0 ? "#4a7bd0" : "#e8894a",
                fmt::format("{} = {}: {} = {}", r.input, InputValue(in_v, r.unit), t.metric, FormatValue(*v, mu)));
    }
    const std::string err = !r.error_low.empty() ? "low end failed: " + r.error_low
                          : !r.error_high.empty() ? "high end failed: " + r.error_high : "";
    if (!err.empty()) s += Text(xb + 6, y + 17, err, "start", "note");
    if (r.Swing() >= 0) s += Text(W - R + 8, y + 17, "swing " + FormatValue(r.Swing(), mu), "start");
    s += "</g>";
  }
  s += Line(xb, T - 4, xb, H - 36, "axis");
  s += Text(X(lo), H - 16, FormatValue(lo, mu), "start");
  s += Text(X(hi), H - 16, FormatValue(hi, mu), "end");
  s += Text(xb, H - 16, FormatValue(t.base, mu), "middle");
  return s + "</svg>";
}

}  // namespace

std::string SensitivitySection(const HtmlInput& in) {
  std::string body = "<section id=\"sensitivity\"><h2>9. Which input the answer hangs on (sensitivity)</h2>";
  if (!in.tornado) {
    body += "<p class=\"note\">Not computed: " + HtmlEscape(in.tornado_error.empty() ? "not requested" : in.tornado_error) + "</p>";
    return body + "</section>";
  }
  const auto& t = *in.tornado;
  body += "<p class=\"sub\">" + HtmlEscape(t.range_note) + " The " + HtmlEscape(t.path) +
          " estimate; `rlcost sensitivity` prints the same rows (--json for the numbers).</p>";
  body += TornadoChart(t);
  std::string notes;
  for (const auto& r : t.rows) {
    if (!r.clipped.empty()) notes += "<li>" + HtmlEscape(r.label + ": " + r.clipped) + "</li>";
  }
  for (const auto& k : t.skipped) notes += "<li>" + HtmlEscape("not moved: " + k.label + " (" + k.input + "): " + k.why) + "</li>";
  if (!notes.empty()) body += "<ul class=\"note\">" + notes + "</ul>";
  return body + "</section>";
}

// The post-training economics essay's claims against this scenario: one row

}  // namespace rlcost::report::html
