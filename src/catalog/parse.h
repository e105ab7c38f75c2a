// Internal: parsing catalog entries from YAML nodes, shared by the catalog
// loader and the scenario loader (inline `model:` mappings).
//
//   std::vector<rlcost::Problem> problems;
//   rlcost::ModelSpec m = rlcost::catalog_internal::ParseModel(node["model"], "", "model", problems);
//   // problems carry path and line (1-based, from the YAML marks); the caller sets `file`.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/catalog.h"
#include "rlcost/error.h"

namespace rlcost::catalog_internal {

// Parses one model mapping (the shape of SCENARIO.md "Models" plus the catalog's
// optional fields: vocab, shared_experts, kv_lora_rank, rope_head_dim, source).
// `path` is the field path for messages (e.g. "model" or "models.qwen3-8b").
// Appends every problem to `problems` and returns the model (possibly partial).
// Defaults: name = id, active_params_b = params_b, kv_heads = heads,
// head_dim = hidden / heads, attention = gqa.
ModelSpec ParseModel(const YAML::Node& node, const std::string& id, const std::string& path,
                     std::vector<Problem>& problems);
GpuSpec ParseGpu(const YAML::Node& node, const std::string& id, const std::string& path,
                 std::vector<Problem>& problems);
// Parses an `efficiency:` mapping into `eff` (fields of Efficiency by name).
void ParseEfficiency(const YAML::Node& node, const std::string& path, Efficiency& eff,
                     std::vector<Problem>& problems);

// The fields an `efficiency:` mapping sets, with their sources, so one mapping
// (e.g. `default:`) can be applied to many GPUs and only touch what it names.
struct EfficiencyPatch {
  std::vector<std::pair<double Efficiency::*, double>> values;
  std::map<std::string, std::string> sources;  // "efficiency.<field>" -> source text
  // The GPU id its figures were measured on (`measured_on:`); empty = not said.
  std::string measured_on;
  void ApplyTo(Efficiency& eff, std::map<std::string, std::string>* sources_out) const;
};
EfficiencyPatch ParseEfficiencyPatch(const YAML::Node& node, const std::string& path,
                                     std::vector<Problem>& problems);
// As ParseGpu, starting from `base` (efficiencies and their sources) before the
// entry's own `efficiency:` mapping is applied.
GpuSpec ParseGpu(const YAML::Node& node, const std::string& id, const std::string& path,
                 const EfficiencyPatch& base, std::vector<Problem>& problems);

// The `default:` mapping of the built-in efficiency.yaml: what a GPU added by
// a user file or written inline in a scenario starts from.
const EfficiencyPatch& BuiltinDefaultEfficiency();

// Whose measurements a GPU's efficiency figures are, kept with their sources
// as "efficiency.measured_on": absent when the catalog has a row of its own
// for the GPU (or the default row was measured on it), else the id of the GPU
// they are borrowed from. The estimate prints it and its JSON carries it, so a
// borrowed figure is never read as the GPU's own (docs/model.md, "Efficiency
// defaults"). Empty `from` clears it.
void SetEfficiencyBorrowedFrom(GpuSpec& g, const std::string& from);
// Applies a GPU's own efficiency row (efficiency.yaml's `<gpu>:` or a GPU
// entry's `efficiency:`). The row's figures are the GPU's own; the fields it
// leaves out keep what they were, so those the GPU borrowed stay borrowed and
// are named (efficiency_origin.h) instead of the whole row passing as its own.
void ApplyEfficiencyRow(GpuSpec& g, const EfficiencyPatch& row);

// Names of the Efficiency fields, in declaration order.
std::vector<std::string> EfficiencyFieldNames();
// 1-based line of a node's mark, 0 when unknown.
int LineOf(const YAML::Node& node);

}  // namespace rlcost::catalog_internal
