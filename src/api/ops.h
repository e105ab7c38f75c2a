// The operations the command line, `rlcost serve` and the Python module share,
// as scenario in, JSON out: each result is built by the same report::*ToJson
// function the CLI prints with `--json`, so there is one definition of every key.
//
//   rlcost::ops::ScenarioInput in;
//   in.text = "model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n";
//   rlcost::Result<nlohmann::json> j = rlcost::ops::Estimate(in);
//   // j->at("cost").at("usd_per_step")
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <optional>
#include <functional>
#include <initializer_list>
#include <string_view>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/run.h"
#include "decide/levers.h"
#include "rlcost/catalog.h"
#include "rlcost/error.h"

namespace rlcost::ops {

// What `rlcost serve` offers, said once for `rlcost --help` and `rlcost serve --help`.
inline constexpr const char* kServeDescription =
    "JSON HTTP API: POST /v1/estimate, /v1/simulate, /v1/waterfall, /v1/price, /v1/sweep, /v1/report; GET "
    "/v1/catalog, /v1/health, /v1/default, /v1/openapi.json (the API described)";

// Where a scenario comes from: `file` (a path), else `text` (YAML or JSON),
// else the built-in default.
struct ScenarioInput {
  std::string file;
  std::string text;
  // Else, when set, the scenario as parsed JSON (an HTTP request's object):
  // loaded without going through YAML text (spec/json_scenario.h).
  std::shared_ptr<const nlohmann::json> json;
  std::string origin = "<text>";     // names `text` / `json` in messages
  std::vector<std::string> sets;     // "key=value" overrides, like --set
  // false (the HTTP server): the scenario may not name files (pass-rate CSVs,
  // expect.relative_to), so a request can never make rlcost read a file.
  bool allow_files = true;
  // The layout planner (src/plan) for the placement fields the scenario leaves
  // out: "cost" (default), "time", or "" to read the placement literally
  // (--no-plan). Estimate, Simulate and Sweep plan; other views read literally.
  std::string plan_for = "cost";
  // The command line's extras (empty in a request): catalog files added to
  // the built-in catalog, "GPU=USD" prices, a calibration file, a grid.
  std::vector<std::string> catalog_files;
  std::vector<std::string> prices;
  std::string calibration;
  std::string grid;
};

// Knobs of the lever views; the defaults are those of the command line.
struct LeverInput {
  std::string order = "async,fp8,hardware,fp4,grpo2,batch,lora,moe";
  std::string gpu = "b200";
  int tenants = 0;
  int rank = 0;
  std::string moe_model;             // "" = the catalog MoE paired with the scenario's model
  std::string dense_model;
  std::optional<double> moe_pass_rate;       // each model's own mean pass rate; unset = the scenario's
  std::optional<double> dense_pass_rate;
  std::optional<double> staleness_discount;  // quality discounts in [0, 1); unset = labelled default
  std::optional<double> fp8_discount;
  std::optional<double> fp4_discount;
  // What the levers start from: "run" (the user's run as planned: its step
  // time and dollars are `estimate`'s) or "naive" (the essay's naive H100 +
  // synchronous baseline, G = 16). Either way the other shows as a labelled row.
  std::string baseline = "run";
};
// The lever options of these knobs; errors name the knob as the request
// spells it ("fp8_discount"); a front end translates its own names.
Result<levers::Options> ToOptions(const LeverInput& a);
// The waterfall of a loaded run, every alternative planned as `in` plans.
Result<levers::Waterfall> BuildWaterfall(const Run& run, const ScenarioInput& in, const LeverInput& lv);

struct PriceInput {
  std::vector<std::string> models;   // empty = the scenario's
  std::vector<std::string> gpus;     // empty = the scenario's
  std::string stack;                 // "async,fp8,grpo2,batch,lora"; empty = none
  int tenants = 0;
  std::optional<double> staleness_discount;  // quality discounts in [0, 1); unset = labelled default
  std::optional<double> fp8_discount;
  std::optional<double> fp4_discount;
};

// A sweep as `rlcost sweep` runs it (explore/sweep.h), bounded for a request:
// at most `max_points` points and `max_seconds` of computing.
struct SweepInput {
  std::vector<std::string> vary;     // "KEY=V1,V2,..." or "KEY=LO..HI[:STEP]", as --vary
  uint64_t sample = 0;               // > 0: a Latin-hypercube sample of this many points
  uint64_t seed = 1;                 // of the sample and the simulator
  std::vector<std::string> metrics;  // columns (JSON keys such as run.usd); empty = the main ones
  bool simulate = false;
  int steps = 0;                     // simulated steps per point; 0 = the scenario's
  unsigned threads = 0;              // 0 = every core
  uint64_t max_points = 100000;
  double max_seconds = 0;            // 0 = no time limit
  std::function<bool()> cancel;      // polled about ten times a second; true stops the sweep
};
// A request's "vary" as --vary arguments: {"KEY": [V1, V2, ...] | "LO..HI[:STEP]" | "V1,V2"}
// (keys in sorted order: a JSON object has none) or, in the order given, a list
// of "KEY=..." texts and [KEY, values] pairs. Errors name `field` and the key.
Result<std::vector<std::string>> VaryArgs(const nlohmann::json& vary, const std::string& field);

// The built-in catalog, parsed once and shared (read-only) by every call.
// JSON as every front end prints it: two-space indent, invalid UTF-8 replaced.
std::string Dump(const nlohmann::json& j);

Result<const Catalog*> BuiltinCatalog();

Result<nlohmann::json> Estimate(const ScenarioInput& in);
// `cancel` (when given) stops the simulation as it runs once set (an error).
Result<nlohmann::json> Simulate(const ScenarioInput& in, uint64_t seed, int steps,
                                const std::atomic<bool>* cancel = nullptr);
Result<nlohmann::json> Waterfall(const ScenarioInput& in, const LeverInput& lv);
Result<nlohmann::json> Price(const ScenarioInput& in, const PriceInput& p);
Result<nlohmann::json> Catalog();
// {"engine", "keys", "metrics": [{"key", "unit", "description"}], "points",
//  "rows": [the rows of `rlcost sweep --jsonl`, in point order]}. A sweep
// past max_seconds (or cancelled) is an error and sets *stopped (when given)
// to "time" (or "cancelled"); one over max_points is refused before it starts.
Result<nlohmann::json> Sweep(const ScenarioInput& in, const SweepInput& sw, std::string* stopped = nullptr);
// `rlcost claims --json`: the essay's claims checked on the scenario (a list).
Result<nlohmann::json> Claims(const ScenarioInput& in);

// `rlcost sensitivity` (a tornado): every input moved over `span` around its
// value, or over the user's own `ranges` (input -> {low, high}).
struct SensitivityInput {
  std::string metric;  // a key of `estimate --json`; "" = goal.usd with a goal, else run.usd
  double span = 0.5;   // 0.01 .. 0.99, as --span
  std::map<std::string, std::pair<double, double>> ranges;
  std::string path = "analytic";  // or "simulated"
  uint64_t seed = 1;
  int steps = 0;  // simulated: steps per point, 0 = the scenario's
};
Result<nlohmann::json> Sensitivity(const ScenarioInput& in, const SensitivityInput& si);
// The HTML report of `rlcost report` as one self-contained page: the run as
// `estimate` prices it, the levers as `waterfall` builds them, the claims as
// `claims` checks them, the tornado as `sensitivity` draws it.
struct ReportInput {
  LeverInput levers;
  bool simulate = false;          // also one simulated step's timeline
  uint64_t seed = 1;
  std::string progress;           // a progress log: the run's own learning curve, drawn
  std::optional<double> target;   // what it is forecast to (default goal.target_pass_rate)
  std::string metric;             // the log's column (default: as `forecast`)
};
struct ReportOutput {
  std::string html;
  bool simulated = false;
  std::string simulate_error;
  bool waterfall = false;
  std::string waterfall_error;
  std::vector<std::string> warnings;
  // The figures the page was drawn from, as `estimate --json` and
  // `waterfall --json` print them (null where that part failed).
  nlohmann::json estimate_json;
  nlohmann::json waterfall_json;
};
Result<ReportOutput> Report(const ScenarioInput& in, const ReportInput& ri);
// The report with the default levers, analytic path.
Result<std::string> HtmlReport(const ScenarioInput& in);
// The scenario document itself (not its estimate) as JSON, after checking
// that it loads: what the web calculator edits.
Result<nlohmann::json> ScenarioDocument(const ScenarioInput& in);
// `rlcost validate DIR --json` (both paths unless `path` says "analytic" or "simulated").
Result<nlohmann::json> Validate(const std::string& dir, const std::string& path, uint64_t seed, int sim_steps);

// An HTTP request's body as `rlcost serve` reads it: empty (the built-in
// default scenario), the scenario's YAML text itself (`yaml`: a YAML
// Content-Type), or JSON {"scenario": object | YAML text, "set": [...], ...}
// where `allowed` lists the fields besides "scenario" and "set" (returned in
// `fields`). A scenario read this way may not name files. Nesting deeper than
// kMaxRequestJsonDepth is refused before parsing.
constexpr int kMaxRequestJsonDepth = 64;  // a scenario nests 4 deep; 64 leaves room
struct RequestBody {
  ScenarioInput in;
  nlohmann::json fields = nlohmann::json::object();
};
Result<RequestBody> ParseRequestBody(std::string_view body, bool yaml,
                                     std::initializer_list<std::string_view> allowed);

// Deepest nesting of [ and { in JSON text (strings skipped): checked before
// parsing so that a 10^4-deep document is refused instead of recursed into.
int JsonDepth(std::string_view text);

}  // namespace rlcost::ops
