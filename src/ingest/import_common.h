// Internal to src/ingest: what the veRL and NeMo RL importers share.
#pragma once

#include <string>

#include "ingest/config_tree.h"
#include "ingest/import.h"

namespace rlcost::ingest {

// The `model:` line from a model path or Hugging Face id: a folder holding
// config.json becomes `{hf_config: ...}`; otherwise the catalog (by id, alias
// or the id's last part). An unknown model is a problem naming the key.
void ModelLine(ConfigTree& tree, const std::string& key, const Catalog& catalog, ScenarioText& out);
// `hardware.gpu` from --gpu, or the assumption that names what to pass.
void GpuLine(const ImportOptions& options, const Catalog& catalog, ConfigTree& tree, ScenarioText& out);
// The environment lines a config cannot know, as assumptions.
void AssumedEnvironment(ScenarioText& out, const std::string& prompt_max, const std::string& response_max);
// Footer listing every unread key; the result.
Result<ImportedScenario> Finish(ConfigTree& tree, ScenarioText& out);
std::string Fmt(double v);

// The scenario format's largest GPU count (hardware.gpus), which an import
// must not exceed either.
inline constexpr long long kMaxImportGpus = 1'000'000;
// `nodes` x `per_node` GPUs, computed without overflow: when either is below 1
// or the product is above kMaxImportGpus, a problem at `nodes_key` (naming
// both keys and values) and 0. A config with num_nodes 562812548014082 and
// gpus_per_node 32776 must not wrap around to "16 GPUs".
long long NodeGpus(ConfigTree& tree, const std::string& nodes_key, long long nodes, const std::string& per_node_key,
                   long long per_node);

}  // namespace rlcost::ingest
