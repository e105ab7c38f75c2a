// `import`: another tool's files as rlcost input — a catalog model from a
// Hugging Face config.json, a scenario from a veRL or NeMo RL config (with the
// launch script's key=value overrides) or from a Harbor task folder. What is
// imported must load before anything is written. Fields are named by their
// own names in errors ("output", "gpu"); a front end says them its way.
//
//   ops::ImportScenarioInput in;
//   in.kind = ops::ImportKind::kVerl;  in.source = "ppo.yaml";  in.gpu = "h100-sxm";
//   auto r = ops::ImportScenario(in);   // r->text: the scenario; r->notes: what was not carried over
#pragma once

#include <string>
#include <vector>

#include "rlcost/error.h"

namespace rlcost::ops {

// What an import made: its text (written to `output` when one was named,
// else for the front end to show) and notes to show beside it.
struct ImportOutcome {
  std::string text;
  bool written = false;             // to the request's `output`
  std::vector<std::string> notes;   // keys of the config with no counterpart, files not read
};

struct ImportHfInput {
  std::string dir;      // the model's folder holding config.json, or the file
  std::string id;       // the catalog id; "" = the folder's name, lower case
  std::string output;   // the catalog file to write; "" or "-" = none (the text is returned)
  std::string use;      // a sentence for the file's first comment: how the front end takes the entry
  Result<void> Validate() const;  // a folder or file is named
};
Result<ImportOutcome> ImportHfModel(const ImportHfInput& in);

enum class ImportKind { kVerl, kNemoRl, kHarbor };
struct ImportScenarioInput {
  ImportKind kind = ImportKind::kVerl;
  std::string source;                   // the veRL / NeMo RL YAML config, or the Harbor task or dataset folder
  std::vector<std::string> overrides;   // veRL / NeMo RL: key=value as the launch script passes them
  std::string gpu;                      // the GPU the run uses; "" = an assumed h100-sxm
  std::string model;                    // Harbor: the policy; "" = an assumed qwen3-8b
  std::string output;                   // the scenario file to write; "" or "-" = none
  std::vector<std::string> catalog_files;
  // How the front end names `gpu` and `model` in the lines the import writes
  // (a line's source, "pass NAME") as well as in errors.
  std::string gpu_name = "gpu";
  std::string model_name = "model";
  Result<void> Validate() const;        // a source is named; `overrides` only for a config
};
Result<ImportOutcome> ImportScenario(const ImportScenarioInput& in);

}  // namespace rlcost::ops
