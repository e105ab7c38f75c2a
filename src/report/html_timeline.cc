// The HTML report's section 7: one step on a timeline (simulated, else analytic).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/strings.h"
#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

namespace {

std::string TimelineChart(const Scenario& sc, const Estimate& e, bool simulated) {
  const StepTiming& t = e.step;
  const int W = 1200, L = 170, R = 30, T = 56, lane_h = 40;
  const bool async = sc.pipeline.mode == PipelineMode::kAsync;
  const int lanes = async ? 2 : 1;
  const int H = T + lanes * lane_h + 50;
  std::string s = SvgOpen("chart-timeline", W, H, "timeline of one step");
  s += Text(10, 20, fmt::format("One training step, {} ({}): phases in order on the critical path", simulated ? "simulated mean step" : "analytic step",
                                async ? "async: rollout and train sides overlap" : "synchronous: phases run one after another"),
            "start", "title");
  std::vector<Legend> lg;
  for (const auto& p : StepParts()) lg.push_back({p.name, p.color});
  lg.push_back({"idle", kColIdle});
  s += LegendSvg(10, 42, lg);
  double span = std::max(t.time_s, 1e-9);
  if (async) span = std::max({span, t.rollout_busy_s, t.train_busy_s});
  auto ticks = LinTicks(span);
  double xmax = ticks.back() > 0 ? ticks.back() : 1;
  auto X = [&](double v) { return L + (W - L - R) * v / xmax; };
  for (double tk : ticks) {
    s += Line(X(tk), T, X(tk), H - 36, "grid");
    s += Text(X(tk), H - 22, FormatValue(tk, "s"), "middle");
  }
  s += Text((L + W - R) / 2.0, H - 6, "seconds into the step", "middle");
  // keyed: the durations are the step's own figures (step.rollout_s ...), so
  // the segments carry their JSON keys; the async lanes draw busy times.
  auto lane = [&](int k, const std::string& name, std::vector<std::pair<const Part*, double>> seq, double end, bool keyed) {
    double y = T + k * lane_h + 4;
    s += Text(L - 8, y + 20, name, "end");
    double x = 0, total = 0;
    for (auto& [p, d] : seq) total += std::max(0.0, d);
    if (end > total + 1e-9) total = end;
    s += BarOpen(X(0), total, X(1) - X(0));
    for (auto& [p, d] : seq) {
      if (d <= 0) continue;
      s += Segment(X(x), X(x + d), y, lane_h - 10, p->color, d,
                   fmt::format("{}: {} from {} to {}", p->name, Sec(d), Sec(x), Sec(x + d)), keyed ? p->key : "");
      x += d;
    }
    if (end > x + 1e-9) s += Segment(X(x), X(end), y, lane_h - 10, kColIdle, end - x, fmt::format("{}: idle {} (waiting)", name, Sec(end - x)));
    s += "</g>";
  };
  const auto& P = StepParts();
  if (!async) {
    lane(0, "all " + GpuCount(sc.hardware.gpus),
         {{&P[0], t.rollout_s}, {&P[5], t.reward_s}, {&P[2], t.logprob_s}, {&P[3], t.reference_s}, {&P[1], t.train_s},
          {&P[4], t.weight_sync_s}, {&P[7], t.offload_s}, {&P[6], t.overhead_s}},
         t.time_s, true);
  } else {
    lane(0, fmt::format("{} rollout GPUs", sc.placement.rollout_gpus), {{&P[0], t.rollout_busy_s}, {&P[4], t.weight_sync_s}}, span, false);
    double train_part = std::max(0.0, t.train_busy_s - t.logprob_s - t.reference_s);
    lane(1, fmt::format("{} train GPUs", sc.placement.train_gpus),
         {{&P[2], t.logprob_s}, {&P[3], t.reference_s}, {&P[1], train_part}, {&P[6], t.overhead_s}}, span, false);
  }
  return s + "</svg>";
}

}  // namespace

std::string TimelineSection(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  const Estimate& e = *in.estimate;
  std::string body;
  // Timeline.
  body += "<section><h2>7. One step on a timeline</h2>";
  if (in.simulated) {
    body += TimelineChart(sc, *in.simulated, true);
  } else {
    body += TimelineChart(sc, e, false);
    body += "<p class=\"note\">" +
            HtmlEscape(in.simulate_error.empty() ? "Analytic step (a report asked for with the simulated step draws that here)."
                                                 : "No simulation: " + in.simulate_error + " — showing the analytic step.") +
            "</p>";
  }
  body += "</section>";
  return body;
}

}  // namespace rlcost::report::html
