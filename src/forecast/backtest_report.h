// The back-test of `rlcost forecast --backtest` over several runs, and its
// tables (docs/forecast-validation.md is this output with --markdown).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "forecast/forecast.h"

namespace rlcost::forecast {

struct BacktestRun {
  std::vector<BacktestCase> cases;
  std::vector<std::string> runs;  // file, metric, points
};

// 30%, 50% and 70% of each run fitted, three targets each (Backtest);
// `fractions` given: only those (the same cases as the full run's at each).
BacktestRun RunBacktest(const std::vector<ProgressSeries>& runs, const Options& base,
                        const std::vector<double>& fractions = {});

struct BacktestSummary {
  int cases = 0, forecast = 0, within30 = 0, covered = 0, pass = 0;  // pass: within 30% or covered
  int with_interval = 0;  // cases given an interval (a curve was fitted)
  double median_abs_error = 0;
  int curves = 0, curves_pass = 0;  // a curve passes when at least half its cases do
};
BacktestSummary Summarize(const std::vector<BacktestCase>& cases, double fraction);  // fraction < 0: all

nlohmann::json BacktestToJson(const BacktestRun& b);
std::string BacktestToMarkdown(const BacktestRun& b, bool markdown);

}  // namespace rlcost::forecast
