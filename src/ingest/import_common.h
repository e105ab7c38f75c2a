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

}  // namespace rlcost::ingest
