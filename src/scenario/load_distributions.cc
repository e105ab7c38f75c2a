// Length and time distributions: their forms, bounds and sample files.
// Part of the scenario loader (scenario/loader.h).
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

namespace rlcost::scenario_internal {

bool Loader::CheckDistMax(const YAML::Node& at, const std::string& path, double v, const DistRules& rules) {
  if (v <= rules.max_value) return true;
  r_.Add(at, path, fmt::format("{} is out of range; expected at most {}{}", Num(v), Num(rules.max_value),
                               rules.max_why.empty() ? std::string() : " (" + std::string(rules.max_why) + ")"));
  return false;
}

void Loader::ReadDist(const YAML::Node& map, std::string_view key, const std::string& parent, Distribution& out,
              const DistRules& rules) {
  YAML::Node n = Reader::Child(map, key);
  if (!n.IsDefined()) return;
  const std::string path = Join(parent, key);
  if (n.IsScalar()) {
    auto v = r_.AsNumber(n, path);
    if (!v) return;
    if (*v < rules.min_value) {
      r_.Add(n, path, fmt::format("{} is out of range; expected a number >= {} or a distribution mapping", Num(*v),
                                  Num(rules.min_value)));
      return;
    }
    if (!CheckDistMax(n, path, *v, rules)) return;
    out = Distribution::Fixed(*v);
    return;
  }
  if (!n.IsMap()) {
    r_.Add(n, path, "expected a number or a distribution mapping {mean, cv, max, min, dist, clipped}, got " + Describe(n));
    return;
  }
  r_.CheckKeys(n, path, {"mean", "cv", "min", "max", "dist", "samples", "file", "clipped"});
  YAML::Node samples_n = Reader::Child(n, "samples"), file_n = Reader::Child(n, "file");
  if (samples_n.IsDefined() || file_n.IsDefined()) {
    ReadEmpirical(n, path, samples_n, file_n, out, rules);
    return;
  }
  YAML::Node mean_n = Reader::Child(n, "mean");
  if (!mean_n.IsDefined()) {
    r_.Add(n, Join(path, "mean"), "missing; a distribution mapping needs 'mean' (or 'samples' / 'file')");
    return;
  }
  DistKind kind = DistKind::kLognormal;
  bool ok = true;
  if (YAML::Node d = Reader::Child(n, "dist"); d.IsDefined()) {
    auto s = r_.AsString(d, Join(path, "dist"));
    auto k = s ? DistKindFromString(*s) : std::nullopt;
    if (s && (!k || *k == DistKind::kEmpirical)) {
      r_.Add(d, Join(path, "dist"),
             "unknown value '" + *s + "'; expected lognormal | normal | exponential | uniform | fixed");
    }
    if (!k || *k == DistKind::kEmpirical) ok = false; else kind = *k;
  }
  double mean = 0, cv = 0;
  double min_v = -1, max_v = -1;
  ok = r_.Double(n, "mean", path, mean, {.min = rules.min_value}) && ok;
  if (ok) ok = CheckDistMax(Reader::Child(n, "mean"), Join(path, "mean"), mean, rules);
  const bool has_cv = Reader::Child(n, "cv").IsDefined();
  // A cv above 100 is a spread no length or latency shows; it also keeps
  // the shape's logs and squares finite.
  if (has_cv) ok = r_.Double(n, "cv", path, cv, {.min = 0.0, .max = 100.0}) && ok;
  bool has_min = Reader::Child(n, "min").IsDefined(), has_max = Reader::Child(n, "max").IsDefined();
  if (has_min) ok = r_.Double(n, "min", path, min_v, {.min = 0.0}) && ok;
  if (has_max) ok = r_.Double(n, "max", path, max_v, {.min = 0.0}) && ok;
  if (has_max && ok) ok = CheckDistMax(Reader::Child(n, "max"), Join(path, "max"), max_v, rules);
  // `clipped`: the share of draws that stop exactly at max (docs/model.md,
  // "Responses clipped at the maximum length").
  double clipped = 0;
  const YAML::Node clipped_n = Reader::Child(n, "clipped");
  if (clipped_n.IsDefined()) {
    auto v = r_.AsNumber(clipped_n, Join(path, "clipped"));
    if (!v) {
      ok = false;
    } else if (!(*v >= 0 && *v < 1)) {
      r_.Add(clipped_n, Join(path, "clipped"),
             fmt::format("{} is out of range; expected the share of draws at max, in [0, 1)", Num(*v)));
      ok = false;
    } else if (!has_max) {
      r_.Add(clipped_n, Join(path, "clipped"),
             fmt::format("{} needs 'max' (the length the clipped draws stop at); add max", Num(*v)));
      ok = false;
    } else {
      clipped = *v;
    }
  }
  if (!ok) return;
  // `cv` would be dropped without a word: a fixed value has none, an
  // exponential's is 1 by definition.
  if (has_cv && kind == DistKind::kFixed && cv != 0) {
    r_.Add(Reader::Child(n, "cv"), Join(path, "cv"),
           fmt::format("{} is not used with dist: fixed (a fixed value has no spread); remove cv or choose "
                       "lognormal | normal | uniform",
                       Num(cv)));
    return;
  }
  if (has_cv && kind == DistKind::kExponential && cv != 1) {
    r_.Add(Reader::Child(n, "cv"), Join(path, "cv"),
           fmt::format("{} is not used with dist: exponential (its cv is 1 by definition); remove cv or choose "
                       "lognormal | normal | uniform",
                       Num(cv)));
    return;
  }
  if (has_max && max_v < mean) {
    r_.Add(Reader::Child(n, "max"), Join(path, "max"),
           fmt::format("{} is below the mean {}; expected max >= mean (mean is the mean after clipping)", Num(max_v),
                       Num(mean)));
    ok = false;
  }
  if (has_min && min_v > mean) {
    r_.Add(Reader::Child(n, "min"), Join(path, "min"),
           fmt::format("{} is above the mean {}; expected min <= mean (mean is the mean after clipping)", Num(min_v),
                       Num(mean)));
    ok = false;
  }
  if (!ok) return;
  std::optional<double> min_opt = has_min ? std::optional<double>(min_v) : rules.default_min;
  if (min_opt && has_max && *min_opt > max_v) min_opt = max_v;
  if (min_opt && *min_opt > mean) min_opt = mean;
  auto d = Distribution::Make(kind, mean, cv, min_opt, has_max ? std::optional<double>(max_v) : std::nullopt,
                              clipped);
  if (!d) {
    r_.Add(clipped > 0 ? clipped_n : n, clipped > 0 ? Join(path, "clipped") : path, d.error());
    return;
  }
  out = *d;
}

void Loader::ReadEmpirical(const YAML::Node& n, const std::string& path, const YAML::Node& samples_n,
                   const YAML::Node& file_n, Distribution& out, const DistRules& rules) {
  for (const char* k : {"mean", "cv", "min", "max", "dist"}) {
    if (Reader::Child(n, k).IsDefined())
      r_.Add(Reader::Child(n, k), Join(path, k), "not used with 'samples' or 'file' (the data set the distribution)");
  }
  if (Reader::Child(n, "clipped").IsDefined())
    r_.Add(Reader::Child(n, "clipped"), Join(path, "clipped"),
           "not used with 'samples' or 'file': the share at the maximum length is already in the data");
  if (samples_n.IsDefined() && file_n.IsDefined()) {
    r_.Add(n, path, "give either 'samples' or 'file', not both");
    return;
  }
  std::vector<double> values;
  bool ok = true;
  if (samples_n.IsDefined()) {
    const std::string sp = Join(path, "samples");
    if (!samples_n.IsSequence() || samples_n.size() == 0) {
      r_.Add(samples_n, sp, "expected a non-empty list of numbers, got " + Describe(samples_n));
      return;
    }
    if (samples_n.size() > kMaxSamples) {
      r_.Add(samples_n, sp, fmt::format("{} values; expected at most {} (a million samples fix any quantile to "
                                        "0.1%; more only cost memory)",
                                        samples_n.size(), kMaxSamples));
      return;
    }
    for (size_t i = 0; i < samples_n.size(); ++i) {
      std::string ip = fmt::format("{}[{}]", sp, i);
      auto v = r_.AsNumber(samples_n[i], ip);
      if (!v) { ok = false; continue; }
      if (*v < rules.min_value) {
        r_.Add(samples_n[i], ip, fmt::format("{} is out of range; expected a number >= {}", Num(*v),
                                             Num(rules.min_value)));
        ok = false;
        continue;
      }
      if (!CheckDistMax(samples_n[i], ip, *v, rules)) { ok = false; continue; }
      values.push_back(*v);
    }
  } else {
    const std::string fp = Join(path, "file");
    std::string resolved, rel_name;
    auto t = ReadCsvField(file_n, fp, &resolved, &rel_name);
    if (!t) return;
    const std::string* rel = &rel_name;
    size_t cols = t->header.empty() ? (t->rows.empty() ? 1 : t->rows[0].size()) : t->header.size();
    if (cols != 1) {
      r_.Add(file_n, fp, fmt::format("'{}' has {} columns; expected one number per line", *rel, cols));
      return;
    }
    for (size_t i = 0; i < t->rows.size(); ++i) {
      double v = 0;
      const std::string& cell = t->rows[i].empty() ? std::string() : t->rows[i][0];
      if (t->rows[i].size() != 1 || !ParseNumber(cell, v) || v < rules.min_value || v > rules.max_value) {
        r_.AddAtLine(t->lines[i], fp,
                     fmt::format("'{}' is not a number in [{}, {}]", cell, Num(rules.min_value), Num(rules.max_value)),
                     resolved);
        ok = false;
        continue;
      }
      values.push_back(v);
    }
    if (values.size() > kMaxSamples) {
      r_.Add(file_n, fp, fmt::format("'{}' holds {} values; expected at most {}", *rel, values.size(), kMaxSamples));
      return;
    }
    if (values.empty() && ok) {
      r_.Add(file_n, fp, "'" + *rel + "' holds no values");
      return;
    }
  }
  if (!ok) return;
  auto d = Distribution::Empirical(std::move(values));
  if (!d) {
    r_.Add(n, path, d.error());
    return;
  }
  out = *d;
}

}  // namespace rlcost::scenario_internal
