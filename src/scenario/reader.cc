#include "scenario/reader.h"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "rlcost/types.h"

namespace rlcost::scenario_internal {

std::string Join(const std::string& path, std::string_view key) {
  if (path.empty()) return std::string(key);
  return path + "." + std::string(key);
}

int LineOf(const YAML::Node& node) {
  try {
    if (!node.IsDefined()) return 0;
    YAML::Mark m = node.Mark();
    return m.is_null() || m.line < 0 ? 0 : m.line + 1;
  } catch (const YAML::Exception&) {
    return 0;
  }
}

std::string Describe(const YAML::Node& node) {
  if (!node.IsDefined() || node.IsNull()) return "null";
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  return "'" + node.Scalar() + "'";
}

std::string Num(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{:g}", v);
}

void Reader::Add(const YAML::Node& at, const std::string& path, std::string message) {
  for (const auto& o : override_paths_) {
    if (path == o || path.rfind(o + ".", 0) == 0) {
      problems_.push_back(Problem{path, std::move(message), 0, "set"});
      return;
    }
  }
  problems_.push_back(Problem{path, std::move(message), LineOf(at), file_});
}

void Reader::AddAtLine(int line, const std::string& path, std::string message, const std::string& file) {
  problems_.push_back(Problem{path, std::move(message), line, file});
}

void Reader::Append(std::vector<Problem> problems, const YAML::Node& at) {
  for (auto& p : problems) {
    if (p.file.empty()) {
      int line = p.line;
      Add(at, p.path, std::move(p.message));
      if (line > 0 && problems_.back().file == file_) problems_.back().line = line;
    } else {
      problems_.push_back(std::move(p));
    }
  }
}

YAML::Node Reader::Child(const YAML::Node& parent, std::string_view key) {
  try {
    if (!parent.IsDefined() || !parent.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
    const YAML::Node& cparent = parent;
    YAML::Node n = cparent[std::string(key)];
    if (!n.IsDefined() || n.IsNull()) return YAML::Node(YAML::NodeType::Undefined);
    return n;
  } catch (const YAML::Exception&) {
    return YAML::Node(YAML::NodeType::Undefined);
  }
}

bool Reader::CheckKeys(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed) {
  if (!node.IsDefined() || node.IsNull()) return false;
  if (!node.IsMap()) {
    Add(node, path, "expected a mapping, got " + Describe(node));
    return false;
  }
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const YAML::Node k = it->first;
    if (!k.IsScalar()) {
      Add(k, path, "expected a text key, got " + Describe(k));
      continue;
    }
    const std::string key = k.Scalar();
    std::string kpath = Join(path, key);
    if (!seen.insert(key).second) {
      Add(k, kpath, "duplicate key");
      continue;
    }
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == key;
    if (ok) continue;
    // An unknown key that only `--set` wrote is the command line's mistake.
    bool from_set = false;
    for (const auto& o : override_paths_) from_set = from_set || o == kpath || o.rfind(kpath + ".", 0) == 0;
    if (from_set) {
      std::string guess = ClosestMatch(key, allowed);
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      problems_.push_back(Problem{kpath,
                                  guess.empty() ? "unknown key; expected one of: " + list
                                                : "unknown key; did you mean '" + guess + "'?",
                                  0, "set"});
      continue;
    }
    std::string guess = ClosestMatch(key, allowed);
    if (!guess.empty()) {
      Add(k, kpath, "unknown key; did you mean '" + guess + "'?");
    } else {
      std::string list;
      for (const auto& a : allowed) list += (list.empty() ? "" : ", ") + a;
      Add(k, kpath, "unknown key; expected one of: " + list);
    }
  }
  return true;
}

std::optional<double> Reader::AsNumber(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    Add(node, path, "expected a number, got " + Describe(node));
    return std::nullopt;
  }
  if (node.Tag() == "!") {  // quoted: JSON's "8", YAML's '8' or "8"
    Add(node, path, "expected a number, got the text \"" + node.Scalar() + "\" (a quoted string; write the number "
                    "without quotes)");
    return std::nullopt;
  }
  double v = 0;
  const std::string& s = node.Scalar();
  // yaml-cpp also decodes ".inf"/".nan"; only finite numbers are meaningful here.
  if (!YAML::convert<double>::decode(node, v) || !std::isfinite(v)) {
    Add(node, path, "expected a number, got '" + s + "'");
    return std::nullopt;
  }
  return v;
}

std::optional<int64_t> Reader::AsInt(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    Add(node, path, "expected a whole number, got " + Describe(node));
    return std::nullopt;
  }
  if (node.Tag() == "!") {  // quoted: JSON's "8", YAML's '8' or "8"
    Add(node, path, "expected a whole number, got the text \"" + node.Scalar() + "\" (a quoted string; write the "
                    "number without quotes)");
    return std::nullopt;
  }
  double v = 0;
  if (!YAML::convert<double>::decode(node, v) || !std::isfinite(v) || v != std::floor(v)) {
    Add(node, path, "expected a whole number, got '" + node.Scalar() + "'");
    return std::nullopt;
  }
  // Every count a scenario holds is far below 1e15; past it a double no
  // longer holds each whole number exactly.
  if (std::abs(v) > 1e15) {
    Add(node, path, "'" + node.Scalar() + "' is out of range; expected a whole number of at most 1e9");
    return std::nullopt;
  }
  return static_cast<int64_t>(v);
}

