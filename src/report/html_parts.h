// What the files of the HTML report share (report/html.h is the interface):
// the phase colours, numbers as a person reads them, the SVG drawing helpers,
// and one function per section of the page, each in its own file:
//   html_run.cc          the opening (your run), the likely ranges, the whole run, inputs and outputs
//   html_waterfall.cc    1. the levers, one at a time
//   html_phases.cc       2-4. step time, GPU time and dollars by phase
//   html_scaling.cc      5-6. cost against GPU count and against pass rate
//   html_timeline.cc     7. one step on a timeline
//   html_sensitivity.cc  the tornado;  html_claims.cc  the essay's claims
//   html_forecast.cc     the run's own learning curve
//   html_svg.cc          the drawing helpers
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report/html.h"
#include "report/intervals.h"
#include "report/levers_table.h"
#include "report/price.h"
#include "report/report.h"
#include "report/sensitivity.h"

namespace rlcost::report::html {

// Phase colours, shared by every chart (one legend for all).
inline constexpr const char* kColRollout = "#2f6fd6";
inline constexpr const char* kColTrain = "#e07b00";
inline constexpr const char* kColLogprob = "#8e6bd1";
inline constexpr const char* kColReference = "#b99be8";
inline constexpr const char* kColSync = "#d64545";
inline constexpr const char* kColReward = "#2a9d8f";
inline constexpr const char* kColOverhead = "#9aa3b2";
inline constexpr const char* kColOffload = "#6b8e23";
inline constexpr const char* kColIdle = "#d7dbe2";
inline constexpr const char* kSeries[] = {"#d64545", "#e07b00", "#2a9d8f", "#2f6fd6", "#8e6bd1"};

inline constexpr const char* kIllustrativeLabel =
    "rests on rlcost's ILLUSTRATIVE learning curve (default parameters, not measured): set goal.curve to your run's "
    "own fit (rlcost forecast) or a published one";

// Dollars and seconds as a person reads them: a figure too small to matter
// says so ("<1 ms", "<$0.000001") instead of "9.26e-14 s"; zero is 0.
std::string Usd(double v);
std::string Sec(double v);
// The metric `key` of an estimate, 0 when it has none.
double Get(const Estimate& e, std::string_view key);

// SVG pieces (html_svg.cc).
std::string Rect(double x, double y, double w, double h, const std::string& fill, const std::string& tip);
std::string Segment(double x0, double x1, double y, double h, const std::string& fill, double value,
                    const std::string& tip, std::string_view key = "");
std::string BarOpen(double x0, double total, double px_per_unit);
std::string Text(double x, double y, const std::string& s, const char* anchor = "start", const char* cls = "");
std::string Line(double x1, double y1, double x2, double y2, const char* cls);
std::vector<std::string> Wrap(const std::string& s, size_t width);
std::string TextLines(double x, double y, const std::vector<std::string>& lines, const char* anchor, const char* cls);
size_t CharsIn(double px);
std::string SvgOpen(const std::string& id, int w, int h, const std::string& label);
struct Legend {
  std::string name;
  const char* color;
};
std::string LegendSvg(double x, double y, const std::vector<Legend>& items);
std::vector<double> LogTicks(double lo, double hi);
std::vector<double> LinTicks(double hi, int want = 5);

// A part of a stacked bar: a metric key, its name and colour.
struct Part {
  const char* key;
  const char* name;
  const char* color;
};
const std::vector<Part>& StepParts();
const std::vector<Part>& UsdParts();
// A bar of stacked bars: its name and the estimate it draws.
struct Named {
  std::string name;
  const Estimate* e;
};
// Bars of seconds ("s"), of dollars ("USD") or of shares (share = true).
std::string StackedBars(const std::string& id, const std::string& title, const std::vector<Named>& rows,
                        const std::vector<Part>& parts, const char* unit_label, bool share, const char* unit = "s");

// Words for the user's run (html_run.cc).
std::string LayoutWords(const Scenario& s);
std::string Figure(const Estimate& e, std::string_view key, const std::string& text);
bool IllustrativeGoal(const Estimate& e);

// The sections, in the order of the page.
std::string YourRunSection(const HtmlInput& in);
std::string LikelyRanges(const HtmlInput& in);
std::string ForecastSection(const HtmlInput& in);
std::string WaterfallSection(const HtmlInput& in);
std::string PhaseSections(const HtmlInput& in);
std::string ScalingSections(const HtmlInput& in);
std::string TimelineSection(const HtmlInput& in);
std::string WholeRunSection(const HtmlInput& in);
std::string SensitivitySection(const HtmlInput& in);
std::string ClaimsSection(const HtmlInput& in);
std::string TablesSection(const HtmlInput& in);

}  // namespace rlcost::report::html
