// Internal: typed, problem-collecting access to a YAML document. Every getter
// records a Problem (dotted path, value, what was expected, line) instead of
// throwing, so one pass reports every mistake in a scenario.
//
//   scenario_internal::Reader r("run.yaml");
//   YAML::Node hw = r.Map(root, "hardware", "hardware", {"gpu", "gpus"});
//   r.Int(hw, "gpus", "hardware", s.hardware.gpus, /*min=*/1);
//   if (!r.problems().empty()) ...
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/error.h"

namespace rlcost::scenario_internal {

// "a.b" + "c" -> "a.b.c"; "" + "c" -> "c".
std::string Join(const std::string& path, std::string_view key);
// 1-based line of a node, 0 when unknown (null or synthesised nodes).
int LineOf(const YAML::Node& node);
// The node's scalar as written, or "a mapping" / "a list" / "null".
std::string Describe(const YAML::Node& node);
// A number as a user would write it: 2000, 0.35, 1e+06.
std::string Num(double v);

// A number read without an explicit upper bound must stay below this.
inline constexpr double kMaxPlausible = 1e12;

// Allowed values of a number.
struct Range {
  std::optional<double> min;  // inclusive unless min_exclusive
  bool min_exclusive = false;
  std::optional<double> max;  // inclusive unless max_exclusive
  bool max_exclusive = false;
};

// What Reader::Int and Reader::Double accept, as predicates on a number
// already decoded: Int takes a whole number of at most 1e15 in magnitude
// within [min_value, max_value]; Double a finite number within `range`, and
// below kMaxPlausible in magnitude when the range has no upper bound. The
// readers pass a value exactly when these say so (spec/fast_override uses
// them to check a `--set` value without building a YAML node).
bool IntAccepts(double v, int min_value, int max_value = 1'000'000'000);
bool DoubleAccepts(double v, const Range& range);

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  // Paths set by `--set`: problems at or under them name "set" as the file (the command line shows --set).
  void SetOverridePaths(std::vector<std::string> paths) { override_paths_ = std::move(paths); }

  void Add(const YAML::Node& at, const std::string& path, std::string message);
  void AddAtLine(int line, const std::string& path, std::string message, const std::string& file);
  void Append(std::vector<Problem> problems, const YAML::Node& at);
  const std::vector<Problem>& problems() const { return problems_; }
  std::vector<Problem> TakeProblems() { return std::move(problems_); }
  const std::string& file() const { return file_; }

  // The child `key` of mapping `parent`, or an undefined node when absent or null.
  static YAML::Node Child(const YAML::Node& parent, std::string_view key);
  // Reports keys of `node` not in `allowed` (with did-you-mean) and duplicate keys.
  // Returns false (and reports) when `node` is defined but not a mapping.
  bool CheckKeys(const YAML::Node& node, const std::string& path, const std::vector<std::string>& allowed);

  // Typed reads of a scalar node; nullopt (and a problem) on a wrong type.
  std::optional<double> AsNumber(const YAML::Node& node, const std::string& path);
  std::optional<int64_t> AsInt(const YAML::Node& node, const std::string& path);
  std::optional<bool> AsBool(const YAML::Node& node, const std::string& path);
  std::optional<std::string> AsString(const YAML::Node& node, const std::string& path);

  // Field readers: leave `out` untouched when the key is absent; check ranges.
  bool Double(const YAML::Node& map, std::string_view key, const std::string& parent, double& out,
              Range range = {});
  // `max_why` says where `max_value` comes from; without one the bound is 1e9.
  bool Int(const YAML::Node& map, std::string_view key, const std::string& parent, int& out, int min_value,
           int max_value = 1'000'000'000, std::string_view max_why = {});
  bool Bool(const YAML::Node& map, std::string_view key, const std::string& parent, bool& out);
  bool String(const YAML::Node& map, std::string_view key, const std::string& parent, std::string& out);
  template <typename E>
  bool Enum(const YAML::Node& map, std::string_view key, const std::string& parent, E& out,
            std::optional<E> (*parse)(std::string_view), const std::string& accepted) {
    YAML::Node n = Child(map, key);
    if (!n.IsDefined()) return false;
    std::string path = Join(parent, key);
    auto s = AsString(n, path);
    if (!s) return false;
    auto v = parse(*s);
    if (!v) {
      Add(n, path, "unknown value '" + *s + "'; expected " + accepted);
      return false;
    }
    out = *v;
    return true;
  }
  // Checks `v` against `range`; reports "<v> is ...; expected ..." at `path`.
  bool CheckRange(const YAML::Node& at, const std::string& path, double v, const Range& range);

 private:
  std::string file_;
  std::vector<std::string> override_paths_;
  std::vector<Problem> problems_;
};

}  // namespace rlcost::scenario_internal
