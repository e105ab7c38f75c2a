#include "ingest/config_tree.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/file.h"
#include "core/yaml.h"

namespace rlcost::ingest {
namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Deep merge: `over` wins; mappings merge key by key.
YAML::Node Merge(const YAML::Node& base, const YAML::Node& over) {
  if (!base.IsMap() || !over.IsMap()) return YAML::Clone(over);
  YAML::Node out = YAML::Clone(base);
  for (auto it = over.begin(); it != over.end(); ++it) {
    const std::string k = it->first.Scalar();
    out[k] = out[k] ? Merge(out[k], it->second) : YAML::Clone(it->second);
  }
  return out;
}

Result<YAML::Node> LoadWithDefaults(const std::string& path, int depth) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || std::filesystem::is_directory(path, ec)) {
    Error e(ErrorCode::kNotFound, "", "config file not found");
    e.problems.back().file = path;
    return Fail(std::move(e));
  }
  auto text = ReadBoundedFile(path, kMaxScenarioBytes, "config file");
  if (!text) return Fail(text.error());
  auto doc = LoadOneYamlDocument(*text, path, "a config file");
  if (!doc) return Fail(doc.error());
  YAML::Node root = *doc;
  if (!root.IsMap()) {
    Error e;
    e.problems.push_back(Problem{"", "expected a mapping of config keys at the top level", 0, path});
    return Fail(std::move(e));
  }
  YAML::Node d = root["defaults"];
  if (d && d.IsScalar()) {  // NeMo RL: `defaults: ../../grpo_math_1B.yaml`
    if (depth > 8) {
      Error e;
      e.problems.push_back(Problem{"defaults", "more than 8 levels of defaults (a loop?)", 0, path});
      return Fail(std::move(e));
    }
    const std::string base_path =
        (std::filesystem::path(path).parent_path() / d.Scalar()).lexically_normal().string();
    auto base = LoadWithDefaults(base_path, depth + 1);
    if (!base) return base;
    root.remove("defaults");
    return Merge(*base, root);
  }
  return root;
}

}  // namespace

Result<ConfigTree> ConfigTree::Load(const std::string& path, const std::vector<std::string>& overrides) {
  auto root = LoadWithDefaults(path, 0);
  if (!root) return Fail(root.error());
  return FromNode(*root, path, overrides);
}

Result<ConfigTree> ConfigTree::FromText(const std::string& text, const std::string& origin,
                                        const std::vector<std::string>& overrides) {
  auto doc = LoadOneYamlDocument(text, origin, "a config file");
  if (!doc) return Fail(doc.error());
  YAML::Node root = *doc;
  if (root.IsDefined() && !root.IsNull() && !root.IsMap()) {
    Error e;
    e.problems.push_back(Problem{"", "expected a mapping of config keys at the top level", 0, origin});
    return Fail(std::move(e));
  }
  return FromNode(root, origin, overrides);
}

Result<ConfigTree> ConfigTree::FromNode(const YAML::Node& root, const std::string& origin,
                                        const std::vector<std::string>& overrides) {
  ConfigTree t;
  t.origin_ = origin;
  if (root.IsMap()) t.Flatten(root, "");
  Error bad;
  for (const std::string& raw : overrides) {
    std::string o = Trim(raw);
    while (!o.empty() && o.front() == '+') o.erase(o.begin());  // Hydra: +key / ++key add a key
    const size_t eq = o.find('=');
    if (eq == std::string::npos || eq == 0) {
      bad.problems.push_back(Problem{"", "expected key=value (as veRL's launch scripts pass them), got '" + raw + "'",
                                     0, "command line"});
      continue;
    }
    const std::string key = Trim(o.substr(0, eq));
    std::string value = Trim(o.substr(eq + 1));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    // A new value for a mapping replaces everything under it.
    for (auto it = t.leaves_.begin(); it != t.leaves_.end();) {
      if (it->first.rfind(key + ".", 0) == 0) {
        t.lines_.erase(it->first);
        it = t.leaves_.erase(it);
      } else {
        ++it;
      }
    }
    t.leaves_[key] = value;
    t.lines_[key] = 0;
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  // OmegaConf interpolation of one key (`${policy.max_total_sequence_length}`),
  // as NeMo RL's configs use; resolvers such as ${mul:...} stay as written.
  for (int pass = 0; pass < 8; ++pass) {
    bool changed = false;
    for (auto& [k, v] : t.leaves_) {
      if (v.size() > 3 && v.rfind("${", 0) == 0 && v.back() == '}' && v.find(':') == std::string::npos) {
        auto ref = t.leaves_.find(v.substr(2, v.size() - 3));
        if (ref != t.leaves_.end() && ref->first != k) {
          v = ref->second;
          changed = true;
        }
      }
    }
    if (!changed) break;
  }
  return t;
}

void ConfigTree::Flatten(const YAML::Node& n, const std::string& prefix) {
  if (n.IsMap()) {
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : "?";
      Flatten(it->second, prefix.empty() ? k : prefix + "." + k);
    }
    return;
  }
  std::string text;
  if (n.IsScalar()) {
    text = n.Scalar();
  } else if (n.IsSequence()) {
    text = "[";
    for (size_t i = 0; i < n.size(); ++i) {
      text += (i ? ", " : "") + (n[i].IsScalar() ? n[i].Scalar() : std::string(n[i].IsMap() ? "{...}" : "[...]"));
    }
    text += "]";
  }  // null: ""
  leaves_[prefix] = text;
  const int line = n.Mark().line;
  lines_[prefix] = line >= 0 ? line + 1 : 0;
}

