// Internal: a scenario file read and parsed once, then loaded many times with
// different `--set`-style overrides (sweeps and searches apply one set per point).
//
//   auto doc = scenario_internal::ScenarioDocument::FromFile("run.yaml");   // "" = built-in default
//   auto s = doc->Load(catalog, {{"algorithm.group_size", "16"}});      // same as --set
//
// A document is not shared between threads: yaml-cpp nodes are not safe to read
// concurrently, so each thread builds its own from text().
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

// A scenario file's text as every scenario reader takes it: "-" is standard
// input, a missing file is "not found" with its path, the read is bounded.
// `origin` names it in messages; `base` is the folder its relative paths are
// read from.
struct ScenarioFileText {
  std::string text, origin, base;
};
Result<ScenarioFileText> ReadScenarioFile(const std::string& path);

class ScenarioDocument {
 public:
  // Reads `path` (empty = the built-in default scenario) and parses its YAML.
  static Result<ScenarioDocument> FromFile(const std::string& path);
  // `origin` names the text in messages; `base_dir` resolves relative file references.
  static Result<ScenarioDocument> FromText(std::string text, std::string origin, std::string base_dir,
                                           std::string source_path);

  // Exactly what LoadScenarioFile(path, catalog, overrides) returns, without re-reading the file.
  Result<Scenario> Load(const Catalog& catalog, const std::vector<Override>& overrides) const;

  const std::string& text() const { return text_; }
  const std::string& origin() const { return origin_; }
  const std::string& base_dir() const { return base_dir_; }
  const std::string& source_path() const { return source_path_; }
  // The parsed document, as read (Load works on a copy).
  const YAML::Node& root() const { return root_; }

 private:
  std::string text_, origin_, base_dir_, source_path_;
  YAML::Node root_;
};

}  // namespace rlcost::scenario_internal