std::optional<bool> Reader::AsBool(const YAML::Node& node, const std::string& path) {
  bool v = false;
  if (!node.IsScalar() || !YAML::convert<bool>::decode(node, v)) {
    Add(node, path, "expected true or false, got " + Describe(node));
    return std::nullopt;
  }
  return v;
}

std::optional<std::string> Reader::AsString(const YAML::Node& node, const std::string& path) {
  if (!node.IsScalar()) {
    Add(node, path, "expected text, got " + Describe(node));
    return std::nullopt;
  }
  return node.Scalar();
}

namespace {
std::string DescribeRange(const Range& r) {
  if (r.min && r.max) {
    return fmt::format("a number in {}{}, {}{}", r.min_exclusive ? "(" : "[", Num(*r.min), Num(*r.max),
                       r.max_exclusive ? ")" : "]");
  }
  if (r.min) return fmt::format("a number {} {}", r.min_exclusive ? ">" : ">=", Num(*r.min));
  if (r.max) return fmt::format("a number {} {}", r.max_exclusive ? "<" : "<=", Num(*r.max));
  return "a number";
}
}  // namespace

bool Reader::CheckRange(const YAML::Node& at, const std::string& path, double v, const Range& r) {
  bool ok = true;
  if (r.min) ok = ok && (r.min_exclusive ? v > *r.min : v >= *r.min);
  if (r.max) ok = ok && (r.max_exclusive ? v < *r.max : v <= *r.max);
  if (!ok) Add(at, path, Num(v) + " is out of range; expected " + DescribeRange(r));
  return ok;
}

bool IntAccepts(double v, int min_value, int max_value) {
  return std::isfinite(v) && v == std::floor(v) && std::abs(v) <= 1e15 && v >= min_value && v <= max_value;
}

bool DoubleAccepts(double v, const Range& r) {
  if (!std::isfinite(v)) return false;
  if (r.min && !(r.min_exclusive ? v > *r.min : v >= *r.min)) return false;
  if (r.max && !(r.max_exclusive ? v < *r.max : v <= *r.max)) return false;
  return r.max || std::abs(v) <= kMaxPlausible;
}

bool Reader::Double(const YAML::Node& map, std::string_view key, const std::string& parent, double& out, Range range) {
  YAML::Node n = Child(map, key);
  if (!n.IsDefined()) return false;
  std::string path = Join(parent, key);
  auto v = AsNumber(n, path);
  if (!v) return false;
  if (DoubleAccepts(*v, range)) {
    out = *v;
    return true;
  }
  // Refused: say why (out of range, else implausibly large).
  if (CheckRange(n, path, *v, range)) {
    Add(n, path, fmt::format("{} is implausibly large; expected at most {:g} (no length, time, price or count of a "
                             "training run comes near it, and larger values overflow the run's totals)",
                             Num(*v), kMaxPlausible));
  }
  return false;
}

bool Reader::Int(const YAML::Node& map, std::string_view key, const std::string& parent, int& out, int min_value,
                 int max_value, std::string_view max_why) {
  YAML::Node n = Child(map, key);
  if (!n.IsDefined()) return false;
  std::string path = Join(parent, key);
  auto v = AsInt(n, path);
  if (!v) return false;
  if (IntAccepts(static_cast<double>(*v), min_value, max_value)) {
    out = static_cast<int>(*v);
    return true;
  }
  // Refused: say why.
  if (*v < min_value) {
    Add(n, path, fmt::format("{} is out of range; expected a whole number >= {}", *v, min_value));
    return false;
  }
  if (*v > max_value) {
    Add(n, path, max_why.empty() ? fmt::format("{} is implausibly large; expected at most {}", *v, max_value)
                                 : fmt::format("{} is out of range; expected at most {} ({})", *v, max_value, max_why));
  }
  return false;
}

bool Reader::Bool(const YAML::Node& map, std::string_view key, const std::string& parent, bool& out) {
  YAML::Node n = Child(map, key);
  if (!n.IsDefined()) return false;
  auto v = AsBool(n, Join(parent, key));
  if (!v) return false;
  out = *v;
  return true;
}

bool Reader::String(const YAML::Node& map, std::string_view key, const std::string& parent, std::string& out) {
  YAML::Node n = Child(map, key);
  if (!n.IsDefined()) return false;
  auto v = AsString(n, Join(parent, key));
  if (!v) return false;
  out = *v;
  return true;
}

}  // namespace rlcost::scenario_internal
