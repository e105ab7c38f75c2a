// The self-contained HTML report. Charts are inline SVG drawn here; the only
// script is a hover tooltip and a self-check that every chart has marks.
#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/intervals.h"
#include "report/price.h"
#include "report/sensitivity.h"
#include "report/levers_table.h"
#include "report/report.h"

namespace rlcost::report {

std::string HtmlEscape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

namespace {

using levers::Config;

constexpr const char* kCss = R"CSS(
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;background:#f6f7f9;color:#1d2430}
main{max-width:1280px;margin:0 auto;padding:20px 28px 60px}
h1{font-size:26px;margin:10px 0 4px} h2{font-size:19px;margin:0 0 4px}
.sub{color:#5a6475;margin:0 0 14px;font-size:14px}
section{background:#fff;border:1px solid #dde2ea;border-radius:8px;padding:16px 20px;margin:16px 0}
.note{color:#5a6475;font-size:13px;margin:6px 0}
.claim{background:#fff6e0;border-left:4px solid #e0a100;padding:6px 10px;font-size:13px;margin:8px 0}
.verdict{font-size:16px;font-weight:600;background:#eef5ff;border-left:4px solid #2f6fd6;padding:8px 12px;margin:10px 0}
table{border-collapse:collapse;font-size:13px;margin-top:8px}
th,td{border-bottom:1px solid #e6e9ef;padding:4px 10px;text-align:right}
th:first-child,td:first-child{text-align:left}
th{background:#f0f2f6;font-weight:600}
td.err{color:#b3261e;text-align:left}
svg.chart{width:100%;height:auto;display:block}
svg text{font-size:12px;fill:#1d2430}
svg .axis{stroke:#8a93a3;stroke-width:1} svg .grid{stroke:#e6e9ef;stroke-width:1}
svg .title{font-size:13px;font-weight:600}
svg [data-tip]:hover{opacity:.8}
#tip{position:fixed;pointer-events:none;background:#1d2430;color:#fff;font-size:12px;padding:5px 8px;border-radius:4px;display:none;max-width:420px;z-index:10}
#inputs table,#outputs table{width:100%}
.illustrative{color:#8a5a00;font-weight:600}
#selfcheck{font-size:12px;color:#5a6475}
)CSS";

// Tooltips and a self-check: every svg.chart must hold at least one mark
// (an element with data-tip); the result is written into #selfcheck.
constexpr const char* kJs = R"JS(
(function(){
  var tip=document.getElementById('tip');
  document.addEventListener('mousemove',function(ev){
    var t=ev.target.closest?ev.target.closest('[data-tip]'):null;
    if(!t){tip.style.display='none';return;}
    tip.textContent=t.getAttribute('data-tip');
    tip.style.display='block';
    tip.style.left=(ev.clientX+14)+'px'; tip.style.top=(ev.clientY+12)+'px';
  });
  var charts=document.querySelectorAll('svg.chart');
  var bad=[];
  charts.forEach(function(c){
    var marks=c.querySelectorAll('[data-tip]').length;
    var box=c.getBBox?c.getBBox():{width:1,height:1};
    c.setAttribute('data-marks',marks);
    if(marks===0||box.width<=0||box.height<=0) bad.push(c.id||'?');
  });
  // Stacked bars as drawn: each segment starts where the previous one ended,
  // is as wide as its own value, and the segments add up to the bar's total.
  var bars=document.querySelectorAll('svg.chart g.bar'), segs=0;
  bars.forEach(function(g){
    var ppu=+g.getAttribute('data-px-per-unit'), x=+g.getAttribute('data-x0'), ok=true;
    g.querySelectorAll('rect.seg').forEach(function(r){
      var b=r.getBBox(), want=+r.getAttribute('data-value')*ppu;
      if(Math.abs(b.x-x)>0.5||Math.abs(b.width-want)>0.5) ok=false;
      x=b.x+b.width; segs++;
    });
    if(Math.abs(x-(+g.getAttribute('data-x0'))-(+g.getAttribute('data-total'))*ppu)>0.5) ok=false;
    if(!ok){var c=g.closest('svg');bad.push('bar geometry in '+(c&&c.id||'?'));}
  });
  var out=document.getElementById('selfcheck');
  if(charts.length>0&&bad.length===0){
    out.setAttribute('data-status','ok');
    out.textContent='SELF-CHECK OK: '+charts.length+' charts rendered; '+segs+' bar segments drawn to their own size';
    out.setAttribute('data-bar-segments',segs);
  }else{
    out.setAttribute('data-status','fail');
    out.textContent='SELF-CHECK FAILED: '+charts.length+' charts; empty: '+bad.join(',');
    console.error('self-check failed: '+bad.join(','));
  }
})();
)JS";

// Phase colours, shared by every chart (one legend for all).
constexpr const char* kColRollout = "#2f6fd6";
constexpr const char* kColTrain = "#e07b00";
constexpr const char* kColLogprob = "#8e6bd1";
constexpr const char* kColReference = "#b99be8";
constexpr const char* kColSync = "#d64545";
constexpr const char* kColReward = "#2a9d8f";
constexpr const char* kColOverhead = "#9aa3b2";
constexpr const char* kColOffload = "#6b8e23";
constexpr const char* kColIdle = "#d7dbe2";
constexpr const char* kSeries[] = {"#d64545", "#e07b00", "#2a9d8f", "#2f6fd6", "#8e6bd1"};

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
                    const std::string& tip, std::string_view key = "") {
  return fmt::format(R"(<rect class="seg" x="{:.3f}" y="{:.1f}" width="{:.3f}" height="{:.1f}" fill="{}" data-value="{:.6g}"{} data-tip="{}"/>)",
                     x0, y, std::max(x1 - x0, 0.0), std::max(h, 0.0), fill, value,
                     key.empty() ? std::string() : fmt::format(R"( data-key="{}")", key), HtmlEscape(tip));
}

// A stacked bar: a group whose segments lie side by side from x0 and add up
// to `total` drawn over `length` px (data-px-per-unit = length / total).
std::string BarOpen(double x0, double total, double px_per_unit) {
  return fmt::format(R"(<g class="bar" data-x0="{:.3f}" data-total="{:.6g}" data-px-per-unit="{:.6g}">)", x0, total, px_per_unit);
}

std::string Text(double x, double y, const std::string& s, const char* anchor = "start", const char* cls = "") {
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

struct Legend {
  std::string name;
  const char* color;
};
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
std::vector<double> LinTicks(double hi, int want = 5) {
  if (!(hi > 0)) return {0};
  double raw = hi / want;
  double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = raw / mag < 1.5 ? mag : raw / mag < 3.5 ? 2 * mag : raw / mag < 7.5 ? 5 * mag : 10 * mag;
  std::vector<double> t;
  for (double v = 0; v <= hi * 1.0001; v += step) t.push_back(v);
  if (t.back() < hi) t.push_back(t.back() + step);  // the axis ends at or past the longest bar
  return t;
}

// --- Waterfall chart ------------------------------------------------------------

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

// --- Step-time breakdown --------------------------------------------------------

struct Part {
  const char* key;
  const char* name;
  const char* color;
};
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

struct Named {
  std::string name;
  const Estimate* e;
};

// Bars of seconds ("s"), of dollars ("USD") or of shares (share = true).
std::string StackedBars(const std::string& id, const std::string& title, const std::vector<Named>& rows,
                        const std::vector<Part>& parts, const char* unit_label, bool share, const char* unit = "s") {
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

// --- Cost vs pass rate ------------------------------------------------------------

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

// --- Cost against GPU count ---------------------------------------------------------

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
      s += Rect(x, H - B - 4, w, 4, kColIdle, fmt::format("{} GPUs: {}", p.gpus, p.error));
      s += Text(x + w / 2, H - B - 10, "does not run", "middle");
      continue;
    }
    std::string tip = fmt::format("{} GPUs: {} for the run, {} wall time, {} per useful sample", p.gpus, Usd(*p.usd),
                                  FormatValue(p.wall_time_h.value_or(0), "h") + " h", Usd(p.usd_per_useful_sample.value_or(0)));
    s += Rect(x, Y(*p.usd), w, H - B - Y(*p.usd), p.gpus == current ? kColRollout : "#8fb3ea", tip);
    s += Text(x + w / 2, Y(*p.usd) - 6, Usd(*p.usd), "middle");
    if (p.wall_time_h) s += Text(x + w / 2, H - B + 34, FormatValue(*p.wall_time_h, "h") + " h", "middle");
  }
  return s + "</svg>";
}

// --- Timeline of one step ------------------------------------------------------------

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
    lane(0, fmt::format("all {} GPUs", sc.hardware.gpus),
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

// --- Tables ---------------------------------------------------------------------------

std::string InputsTable(const Scenario& s) {
  std::vector<std::pair<std::string, std::string>> rows = {
      {"model", fmt::format("{} ({:g}B params, {:g}B active{})", s.model_id, s.model.params_b, s.model.active_params_b, s.model.is_moe() ? ", MoE" : "")},
      {"hardware", fmt::format("{} x {}", s.hardware.gpus, s.hardware.gpu.id)},
      {"GPU price", PriceSource(s)},
      {"placement", s.placement.mode == PlacementMode::kDisaggregated
                        ? fmt::format("disaggregated: {} rollout + {} train GPUs, rollout TP {}", s.placement.rollout_gpus, s.placement.train_gpus, s.placement.rollout_tp)
                        : fmt::format("colocated, rollout TP {}", s.placement.rollout_tp)},
      {"pipeline", fmt::format("{}{}", ToString(s.pipeline.mode), s.pipeline.mode == PipelineMode::kAsync ? fmt::format(", staleness {:g}, partial rollouts {}", s.pipeline.max_staleness, s.pipeline.partial_rollouts ? "on" : "off") : "")},
      {"precision", fmt::format("rollout {}, KV {}, train {}", ToString(s.precision.rollout), ToString(s.precision.kv_cache), ToString(s.precision.train))},
      {"environment", fmt::format("{}: {:.3g} turn{}, prompt {:.0f} tok, response {:.0f} tok/turn, tool output {:.0f} tok/turn, tool latency {:.3g} s", s.environment.name,
                                  s.environment.turns.mean(), s.environment.turns.mean() == 1 ? "" : "s", s.environment.prompt_tokens.mean(), s.environment.response_tokens.mean(),
                                  s.environment.tool_output_tokens.mean(), s.environment.tool_latency_s.mean())},
      {"pass rate", fmt::format("mean {:.3f}", s.environment.pass_rate.mean())},
      {"algorithm", fmt::format("{}, G = {}, {} prompts/step, {} steps{}{}", ToString(s.algorithm.name), s.algorithm.group_size, s.algorithm.prompts_per_step, s.algorithm.steps,
                                s.algorithm.dynamic_sampling ? ", dynamic sampling" : "",
                                s.algorithm.lora ? fmt::format(", LoRA rank {} x {} tenants", s.algorithm.lora->rank, s.algorithm.lora->tenants) : ", full fine-tuning")},
      {"goal", s.goal.target_pass_rate ? fmt::format("target pass rate {:.2f}", *s.goal.target_pass_rate) : "none"},
  };
  std::string h = "<table><tr><th>input</th><th style=\"text-align:left\">value</th></tr>";
  for (auto& [k, v] : rows) h += fmt::format("<tr><td>{}</td><td style=\"text-align:left\">{}</td></tr>", HtmlEscape(k), HtmlEscape(v));
  return h + "</table>";
}

std::string OutputsTable(const Estimate& a, const Estimate* sim) {
  std::string h = "<table><tr><th>metric</th><th>analytic</th>";
  if (sim) h += "<th>simulated</th>";
  h += "<th>unit</th><th style=\"text-align:left\">meaning</th></tr>";
  for (const auto& m : Metrics()) {
    auto v = m.get(a);
    std::optional<double> w = sim ? m.get(*sim) : std::nullopt;
    if (!v && !w) continue;
    h += fmt::format("<tr><td>{}</td><td>{}</td>", HtmlEscape(m.key), v ? HtmlEscape(FormatValue(*v, m.unit)) : "-");
    if (sim) h += fmt::format("<td>{}</td>", w ? HtmlEscape(FormatValue(*w, m.unit)) : "-");
    std::string meaning(m.description);
    if (std::string_view(m.key).substr(0, 5) == "goal." && a.goal.requested && a.goal.curve_is_illustrative) {
      meaning += " (rests on rlcost's ILLUSTRATIVE learning curve)";
    }
    // A dollar figure already reads "$7.12": its unit column stays empty
    // rather than say "USD" after it.
    h += fmt::format("<td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                     std::string_view(m.unit) == "USD" ? "" : HtmlEscape(m.unit), HtmlEscape(meaning));
  }
  return h + "</table>";
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

// --- Sensitivity (tornado) ------------------------------------------------------------

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
// per claim (decide/claims), the verdict coloured.
std::string ClaimsSection(const HtmlInput& in) {
  if (!in.claims && in.claims_error.empty()) return "";
  std::string h = "<section id=\"claims\"><h2>10. The essay's claims, checked on this scenario</h2>";
  if (!in.claims) return h + "<p class=\"note\">Not available: " + HtmlEscape(in.claims_error) + "</p></section>";
  h += "<p class=\"sub\">" + HtmlEscape(in.claims->source) +
       ". <b>holds</b>: rlcost's figure for this scenario is inside the essay's; <b>exceeds</b>: better than the essay "
       "claims (a bigger saving, speed-up or effect); <b>falls short</b>: worse than it claims; <b>depends</b>: on "
       "what the last column says.</p>";
  h += "<table class=\"claims\"><tr><th>the essay's claim</th><th>essay</th><th>rlcost</th><th>verdict</th>"
       "<th style=\"text-align:left\">why</th></tr>";
  for (const auto& c : in.claims->claims) {
    const char* colour = c.verdict == "holds"         ? "#1b7a3a"
                         : c.verdict == "exceeds"     ? "#2f6fd6"
                         : c.verdict == "falls short" ? "#b3261e"
                                                      : "#8a5a00";
    h += fmt::format("<tr data-claim=\"{}\" data-verdict=\"{}\"><td>{}</td><td>{}</td><td>{}</td>"
                     "<td style=\"color:{};font-weight:600\">{}</td><td style=\"text-align:left\">{}</td></tr>",
                     HtmlEscape(c.id), HtmlEscape(c.verdict), HtmlEscape(c.claim), HtmlEscape(c.claimed),
                     HtmlEscape(c.rlcost), colour, HtmlEscape(c.verdict), HtmlEscape(c.why));
  }
  return h + "</table></section>";
}

// The layout in words, as the scenario states it (InputsTable's wording).
std::string LayoutWords(const Scenario& s) {
  return s.placement.mode == PlacementMode::kDisaggregated
             ? fmt::format("disaggregated: {} rollout + {} train GPUs, rollout TP {}", s.placement.rollout_gpus,
                           s.placement.train_gpus, s.placement.rollout_tp)
             : fmt::format("colocated on {} GPUs, rollout TP {}", s.hardware.gpus, s.placement.rollout_tp);
}

// A figure of the user's run with its JSON key and its value, so a browser
// test can hold the text to `rlcost estimate --json`.
std::string Figure(const Estimate& e, std::string_view key, const std::string& text) {
  return fmt::format(R"(<b data-key="{}" data-value="{:.9g}">{}</b>)", key, Get(e, key), HtmlEscape(text));
}

// True when the goal's figures rest on rlcost's default learning curve.
bool IllustrativeGoal(const Estimate& e) { return e.goal.requested && e.goal.curve_is_illustrative; }

constexpr const char* kIllustrativeLabel =
    "rests on rlcost's ILLUSTRATIVE learning curve (default parameters, not measured): set goal.curve to your run's "
    "own fit (rlcost forecast) or a published one";

// The report's opening: the user's run as planned — the answer, where its time
// and dollars go, and the layout chosen with why (plan.* of the JSON).
std::string YourRunSection(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  const Estimate& e = *in.estimate;
  std::string h = "<section id=\"your-run\"><h2>Your run</h2>";
  h += "<div class=\"verdict\" id=\"answer\">" + Figure(e, "run.usd", Usd(Get(e, "run.usd"))) +
       fmt::format(" for the run: {} steps of ", sc.algorithm.steps) + Figure(e, "step.time_s", Sec(Get(e, "step.time_s"))) +
       " at " + Figure(e, "cost.usd_per_step", Usd(Get(e, "cost.usd_per_step"))) + " each on " +
       HtmlEscape(fmt::format("{} x {}", sc.hardware.gpus, sc.hardware.gpu.name.empty() ? sc.hardware.gpu.id : sc.hardware.gpu.name)) +
       "; " + Figure(e, "run.wall_time_h", FormatValue(Get(e, "run.wall_time_h"), "h") + " h") + " wall time, " +
       Figure(e, "cost.gpu_hours", FormatValue(Get(e, "cost.gpu_hours"), "GPU-h") + " GPU-hours") + ", " +
       Figure(e, "cost.usd_per_useful_sample", Usd(Get(e, "cost.usd_per_useful_sample"))) + " per useful sample.</div>";
  if (e.goal.requested) {
    if (e.goal.reachable) {
      h += "<p id=\"goal-answer\">To reach a pass rate of " + HtmlEscape(fmt::format("{:.2f}", e.goal.target_pass_rate)) + ": " +
           Figure(e, "goal.usd", Usd(e.goal.usd)) + " over " + Figure(e, "goal.steps", fmt::format("{:.0f}", e.goal.steps)) + " steps";
    } else {
      h += "<p id=\"goal-answer\">The target pass rate " + HtmlEscape(fmt::format("{:.2f}", e.goal.target_pass_rate)) +
           " is not reached: " + HtmlEscape(e.goal.reason);
    }
    if (IllustrativeGoal(e)) h += std::string(" — <span class=\"illustrative\">") + kIllustrativeLabel + ".</span>";
    h += "</p>";
  }
  if (e.energy.known) {
    h += "<p class=\"note\" id=\"energy-answer\">Energy at the GPU boards: " +
         Figure(e, "energy.kwh", FormatValue(e.energy.kwh, "kWh") + " kWh") + ", " +
         Figure(e, "energy.co2e_kg", fmt::format("{:.4g} kg", e.energy.co2e_kg)) +
         HtmlEscape(fmt::format(" CO2e on the {} grid (GPU boards only; host, network and cooling not included).", sc.energy.grid)) +
         "</p>";
  }
  // The split: this run alone (the comparisons with other stages follow below).
  const std::vector<Named> me = {{"your run", &e}};
  h += StackedBars("chart-run-step", "Where a step's time goes (wall seconds on the critical path)", me, StepParts(),
                   "seconds per step", false);
  const std::vector<Part>& usd_parts = UsdParts();
  h += StackedBars("chart-run-usd", "Where the run's dollars go (dollars for the whole run)", me, usd_parts,
                   "dollars for the run", false, "USD");
  // The layout: chosen by the planner (and why), or as the scenario states it.
  h += "<h3>The layout</h3>";
  if (e.plan) {
    const PlanSummary& p = *e.plan;
    h += "<p id=\"plan-chosen\">Chosen by rlcost's planner for the fewest " +
         std::string(p.objective == "time" ? "seconds per step" : "dollars per step") + ": <b>" + HtmlEscape(p.layout) +
         "</b> (" + HtmlEscape(fmt::format("{} layout{} tried, {} fit{} in memory", p.candidates,
                                               p.candidates == 1 ? "" : "s", p.fitting, p.fitting == 1 ? "s" : "")) + ").</p>";
    h += "<table id=\"plan-table\"><tr><th>layout</th><th>$ per step</th><th>step time</th><th style=\"text-align:left\">what</th></tr>";
    h += fmt::format("<tr data-row=\"chosen\"><td>chosen</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                     HtmlEscape(Usd(e.usd_per_step)), HtmlEscape(Sec(e.step.time_s)), HtmlEscape(p.layout));
    if (!p.runner_up.empty()) {
      h += fmt::format("<tr data-row=\"runner-up\" data-usd-per-step=\"{:.9g}\"><td>runner-up</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                       p.runner_up_usd_per_step, HtmlEscape(Usd(p.runner_up_usd_per_step)), HtmlEscape(Sec(p.runner_up_step_s)),
                       HtmlEscape(p.runner_up));
    }
    if (p.literal != p.layout) {
      h += fmt::format("<tr data-row=\"as-written\"><td>as written</td><td>{}</td><td>{}</td><td style=\"text-align:left\">{}</td></tr>",
                       p.literal_usd_per_step ? HtmlEscape(Usd(*p.literal_usd_per_step)) : "does not run",
                       p.literal_step_s ? HtmlEscape(Sec(*p.literal_step_s)) : "-",
                       HtmlEscape(p.literal + (p.literal_error.empty() ? "" : ": " + p.literal_error)));
    }
    h += "</table><ul class=\"note\" id=\"plan-why\">";
    for (const auto& w : p.why) h += "<li>" + HtmlEscape(w) + "</li>";
    h += "</ul>";
  } else {
    h += "<p id=\"plan-chosen\">As the scenario states it: <b>" + HtmlEscape(LayoutWords(sc)) +
         "</b>. Nothing was planned: the scenario states every layout field (leave placement.rollout_tp out to let "
         "rlcost choose it).</p>";
  }
  return h + "</section>";
}

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

}  // namespace

std::string RenderHtml(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  const Estimate& e = *in.estimate;
  std::string body;
  body += fmt::format("<h1>rlcost report — {}</h1>", HtmlEscape(sc.name));
  body += fmt::format("<p class=\"sub\">{} on {} x {} · {} · {} · G = {} · {} prompts/step · {} steps. "
                      "</p>",
                      HtmlEscape(sc.model_id), sc.hardware.gpus, HtmlEscape(sc.hardware.gpu.id), ToString(sc.placement.mode),
                      ToString(sc.pipeline.mode), sc.algorithm.group_size, sc.algorithm.prompts_per_step, sc.algorithm.steps);
  body += YourRunSection(in);

  {
    // Likely ranges of the headline figures (econ/interval.h), per path shown.
    const std::pair<const char*, const char*> heads[] = {{"step.time_s", "step time"}, {"run.wall_time_h", "wall time"},
                                                         {"cost.gpu_hours", "GPU-hours"}, {"run.usd", "dollars for the run"},
                                                         {"goal.usd", "dollars to the goal"}};
    for (const Estimate* x : {&e, in.simulated}) {
      if (!x) continue;
      std::string ranges;
      for (const auto& [key, label] : heads) {
        std::string t = IntervalText(*x, key);
        if (!t.empty()) ranges += fmt::format("{}<b>{}</b> {}", ranges.empty() ? "" : " · ", label, HtmlEscape(t));
      }
      body += fmt::format("<p class=\"note\" id=\"interval-{0}\">Likely range ({0} estimate): {1}. {2}</p>", x->method,
                          ranges, HtmlEscape(IntervalSource(*x)));
    }
  }

  body += ForecastSection(in);

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

  // Timeline.
  body += "<section><h2>7. One step on a timeline</h2>";
  if (in.simulated) {
    body += TimelineChart(sc, *in.simulated, true);
  } else {
    body += TimelineChart(sc, e, false);
    body += "<p class=\"note\">" +
            HtmlEscape(in.simulate_error.empty() ? "Analytic step (run `rlcost report --simulate` for the simulated step)."
                                                 : "No simulation: " + in.simulate_error + " — showing the analytic step.") +
            "</p>";
  }
  body += "</section>";

  // The run beyond its steps.
  body += "<section><h2>8. The whole run</h2><table><tr><th>part</th><th>hours</th><th>share</th>"
          "<th style=\"text-align:left\">what</th></tr>";
  {
    const RunBreakdown& r = e.run;
    const std::pair<const char*, double> parts[] = {{"steps", r.steps_h}, {"start-up", r.startup_h},
                                                    {"checkpoints", r.checkpoints_h}, {"evaluation", r.evaluation_h},
                                                    {"restarts", r.restarts_h}};
    for (const auto& [name, h] : parts) {
      const MetricDef* m = FindMetric(std::string("run.breakdown_h.") + (name == std::string("start-up") ? "startup" : name));
      body += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.1f}%</td><td style=\"text-align:left\">{}</td></tr>", name,
                          HtmlEscape(FormatValue(h, "h")), e.wall_time_h > 0 ? 100 * h / e.wall_time_h : 0.0,
                          m ? HtmlEscape(m->description) : "");
    }
    body += fmt::format("<tr><td><b>run</b></td><td><b>{}</b></td><td>100%</td><td style=\"text-align:left\">{} GPU-h, {}</td></tr>",
                        HtmlEscape(FormatValue(e.wall_time_h, "h")), HtmlEscape(FormatValue(e.gpu_hours, "GPU-h")),
                        HtmlEscape(Usd(Get(e, "run.usd"))));
  }
  body += "</table>";
  if (e.energy.known) {
    // docs/model.md, "Energy": one table of the run's electricity by phase, from the metric registry.
    body += "<h3>Energy</h3><table><tr><th>part</th><th>kWh</th><th>share</th><th style=\"text-align:left\">what</th></tr>";
    for (const char* part : {"rollout", "train", "other", "idle", "startup", "checkpoints", "evaluation", "restarts"}) {
      const MetricDef* m = FindMetric(std::string("energy.kwh_by_phase.") + part);
      const double v = m ? m->get(e).value_or(0) : 0;
      if (v <= 0) continue;
      body += fmt::format("<tr><td>{}</td><td>{}</td><td>{:.1f}%</td><td style=\"text-align:left\">{}</td></tr>", part,
                          HtmlEscape(FormatValue(v, "kWh")), e.energy.kwh > 0 ? 100 * v / e.energy.kwh : 0.0,
                          HtmlEscape(m->description));
    }
    body += fmt::format("<tr><td><b>run</b></td><td><b>{}</b></td><td>100%</td><td style=\"text-align:left\">{} CO2e "
                        "on the {} grid ({:g} g/kWh: {}); GPU boards only, at measured shares of the {:.0f} W power "
                        "limit (host, network and cooling not included)</td></tr></table>",
                        HtmlEscape(FormatValue(e.energy.kwh, "kWh")), HtmlEscape(fmt::format("{:.4g} kg", e.energy.co2e_kg)),
                        HtmlEscape(sc.energy.grid), e.energy.g_co2e_per_kwh, HtmlEscape(sc.energy.grid_source),
                        sc.hardware.gpu.tdp_w);
  }
  body += "</section>";

  body += SensitivitySection(in);
  body += ClaimsSection(in);

  // Tables.
  // One table to a section, each as wide as its section: a short inputs
  // table beside the long outputs one left a column of blank page.
  body += "<section id=\"inputs\"><h2>Inputs</h2>" + InputsTable(sc) + "</section>";
  body += "<section id=\"outputs\"><h2>Outputs</h2>" + OutputsTable(e, in.simulated) + "</section>";
  if (!e.assumptions.empty() || !e.signal.notes.empty() || !e.step.notes.empty()) {
    body += "<section><h2>Assumptions and notes</h2><ul class=\"note\">";
    for (const auto& a : e.assumptions) body += "<li>ASSUMED: " + HtmlEscape(a) + "</li>";
    for (const auto& a : e.signal.notes) body += "<li>signal: " + HtmlEscape(a) + "</li>";
    for (const auto& a : e.step.notes) body += "<li>" + HtmlEscape(a) + "</li>";
    body += "</ul></section>";
  }
  // The page's own check of its charts: for tests, not for the reader (hidden).
  body += "<p id=\"selfcheck\" hidden data-status=\"pending\">self-check pending (needs JavaScript)</p>";

  std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">";
  html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">";
  html += "<title>rlcost report — " + HtmlEscape(sc.name) + "</title><style>" + kCss + "</style></head><body><main>";
  html += body;
  html += "</main><div id=\"tip\"></div><script>" + std::string(kJs) + "</script></body></html>\n";
  return html;
}

}  // namespace rlcost::report
