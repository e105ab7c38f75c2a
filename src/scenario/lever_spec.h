// Internal: reads the scenario sections of the 2026 levers (`engine`,
// `energy`; include/rlcost/lever_spec.h) into a Scenario, reporting problems
// through the loader's Reader.
#pragma once

#include <yaml-cpp/yaml.h>

#include "rlcost/scenario.h"
#include "scenario/reader.h"

namespace rlcost::scenario_internal {

void ReadLeverSections(Reader& r, const YAML::Node& root, Scenario& s);

}  // namespace rlcost::scenario_internal
