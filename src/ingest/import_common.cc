#include "ingest/import_common.h"

#include <filesystem>

#include <fmt/format.h>

namespace rlcost::ingest {

std::string Fmt(double v) { return fmt::format("{:g}", v); }

void ModelLine(ConfigTree& tree, const std::string& key, const Catalog& catalog, ScenarioText& out) {
  auto path = tree.String(key);
  if (!path) {
    tree.problems().push_back(Problem{key, "missing (the policy model: a Hugging Face id or a model folder)", 0,
                                      tree.origin()});
    return;
  }
  std::error_code ec;
  namespace fs = std::filesystem;
  if (fs::is_regular_file(fs::path(*path) / "config.json", ec)) {
    out.Set("", "model", "{hf_config: " + *path + "}", key + ": a folder with config.json");
    return;
  }
  std::string name = *path;
  while (!name.empty() && name.back() == '/') name.pop_back();
  if (const ModelSpec* m = catalog.FindModel(name)) {
    out.Set("", "model", m->id, key + ": " + *path);
    return;
  }
  const std::string tail = fs::path(name).filename().string();
  if (const ModelSpec* m = catalog.FindModel(tail)) {
    out.Set("", "model", m->id, key + ": " + *path);
    return;
  }
  std::string known;
  for (const auto& id : catalog.ModelIds()) known += (known.empty() ? "" : ", ") + id;
  tree.problems().push_back(tree.ProblemAt(
      key, "unknown model '" + *path + "': '" + tail +
               "' is not in the catalog and the path is not a folder with config.json; point it at the model's "
               "folder, or add it with `rlcost import hf-model DIR -o models.yaml` and `--catalog models.yaml` "
               "(known: " + known + ")"));
}

void GpuLine(const ImportOptions& options, const Catalog& catalog, ConfigTree& tree, ScenarioText& out) {
  if (options.gpu.empty()) {
    out.Assume("hardware", "gpu", "h100-sxm", "the config does not name the GPU; pass --gpu, or change this line");
    return;
  }
  if (const GpuSpec* g = catalog.FindGpu(options.gpu)) {
    out.Set("hardware", "gpu", g->id, "--gpu " + options.gpu);
    return;
  }
  std::string known;
  for (const auto& id : catalog.GpuIds()) known += (known.empty() ? "" : ", ") + id;
  tree.problems().push_back(Problem{"--gpu", "unknown GPU '" + options.gpu + "'; known: " + known, 0, "command line"});
}

void AssumedEnvironment(ScenarioText& out, const std::string& prompt_max, const std::string& response_max) {
  out.Assume("environment", "prompt_tokens", "{mean: 200, cv: 0.5" + (prompt_max.empty() ? "" : ", max: " + prompt_max) + "}",
             "mean and spread are not in the config (only the max); put your data's");
  out.Assume("environment", "response_tokens",
             "{mean: 1000, cv: 1.0" + (response_max.empty() ? "" : ", max: " + response_max) + "}",
             "mean and spread are not in the config (only the max); measure them with a pilot or rlcost calibrate");
  out.Assume("environment", "reward", "{type: outcome}", "one reward per trajectory");
  out.Assume("environment", "pass_rate", "{mean: 0.35, concentration: 2}",
             "the scenario format's default; a pilot's pass rates belong here");
}

long long NodeGpus(ConfigTree& tree, const std::string& nodes_key, long long nodes, const std::string& per_node_key,
                   long long per_node) {
  long long gpus = 0;
  if (nodes < 1 || per_node < 1) {
    tree.problems().push_back(tree.ProblemAt(
        nodes_key, fmt::format("{} = {} and {} = {}: each must be at least 1", nodes_key, nodes, per_node_key, per_node)));
    return 0;
  }
  if (__builtin_mul_overflow(nodes, per_node, &gpus) || gpus > kMaxImportGpus) {
    tree.problems().push_back(tree.ProblemAt(
        nodes_key, fmt::format("{} x {} = {} x {} is more than {} GPUs, the most a scenario describes", nodes_key,
                               per_node_key, nodes, per_node, kMaxImportGpus)));
    return 0;
  }
  return gpus;
}

Result<ImportedScenario> Finish(ConfigTree& tree, ScenarioText& out) {
  if (!tree.problems().empty()) {
    Error e;
    e.problems = tree.problems();
    return Fail(std::move(e));
  }
  ImportedScenario r;
  r.unmapped = tree.Unread();
  if (!r.unmapped.empty()) {
    out.Footer("");
    out.Footer("Read from the config but with no counterpart in the scenario format (not used):");
    for (const auto& k : r.unmapped) out.Footer("  " + k);
  }
  if (!tree.NotRead().empty()) {
    out.Footer("");
    out.Footer("Configs the config lists as defaults but that are not beside it (their values are not read; the "
               "framework's defaults stand in):");
    for (const auto& k : tree.NotRead()) out.Footer("  " + k);
  }
  r.not_read = tree.NotRead();
  r.yaml = out.Render();
  return r;
}

}  // namespace rlcost::ingest
