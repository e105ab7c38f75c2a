// api/views: each operation once, with both of its renderings — the JSON the
// server, Python and `--json` print, and the text a terminal shows — so that a
// front end only parses its own input, calls one of these and prints.
//
//   auto v = ops::EstimateView(in, /*full=*/false);
//   if (!v) return Print(v.error());
//   std::cout << (json ? ops::Dump(v->json) : v->text);
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/ops.h"

namespace rlcost::ops {

struct View {
  nlohmann::json json;
  std::string text;                   // ends with a newline
  std::vector<std::string> warnings;  // to show beside the answer
};

// `estimate`: the run as planned, priced in closed form. full: every metric
// with its unit and meaning (else the brief answer).
Result<View> EstimateView(const ScenarioInput& in, bool full = false);

struct SimulateInput {
  uint64_t seed = 1;
  int steps = 0;             // 0 = the scenario's algorithm.steps
  std::string trace;         // a Chrome trace-event JSON to write ("" = none)
  const std::atomic<bool>* cancel = nullptr;  // stops the simulation once set
  bool full = false;
};
Result<View> SimulateView(const ScenarioInput& in, const SimulateInput& si);

// `sensitivity`: the tornado (each input moved over its range).
Result<View> SensitivityView(const ScenarioInput& in, const SensitivityInput& si);

// `waterfall`: the levers from the run (or the naive baseline, LeverInput::baseline).
Result<View> WaterfallView(const ScenarioInput& in, const LeverInput& lv);
// `price`: the price card.
Result<View> PriceView(const ScenarioInput& in, const PriceInput& p);
// `claims`: the essay's claims on the run.
Result<View> ClaimsView(const ScenarioInput& in);

// `compare`: scenarios side by side, each planned as `estimate` plans it. The
// first of `scenarios` is the reference; `with` adds variants of it, each a
// list of "key=value" overrides after its own (labels: `with_labels`).
struct CompareInput {
  std::vector<ScenarioInput> scenarios;
  std::vector<std::string> labels;    // one per scenario (a file name)
  std::vector<std::vector<std::string>> with;
  std::vector<std::string> with_labels;
};
Result<View> CompareView(const CompareInput& c);

// `forecast`: a run's own learning curve fitted from its log and forecast to
// a target; priced with a scenario's planned step (with_scenario) or the log's.
struct ForecastInput {
  std::vector<std::string> logs;
  std::string metric;
  std::optional<double> target;
  std::optional<int> fit_until;
  bool with_scenario = false;         // price with `scenario`'s step cost
  ScenarioInput scenario;
  std::string scenario_label;
  int gpus = 0;
  std::optional<double> usd_per_gpu_hour;
  std::string gpu;                    // the logged run's GPU: its catalog price prices the GPU-hours
  std::string output;                 // write the fitted sigmoid as a goal curve file ("" = none)
  std::optional<double> useful_per_step;  // useful samples a step of the logged run (else the scenario's)
  int group_size = 0;                 // its group size (0: the scenario's, else 16)
  int replicates = 400;
  uint64_t seed = 1;
  double level = 0.9;
  int half_window = -1;
  std::string curve;                  // "", "sigmoid" or "power_law"
  bool backtest = false;
  bool smoothed_truth = false;
  bool markdown = false;
};
Result<View> ForecastView(const ForecastInput& f);

// The GPUs and models of a catalog: a table, or JSON (`rlcost catalog`).
std::string CatalogListing(const rlcost::Catalog& cat, bool json);

}  // namespace rlcost::ops
