// `rlcost import hf-model DIR [--id ID] [-o FILE]`: a catalog entry from a
// Hugging Face config.json, for `--catalog FILE` or a scenario's `model:`.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>
#include <unistd.h>
#include <yaml-cpp/yaml.h>

#include "cli/common.h"
#include "core/file.h"
#include "ingest/hf_config.h"
#include "ingest/import.h"

namespace rlcost::cli {
namespace {

// Writes `text` to `path` whole or not at all (WriteFileAtomic: beside the
// target, renamed only over a regular file), never over one of the command's
// `inputs`; "" or "-" = stdout.
Result<void> WriteOutput(const std::string& text, const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return {};
  }
  if (auto ok = CheckOutputNotInput(path, "-o", inputs); !ok) return ok;
  return WriteFileAtomic(path, text, "-o");
}

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string CatalogYaml(const ModelSpec& m, const ingest::HfArchitecture& a) {
  YAML::Emitter e;
  e << YAML::BeginMap << YAML::Key << "models" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << m.id << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "name" << YAML::Value << m.name;
  e << YAML::Key << "params_b" << YAML::Value << fmt::format("{:.4f}", m.params_b);
  if (m.is_moe()) e << YAML::Key << "active_params_b" << YAML::Value << fmt::format("{:.4f}", m.active_params_b);
  e << YAML::Key << "layers" << YAML::Value << m.layers;
  e << YAML::Key << "hidden" << YAML::Value << m.hidden;
  e << YAML::Key << "heads" << YAML::Value << m.heads;
  e << YAML::Key << "kv_heads" << YAML::Value << m.kv_heads;
  e << YAML::Key << "head_dim" << YAML::Value << m.head_dim;
  e << YAML::Key << "vocab" << YAML::Value << m.vocab;
  if (m.is_moe()) {
    e << YAML::Key << "experts" << YAML::Value << m.experts;
    e << YAML::Key << "experts_per_token" << YAML::Value << m.experts_per_token;
    e << YAML::Key << "shared_experts" << YAML::Value << m.shared_experts;
  }
  e << YAML::Key << "attention" << YAML::Value << std::string(ToString(m.attention));
  if (m.attention == Attention::kMla) {
    e << YAML::Key << "kv_lora_rank" << YAML::Value << m.kv_lora_rank;
    e << YAML::Key << "rope_head_dim" << YAML::Value << m.rope_head_dim;
    e << YAML::Key << "v_head_dim" << YAML::Value << m.v_head_dim;
  }
  e << YAML::Key << "sources" << YAML::Value << YAML::BeginMap;
  for (const auto& [k, v] : m.sources) e << YAML::Key << k << YAML::Value << v;
  e << YAML::EndMap << YAML::EndMap << YAML::EndMap << YAML::EndMap;
  std::string head = "# From " + a.file + " (rlcost import hf-model). Use it with --catalog FILE.\n";
  if (a.mtp_layers > 0) {
    head += fmt::format("# Not counted: the {} multi-token-prediction layer(s) (num_nextn_predict_layers), "
                        "which training and serving without speculative decoding do not run.\n",
                        a.mtp_layers);
  }
  return head + e.c_str() + "\n";
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
    // Refused before any work: an output that is the config itself.
    const std::string config = std::filesystem::is_directory(args->dir) ? args->dir + "/config.json" : args->dir;
    if (auto ok = CheckOutputNotInput(args->out, "-o", {config}); !ok) {
      exit_code = PrintError(ok.error(), args->json);
      return;
    }
    auto arch = ingest::ReadHfConfig(args->dir);
    if (!arch) { exit_code = PrintError(arch.error(), args->json); return; }
    namespace fs = std::filesystem;
    fs::path p(arch->file);
    std::string id = args->id.empty() ? Lower(p.parent_path().filename().string()) : args->id;
    if (id.empty()) id = "imported-model";
    ModelSpec m = ingest::ToModelSpec(*arch, id);
    if (auto ok = WriteOutput(CatalogYaml(m, *arch), args->out, {arch->file}); !ok) {
      exit_code = PrintError(ok.error(), args->json);
      return;
    }
    exit_code = 0;
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

using Importer = Result<ingest::ImportedScenario> (*)(const std::string&, const std::vector<std::string>&,
                                                      const Catalog&, const ingest::ImportOptions&);

void RegisterImportConfig(CLI::App* parent, int& exit_code, const char* name, const char* tool, Importer importer) {
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
  sub->callback([args, &exit_code, importer] {
    std::vector<std::string> inputs = args->catalog_files;
    inputs.push_back(args->config);
    if (auto ok = CheckOutputNotInput(args->out, "-o", inputs); !ok) {  // before any work
      exit_code = PrintError(ok.error(), args->json);
      return;
    }
    Common common;
    common.catalog_files = args->catalog_files;
    auto cat = LoadCatalog(common);
    if (!cat) { exit_code = PrintError(cat.error(), args->json); return; }
    auto imported = importer(args->config, args->overrides, *cat, ingest::ImportOptions{args->gpu, "", "--gpu", "--model"});
    if (!imported) { exit_code = PrintError(imported.error(), args->json); return; }
    // The scenario must load as written, before anything is written.
    auto check = LoadScenarioText(imported->yaml, *cat, "the imported scenario", ".");
    if (!check) {
      exit_code = PrintError(ingest::InConfigTerms(*imported, check.error(), "the imported scenario", args->config),
                             args->json);
      return;
    }
    if (auto ok = WriteOutput(imported->yaml, args->out, inputs); !ok) {
      exit_code = PrintError(ok.error(), args->json);
      return;
    }
    if (!imported->unmapped.empty()) {
      std::cerr << "note: " << imported->unmapped.size()
                << " keys of the config have no counterpart in the scenario format; they are listed at the end of "
                   "the scenario\n";
    }
    for (const auto& n : imported->not_read) std::cerr << "note: " << n << "\n";
    exit_code = 0;
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
    Common common;
    common.catalog_files = args->catalog_files;
    auto cat = LoadCatalog(common);
    if (!cat) { exit_code = PrintError(cat.error(), args->json); return; }
    auto imported = ingest::ImportHarbor(args->dir, *cat, ingest::ImportOptions{args->gpu, args->model, "--gpu", "--model"});
    if (!imported) { exit_code = PrintError(imported.error(), args->json); return; }
    auto check = LoadScenarioText(imported->yaml, *cat, "the imported scenario", ".");
    if (!check) { exit_code = PrintError(check.error(), args->json); return; }
    if (auto ok = WriteOutput(imported->yaml, args->out, args->catalog_files); !ok) {
      exit_code = PrintError(ok.error(), args->json);
      return;
    }
    exit_code = 0;
  });
}

}  // namespace

void RegisterImport(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("import", "turn another tool's files into rlcost input: hf-model, verl, nemo-rl, harbor");
  sub->require_subcommand(1);
  RegisterImportHf(sub, exit_code);
  RegisterImportConfig(sub, exit_code, "verl", "veRL", &ingest::ImportVerl);
  RegisterImportConfig(sub, exit_code, "nemo-rl", "NeMo RL", &ingest::ImportNemoRl);
  RegisterImportHarbor(sub, exit_code);
}

}  // namespace rlcost::cli
