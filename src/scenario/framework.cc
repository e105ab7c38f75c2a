// `framework: NAME[@VERSION]`: a framework's defaults as data
// (catalog/frameworks/NAME.yaml). docs/model.md, "Frameworks".
#include "scenario/framework.h"

#include <fmt/format.h>

#include "core/yaml.h"
#include "rlcost/embedded.h"
#include "scenario/overrides.h"

namespace rlcost::scenario_internal {
namespace {

// Names a user may write; each has catalog/frameworks/<name>.yaml compiled in,
// every default read from the framework's own config files (docs/model.md,
// "Frameworks").
constexpr const char* kKnown[] = {"verl", "nemo-rl", "areal", "slime", "skyrl", "prime-rl", "openrlhf", "trl"};

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Whether root holds the dotted path (a mapping at every step).
bool Holds(const YAML::Node& root, const std::string& dotted) {
  YAML::Node at = root;
  size_t start = 0;
  while (true) {
    size_t dot = dotted.find('.', start);
    std::string key = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at.IsMap()) return false;
    YAML::Node next = at[key];
    if (!next.IsDefined() || next.IsNull()) return false;
    if (dot == std::string::npos) return true;
    at.reset(next);
    start = dot + 1;
  }
}

}  // namespace

std::vector<std::string> KnownFrameworks() { return {std::begin(kKnown), std::end(kKnown)}; }

void ApplyFramework(YAML::Node& root, const std::string& origin, std::string& resolved,
                    std::vector<FrameworkDefault>& supplied, std::vector<Problem>& problems) {
  if (!root.IsMap()) return;
  YAML::Node fw = root["framework"];
  if (!fw.IsDefined() || fw.IsNull()) return;
  const int line = fw.Mark().is_null() ? 0 : fw.Mark().line + 1;
  auto fail = [&](std::string msg) { problems.push_back(Problem{"framework", std::move(msg), line, origin}); };
  if (!fw.IsScalar()) {
    fail("expected a framework name, optionally with a version (verl, verl@0.4); known: " + Join(KnownFrameworks()));
    return;
  }
  const std::string text = fw.Scalar();
  const size_t at = text.find('@');
  const std::string name = text.substr(0, at);
  const std::string version = at == std::string::npos ? "" : text.substr(at + 1);
  bool known = false;
  for (const char* k : kKnown) known = known || name == k;
  if (!known) {
    fail(fmt::format("'{}' is not a known framework; expected one of {} (optionally @VERSION)", name,
                     Join(KnownFrameworks())));
    return;
  }
  auto file = EmbeddedFile(name + ".yaml");
  if (!file) {
    fail("the catalog file of framework '" + name + "' is not compiled in");
    return;
  }
  auto doc = LoadOneYamlDocument(*file, "catalog/frameworks/" + name + ".yaml", "a framework file");
  if (!doc) {
    fail("catalog/frameworks/" + name + ".yaml cannot be read: " + doc.error().ToString());
    return;
  }
  YAML::Node versions = (*doc)["versions"];
  if (!versions.IsSequence() || versions.size() == 0) {
    fail("catalog/frameworks/" + name + ".yaml lists no versions");
    return;
  }
  std::vector<std::string> ids;
  for (const auto& v : versions) ids.push_back(v["version"].IsScalar() ? v["version"].Scalar() : "");
  // `verl@` read as the newest release: a version left empty by mistake
  // would silently pick whatever is newest when the catalog changes (#40).
  if (at != std::string::npos && version.empty()) {
    fail(fmt::format("'{}' has an empty version after '@'; expected one of {} (or '{}' alone: the newest)", text,
                     Join(ids), name));
    return;
  }
  // No version: the newest listed (the last).
  YAML::Node chosen;
  bool found = false;
  std::vector<std::string> listed;
  for (const auto& v : versions) {
    const std::string id = v["version"].IsScalar() ? v["version"].Scalar() : "";
    listed.push_back(id);
    if (version.empty() || id == version) {
      chosen.reset(v);
      found = true;
    }
  }
  if (!found) {
    fail(fmt::format("'{}' has no version '{}' in the catalog; expected one of {} (or no version: the newest)", name,
                     version, Join(listed)));
    return;
  }
  resolved = name + "@" + chosen["version"].Scalar();
  for (const auto& d : chosen["defaults"]) {
    if (!d["field"].IsScalar() || !d["value"].IsDefined()) continue;
    const std::string field = d["field"].Scalar();
    if (Holds(root, field)) continue;  // the scenario's own value wins
    FrameworkDefault fd;
    fd.path = field;
    YAML::Node value = d["value"];
    // A mapping written as a quoted flow string ("{params: false}").
    if (value.IsScalar() && !value.Scalar().empty() && value.Scalar().front() == '{') value = YAML::Load(value.Scalar());
    YAML::Emitter out;
    out << YAML::Flow << value;
    fd.value = out.c_str();
    fd.source = d["source"].IsScalar() ? d["source"].Scalar() : "";
    // A mapping default (placement.offload) fills only the keys the scenario
    // left out.
    if (value.IsMap()) {
      for (const auto& kv : value) {
        const std::string sub = field + "." + kv.first.Scalar();
        if (Holds(root, sub)) continue;
        SetPath(root, sub, kv.second);
      }
    } else {
      SetPath(root, field, value);
    }
    supplied.push_back(std::move(fd));
  }
}

}  // namespace rlcost::scenario_internal
