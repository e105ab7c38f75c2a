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

// The flags of `import verl`, `import nemo-rl` and `import harbor` fill the request's fields.
struct ImportScenarioArgs {
  ops::ImportScenarioInput in;
  bool json = false;
};

// -o, --catalog, --json and the call, which the scenario imports share.
void AddScenarioImportTail(CLI::App* sub, const std::shared_ptr<ImportScenarioArgs>& args, int& exit_code) {
  sub->add_option("-o,--output", args->in.output, "write the scenario here (only when the import succeeds)");
  AddRepeatable(sub, "--catalog", args->in.catalog_files, "extra catalog file (repeatable)");
  sub->add_flag("--json", args->json, "errors as JSON");
  sub->callback([args, &exit_code] {
    ops::ImportScenarioInput in = args->in;
    in.gpu_name = "--gpu";  // in the lines the import writes as well as in errors
    in.model_name = "--model";
    exit_code = Print(ops::ImportScenario(in), args->json);
  });
}

void RegisterImportConfig(CLI::App* parent, int& exit_code, const char* name, const char* tool, ops::ImportKind kind) {
  auto args = std::make_shared<ImportScenarioArgs>();
  args->in.kind = kind;
  auto* sub = parent->add_subcommand(name, std::string("a scenario from a ") + tool + " config and key=value overrides");
  sub->add_option("config", args->in.source,
                  std::string(tool) + " YAML config (its defaults are followed: the files and config groups it lists "
                                      "are read from beside it)")
      ->required();
  sub->add_option("overrides", args->in.overrides, "key=value overrides, as the launch script passes them");
  sub->add_option("--gpu", args->in.gpu, "the GPU the run uses (the config does not say; default: an assumed h100-sxm)");
  AddScenarioImportTail(sub, args, exit_code);
}

// `rlcost import harbor TASK_DIR|DATASET_DIR [--model M] [--gpu G] [-o FILE]`.
void RegisterImportHarbor(CLI::App* parent, int& exit_code) {
  auto args = std::make_shared<ImportScenarioArgs>();
  args->in.kind = ops::ImportKind::kHarbor;
  auto* sub = parent->add_subcommand("harbor", "a scenario from a Harbor task folder (or a dataset folder of them)");
  sub->add_option("dir", args->in.source, "task folder (task.toml, instruction.md, environment/, tests/test.sh) or dataset")
      ->required();
  sub->add_option("--model", args->in.model, "the policy that trains on the task (default: an assumed qwen3-8b)");
  sub->add_option("--gpu", args->in.gpu, "the GPU the run uses (default: an assumed h100-sxm)");
  AddScenarioImportTail(sub, args, exit_code);
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
