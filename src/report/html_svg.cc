// The HTML report's drawing helpers: numbers as a person reads them, SVG shapes,
// text, legends and axis ticks; the phases the stacked bars split.
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;


// Dollars and seconds as a person reads them: a figure too small to matter
// says so ("<1 ms", "<$0.000001") instead of "9.26e-14 s"; zero is 0.
std::string Usd(double v) {
  if (std::isfinite(v) && v != 0 && std::fabs(v) < 1e-6) return v > 0 ? "<$0.000001" : "-<$0.000001";
  return FormatValue(v, "USD");
}
std::string Sec(double v) {
  if (!std::isfinite(v)) return "n/a";
  const double a = std::fabs(v);
  if (a == 0) return "0 s";
  if (a < 1e-3) return v > 0 ? "<1 ms" : "-<1 ms";
  if (a < 1) return fmt::format("{:.0f} ms", v * 1000);
  return FormatValue(v, "s") + " s";
}

double Get(const Estimate& e, std::string_view key) {
  return levers::MetricValue(e, key).value_or(0);
}

std::string Rect(double x, double y, double w, double h, const std::string& fill, const std::string& tip) {
  return fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="{:.1f}" height="{:.1f}" fill="{}" data-tip="{}"/>)", x, y,
                     std::max(w, 0.0), std::max(h, 0.0), fill, HtmlEscape(tip));
}

// One segment of a stacked bar: drawn from x0 to x1 (its own size, never the
// running total), with the value it stands for in data-value so that a test
// or the page's self-check can hold the geometry to the numbers. Coordinates
// keep three decimals so that widths add up to the bar within 0.01 px.
// `key` names the figure in the JSON output (e.g. step.rollout_s) that the
// segment draws, so that a browser test can hold it to `rlcost estimate --json`.
std::string Segment(double x0, double x1, double y, double h, const std::string& fill, double value,
                    const std::string& tip, std::string_view key) {
  return fmt::format(R"(<rect class="seg" x="{:.3f}" y="{:.1f}" width="{:.3f}" height="{:.1f}" fill="{}" data-value="{:.6g}"{} data-tip="{}"/>)",
                     x0, y, std::max(x1 - x0, 0.0), std::max(h, 0.0), fill, value,
                     key.empty() ? std::string() : fmt::format(R"( data-key="{}")", key), HtmlEscape(tip));
}

// A stacked bar: a group whose segments lie side by side from x0 and add up
// to `total` drawn over `length` px (data-px-per-unit = length / total).
std::string BarOpen(double x0, double total, double px_per_unit) {
  return fmt::format(R"(<g class="bar" data-x0="{:.3f}" data-total="{:.6g}" data-px-per-unit="{:.6g}">)", x0, total, px_per_unit);
}

std::string Text(double x, double y, const std::string& s, const char* anchor, const char* cls) {
  return fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" class="{}">{}</text>)", x, y, anchor, cls,
                     HtmlEscape(s));
}

std::string Line(double x1, double y1, double x2, double y2, const char* cls) {
  return fmt::format(R"(<line x1="{:.1f}" y1="{:.1f}" x2="{:.1f}" y2="{:.1f}" class="{}"/>)", x1, y1, x2, y2, cls);
}

// Words of `s` in lines of at most `width` characters (a longer word is a line of its own).
std::vector<std::string> Wrap(const std::string& s, size_t width) {
  std::vector<std::string> lines;
  std::string cur;
  size_t i = 0;
  while (i < s.size()) {
    size_t j = s.find(' ', i);
    if (j == std::string::npos) j = s.size();
    std::string w = s.substr(i, j - i);
    i = j + 1;
    if (w.empty()) continue;
    if (!cur.empty() && cur.size() + 1 + w.size() > width) {
      lines.push_back(cur);
      cur.clear();
    }
    cur += (cur.empty() ? "" : " ") + w;
  }
  if (!cur.empty()) lines.push_back(cur);
  return lines;
}

