// The HTML report's section 1: the levers, one at a time (the waterfall charts,
// its table, the 2-GRPO claim, the rules and the quality discounts).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

namespace rlcost::report::html {

using levers::Config;

namespace {

std::string WaterfallChart(const levers::Waterfall& wf, int metric, const std::string& id, const std::string& title_note = "") {
  const auto& h = levers::Headlines()[metric];
  std::vector<const Config*> cs = {&wf.baseline};
  for (const auto& st : wf.stages) cs.push_back(&st);
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (auto* c : cs) {
    if (c->ok && c->values[metric] && *c->values[metric] > 0) {
      lo = std::min(lo, *c->values[metric]);
      hi = std::max(hi, *c->values[metric]);
    }
  }
  // Under each bar its caption: the stage's name, then its factors, each
  // wrapped to the bar's slot so that neighbouring captions never meet.
  // The title wrapped to the chart's width (13 px semibold: under 8 px a
  // glyph), never run past the right edge, where the SVG would clip it.
  const std::vector<std::string> title = Wrap(
      fmt::format("{} by stage (log scale); each bar falls from the previous stage's value{}", h.label, title_note),
      static_cast<size_t>((1200 - 80 - 20) / 8.0));
  const int W = 1200, L = 80, R = 20, T = 40 + 15 * (static_cast<int>(title.size()) - 1);
  const double slot = double(W - L - R) / cs.size();
  const size_t chars = CharsIn(slot * 0.92);
  std::vector<std::vector<std::string>> captions;
  size_t lines = 1;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Config* c = cs[i];
    std::vector<std::string> cap = Wrap(i == 0 ? "baseline" : c->title, chars);
    if (!c->ok || !c->values[metric]) {
      cap.push_back("(skipped)");
    } else if (i > 0) {
      // "this stage": the factor of this lever over the bar before it; "in
      // all": over the baseline (a waterfall's stage, not a training step).
      for (auto& l : Wrap(FormatFactor(c->factor_prev[metric]) + " this stage, " + FormatFactor(c->factor_base[metric]) + " in all", chars)) {
        cap.push_back(std::move(l));
      }
    }
    lines = std::max(lines, cap.size());
    captions.push_back(std::move(cap));
  }
  const int B = 26 + 15 * static_cast<int>(lines), H = T + 310 + B;
  std::string s = SvgOpen(id, W, H, "waterfall of " + std::string(h.label));
  s += TextLines(L, 22, title, "start", "title");
  if (!(hi > 0)) {
    s += Text(W / 2.0, H / 2.0, "no stage produced this figure", "middle");
    return s + "</svg>";
  }
  double ylo = std::pow(10.0, std::floor(std::log10(lo))), yhi = std::pow(10.0, std::ceil(std::log10(hi * 1.2)));
  auto Y = [&](double v) { return T + (H - T - B) * (1 - (std::log10(v) - std::log10(ylo)) / (std::log10(yhi) - std::log10(ylo))); };
  for (double t : LogTicks(ylo, yhi)) {
    s += Line(L, Y(t), W - R, Y(t), "grid");
    s += Text(L - 6, Y(t) + 4, Usd(t), "end");
  }
  s += Line(L, T, L, H - B, "axis");
  s += Line(L, H - B, W - R, H - B, "axis");
  double prev = 0;
  for (size_t i = 0; i < cs.size(); ++i) {
    const Config* c = cs[i];
    double x = L + slot * i + slot * 0.18, w = slot * 0.64;
    std::string name = i == 0 ? "baseline" : c->title;
    s += TextLines(x + w / 2, H - B + 18, captions[i], "middle", "caption");
    if (!c->ok || !c->values[metric]) {
      s += Text(x + w / 2, H - B - 10, "did not run", "middle");
      s += Rect(x, H - B - 4, w, 4, kColIdle, name + ": " + ConfigError(*c));
      continue;
    }
    double v = *c->values[metric];
    double top, bottom;
    const char* fill;
    if (i == 0) {
      top = Y(v); bottom = H - B; fill = "#5a6475";
    } else {
      top = Y(std::max(prev, v)); bottom = Y(std::min(prev, v)); fill = v <= prev ? "#2a9d8f" : "#d64545";
      if (bottom - top < 2) bottom = top + 2;
    }
    std::string tip = fmt::format("{}: {} {}", name, h.label, Usd(v));
    if (i > 0) {
      tip += fmt::format("; {} vs previous, {} vs baseline; {}", FormatFactor(c->factor_prev[metric]),
                         FormatFactor(c->factor_base[metric]), c->detail);
      s += Line(x - slot * 0.36, Y(prev), x, Y(prev), "grid");
    }
    s += Rect(x, top, w, bottom - top, fill, tip);
    s += Text(x + w / 2, top - 6, Usd(v), "middle");
    prev = v;
  }
  return s + "</svg>";
}

std::string WaterfallTable(const levers::Waterfall& wf) {
  std::string h = "<table><tr><th>stage</th>";
  for (const auto& m : levers::Headlines()) h += fmt::format("<th>{}</th>", HtmlEscape(m.label));
  h += "<th style=\"text-align:left\">what changed</th></tr>";
  auto row = [&](const Config& c, bool factors) {
    h += fmt::format("<tr><td>{}</td>", HtmlEscape(c.title));
    if (!c.ok) {
      h += fmt::format("<td class=\"err\" colspan=\"{}\">{}</td></tr>", levers::Headlines().size() + 1, HtmlEscape(ConfigError(c)));
      return;
    }
    for (size_t i = 0; i < levers::Headlines().size(); ++i) {
      std::string cell = c.values[i] ? FormatValue(*c.values[i], levers::Headlines()[i].unit) : "-";
      if (factors && c.factor_base[i]) cell += " <small>(" + FormatFactor(c.factor_prev[i]) + " / " + FormatFactor(c.factor_base[i]) + ")</small>";
      h += "<td>" + (factors ? cell : HtmlEscape(cell)) + "</td>";
    }
    std::string what = c.detail;
    if (!c.discounts.empty()) what += (what.empty() ? "" : "; ") + WorthLine(c);
    h += fmt::format("<td style=\"text-align:left\">{}</td></tr>", HtmlEscape(what));
  };
  row(wf.baseline, false);
  for (const auto& st : wf.stages) row(st, true);
  h += "<tr><th colspan=\"8\" style=\"text-align:left\">reference (factor vs the baseline)</th></tr>";
  row(wf.reference, true);
  h += "<tr><th colspan=\"8\" style=\"text-align:left\">each lever alone against the baseline (factor vs baseline)</th></tr>";
  for (const auto& so : wf.solo) row(so, true);
  h += "<tr><td><b>product of solo factors</b></td>";
  for (size_t i = 0; i < levers::Headlines().size(); ++i) h += "<td>" + FormatFactor(wf.solo_product[i]) + "</td>";
  h += "<td style=\"text-align:left\">beside the combined factor (last stage): the gap is the levers' interaction</td></tr>";
  return h + "</table><p class=\"note\">In brackets: factor against the previous stage / against the baseline; above 1 is cheaper.</p>";
}

}  // namespace

