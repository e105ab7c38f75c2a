// Importers: another RL framework's config -> scenario YAML text, each key
// with a counterpart mapped, each key without one listed, and what a config
// cannot know (length distribution, pass rates) written as ASSUMED lines.
//
//   auto s = rlcost::ingest::ImportVerl("ppo.yaml", {"actor_rollout_ref.rollout.n=16"}, catalog, {.gpu = "h100"});
//   if (s) std::cout << s->yaml;   // then LoadScenarioText(s->yaml, ...) to check it
#pragma once

#include <map>
#include <string>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/error.h"

namespace rlcost::ingest {

struct ImportOptions {
  std::string gpu;    // catalog GPU name; "" = not given (written as an assumption)
  std::string model;  // harbor: the policy (catalog name); "" = not given (an assumption)
  // How the caller names these two in what the import writes (a line's
  // source, "pass NAME") and in its errors: the request's own field names
  // unless the front end says them its way (the command line: its flags).
  std::string gpu_name = "gpu";
  std::string model_name = "model";
};

struct ImportedScenario {
  std::string yaml;                   // the scenario, with comments
  std::vector<std::string> unmapped;  // "key = value" read but with no counterpart
  std::vector<std::string> not_read;  // defaults-list entries whose config file was not found
  // Line of `yaml` (1-based) -> the config key it was written from, with that
  // key's file and line (Problem.path / file / line; message empty).
  std::map<int, Problem> sources;
};

// A scenario loader's error on an imported scenario (problems at
// `label`:line) told in the config's terms: each problem on a line written
// from a config key names that key, its file and line, and the scenario field
// it became; any other keeps the scenario field and names `config`.
Error InConfigTerms(const ImportedScenario& imported, Error error, const std::string& label,
                    const std::string& config);

// veRL: a Hydra config (ppo_trainer.yaml, the fully_async / one_step_off
// recipes' configs, or a dumped run config) plus `key=value` overrides.
Result<ImportedScenario> ImportVerl(const std::string& path, const std::vector<std::string>& overrides,
                                    const Catalog& catalog, const ImportOptions& options);
// NeMo RL: a GRPO config (examples/configs/*.yaml or a recipe with
// `defaults:`) plus `key=value` overrides.
Result<ImportedScenario> ImportNemoRl(const std::string& path, const std::vector<std::string>& overrides,
                                      const Catalog& catalog, const ImportOptions& options);

// Harbor (harbor-framework/harbor, Terminal-Bench 2's task format): a task
// folder (task.toml, instruction.md, environment/, tests/test.sh) or a dataset
// folder holding task folders -> a scenario whose environment is the task's
// sandbox with its tests as the verifier. What a task cannot say (the policy,
// GPUs, turns, lengths, pass rates) is written as ASSUMED lines.
Result<ImportedScenario> ImportHarbor(const std::string& dir, const Catalog& catalog, const ImportOptions& options);

}  // namespace rlcost::ingest
