#include "ingest/import_common.h"

#include <algorithm>
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
    out.Assume("hardware", "gpu", "h100-sxm", "the config does not name the GPU; pass " + options.gpu_name + ", or change this line");
    return;
  }
  if (const GpuSpec* g = catalog.FindGpu(options.gpu)) {
    out.Set("hardware", "gpu", g->id, options.gpu_name + " " + options.gpu);
    return;
  }
  std::string known;
  for (const auto& id : catalog.GpuIds()) known += (known.empty() ? "" : ", ") + id;
  tree.problems().push_back(Problem{options.gpu_name, "unknown GPU '" + options.gpu + "'; known: " + known, 0, "command line"});
}

long long AssumedMean(long long placeholder, std::optional<long long> max) {
  if (!max || 2 * placeholder <= *max) return placeholder;
  return std::max(1LL, *max / 2);
}

namespace {

// The comment on an assumed length line: what the mean is and how it was chosen.
std::string LengthWhy(const char* what, long long placeholder, long long mean, const std::optional<long long>& max,
                      const std::string& max_from, const char* measure) {
  if (!max) {
    return fmt::format("{} mean {} and spread are placeholders, and the config gives no max; {}", what, mean, measure);
  }
  if (mean == placeholder) {
    return fmt::format("{} mean {} (rlcost's placeholder, at most half the max) and spread are not in the config; "
                       "max {} from {}; {}",
                       what, mean, *max, max_from, measure);
  }
  return fmt::format("{} mean {} is half the max {} ({}): rlcost's placeholder {} would exceed it; the spread is not "
                     "in the config either; {}",
                     what, mean, *max, max_from, placeholder, measure);
}

}  // namespace

long long AssumedEnvironment(ScenarioText& out, std::optional<long long> prompt_max, const std::string& prompt_from,
                             std::optional<long long> response_max, const std::string& response_from) {
  const long long prompt_mean = AssumedMean(kPlaceholderPromptMean, prompt_max);
  const long long response_mean = AssumedMean(kPlaceholderResponseMean, response_max);
  out.Assume("environment", "prompt_tokens",
             fmt::format("{{mean: {}, cv: 0.5{}}}", prompt_mean, prompt_max ? fmt::format(", max: {}", *prompt_max) : ""),
             LengthWhy("prompt", kPlaceholderPromptMean, prompt_mean, prompt_max, prompt_from, "put your data's"));
  out.Assume("environment", "response_tokens",
             fmt::format("{{mean: {}, cv: 1.0{}}}", response_mean,
                         response_max ? fmt::format(", max: {}", *response_max) : ""),
             LengthWhy("response", kPlaceholderResponseMean, response_mean, response_max, response_from,
                       "measure them with a pilot or rlcost calibrate"));
  out.Assume("environment", "reward", "{type: outcome}", "one reward per trajectory");
  out.Assume("environment", "pass_rate", "{mean: 0.35, concentration: 2}",
             "the scenario format's default; a pilot's pass rates belong here");
  return prompt_mean;
}

std::optional<long long> PositiveLength(ConfigTree& tree, const std::string& key) {
  auto v = tree.Int(key);
  if (v && *v < 1) {
    tree.problems().push_back(
        tree.ProblemAt(key, fmt::format("{} is {}; expected a length of at least 1 token", key, *v)));
    return std::nullopt;
  }
  return v;
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
  // Each line's config key: the first dotted word of its comment that the
  // config holds.
  int line_no = 0;
  for (size_t start = 0; start < r.yaml.size();) {
    const size_t end = std::min(r.yaml.find('\n', start), r.yaml.size());
    const std::string line = r.yaml.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const size_t hash = line.find("  # ");
    if (line.empty() || line[0] == '#' || hash == std::string::npos) continue;
    const std::string comment = line.substr(hash + 4);
    for (size_t i = 0; i < comment.size();) {
      size_t j = comment.find_first_of(" ,;:()", i);
      if (j == std::string::npos) j = comment.size();
      std::string word = comment.substr(i, j - i);
      i = j + 1;
      while (!word.empty() && word.back() == '.') word.pop_back();
      if (word.find('.') == std::string::npos || !tree.Has(word)) continue;
      Problem p = tree.ProblemAt(word, "");
      r.sources.emplace(line_no, std::move(p));
      break;
    }
  }
  return r;
}

Error InConfigTerms(const ImportedScenario& imported, Error error, const std::string& label,
                    const std::string& config) {
  for (Problem& p : error.problems) {
    if (p.file != label) continue;
    auto it = p.line > 0 ? imported.sources.find(p.line) : imported.sources.end();
    if (it == imported.sources.end()) {
      p.message += fmt::format(" (in the scenario written from {}: the config itself may be fine; this is rlcost's "
                               "importer at fault, please report it)",
                               config);
      p.file = config;
      p.line = 0;
      continue;
    }
    p.message = fmt::format("{} (the scenario's {}, written from this key)", p.message, p.path);
    p.path = it->second.path;
    p.file = it->second.file;
    p.line = it->second.line;
  }
  return error;
}

}  // namespace rlcost::ingest
