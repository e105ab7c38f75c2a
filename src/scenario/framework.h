// Internal: `framework: NAME[@VERSION]` (catalog/frameworks/NAME.yaml). The
// framework's defaults fill the fields a scenario leaves out, before the
// scenario is validated; an explicit field (or --set) always wins.
// docs/model.md, "Frameworks".
//
//   std::vector<FrameworkDefault> supplied; std::string resolved;
//   std::vector<Problem> problems;
//   scenario_internal::ApplyFramework(root, origin, resolved, supplied, problems);
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

// The frameworks with a catalog file, in the order they are listed.
std::vector<std::string> KnownFrameworks();

// Reads root["framework"] (absent: does nothing). Sets each default of the
// named version whose field root does not hold, and records it in `supplied`;
// `resolved` becomes "name@version". An unknown name or version, or a bad
// catalog file, is a problem at `framework`.
void ApplyFramework(YAML::Node& root, const std::string& origin, std::string& resolved,
                    std::vector<FrameworkDefault>& supplied, std::vector<Problem>& problems);

}  // namespace rlcost::scenario_internal
