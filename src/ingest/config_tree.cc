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

// One file's content placed at a dotted package ("" = the top level), in the
// order the composition applies them (later wins).
struct Layer {
  std::string package;
  YAML::Node node;
  std::string file;
};

std::string JoinPackage(const std::string& parent, const std::string& child) {
  if (parent.empty()) return child;
  if (child.empty()) return parent;
  return parent + "." + child;
}

std::string DotsFor(std::string group) {
  for (char& c : group) {
    if (c == '/') c = '.';
  }
  return group;
}

// `a/b/../c` -> `a/c`; a path that climbs above the config folder is refused
// by the caller (it names a file outside the folder the user gave).
std::string NormalGroup(const std::string& containing, const std::string& rel) {
  if (!rel.empty() && rel.front() == '/') return std::filesystem::path(rel.substr(1)).lexically_normal().generic_string();
  std::string g = (std::filesystem::path(containing) / rel).lexically_normal().generic_string();
  while (!g.empty() && g.back() == '/') g.pop_back();
  return g == "." ? "" : g;
}

struct Composer {
  std::vector<std::string> roots;  // where config groups are looked up: the primary config's folder, then
                                   // its hydra.searchpath folders (file://), in order
  std::vector<Layer> layers;
  std::vector<std::string> not_found;  // defaults entries whose file is in none of the roots
  std::vector<std::string> chain;  // files being composed (a loop check)

  Error FileError(const std::string& file, const std::string& key, std::string msg) {
    Error e;
    e.problems.push_back(Problem{key, std::move(msg), 0, file});
    return e;
  }

  // Composes `path` (in config group `group`, a folder under the roots) at
  // `package`: its defaults first, in their order, with the file's own keys
  // where `_self_` stands (at the end when it is not listed: Hydra 1.1's
  // order, the file overriding what it lists).
  Result<bool> Add(const std::string& path, const std::string& group, const std::string& package) {
    if (chain.size() > 16) return Fail(FileError(path, "defaults", "more than 16 levels of defaults"));
    for (const auto& c : chain) {
      if (c == path) return Fail(FileError(path, "defaults", "the defaults come back to this file (a loop)"));
    }
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
    if (root.IsNull()) root = YAML::Node(YAML::NodeType::Map);  // an empty group file
    if (!root.IsMap()) return Fail(FileError(path, "", "expected a mapping of config keys at the top level"));
    chain.push_back(path);
    if (chain.size() == 1) AddSearchPath(root, path);
    YAML::Node d = root["defaults"];
    if (d && d.IsScalar()) {  // NeMo RL: `defaults: ../../grpo_math_1B.yaml`, a file relative to this one
      const std::string base = (std::filesystem::path(path).parent_path() / d.Scalar()).lexically_normal().string();
      auto ok = Add(base, group, package);
      if (!ok) return ok;
    }
    bool self_done = false;
    if (d && d.IsSequence()) {  // Hydra's Defaults List
      for (const auto& entry : d) {
        if (entry.IsScalar() && entry.Scalar() == "_self_") {
          layers.push_back(Layer{package, root, path});
          self_done = true;
          continue;
        }
        auto ok = Entry(entry, path, group, package);
        if (!ok) return ok;
      }
    } else if (d && !d.IsScalar() && !d.IsNull()) {
      return Fail(FileError(path, "defaults", "expected a file name (NeMo RL) or a list of configs (Hydra's defaults list)"));
    }
    if (!self_done) layers.push_back(Layer{package, root, path});
    chain.pop_back();
    return true;
  }

  // hydra.searchpath: `file://DIR` entries, DIR as written when absolute,
  // else relative to the current folder (where Hydra resolves it) and, failing
  // that, to the config's folder. `pkg://` (installed packages) is not read.
  void AddSearchPath(const YAML::Node& root, const std::string& path) {
    const YAML::Node h = root["hydra"];
    if (!h.IsDefined() || !h.IsMap()) return;
    const YAML::Node sp = h["searchpath"];
    if (!sp.IsDefined() || !sp.IsSequence()) return;
    for (const auto& e : sp) {
      if (!e.IsScalar() || e.Scalar().rfind("file://", 0) != 0) continue;
      const std::filesystem::path dir = e.Scalar().substr(7);
      std::error_code ec;
      if (dir.is_absolute()) {
        roots.push_back(dir.string());
      } else if (std::filesystem::is_directory(dir, ec)) {
        roots.push_back(dir.string());
      } else {
        roots.push_back((std::filesystem::path(path).parent_path() / dir).lexically_normal().string());
      }
    }
  }

