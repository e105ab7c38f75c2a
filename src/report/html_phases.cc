// The HTML report's sections 2-4: where a step's time goes, GPU time by phase and
// dollars by phase, as stacked bars (the user's run, its simulation, the waterfall's stages).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

// Bars of seconds ("s"), of dollars ("USD") or of shares (share = true).
std::string StackedBars(const std::string& id, const std::string& title, const std::vector<Named>& rows,
                        const std::vector<Part>& parts, const char* unit_label, bool share, const char* unit) {
  const bool usd = std::string_view(unit) == "USD";
  auto Amount = [&](double v) { return usd ? Usd(v) : Sec(v); };
  const int W = 1200, L = 250, T = 56, row_h = 30;
  const int H = T + row_h * static_cast<int>(rows.size()) + 40;
  std::string s = SvgOpen(id, W, H, title);
  s += Text(10, 20, title, "start", "title");
  std::vector<Legend> lg;
  for (const auto& p : parts) lg.push_back({p.name, p.color});
  s += LegendSvg(10, 42, lg);
  double hi = 0;
  size_t label_chars = 0;  // the widest total written after its bar
  for (const auto& r : rows) {
    double tot = 0, drawn = 0;
    for (const auto& p : parts) tot += Get(*r.e, p.key), drawn += std::max(0.0, Get(*r.e, p.key));
    hi = std::max(hi, tot);
    if (!share) label_chars = std::max(label_chars, Amount(drawn).size());
  }
  // Room on the right for that total beside the longest bar (12 px text:
  // under 7 px a glyph), so that the chart never clips it.
  const int R = std::max(30, 6 + 7 * static_cast<int>(label_chars) + 4);
  if (share) hi = 1;
  auto ticks = LinTicks(hi);
  double xmax = share ? 1 : ticks.back();
  auto X = [&](double v) { return L + (W - L - R) * v / (xmax > 0 ? xmax : 1); };
  for (double t : ticks) {
    s += Line(X(t), T, X(t), H - 30, "grid");
    s += Text(X(t), H - 14, share ? fmt::format("{:.0f}%", t * 100) : FormatValue(t, unit), "middle");
  }
  s += Text(W - R, H - 2, unit_label, "end");
  for (size_t i = 0; i < rows.size(); ++i) {
    double y = T + row_h * i + 4;
    s += Text(L - 8, y + 16, rows[i].name, "end");
    double tot = 0;
    for (const auto& p : parts) tot += std::max(0.0, Get(*rows[i].e, p.key));
    double x = 0;
    s += BarOpen(X(0), share ? (tot > 0 ? 1.0 : 0.0) : tot, X(1) - X(0));
    for (const auto& p : parts) {
      double v = Get(*rows[i].e, p.key);
      if (v <= 0) continue;
      double len = share ? v / tot : v;
      std::string tip = share ? fmt::format("{} — {}: {} of GPU time per step ({:.1f}%)", rows[i].name, p.name, Sec(v), 100 * v / tot)
                              : fmt::format("{} — {}: {} ({:.1f}% of the {})", rows[i].name, p.name, Amount(v), 100 * v / tot, usd ? "run" : "step");
      s += Segment(X(x), X(x + len), y, row_h - 8, p.color, len, tip, p.key);
      x += len;
    }
    s += "</g>";
    if (!share) s += Text(X(x) + 6, y + 16, Amount(tot));
  }
  return s + "</svg>";
}

std::string PhaseSections(const HtmlInput& in) {
  const Estimate& e = *in.estimate;
  std::string body;
  // Step time and GPU time.
  std::vector<Named> rows = {{"this scenario", &e}};
  if (in.simulated) rows.push_back({"this scenario (simulated)", in.simulated});
  if (in.waterfall) {
    if (in.waterfall->baseline.ok) rows.push_back({"baseline", &in.waterfall->baseline.estimate});
    for (const auto& st : in.waterfall->stages) {
      if (st.ok) rows.push_back({st.title, &st.estimate});
    }
  }
  body += "<section><h2>2. Where a step's time goes</h2>";
  body += StackedBars("chart-steptime", "Step time by phase (wall seconds on the critical path)", rows, StepParts(), "seconds per step", false);
  body += "</section>";
  static const std::vector<Part> gpu_parts = {{"gpu_time.rollout_s", "rollout", kColRollout},
                                              {"gpu_time.train_s", "train", kColTrain},
                                              {"gpu_time.other_s", "log-prob, reference, sync, reward", kColLogprob},
                                              {"gpu_time.idle_s", "idle", kColIdle}};
  body += "<section><h2>3. GPU time by phase</h2>";
  body += StackedBars("chart-gputime", "Share of GPU-seconds per step by what the GPUs do (all GPUs of the run)", rows, gpu_parts, "share of GPU time", true);
  body += "</section>";
  const std::vector<Part>& usd_parts = UsdParts();
  body += "<section><h2>4. Dollars by phase</h2>";
  body += "<p class=\"sub\">The run's bill split by what it pays for: the steps' GPU dollars in proportion to their GPU-seconds, "
          "sandbox CPUs, and the GPUs held through start-up, checkpoints, evaluation and restarts.</p>";
  body += StackedBars("chart-usdphase", "Dollars for the whole run by phase", rows, usd_parts, "dollars for the run", false, "USD");
  body += "</section>";
  return body;
}

}  // namespace rlcost::report::html
