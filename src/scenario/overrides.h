// Internal (CLI-facing): `--set key=value` handling shared by the loader and
// the command line.
//
//   auto ovs = scenario_internal::ParseOverrides({"model=qwen3-32b", "algorithm.group_size=8"});
//   if (!ovs) { std::cerr << ovs.error().ToString() << "\n"; return 2; }  // every bad flag
//   auto s = rlcost::LoadScenarioFile(path, catalog, *ovs);
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

// Every flag parsed; all bad ones reported at once (file "set", the request field; the command line shows --set).
Result<std::vector<Override>> ParseOverrides(const std::vector<std::string>& key_equals_values);

// Sets `root[a][b][c] = value` for path "a.b.c", creating (or replacing
// scalars with) mappings on the way. `root` becomes a mapping if it is not one.
void SetPath(YAML::Node& root, const std::string& dotted_path, const YAML::Node& value);

// The rest of LoadScenarioText once the text is parsed: applies `overrides`
// to `root` (which it modifies; pass a YAML::Clone to keep the original),
// validates and fills a Scenario.
Result<Scenario> LoadScenarioNode(YAML::Node root, const Catalog& catalog, const std::string& origin,
                                  const std::string& base_dir, const std::vector<Override>& overrides);

}  // namespace rlcost::scenario_internal