  // One entry of a Defaults List (hydra.cc, "The Defaults List"):
  //   CONFIG_GROUP[@PACKAGE]: OPTION   (optional / override before it; null: none)
  //   [CONFIG_GROUP/]CONFIG_NAME[@PACKAGE]
  Result<bool> Entry(const YAML::Node& entry, const std::string& file, const std::string& group,
                     const std::string& package) {
    std::string key, option;
    bool optional = false;
    std::vector<std::string> options;
    const int line = entry.Mark().is_null() ? 0 : entry.Mark().line + 1;
    auto bad = [&](std::string msg) {
      Error e;
      e.problems.push_back(Problem{"defaults", std::move(msg), line, file});
      return Fail(std::move(e));
    };
    bool is_config = false;  // a CONFIG entry (a file), not a group's option
    if (entry.IsScalar()) {
      key = entry.Scalar();
      is_config = true;
    } else if (entry.IsMap() && entry.size() == 1) {
      auto it = entry.begin();
      key = it->first.IsScalar() ? it->first.Scalar() : "";
      const YAML::Node v = it->second;
      if (v.IsNull() || !v.IsDefined()) return true;  // a place-holder: ignored when not overridden
      if (v.IsScalar()) {
        options.push_back(v.Scalar());
      } else if (v.IsSequence()) {
        for (const auto& o : v) {
          if (!o.IsScalar()) return bad("expected a config name in the list of options of '" + key + "'");
          options.push_back(o.Scalar());
        }
      } else {
        return bad("expected a config name as the option of '" + key + "'");
      }
    } else {
      return bad("expected a config name or one 'group: option' pair in the defaults list");
    }
    for (const char* word : {"optional ", "override "}) {
      if (key.rfind(word, 0) == 0) {
        optional = optional || std::string(word) == "optional ";
        key = key.substr(std::string(word).size());
      }
    }
    if (key.empty()) return bad("an empty name in the defaults list");
    if (key.rfind("hydra/", 0) == 0 || key == "hydra" || key.rfind("/hydra/", 0) == 0) return true;  // Hydra's own settings
    std::string pkg;
    bool has_pkg = false;
    if (auto at = key.find('@'); at != std::string::npos) {
      pkg = key.substr(at + 1);
      key = key.substr(0, at);
      has_pkg = true;
    }
    auto place = [&](const std::string& child_group) {
      if (has_pkg) {
        if (pkg == "_global_") return std::string();
        if (pkg.rfind("_global_.", 0) == 0) return pkg.substr(9);
        return JoinPackage(package, pkg);
      }
      // Hydra's default package (_group_), relative to the containing config's.
      std::string rel = child_group;
      if (!group.empty() && child_group.rfind(group + "/", 0) == 0) rel = child_group.substr(group.size() + 1);
      else if (child_group == group) rel = "";
      return JoinPackage(package, DotsFor(rel));
    };
    std::vector<std::pair<std::string, std::string>> files;  // (path under a root, its group)
    if (is_config) {
      const std::string resolved = NormalGroup(group, key);
      const std::string g = std::filesystem::path(resolved).parent_path().generic_string();
      files.push_back({resolved + ".yaml", g});
    } else {
      const std::string g = NormalGroup(group, key);
      for (const auto& o : options) {
        if (o == "???") return bad("'" + key + "' has no option chosen (\"???\" in the file); it is chosen on the launch command line, which "
                                        "this import does not read: pass the group's file instead");
        files.push_back({g + "/" + o + ".yaml", g});
      }
    }
    for (const auto& [rel, g] : files) {
      if (g.rfind("..", 0) == 0) return bad("'" + key + "' points outside the config folder");
      std::string f;
      std::error_code ec;
      for (const auto& r : roots) {
        const std::string candidate = (std::filesystem::path(r) / rel).lexically_normal().string();
        if (std::filesystem::is_regular_file(candidate, ec)) {
          f = candidate;
          break;
        }
      }
      if (f.empty()) {
        // Not an error: the import reads what it can; the framework's own
        // defaults (`framework:`) stand in for a base config that is not here.
        if (!optional) {
          std::string where;
          for (const auto& r : roots) where += (where.empty() ? "" : ", ") + r;
          not_found.push_back(file + ":" + std::to_string(line) + ": defaults entry '" + key +
                              (options.empty() ? "" : ": " + options.front()) + "' not read (no " + rel + " under " +
                              where + ")");
        }
        continue;
      }
      const std::string at = place(g);
      auto ok = Add(f, g, at);
      if (!ok) return ok;
    }
    return true;
  }
};

}  // namespace

