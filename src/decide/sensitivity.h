// decide/sensitivity: which input a figure hangs on. Each uncertain input of a
// scenario (response length, pass rate, efficiencies, price, group size, ...)
// is moved on its own over a stated range, every other input held at the
// scenario's value, and the figure is recomputed; the inputs are sorted by how
// far the figure swings (a tornado). docs/model.md, "Sensitivity".
//
//   sensitivity::Options opt;                          // metric, span, path
//   auto load = [&](const std::vector<Override>& extra) { return LoadScenario(file, cat, extra); };
//   auto t = sensitivity::Build(scenario, load, opt);
//   for (const auto& r : t->rows) r.input, r.metric_low, r.metric_high;
//
// An input with a `--set` path is moved through it (the scenario is loaded
// again with one more override, so every moved value is checked like a
// user's own); the efficiencies, which a scenario takes from the catalog, are
// moved on the loaded scenario.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan/plan.h"
#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/sim.h"

namespace rlcost::sensitivity {

// The scenario loaded with these overrides added after the user's own.
using Loader = std::function<Result<Scenario>(const std::vector<Override>&)>;

struct Options {
  std::string metric;  // metric key (rlcost::Metrics()); "" = DefaultMetric(scenario)
  // Default range of every input: its value x (1 - span) .. x (1 + span).
  double span = 0.5;
  // Ranges the user states, input id -> (low, high), absolute values. A value
  // outside the input's valid domain is an error (never clipped silently).
  std::map<std::string, std::pair<double, double>> ranges;
  bool simulated = false;  // each point simulated (same seed) instead of the closed form
  sim::Options sim;
  // Every point, the base included, gets its own best layout for the placement
  // fields the scenario leaves out (the layout planner, src/plan): a swing is
  // the input's, not a layout that stopped fitting. nullopt: as written.
  std::optional<plan::Objective> replan;
};

struct Row {
  std::string input;   // id: the --set path, or efficiency.<field>
  std::string label;   // what a user calls it
  std::string unit;    // of the input's values
  double base_value = 0, low_value = 0, high_value = 0;
  std::optional<double> metric_low, metric_high;  // nullopt: the estimate failed there (error_*)
  std::string error_low, error_high;
  std::string range;   // how the range was chosen: "±50%", "your range"
  std::string clipped; // why an end was clipped to the valid domain ("" = not clipped)
  std::string flat;    // why it swings nothing, when both ends give the scenario's figure ("" = it moves it)
  // |metric_high - metric_low|; -1 when an end failed (sorted last).
  double Swing() const;
};

struct Skipped {
  std::string input, label, why;
};

struct Tornado {
  std::string metric, metric_unit, metric_description;
  std::string path;      // "analytic" | "simulated"
  double base = 0;       // the metric at the scenario's own values
  double span = 0.5;
  std::vector<Row> rows;          // largest swing first
  std::vector<Skipped> skipped;   // inputs of the scenario that were not moved, and why
  std::string range_note;         // one sentence: where the ranges come from
};

// goal.usd when the scenario sets goal.target_pass_rate, else run.usd.
std::string DefaultMetric(const Scenario& s);

// The ids of the inputs this scenario can move (for --range and messages).
std::vector<std::string> InputIds(const Scenario& s);

Result<Tornado> Build(const Scenario& base, const Loader& load, const Options& opt);

}  // namespace rlcost::sensitivity
