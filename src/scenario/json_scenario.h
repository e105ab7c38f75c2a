// Internal: a scenario that arrives as parsed JSON (an HTTP request body, the
// web calculator) loaded without printing it as text and parsing that text
// again as YAML. The JSON tree becomes the YAML node tree the loader reads
// directly, with the same scalars the YAML route would give, so the scenario,
// the errors and their field paths are the same as for the same object sent
// as text (only without line numbers: a JSON object in a request has none
// worth citing).
//
//   auto j = nlohmann::json::parse(R"({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": 8}})");
//   auto s = scenario_internal::LoadScenarioJson(j, catalog, "request.scenario", kNoFileAccess, {});
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

// The YAML node the text `j.dump()` would parse to: strings as quoted
// scalars, numbers as plain scalars spelled as JSON spells them, true/false,
// null (and a non-finite number, which JSON prints as null) as YAML null.
// The caller bounds the nesting (the server refuses deeper than 64 levels).
YAML::Node JsonToYaml(const nlohmann::json& j);

// LoadScenarioText for a parsed JSON value.
Result<Scenario> LoadScenarioJson(const nlohmann::json& scenario, const Catalog& catalog, const std::string& origin,
                                  const std::string& base_dir, const std::vector<Override>& overrides = {});

}  // namespace rlcost::scenario_internal