Result<ConfigTree> ConfigTree::Load(const std::string& path, const std::vector<std::string>& overrides) {
  Composer c;
  c.roots.push_back(std::filesystem::path(path).parent_path().string());
  if (c.roots.front().empty()) c.roots.front() = ".";
  auto ok = c.Add(path, "", "");
  if (!ok) return Fail(ok.error());
  ConfigTree t;
  t.origin_ = path;
  t.not_read_ = c.not_found;
  for (const auto& layer : c.layers) t.Apply(layer.node, layer.package, layer.file);
  return t.Finish(overrides);
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
  if (root.IsMap()) t.Apply(root, "", origin);
  return t.Finish(overrides);
}

// One layer over what is there: a leaf replaces what was under its key, a
// mapping merges key by key (OmegaConf's merge). The layer's own `defaults`
// list is not part of the config (Hydra).
void ConfigTree::Apply(const YAML::Node& node, const std::string& package, const std::string& file) {
  if (!node.IsMap()) {
    Flatten(node, package, file);
    return;
  }
  if (!package.empty()) leaves_.erase(package);  // a mapping replaces a leaf at its key
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string k = it->first.IsScalar() ? it->first.Scalar() : "?";
    if (k == "defaults") continue;
    Flatten(it->second, package.empty() ? k : package + "." + k, file);
  }
}

Result<ConfigTree> ConfigTree::Finish(const std::vector<std::string>& overrides) {
  ConfigTree t = std::move(*this);
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
        t.files_.erase(it->first);
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

void ConfigTree::Flatten(const YAML::Node& n, const std::string& prefix, const std::string& file) {
  if (n.IsMap() && n.size() > 0) {
    leaves_.erase(prefix);
    for (auto it = n.begin(); it != n.end(); ++it) {
      const std::string k = it->first.IsScalar() ? it->first.Scalar() : "?";
      Flatten(it->second, prefix.empty() ? k : prefix + "." + k, file);
    }
    return;
  }
  if (n.IsMap()) return;  // an empty mapping adds nothing
  // A leaf replaces whatever was under its key.
  for (auto it = leaves_.lower_bound(prefix + "."); it != leaves_.end() && it->first.rfind(prefix + ".", 0) == 0;) {
    lines_.erase(it->first);
    files_.erase(it->first);
    it = leaves_.erase(it);
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
  files_[prefix] = file;
}

bool ConfigTree::Has(const std::string& key) const {
  auto it = leaves_.find(key);
  if (it != leaves_.end()) return !it->second.empty() && it->second != "null" && it->second != "~" && it->second != "???";
  for (const auto& [k, _] : leaves_) {
    if (k.rfind(key + ".", 0) == 0) return true;
  }
  return false;
}

std::optional<std::string> ConfigTree::String(const std::string& key) {
  auto it = leaves_.find(key);
  if (it == leaves_.end()) return std::nullopt;
  read_.insert(key);
  // "???" is OmegaConf's missing value: a key the launch command must set.
  if (it->second.empty() || it->second == "null" || it->second == "~" || it->second == "???") return std::nullopt;
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

namespace {
bool IsPlain(const std::optional<std::string>& s) { return s && !s->empty() && s->find("${") == std::string::npos; }
}  // namespace

std::optional<long long> ConfigTree::IntIfPlain(const std::string& key) {
  if (!IsPlain(String(key))) return std::nullopt;
  return Int(key);
}

std::optional<bool> ConfigTree::BoolIfPlain(const std::string& key) {
  if (!IsPlain(String(key))) return std::nullopt;
  return Bool(key);
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
  return it->second > 0 ? FileOf(key) + ":" + std::to_string(it->second) : "command line";
}

Problem ConfigTree::ProblemAt(const std::string& key, std::string message) const {
  auto it = lines_.find(key);
  if (it != lines_.end() && it->second == 0) return Problem{key, std::move(message), 0, "command line"};
  return Problem{key, std::move(message), it == lines_.end() ? 0 : it->second, FileOf(key)};
}

std::string ConfigTree::FileOf(const std::string& key) const {
  auto it = files_.find(key);
  return it == files_.end() || it->second.empty() ? origin_ : it->second;
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