bool ConfigTree::Has(const std::string& key) const {
  auto it = leaves_.find(key);
  if (it != leaves_.end()) return !it->second.empty() && it->second != "null" && it->second != "~";
  for (const auto& [k, _] : leaves_) {
    if (k.rfind(key + ".", 0) == 0) return true;
  }
  return false;
}

std::optional<std::string> ConfigTree::String(const std::string& key) {
  auto it = leaves_.find(key);
  if (it == leaves_.end()) return std::nullopt;
  read_.insert(key);
  if (it->second.empty() || it->second == "null" || it->second == "~") return std::nullopt;
  return it->second;
}

void ConfigTree::Bad(const std::string& key, const std::string& expected) {
  problems_.push_back(ProblemAt(key, "expected " + expected + ", got '" + leaves_[key] + "'"));
}

std::optional<double> ConfigTree::Number(const std::string& key) {
  auto s = String(key);
  if (!s) return std::nullopt;
  try {
    size_t used = 0;
    double v = std::stod(*s, &used);
    if (used == s->size() && std::isfinite(v)) return v;
  } catch (const std::exception&) {
  }
  Bad(key, "a number");
  return std::nullopt;
}

std::optional<long long> ConfigTree::Int(const std::string& key) {
  auto v = Number(key);
  if (!v) return std::nullopt;
  if (*v != std::floor(*v) || std::fabs(*v) > 9e15) {
    Bad(key, "a whole number");
    return std::nullopt;
  }
  return static_cast<long long>(*v);
}

std::optional<bool> ConfigTree::Bool(const std::string& key) {
  auto s = String(key);
  if (!s) return std::nullopt;
  std::string l = *s;
  for (char& c : l) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (l == "true" || l == "yes" || l == "on") return true;
  if (l == "false" || l == "no" || l == "off") return false;
  Bad(key, "true or false");
  return std::nullopt;
}

std::vector<std::string> ConfigTree::Unread() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : leaves_) {
    if (!read_.count(k)) out.push_back(k + " = " + (v.empty() ? "null" : v));
  }
  return out;
}

std::string ConfigTree::Where(const std::string& key) const {
  auto it = lines_.find(key);
  if (it == lines_.end()) return "";
  return it->second > 0 ? origin_ + ":" + std::to_string(it->second) : "command line";
}

Problem ConfigTree::ProblemAt(const std::string& key, std::string message) const {
  auto it = lines_.find(key);
  if (it != lines_.end() && it->second == 0) return Problem{key, std::move(message), 0, "command line"};
  return Problem{key, std::move(message), it == lines_.end() ? 0 : it->second, origin_};
}

void ScenarioText::Set(const std::string& section, const std::string& key, const std::string& value,
                       const std::string& comment) {
  for (auto& [name, lines] : sections_) {
    if (name != section) continue;
    for (auto& l : lines) {
      if (l.key == key) {
        l = Line{key, value, comment};
        return;
      }
    }
    lines.push_back(Line{key, value, comment});
    return;
  }
  sections_.push_back({section, {Line{key, value, comment}}});
}

void ScenarioText::Assume(const std::string& section, const std::string& key, const std::string& value,
                          const std::string& why) {
  Set(section, key, value, "ASSUMED: " + why);
}

std::string ScenarioText::Render() const {
  std::string out;
  for (const auto& h : header_) out += "# " + h + "\n";
  for (const auto& [name, lines] : sections_) {
    const bool top = name.empty();
    if (!top) out += name + ":\n";
    for (const auto& l : lines) {
      std::string line = (top ? "" : "  ") + l.key + ": " + l.value;
      if (!l.comment.empty()) {
        if (line.size() < 48) line += std::string(48 - line.size(), ' ');
        line += "  # " + l.comment;
      }
      out += line + "\n";
    }
  }
  for (std::string f : footer_) {
    for (char& c : f) {
      if (c == '\n' || c == '\r') c = ' ';
    }
    out += "# " + f + "\n";
  }
  return out;
}

}  // namespace rlcost::ingest
