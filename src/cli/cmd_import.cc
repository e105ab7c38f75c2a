// `rlcost import hf-model DIR [--id ID] [-o FILE]`: a catalog entry from a
// Hugging Face config.json, for `--catalog FILE` or a scenario's `model:`.
#include <iostream>
#include <memory>

#include "api/import_op.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

// The command's own spelling of the request's `output`.
constexpr FlagName kOwn[] = {{"output", "-o"}};

// What an import made: its text on stdout when no -o was given, its notes on stderr.
int Print(const Result<ops::ImportOutcome>& r, bool json) {
  if (!r) return PrintError(r.error(), json, kOwn);
  if (!r->written) std::cout << r->text;
  for (const auto& n : r->notes) std::cerr << "note: " << n << "\n";
  return 0;
}

struct ImportHfArgs {
  std::string dir;
  std::string id;
  std::string out;
  bool json = false;
};

void RegisterImportHf(CLI::App* parent, int& exit_code) {
  auto args = std::make_shared<ImportHfArgs>();
  auto* sub = parent->add_subcommand("hf-model", "a catalog model from a Hugging Face config.json (a folder or the file)");
  sub->add_option("dir", args->dir, "model folder holding config.json, or the file")->required();
  sub->add_option("--id", args->id, "catalog id (default: the folder's name, lower case)");
  sub->add_option("-o,--output", args->out, "write the catalog file here (only when the import succeeds)");
  sub->add_flag("--json", args->json, "errors as JSON");
  sub->callback([args, &exit_code] {
    ops::ImportHfInput in;
    in.dir = args->dir;
    in.id = args->id;
    in.output = args->out;
    in.use = "Use it with --catalog FILE.";
    exit_code = Print(ops::ImportHfModel(in), args->json);
  });
}

struct ImportConfigArgs {
  std::string config;
  std::vector<std::string> overrides;
  std::string gpu;
  std::string out;
  std::vector<std::string> catalog_files;
  bool json = false;
};

void RegisterImportConfig(CLI::App* parent, int& exit_code, const char* name, const char* tool, ops::ImportKind kind) {
  auto args = std::make_shared<ImportConfigArgs>();
  auto* sub = parent->add_subcommand(name, std::string("a scenario from a ") + tool + " config and key=value overrides");
  sub->add_option("config", args->config,
                  std::string(tool) + " YAML config (its defaults are followed: the files and config groups it lists "
                                      "are read from beside it)")
      ->required();
  sub->add_option("overrides", args->overrides, "key=value overrides, as the launch script passes them");
  sub->add_option("--gpu", args->gpu, "the GPU the run uses (the config does not say; default: an assumed h100-sxm)");
  sub->add_option("-o,--output", args->out, "write the scenario here (only when the import succeeds)");
  sub->add_option("--catalog", args->catalog_files, "extra catalog file (repeatable)");
  sub->add_flag("--json", args->json, "errors as JSON");
  sub->callback([args, &exit_code, kind] {
    ops::ImportScenarioInput in;
    in.kind = kind;
    in.source = args->config;
    in.overrides = args->overrides;
    in.gpu = args->gpu;
    in.output = args->out;
    in.catalog_files = args->catalog_files;
    in.gpu_name = "--gpu";
    in.model_name = "--model";
    exit_code = Print(ops::ImportScenario(in), args->json);
  });
}

struct ImportHarborArgs {
  std::string dir;
  std::string model;
  std::string gpu;
  std::string out;
  std::vector<std::string> catalog_files;
  bool json = false;
};

// `rlcost import harbor TASK_DIR|DATASET_DIR [--model M] [--gpu G] [-o FILE]`.
void RegisterImportHarbor(CLI::App* parent, int& exit_code) {
  auto args = std::make_shared<ImportHarborArgs>();
  auto* sub = parent->add_subcommand("harbor", "a scenario from a Harbor task folder (or a dataset folder of them)");
  sub->add_option("dir", args->dir, "task folder (task.toml, instruction.md, environment/, tests/test.sh) or dataset")
      ->required();
  sub->add_option("--model", args->model, "the policy that trains on the task (default: an assumed qwen3-8b)");
  sub->add_option("--gpu", args->gpu, "the GPU the run uses (default: an assumed h100-sxm)");
  sub->add_option("-o,--output", args->out, "write the scenario here (only when the import succeeds)");
  sub->add_option("--catalog", args->catalog_files, "extra catalog file (repeatable)");
  sub->add_flag("--json", args->json, "errors as JSON");
  sub->callback([args, &exit_code] {
    ops::ImportScenarioInput in;
    in.kind = ops::ImportKind::kHarbor;
    in.source = args->dir;
    in.gpu = args->gpu;
    in.model = args->model;
    in.output = args->out;
    in.catalog_files = args->catalog_files;
    in.gpu_name = "--gpu";
    in.model_name = "--model";
    exit_code = Print(ops::ImportScenario(in), args->json);
  });
}

}  // namespace

void RegisterImport(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("import", "turn another tool's files into rlcost input: hf-model, verl, nemo-rl, harbor");
  sub->require_subcommand(1);
  RegisterImportHf(sub, exit_code);
  RegisterImportConfig(sub, exit_code, "verl", "veRL", ops::ImportKind::kVerl);
  RegisterImportConfig(sub, exit_code, "nemo-rl", "NeMo RL", ops::ImportKind::kNemoRl);
  RegisterImportHarbor(sub, exit_code);
}

}  // namespace rlcost::cli
