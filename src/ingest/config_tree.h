// Internal to src/ingest: a framework's YAML config with command-line
// overrides applied (Hydra's `key=value`, `+key=value`), read leaf by leaf,
// remembering which keys were read so the rest can be listed; and the
// scenario text the importers write, with a comment per line.
//
//   auto tree = ConfigTree::Load(path, {"data.train_batch_size=512"});
//   int n = tree->Int("actor_rollout_ref.rollout.n").value_or(1);
//   for (auto& k : tree->Unread()) ...;   // keys with no counterpart
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/error.h"

namespace rlcost::ingest {

class ConfigTree {
 public:
  // Reads `path` (following NeMo RL's `defaults: other.yaml`, relative to the
  // file, and Hydra's defaults lists as veRL's configs use them: each listed
  // config group's file from the config's folder, placed at its package, the
  // file's own keys where `_self_` stands or last), then applies `overrides`
  // in order. docs/model.md, "Importing veRL and NeMo RL configs".
  static Result<ConfigTree> Load(const std::string& path, const std::vector<std::string>& overrides);
  static Result<ConfigTree> FromText(const std::string& text, const std::string& origin,
                                     const std::vector<std::string>& overrides);

  bool Has(const std::string& key) const;
  // The leaf as text ("" when absent or null); marks it read.
  std::optional<std::string> String(const std::string& key);
  std::optional<double> Number(const std::string& key);
  std::optional<long long> Int(const std::string& key);
  std::optional<bool> Bool(const std::string& key);
  // Int / Bool, or none while the config holds the leaf as an unresolved
  // ${...} (OmegaConf resolvers such as oc.select or mul stay as written).
  std::optional<long long> IntIfPlain(const std::string& key);
  std::optional<bool> BoolIfPlain(const std::string& key);

  // Problems met while reading typed values (a non-number where one is expected).
  std::vector<Problem>& problems() { return problems_; }
  // Defaults-list entries whose file was not found ("file:line: defaults
  // entry 'ppo_trainer' not read (...)"): their values are not in the tree.
  const std::vector<std::string>& NotRead() const { return not_read_; }
  // "key = value" for every leaf never read, in key order.
  std::vector<std::string> Unread() const;
  // Where a key's value came from: "file:line" or "command line".
  std::string Where(const std::string& key) const;
  const std::string& origin() const { return origin_; }
  // A problem at `key`, naming its file and line (or the command line).
  Problem ProblemAt(const std::string& key, std::string message) const;

 private:
  static Result<ConfigTree> FromNode(const YAML::Node& root, const std::string& origin,
                                     const std::vector<std::string>& overrides);
  void Flatten(const YAML::Node& n, const std::string& prefix, const std::string& file);
  void Apply(const YAML::Node& node, const std::string& package, const std::string& file);
  Result<ConfigTree> Finish(const std::vector<std::string>& overrides);
  std::string FileOf(const std::string& key) const;
  void Bad(const std::string& key, const std::string& expected);

  std::string origin_;
  std::map<std::string, std::string> leaves_;  // dotted key -> scalar text ("[...]" for lists)
  std::map<std::string, int> lines_;           // dotted key -> line in its file (0 = command line)
  std::map<std::string, std::string> files_;   // dotted key -> the file it came from (a defaults list's)
  std::set<std::string> read_;
  std::vector<std::string> not_read_;
  std::vector<Problem> problems_;
};

// The scenario an importer writes: sections in the scenario's order, each
// line `key: value  # comment`.
class ScenarioText {
 public:
  void Set(const std::string& section, const std::string& key, const std::string& value,
           const std::string& comment = "");
  // A line whose value is not in the source config: shown as ASSUMED.
  void Assume(const std::string& section, const std::string& key, const std::string& value, const std::string& why);
  void Header(const std::string& line) { header_.push_back(line); }
  void Footer(const std::string& line) { footer_.push_back(line); }
  std::string Render() const;

 private:
  struct Line {
    std::string key, value, comment;
  };
  std::vector<std::string> header_, footer_;
  std::vector<std::pair<std::string, std::vector<Line>>> sections_;
};

}  // namespace rlcost::ingest
