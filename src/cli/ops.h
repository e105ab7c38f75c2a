// The operations the command line, `rlcost serve` and the Python module share,
// as scenario in, JSON out: each result is built by the same report::*ToJson
// function the CLI prints with `--json`, so there is one definition of every key.
//
//   rlcost::ops::ScenarioInput in;
//   in.text = "model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n";
//   rlcost::Result<nlohmann::json> j = rlcost::ops::Estimate(in);
//   // j->at("cost").at("usd_per_step")
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "econ/levers.h"
#include "rlcost/catalog.h"
#include "rlcost/error.h"

namespace rlcost::ops {

// Where a scenario comes from: `file` (a path), else `text` (YAML or JSON),
// else the built-in default.
struct ScenarioInput {
  std::string file;
  std::string text;
  std::string origin = "<text>";     // names `text` in messages
  std::vector<std::string> sets;     // "key=value" overrides, like --set
  // false (the HTTP server): the scenario may not name files (pass-rate CSVs,
  // expect.relative_to), so a request can never make rlcost read a file.
  bool allow_files = true;
};

// Knobs of the lever views; the defaults are those of the command line.
struct LeverInput {
  std::string order = "async,fp8,hardware,grpo2,lora,moe";
  std::string gpu = "b200";
  int tenants = 0;
  int rank = 0;
  std::string moe_model = "qwen3-30b-a3b";
  std::string dense_model;
};
// The lever options of these knobs; errors name `field_prefix` + the knob
// ("--" on the command line, "" in an HTTP or Python request).
Result<levers::Options> ToOptions(const LeverInput& a, const std::string& field_prefix);

struct PriceInput {
  std::vector<std::string> models;   // empty = the scenario's
  std::vector<std::string> gpus;     // empty = the scenario's
  std::string stack;                 // "async,fp8,grpo2,lora"; empty = none
  int tenants = 0;
};

// The built-in catalog, parsed once and shared (read-only) by every call.
Result<const Catalog*> BuiltinCatalog();

Result<nlohmann::json> Estimate(const ScenarioInput& in);
Result<nlohmann::json> Simulate(const ScenarioInput& in, uint64_t seed, int steps);
Result<nlohmann::json> Waterfall(const ScenarioInput& in, const LeverInput& lv);
Result<nlohmann::json> Price(const ScenarioInput& in, const PriceInput& p);
Result<nlohmann::json> Catalog();
// `rlcost claims --json`: the essay's claims checked on the scenario (a list).
Result<nlohmann::json> Claims(const ScenarioInput& in);
// The HTML report of `rlcost report` (analytic path, waterfall with the
// default levers) as one self-contained page.
Result<std::string> HtmlReport(const ScenarioInput& in);
// The scenario document itself (not its estimate) as JSON, after checking
// that it loads: what the web calculator edits.
Result<nlohmann::json> ScenarioDocument(const ScenarioInput& in);
// `rlcost validate DIR --json` (both paths unless `path` says "analytic" or "simulated").
Result<nlohmann::json> Validate(const std::string& dir, const std::string& path, uint64_t seed, int sim_steps);

// Deepest nesting of [ and { in JSON text (strings skipped): checked before
// parsing so that a 10^4-deep document is refused instead of recursed into.
int JsonDepth(std::string_view text);

}  // namespace rlcost::ops
