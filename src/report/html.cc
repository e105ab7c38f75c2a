// The self-contained HTML report. Charts are inline SVG drawn here; the only
// script is a hover tooltip and a self-check that every chart has marks.
#include "report/html.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "report/html_parts.h"

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

}  // namespace

using namespace html;

std::string RenderHtml(const HtmlInput& in) {
  const Scenario& sc = *in.scenario;
  std::string body;
  body += fmt::format("<h1>rlcost report — {}</h1>", HtmlEscape(sc.name));
  body += fmt::format("<p class=\"sub\">{} on {} x {} · {} · {} · G = {} · {} prompts/step · {} steps. "
                      "</p>",
                      HtmlEscape(sc.model_id), sc.hardware.gpus, HtmlEscape(sc.hardware.gpu.id), ToString(sc.placement.mode),
                      ToString(sc.pipeline.mode), sc.algorithm.group_size, sc.algorithm.prompts_per_step, sc.algorithm.steps);
  body += YourRunSection(in);
  body += LikelyRanges(in);
  body += ForecastSection(in);
  body += WaterfallSection(in);
  body += PhaseSections(in);
  body += ScalingSections(in);
  body += TimelineSection(in);
  body += WholeRunSection(in);
  body += SensitivitySection(in);
  body += ClaimsSection(in);
  body += TablesSection(in);
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
