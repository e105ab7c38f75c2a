// What a chart of a forecast draws, one definition for the HTML report and the
// web page (the page reads it from POST /v1/forecast's "plot"):
//  - points: the logged values (step, value), those fitted marked;
//  - fit: the kept curve R(C) (forecast.h) at `grid` steps from the log's first
//    step to past the forecast's upper bound;
//  - band: at each of those steps the (1 - level)/2 and (1 + level)/2
//    quantiles of the bootstrap refits' curves (Outcome::replicate_curves): the
//    spread of the curve itself, not of the noisy logged values around it.
//
//   auto plot = rlcost::forecast::BuildPlot(series, outcome);
//   nlohmann::json j = rlcost::forecast::PlotToJson(plot);
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "forecast/forecast.h"

namespace rlcost::forecast {

struct Plot {
  std::string metric;
  double target = 0;
  double level = 0.9;
  int fit_until_step = 0;
  struct Point {
    int step = 0;
    double value = 0;
    bool fitted = false;  // among the points the curve was fitted on
  };
  std::vector<Point> points;
  bool fitted = false;          // a curve was fitted: fit and band hold values
  std::string curve;            // "sigmoid" | "power_law" | ""
  std::vector<double> steps;    // the grid (log numbering)
  std::vector<double> fit;      // the kept curve at each grid step
  std::vector<double> low, high;  // the band at each grid step (empty without refits)
  bool forecast_ok = false;     // steps_to_target and its interval are known
  double steps_to_target = 0, interval_low = 0, interval_high = 0;  // interval_high may be +inf
  std::string reason;           // why there is no forecast, when there is none
};

// `grid` >= 2 points from the first logged step to the last step the chart
// shows: the last logged step, or the forecast's upper bound when finite (at
// most 5x the logged span).
Plot BuildPlot(const ProgressSeries& s, const Outcome& r, int grid = 121);

// {"metric", "target", "level", "curve", "fit_until_step", "points": [[step, value, fitted]...],
//  "steps": [...], "fit": [...], "band_low": [...], "band_high": [...],
//  "steps_to_target", "interval": [low, high|"beyond reach"]} (or "reason").
nlohmann::json PlotToJson(const Plot& p);

}  // namespace rlcost::forecast
