// Internal: parsing catalog entries from YAML nodes, shared by the catalog
// loader and the scenario loader (inline `model:` mappings).
#pragma once

#include <string>

#include <yaml-cpp/yaml.h>

#include "rlcost/catalog.h"
#include "rlcost/error.h"

namespace rlcost::catalog_internal {

// Parses one model mapping (the shape of SCENARIO.md "Models" plus the catalog's
// optional fields: vocab, shared_experts, kv_lora_rank, rope_head_dim, source).
// `path` is the field path for messages (e.g. "model" or "models.qwen3-8b").
// Appends every problem to `problems` and returns the model (possibly partial).
ModelSpec ParseModel(const YAML::Node& node, const std::string& id, const std::string& path,
                     std::vector<Problem>& problems);
GpuSpec ParseGpu(const YAML::Node& node, const std::string& id, const std::string& path,
                 std::vector<Problem>& problems);
// Parses an `efficiency:` mapping into `eff` (fields of Efficiency by name).
void ParseEfficiency(const YAML::Node& node, const std::string& path, Efficiency& eff,
                     std::vector<Problem>& problems);

}  // namespace rlcost::catalog_internal
