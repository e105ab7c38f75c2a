// Internal to src/ingest: what the veRL and NeMo RL importers share.
#pragma once

#include <optional>
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
// The environment lines a config cannot know, as assumptions. A length's mean
// is rlcost's placeholder (prompts 200, responses 1000 tokens) unless that is
// more than half the config's max: then half the max, so that the assumed
// mean never exceeds the max the config sets; each line's comment says which
// and names the key the max came from. Returns the prompt mean written.
inline constexpr long long kPlaceholderPromptMean = 200;
inline constexpr long long kPlaceholderResponseMean = 1000;
long long AssumedMean(long long placeholder, std::optional<long long> max);
long long AssumedEnvironment(ScenarioText& out, std::optional<long long> prompt_max, const std::string& prompt_from,
                             std::optional<long long> response_max, const std::string& response_from);
// An integer length key (a max in tokens): below 1 is a problem naming the
// config file, line and key; then absent.
std::optional<long long> PositiveLength(ConfigTree& tree, const std::string& key);
// Footer listing every unread key; the result.
Result<ImportedScenario> Finish(ConfigTree& tree, ScenarioText& out);
std::string Fmt(double v);

// The scenario format's default algorithm.steps (AlgorithmSpec::steps), written
// as an ASSUMED stand-in when a config's run length cannot be counted.
inline constexpr long long kScenarioDefaultSteps = 500;
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