std::string WaterfallSection(const HtmlInput& in) {
  const Estimate& e = *in.estimate;
  std::string body;
  // Waterfall.
  body += "<section><h2>1. The levers, one at a time (waterfall)</h2>";
  if (in.waterfall) {
    const auto& wf = *in.waterfall;
    body += wf.options.baseline == levers::Baseline::kRun
                ? "<p class=\"sub\">From your run as given (the figures of the summary above) the levers are applied cumulatively; "
                  "green bars are savings, red bars are costs. The essay's naive baseline (H100, synchronous, colocated, bf16, G = 16) is the reference row of the table.</p>"
                : "<p class=\"sub\">From a naive baseline (this model, or for an MoE a dense one of matching quality, on H100 with synchronous, colocated veRL-style RL) the levers are applied cumulatively; "
                  "green bars are savings, red bars are costs.</p>";
    body += "<div class=\"verdict\">" + HtmlEscape(wf.verdict_summary) + "</div>";
    body += WaterfallChart(wf, levers::kUsdPerUsefulSample, "chart-waterfall");
    // The verdict's two metrics (like for like); $ per step is in the table,
    // and charted only when the scenario sets no reachable goal.
    if (wf.baseline.ok && wf.baseline.values[levers::kUsdToGoal]) {
      body += WaterfallChart(wf, levers::kUsdToGoal, "chart-waterfall-goal",
                             IllustrativeGoal(e) ? " (ILLUSTRATIVE learning curve: default parameters, not measured)" : "");
    } else {
      body += WaterfallChart(wf, levers::kUsdPerStep, "chart-waterfall-step");
    }
    body += WaterfallTable(wf);
    body += fmt::format("<div class=\"claim\">2-GRPO: a group of {} is informative with E[2p(1−p)] = {:.4f}, a group of {} with "
                        "E[1 − p^{} − (1−p)^{}] = {:.4f} over this pass-rate distribution. <b>Claim, not model:</b> {}. "
                        "'$ per run' at the 2-GRPO stage is the cost at that claimed quality; '$ to goal' uses rlcost's own "
                        "(illustrative) learning curve in useful samples.</div>",
                        wf.grpo2.group_small, wf.grpo2.p_informative_small, wf.grpo2.group_large, wf.grpo2.group_large,
                        wf.grpo2.group_large, wf.grpo2.p_informative_large, HtmlEscape(wf.grpo2.claim_source));
    body += "<p class=\"note\"><b>Rules:</b></p><ul class=\"note\">";
    for (const auto& r : wf.rules) body += "<li>" + HtmlEscape(r) + "</li>";
    body += "</ul>";
    // Each quality discount once, with where its value comes from.
    std::vector<const levers::Discount*> seen;
    for (const auto* list : {&wf.stages, &wf.solo}) {
      for (const auto& c : *list) {
        for (const auto& d : c.discounts) {
          bool dup = false;
          for (const auto* x : seen) dup = dup || (x->id == d.id && x->label == d.label);
          if (!dup) seen.push_back(&d);
        }
      }
    }
    if (!seen.empty()) {
      body += "<p class=\"note\" id=\"quality-discounts\"><b>Quality discounts</b> (what a rollout is worth; they divide "
              "$ per useful sample, per reward bit and to goal):</p><ul class=\"note\">";
      for (const auto* d : seen) {
        body += fmt::format("<li>{}: {:.3g}. {}</li>", HtmlEscape(d->label), d->value, HtmlEscape(d->source));
      }
      body += "</ul>";
    }
  } else {
    body += "<p class=\"note\">Waterfall not available: " + HtmlEscape(in.waterfall_error) + "</p>";
  }
  body += "</section>";
  return body;
}

}  // namespace rlcost::report::html
