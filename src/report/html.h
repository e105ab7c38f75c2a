// report/html: one self-contained HTML file (inline SVG charts, inline CSS and
// JS, no network) for a scenario: the lever waterfall, the step-time breakdown,
// GPU time by phase, cost per useful sample against pass rate, the timeline of
// one step, and tables of inputs and outputs. Presentation only.
//
//   report::HtmlInput in;  in.scenario = &s;  in.estimate = &est;  in.waterfall = &*wf;
//   std::string html = report::RenderHtml(in);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "decide/claims.h"
#include "decide/levers.h"
#include "decide/sensitivity.h"
#include "forecast/plot.h"
#include "rlcost/estimate.h"

namespace rlcost::report {

// The scenario on another number of GPUs: its run's dollars and wall time,
// or why it does not run there.
struct GpuCountPoint {
  int gpus = 0;
  std::optional<double> usd, wall_time_h, usd_per_useful_sample;
  std::string error;
};

struct HtmlInput {
  const Scenario* scenario = nullptr;
  const Estimate* estimate = nullptr;            // analytic, required
  const Estimate* simulated = nullptr;           // --simulate, optional
  std::string simulate_error;                    // why there is no simulation when one was asked for
  const levers::Waterfall* waterfall = nullptr;  // optional
  std::string waterfall_error;
  std::vector<levers::PassRateCurve> curves;     // cost per useful sample vs pass rate
  std::vector<GpuCountPoint> gpu_counts;        // cost vs GPU count; empty = not drawn
  const sensitivity::Tornado* tornado = nullptr;  // which input the figure hangs on; optional
  std::string tornado_error;                      // why there is no tornado
  const claims::Report* claims = nullptr;        // the essay's claims checked; optional
  std::string claims_error;                      // why there are none
  // The run's own learning curve (`rlcost report --progress LOG`): its points,
  // the fitted curve and its band (forecast/plot.h); optional.
  const forecast::Plot* forecast = nullptr;
  std::string forecast_error;                    // why there is none when a log was given
};

std::string RenderHtml(const HtmlInput& in);

// Escapes & < > " ' for HTML text and attributes.
std::string HtmlEscape(std::string_view s);

}  // namespace rlcost::report
