#include "scenario/document.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/file.h"
#include "core/yaml.h"
#include "rlcost/embedded.h"
#include "scenario/overrides.h"

namespace rlcost::scenario_internal {

Result<ScenarioDocument> ScenarioDocument::FromFile(const std::string& path) {
  if (path.empty()) {
    auto text = EmbeddedFile("default.yaml");
    if (!text) return Fail(ErrorCode::kInternal, "", "the built-in default scenario is not embedded");
    return FromText(std::string(*text), "default.yaml", ".", "");
  }
  auto file = ReadScenarioFile(path);
  if (!file) return Fail(file.error());
  return FromText(std::move(file->text), std::move(file->origin), std::move(file->base), path);
}

Result<ScenarioFileText> ReadScenarioFile(const std::string& path) {
  std::error_code ec;
  if (path != kStdinPath && !std::filesystem::exists(path, ec)) {  // "-": standard input
    Error e(ErrorCode::kNotFound, "", "scenario file not found");
    e.problems.back().file = path;
    return Fail(std::move(e));
  }
  auto text = ReadBoundedFile(path, kMaxScenarioBytes, "scenario file");
  if (!text) return Fail(text.error());
  std::string base = std::filesystem::path(path).parent_path().string();
  return ScenarioFileText{std::move(*text), path == kStdinPath ? "<stdin>" : path, base.empty() ? "." : base};
}

Result<ScenarioDocument> ScenarioDocument::FromText(std::string text, std::string origin, std::string base_dir,
                                                    std::string source_path) {
  ScenarioDocument d;
  auto root = LoadOneYamlDocument(text, origin, "a scenario file");
  if (!root) return Fail(root.error());
  d.root_ = *root;
  d.text_ = std::move(text);
  d.origin_ = std::move(origin);
  d.base_dir_ = std::move(base_dir);
  d.source_path_ = std::move(source_path);
  return d;
}

Result<Scenario> ScenarioDocument::Load(const Catalog& catalog, const std::vector<Override>& overrides) const {
  auto s = LoadScenarioNode(YAML::Clone(root_), catalog, origin_, base_dir_, overrides);
  if (s) s->source_path = source_path_;
  return s;
}

}  // namespace rlcost::scenario_internal
