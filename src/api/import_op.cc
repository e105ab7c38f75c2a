// Another tool's files as rlcost input (api/import_op.h).
#include "api/import_op.h"

#include <filesystem>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "api/run.h"
#include "api/ops.h"
#include "core/file.h"
#include "ingest/hf_config.h"
#include "ingest/import.h"

namespace rlcost::ops {
namespace {

// Writes `text` to `path` whole or not at all (WriteFileAtomic: beside the
// target, renamed only over a regular file), never over one of the command's
// `inputs`; "" or "-" writes nothing (the caller shows the text).
Result<bool> WriteOutput(const std::string& text, const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty() || path == "-") return false;
  if (auto ok = CheckOutputNotInput(path, "output", inputs); !ok) return Fail(ok.error());
  if (auto ok = WriteFileAtomic(path, text, "output"); !ok) return Fail(ok.error());
  return true;
}

std::string Lower(std::string s) {
  for (char& c : s) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return s;
}

std::string CatalogYaml(const ModelSpec& m, const ingest::HfArchitecture& a, const std::string& use) {
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
  std::string head = "# From " + a.file + " (rlcost import hf-model)." + (use.empty() ? "" : " " + use) + "\n";
  if (a.mtp_layers > 0) {
    head += fmt::format("# Not counted: the {} multi-token-prediction layer(s) (num_nextn_predict_layers), "
                        "which training and serving without speculative decoding do not run.\n",
                        a.mtp_layers);
  }
  return head + e.c_str() + "\n";
}

}  // namespace

Result<void> ImportHfInput::Validate() const {
  if (dir.empty()) return Fail(Error::Invalid("dir", "missing; expected a model folder holding config.json, or the file"));
  return {};
}

Result<ImportOutcome> ImportHfModel(const ImportHfInput& in) {
  if (auto ok = in.Validate(); !ok) return Fail(ok.error());
  // Refused before any work: an output that is the config itself.
  const std::string config = std::filesystem::is_directory(in.dir) ? in.dir + "/config.json" : in.dir;
  if (!in.output.empty() && in.output != "-") {
    if (auto ok = CheckOutputNotInput(in.output, "output", {config}); !ok) return Fail(ok.error());
  }
  auto arch = ingest::ReadHfConfig(in.dir);
  if (!arch) return Fail(arch.error());
  std::string id = in.id.empty() ? Lower(std::filesystem::path(arch->file).parent_path().filename().string()) : in.id;
  if (id.empty()) id = "imported-model";
  ImportOutcome out;
  out.text = CatalogYaml(ingest::ToModelSpec(*arch, id), *arch, in.use);
  auto written = WriteOutput(out.text, in.output, {arch->file});
  if (!written) return Fail(written.error());
  out.written = *written;
  return out;
}

Result<void> ImportScenarioInput::Validate() const {
  if (source.empty()) {
    return Fail(Error::Invalid("source", kind == ImportKind::kHarbor ? "missing; expected a Harbor task or dataset folder"
                                                                    : "missing; expected a YAML config"));
  }
  if (kind == ImportKind::kHarbor && !overrides.empty()) {
    return Fail(Error::Invalid("overrides", "a Harbor task takes none; expected key=value overrides only for a config"));
  }
  return {};
}

Result<ImportOutcome> ImportScenario(const ImportScenarioInput& in) {
  if (auto ok = in.Validate(); !ok) return Fail(ok.error());
  const bool config = in.kind != ImportKind::kHarbor;
  std::vector<std::string> inputs = in.catalog_files;
  if (config) {
    inputs.push_back(in.source);
    // Refused before any work: an output that is one of the inputs.
    if (!in.output.empty() && in.output != "-") {
      if (auto ok = CheckOutputNotInput(in.output, "output", inputs); !ok) return Fail(ok.error());
    }
  }
  ScenarioInput cat_in;
  cat_in.catalog_files = in.catalog_files;
  auto cat = CatalogOf(cat_in);
  if (!cat) return Fail(cat.error());
  const ingest::ImportOptions opt{in.gpu, config ? "" : in.model, in.gpu_name, in.model_name};
  auto imported = in.kind == ImportKind::kVerl     ? ingest::ImportVerl(in.source, in.overrides, **cat, opt)
                  : in.kind == ImportKind::kNemoRl ? ingest::ImportNemoRl(in.source, in.overrides, **cat, opt)
                                                   : ingest::ImportHarbor(in.source, **cat, opt);
  if (!imported) return Fail(imported.error());
  // The scenario must load as written, before anything is written.
  if (auto check = LoadScenarioText(imported->yaml, **cat, "the imported scenario", "."); !check) {
    if (!config) return Fail(check.error());
    return Fail(ingest::InConfigTerms(*imported, check.error(), "the imported scenario", in.source));
  }
  ImportOutcome out;
  out.text = imported->yaml;
  auto written = WriteOutput(out.text, in.output, inputs);
  if (!written) return Fail(written.error());
  out.written = *written;
  if (config && !imported->unmapped.empty()) {
    out.notes.push_back(fmt::format("{} keys of the config have no counterpart in the scenario format; they are "
                                    "listed at the end of the scenario",
                                    imported->unmapped.size()));
  }
  if (config) out.notes.insert(out.notes.end(), imported->not_read.begin(), imported->not_read.end());
  return out;
}

}  // namespace rlcost::ops