// One caption of several lines (tspans 15 px apart), the first at y.
std::string TextLines(double x, double y, const std::vector<std::string>& lines, const char* anchor, const char* cls) {
  std::string s = fmt::format(R"(<text x="{:.1f}" y="{:.1f}" text-anchor="{}" class="{}">)", x, y, anchor, cls);
  for (size_t i = 0; i < lines.size(); ++i) {
    s += fmt::format(R"(<tspan x="{:.1f}" dy="{}">{}</tspan>)", x, i == 0 ? 0 : 15, HtmlEscape(lines[i]));
  }
  return s + "</text>";
}

// Characters of 12 px text that fit in `px` (an average glyph is under 7 px wide).
size_t CharsIn(double px) { return std::max<size_t>(6, static_cast<size_t>(px / 7.0)); }

std::string SvgOpen(const std::string& id, int w, int h, const std::string& label) {
  return fmt::format(R"(<svg class="chart" id="{}" viewBox="0 0 {} {}" role="img" aria-label="{}">)", id, w, h,
                     HtmlEscape(label));
}

std::string LegendSvg(double x, double y, const std::vector<Legend>& items) {
  std::string s;
  for (const auto& it : items) {
    s += fmt::format(R"(<rect x="{:.1f}" y="{:.1f}" width="12" height="12" fill="{}"/>)", x, y - 10, it.color);
    s += Text(x + 16, y, it.name);
    x += 24 + 7.0 * it.name.size();
  }
  return s;
}

// Log-scale ticks: 1, 2, 5 x 10^k inside [lo, hi].
std::vector<double> LogTicks(double lo, double hi) {
  std::vector<double> t;
  for (int k = static_cast<int>(std::floor(std::log10(lo))) - 1; k <= static_cast<int>(std::ceil(std::log10(hi))); ++k) {
    for (double m : {1.0, 2.0, 5.0}) {
      double v = m * std::pow(10.0, k);
      if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
    }
  }
  return t;
}

// Linear ticks with a 1/2/5 step.
std::vector<double> LinTicks(double hi, int want) {
  if (!(hi > 0)) return {0};
  double raw = hi / want;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  std::vector<double> t;
  for (double v = 0; v <= hi * 1.0001; v += step) t.push_back(v);
  if (t.back() < hi) t.push_back(t.back() + step);  // the axis ends at or past the longest bar
  return t;
}


const std::vector<Part>& StepParts() {
  static const std::vector<Part> p = {
      {"step.rollout_s", "rollout", kColRollout},       {"step.train_s", "train", kColTrain},
      {"step.logprob_s", "log-prob pass", kColLogprob}, {"step.reference_s", "reference pass", kColReference},
      {"step.weight_sync_s", "weight sync", kColSync},  {"step.reward_s", "reward", kColReward},
      {"step.overhead_s", "overhead", kColOverhead},    {"step.offload_s", "offload to host", kColOffload}};
  return p;
}

// The run's dollars by phase, as both dollar charts split them.
const std::vector<Part>& UsdParts() {
  static const std::vector<Part> p = {{"run.usd_by_phase.rollout", "rollout", kColRollout},
                                      {"run.usd_by_phase.train", "train", kColTrain},
                                      {"run.usd_by_phase.other", "log-prob, reference, sync, reward", kColLogprob},
                                      {"run.usd_by_phase.idle", "idle in steps", kColIdle},
                                      {"run.usd_by_phase.sandbox", "sandbox CPUs", kColReward},
                                      {"run.usd_by_phase.startup", "start-up", kColReference},
                                      {"run.usd_by_phase.checkpoints", "checkpoints", kColOverhead},
                                      {"run.usd_by_phase.evaluation", "evaluation", "#f2c14e"},
                                      {"run.usd_by_phase.restarts", "restarts", kColSync}};
  return p;
}

}  // namespace rlcost::report::html
