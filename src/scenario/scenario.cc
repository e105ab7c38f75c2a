// The scenario loader (SCENARIO.md, format version 1): YAML/JSON text ->
// overrides applied to the tree -> one validating pass that fills a Scenario
// and collects every problem with its dotted path and line.
#include "rlcost/scenario.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "catalog/parse.h"
#include "core/file.h"
#include "core/problems.h"
#include "core/utf8.h"
#include "core/yaml.h"
#include "ingest/foreign_keys.h"
#include "ingest/hf_config.h"
#include "rlcost/embedded.h"
#include "scenario/csv.h"
#include "scenario/document.h"
#include "scenario/curve_presets.h"
#include "scenario/fields.h"
#include "scenario/lever_spec.h"
#include "scenario/framework.h"
#include "scenario/overrides.h"
#include "scenario/reader.h"
#include "scenario/loader.h"

namespace rlcost {

double PassRateSpec::mean() const {
  switch (kind) {
    case Kind::kBeta: return a / (a + b);
    case Kind::kHistogram: {
      double m = 0, total = 0;
      for (const auto& [p, w] : histogram) {
        m += p * w;
        total += w;
      }
      return total > 0 ? m / total : 0;
    }
    case Kind::kTasks:
      if (task_pass_rates.empty()) return 0;
      return std::accumulate(task_pass_rates.begin(), task_pass_rates.end(), 0.0) /
             static_cast<double>(task_pass_rates.size());
  }
  return 0;
}

tl::expected<Distribution, std::string> LengthSchedule::At(double mean) const {
  if (kind == DistKind::kFixed && clipped == 0) return Distribution::Fixed(mean);
  std::optional<double> lo = min;
  if (lo && *lo > mean) lo = mean;
  return Distribution::Make(kind, mean, cv, lo, max, clipped);
}

double LengthSchedule::RunMean() const {
  if (mean_per_step.empty()) return 0;
  return std::accumulate(mean_per_step.begin(), mean_per_step.end(), 0.0) /
         static_cast<double>(mean_per_step.size());
}

namespace scenario_internal {

namespace {
std::vector<std::string> SplitPath(const std::string& dotted) {
  std::vector<std::string> keys;
  std::string cur;
  for (char c : dotted) {
    if (c == '.') {
      keys.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  keys.push_back(cur);
  return keys;
}

std::string TrimSpaces(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// yaml-cpp's handle semantics make `node = node[key]` overwrite the parent, so
// the walk recurses with fresh handles instead.
void SetKeys(YAML::Node node, const std::vector<std::string>& keys, size_t i, const YAML::Node& value) {
  const std::string& k = keys[i];
  if (i + 1 == keys.size()) {
    node[k] = value;
    return;
  }
  YAML::Node child = node[k];
  if (!child.IsDefined() || !child.IsMap()) node[k] = YAML::Node(YAML::NodeType::Map);
  SetKeys(node[k], keys, i + 1, value);
}
}  // namespace

void SetPath(YAML::Node& root, const std::string& dotted_path, const YAML::Node& value) {
  if (!root.IsDefined() || !root.IsMap()) root.reset(YAML::Node(YAML::NodeType::Map));
  SetKeys(root, SplitPath(dotted_path), 0, value);
}

Result<std::vector<Override>> ParseOverrides(const std::vector<std::string>& items) {
  std::vector<Override> out;
  Error err;
  for (const auto& s : items) {
    auto o = ParseOverride(s);
    if (o) {
      out.push_back(std::move(*o));
    } else {
      for (auto& p : o.error().problems) err.problems.push_back(std::move(p));
    }
  }
  if (!err.problems.empty()) return Fail(std::move(err));
  return out;
}


Scenario Loader::Load(const YAML::Node& root) {
  Scenario s;
  r_.CheckKeys(root, "", {"name", "model", "hardware", "placement", "environment", "algorithm", "precision",
                          "pipeline", "goal", "run", "expect", "framework", "engine", "energy"});
  r_.String(root, "name", "", s.name);
  ReadModel(root, s);
  bool gpu_ok = ReadHardware(root, s);
  ReadPlacement(root, s);
  ReadEnvironment(root, s.environment);
  CheckTrainPadding(root, s);
  ReadAlgorithm(root, s.algorithm);
  ReadResponseSchedule(root, s);  // needs algorithm.steps
  ReadRun(root, s);               // evaluation defaults to the environment's lengths
  ReadPrecision(root, s.precision, gpu_ok ? &s.hardware.gpu : nullptr);
  ReadPipeline(root, s.pipeline);
  model_id_ = s.model_id;  // a named curve says when it was measured on another model
  ReadGoal(root, s.goal);
  ReadExpect(root, s);
  ReadLeverSections(r_, root, s);  // engine, energy (spec/lever_spec.cc)
  return s;
}

// Padding to the maximum length needs the maxima it pads to; a multi-turn
// trajectory's padded shape (veRL's agent loop pads its whole response span)
// is not priced yet.
void Loader::CheckTrainPadding(const YAML::Node& root, const Scenario& s) {
  if (s.placement.train_padding != TrainPadding::kMaxLength) return;
  YAML::Node at = Reader::Child(Reader::Child(root, "placement"), "train_padding");
  const auto& env = s.environment;
  if (!std::isfinite(env.prompt_tokens.max()) || !std::isfinite(env.response_tokens.max())) {
    r_.Add(at, "placement.train_padding",
           "max-length pads every sequence to the maximum prompt + response length; expected "
           "environment.prompt_tokens.max and environment.response_tokens.max (veRL's data.max_prompt_length and "
           "data.max_response_length)");
  } else if (env.turns.max() > 1.0) {
    r_.Add(at, "placement.train_padding",
           "max-length is not yet priced for multi-turn trajectories (environment.turns above 1); use packed");
  }
}

std::string Loader::Resolve(const std::string& rel) const {
  std::filesystem::path p(rel);
  if (p.is_absolute() || base_dir_.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(base_dir_) / p).lexically_normal().string();
}

// Reports a missing or unreadable file at `path`; true when it can be read.
bool Loader::CheckReadable(const YAML::Node& at, const std::string& path, const std::string& rel,
                   const std::string& resolved, bool folder_ok) {
  if (base_dir_ == kNoFileAccess) {
    r_.Add(at, path, "names the file '" + rel + "', but files cannot be read here; give the data inline");
    return false;
  }
  std::error_code ec;
  if (!std::filesystem::exists(resolved, ec)) {
    r_.Add(at, path, "file '" + rel + "' not found (looked for " + resolved + ")");
    return false;
  }
  if (folder_ok && std::filesystem::is_directory(resolved, ec)) return true;  // its config.json, read bounded
  if (!std::filesystem::is_regular_file(resolved, ec)) {
    r_.Add(at, path, "cannot read file '" + rel + "' (" + resolved + "): not a regular file");
    return false;
  }
  if (::access(resolved.c_str(), R_OK) != 0) {
    r_.Add(at, path, "cannot read file '" + rel + "' (" + resolved + ")");
    return false;
  }
  return true;
}

// Reads the CSV named by the scalar `file_n` (relative to the scenario);
// reports a missing, unreadable or malformed file at `path`. `resolved_out`
// receives the resolved path.
std::optional<CsvTable> Loader::ReadCsvField(const YAML::Node& file_n, const std::string& path,
                                     std::string* resolved_out, std::string* rel_out) {
  auto rel = r_.AsString(file_n, path);
  if (!rel) return std::nullopt;
  std::string resolved = Resolve(*rel);
  if (!CheckReadable(file_n, path, *rel, resolved)) return std::nullopt;
  auto t = ReadCsv(resolved);
  if (!t) {
    r_.Add(file_n, path, t.error());
    return std::nullopt;
  }
  *resolved_out = resolved;
  *rel_out = *rel;
  return std::move(*t);
}

}  // namespace scenario_internal

Result<Override> ParseOverride(std::string_view key_equals_value) {
  using scenario_internal::TrimSpaces;
  auto bad = [](std::string path, std::string msg) {
    Error e;
    e.code = ErrorCode::kInvalidInput;
    e.problems.push_back(Problem{std::move(path), std::move(msg), 0, "set"});
    return Fail(std::move(e));
  };
  size_t eq = key_equals_value.find('=');
  if (eq == std::string_view::npos) {
    return bad("", "expected key=value (e.g. model=qwen3-32b), got '" + std::string(key_equals_value) + "'");
  }
  Override o{TrimSpaces(key_equals_value.substr(0, eq)), TrimSpaces(key_equals_value.substr(eq + 1))};
  if (o.path.empty() || o.path.front() == '.' || o.path.back() == '.' || o.path.find("..") != std::string::npos) {
    return bad(o.path, "expected a dotted field path such as algorithm.group_size, got '" + o.path + "'");
  }
  if (o.value.empty()) return bad(o.path, "empty value; expected key=value");
  // Parsed to check it (aliases bounded: core/yaml.h); read again when applied.
  if (auto v = LoadYamlValue(o.value, o.path, "set"); !v) return Fail(v.error());
  return o;
}

Result<Scenario> LoadScenarioText(std::string_view text, const Catalog& catalog, const std::string& origin,
                                  const std::string& base_dir, const std::vector<Override>& overrides) {
  // One document per file, and nothing yaml-cpp would loop on (core/yaml.h).
  auto root = LoadOneYamlDocument(text, origin, "a scenario file");
  if (!root) return Fail(root.error());
  return scenario_internal::LoadScenarioNode(*root, catalog, origin, base_dir, overrides);
}

Result<Scenario> scenario_internal::LoadScenarioNode(YAML::Node root, const Catalog& catalog, const std::string& origin,
                                                 const std::string& base_dir,
                                                 const std::vector<Override>& overrides) {
  using namespace scenario_internal;
  Error err;
  err.code = ErrorCode::kInvalidInput;
  std::vector<std::string> override_paths;
  // What aliases may add, for all the --set values together (core/yaml.h):
  // every walk below is then bounded by the size of the text.
  size_t alias_budget = kMaxYamlAliasNodes;
  for (const auto& o : overrides) {
    // Another framework's key (veRL, NeMo RL): name the scenario field instead.
    if (const ingest::ForeignKey* k = ingest::FindForeignKey(o.path)) {
      std::string msg = "not a scenario field; did you mean " + k->scenario_path + " (" + k->tool + "'s " + k->key +
                        (k->how.empty() ? "" : "; " + k->how) + ")?";
      err.problems.push_back(Problem{o.path, std::move(msg), 0, "set"});
      continue;
    }
    // A mapping the flag creates is the flag's, not the file's: an unknown
    // key there is blamed on --set.
    if (root.IsMap()) {
      std::string prefix;
      YAML::Node at = root;
      for (const std::string& key : SplitPath(o.path)) {
        prefix = prefix.empty() ? key : prefix + "." + key;
        if (!at.IsMap() || !Reader::Child(at, key).IsDefined()) {
          if (prefix != o.path) override_paths.push_back(prefix);
          break;
        }
        at.reset(Reader::Child(at, key));  // reset: plain `=` would overwrite the node in the tree
      }
    }
    auto value = LoadYamlValue(o.value, o.path, "set", &alias_budget);
    if (!value) {
      for (auto& p : value.error().problems) err.problems.push_back(std::move(p));
      continue;
    }
    SetPath(root, o.path, *value);
    override_paths.push_back(o.path);
  }
  if (!err.problems.empty()) {
    CapProblems(err.problems);
    return Fail(std::move(err));
  }
  if (!root.IsDefined() || root.IsNull()) {
    err.problems.push_back(
        Problem{"", "empty scenario (no fields from line 1 on); expected a mapping with at least 'model' and 'hardware.gpu'",
                1, origin});
    return Fail(std::move(err));
  }
  if (!root.IsMap()) {
    err.problems.push_back(Problem{"", "expected a mapping of scenario fields at the top level, got " + Describe(root),
                                   LineOf(root), origin});
    return Fail(std::move(err));
  }
  // Text is UTF-8 end to end: a key or value that is not is refused here,
  // with its path, before anything echoes it (a terminal, a JSON error).
  // The first kMaxProblems are reported, the rest counted.
  size_t utf8_more = 0;
  auto add_utf8 = [&](Problem p) {
    if (err.problems.size() < kMaxProblems) {
      err.problems.push_back(std::move(p));
    } else {
      ++utf8_more;
    }
  };
  std::function<void(const YAML::Node&, const std::string&)> check_utf8 = [&](const YAML::Node& n,
                                                                              const std::string& path) {
    auto from_set = [&] {
      for (const auto& o : override_paths) {
        if (path == o || path.rfind(o + ".", 0) == 0) return true;
      }
      return false;
    };
    if (n.IsScalar()) {
      if (std::string why = Utf8Problem(n.Scalar()); !why.empty()) {
        const bool set = from_set();
        add_utf8(Problem{path, set ? why : why + "; save the file as UTF-8", set ? 0 : LineOf(n), set ? "set" : origin});
      }
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) check_utf8(n[i], path + "[" + std::to_string(i) + "]");
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        const std::string at = path.empty() ? SanitizeUtf8(key) : path + "." + SanitizeUtf8(key);
        if (std::string why = Utf8Problem(key); !why.empty()) {
          add_utf8(Problem{at, "key " + why + "; save the file as UTF-8", LineOf(kv.first), origin});
        }
        check_utf8(kv.second, at);
      }
    }
  };
  check_utf8(root, "");
  if (utf8_more > 0) err.problems.push_back(MoreProblems(utf8_more));
  if (!err.problems.empty()) return Fail(std::move(err));
  // `framework`: its defaults fill the fields the file and --set left out.
  std::string framework;
  std::vector<FrameworkDefault> framework_defaults;
  ApplyFramework(root, origin, framework, framework_defaults, err.problems);
  if (!err.problems.empty()) return Fail(std::move(err));
  Reader reader(origin);
  reader.SetOverridePaths(override_paths);
  Scenario s;
  try {
    Loader loader(catalog, reader, base_dir);
    s = loader.Load(root);
    s.framework = framework;
    s.framework_defaults = std::move(framework_defaults);
  } catch (const YAML::Exception& e) {  // a yaml-cpp corner the reader did not anticipate
    reader.AddAtLine(e.mark.is_null() ? 0 : e.mark.line + 1, "", "cannot read the scenario: " + e.msg, origin);
  }
  if (!reader.problems().empty()) {
    err.problems = reader.TakeProblems();
    // In file order: the scenario's own lines first, then other files (CSVs, --set).
    std::stable_sort(err.problems.begin(), err.problems.end(), [&](const Problem& a, const Problem& b) {
      int fa = a.file == origin ? 0 : 1, fb = b.file == origin ? 0 : 1;
      if (fa != fb) return fa < fb;
      return fa == 0 && a.line < b.line;
    });
    CapProblems(err.problems);
    return Fail(std::move(err));
  }
  return s;
}

Result<Scenario> LoadScenarioFile(const std::string& path, const Catalog& catalog,
                                  const std::vector<Override>& overrides) {
  auto file = scenario_internal::ReadScenarioFile(path);
  if (!file) return Fail(file.error());
  auto s = LoadScenarioText(file->text, catalog, file->origin, file->base, overrides);
  if (s) s->source_path = path;
  return s;
}

Result<Scenario> DefaultScenario(const Catalog& catalog, const std::vector<Override>& overrides) {
  auto text = EmbeddedFile("default.yaml");
  if (!text) return Fail(ErrorCode::kInternal, "", "the built-in default scenario is not embedded");
  return LoadScenarioText(*text, catalog, "default.yaml", ".", overrides);
}

}  // namespace rlcost
