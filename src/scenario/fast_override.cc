#include "scenario/fast_override.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "scenario/fields.h"
#include "scenario/framework.h"
#include "scenario/loader.h"
#include "scenario/overrides.h"
#include "scenario/reader.h"

namespace rlcost::scenario_internal {

// What a point's overrides change beyond single fields: the pass-rate Beta is
// built from {mean, concentration} once both are known.
struct FastOverrides::Working {
  double mean = 0, concentration = 0;
  bool pass_rate = false;
};

struct FastOverrides::Field {
  std::string_view path;
  // Beyond "every parent is a mapping": what the document (`root` as the
  // loader reads it, `base` what it loads to) must look like for the loader
  // to use this field's value only where set() writes it.
  bool (*usable)(const YAML::Node& root, const Scenario& base);
  // Checks `v` with the loader's rule and writes it; false when refused.
  bool (*set)(const FastOverrides& self, Scenario& s, Working& w, double v);
};

namespace {

using Field = FastOverrides::Field;

bool SetInt(int& out, double v, const fields::IntRule& rule) {
  if (!IntAccepts(v, rule.min, rule.max)) return false;
  out = static_cast<int>(v);
  return true;
}

bool SetReal(double& out, double v, const Range& range) {
  if (!DoubleAccepts(v, range)) return false;
  out = v;
  return true;
}

YAML::Node At(const YAML::Node& root, std::initializer_list<std::string_view> keys) {
  YAML::Node n = root;
  for (std::string_view k : keys) {
    YAML::Node child = Reader::Child(n, k);
    n.reset(child);
  }
  return n;
}

// algorithm.steps also sizes the response-length schedule.
bool NoLengthSchedule(const YAML::Node& root, const Scenario&) {
  return !At(root, {"environment", "response_tokens_schedule"}).IsDefined();
}

// environment.pass_rate in its {mean, concentration} form (the loader's
// default form), and no verifier ensemble: the ensemble's combined error
// rates take the mean pass rate as their vote's prior (Loader::CombineEnsemble).
bool MeanConcentrationForm(const YAML::Node& root, const Scenario& base) {
  YAML::Node pr = At(root, {"environment", "pass_rate"});
  for (const char* k : {"a", "b", "histogram", "file", "samples_per_task"}) {
    if (Reader::Child(pr, k).IsDefined()) return false;
  }
  return base.environment.reward.verifier.kind != VerifierKind::kEnsemble;
}

bool Always(const YAML::Node&, const Scenario&) { return true; }

// algorithm.minibatches must divide prompts_per_step x group_size: the
// loader checks the three together, so a file that states it takes that path.
bool NoMinibatches(const YAML::Node& root, const Scenario&) {
  return !At(root, {"algorithm", "minibatches"}).IsDefined();
}

// A length's mean: the distribution is a {mean, ...} mapping (not samples or
// a file), and the loader reads the distribution nowhere but where it makes
// it: no evaluation block (its lengths default to the environment's copies),
// no trajectory bounds (they rebuild the lengths from draws), and for the
// responses no length schedule (it keeps their shape and replaces them).
bool LengthMapping(const YAML::Node& root, const Scenario& base, const char* key) {
  YAML::Node d = At(root, {"environment", key});
  if (!d.IsMap() || Reader::Child(d, "samples").IsDefined() || Reader::Child(d, "file").IsDefined()) return false;
  const EnvironmentSpec& e = base.environment;
  return !base.run.evaluation && !e.unbounded && e.max_trajectory_tokens <= 0 && e.tool_timeout_s <= 0 &&
         !At(root, {"environment", "max_trajectory_tokens"}).IsDefined() &&
         !At(root, {"environment", "tool_timeout_s"}).IsDefined() && !At(root, {"run", "evaluation"}).IsDefined();
}
bool PromptMapping(const YAML::Node& root, const Scenario& base) { return LengthMapping(root, base, "prompt_tokens"); }
bool ResponseMapping(const YAML::Node& root, const Scenario& base) {
  return LengthMapping(root, base, "response_tokens") && NoLengthSchedule(root, base);
}

bool SetLength(const FastOverrides& self, Distribution& out, int which, double v) {
  const Distribution* d = self.LengthWithMean(which, v);
  if (!d) return false;
  out = *d;
  return true;
}

// Every field here is read by exactly one line of the loader (spec/scenario.cc),
// with the rule named, and used nowhere else in it; a length's mean makes its
// distribution with the loader's ReadDist (LengthWithMean).
const Field kFields[] = {
    {"algorithm.group_size", NoMinibatches,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetInt(s.algorithm.group_size, v, fields::kGroupSize);
     }},
    {"algorithm.prompts_per_step", NoMinibatches,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetInt(s.algorithm.prompts_per_step, v, fields::kPromptsPerStep);
     }},
    {"algorithm.steps", NoLengthSchedule,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetInt(s.algorithm.steps, v, fields::kSteps);
     }},
    {"environment.pass_rate.mean", MeanConcentrationForm,
     [](const FastOverrides&, Scenario&, FastOverrides::Working& w, double v) {
       w.pass_rate = true;
       return SetReal(w.mean, v, fields::kPassRateMean);
     }},
    {"environment.pass_rate.concentration", MeanConcentrationForm,
     [](const FastOverrides&, Scenario&, FastOverrides::Working& w, double v) {
       w.pass_rate = true;
       return SetReal(w.concentration, v, fields::kConcentration);
     }},
    {"environment.prompt_tokens.mean", PromptMapping,
     [](const FastOverrides& self, Scenario& s, FastOverrides::Working&, double v) {
       return SetLength(self, s.environment.prompt_tokens, 0, v);
     }},
    {"environment.response_tokens.mean", ResponseMapping,
     [](const FastOverrides& self, Scenario& s, FastOverrides::Working&, double v) {
       return SetLength(self, s.environment.response_tokens, 1, v);
     }},
    {"environment.sandbox.max_concurrent", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetInt(s.environment.sandbox->max_concurrent, v, fields::kMaxConcurrent);
     }},
    {"environment.sandbox.cpus_per_rollout", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetReal(s.environment.sandbox->cpus_per_rollout, v, fields::kNonNegative);
     }},
    {"environment.sandbox.startup_s", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetReal(s.environment.sandbox->startup_s, v, fields::kNonNegative);
     }},
    {"environment.sandbox.price_per_cpu_hour", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetReal(s.environment.sandbox->price_per_cpu_hour, v, fields::kPricePerHour);
     }},
    {"hardware.price_per_gpu_hour", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetReal(s.hardware.price_per_gpu_hour, v, fields::kPricePerHour);
     }},
    {"pipeline.max_staleness", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       return SetReal(s.pipeline.max_staleness, v, fields::kNonNegative);
     }},
    {"goal.target_pass_rate", Always,
     [](const FastOverrides&, Scenario& s, FastOverrides::Working&, double v) {
       double t = 0;
       if (!SetReal(t, v, fields::kTargetPassRate)) return false;
       s.goal.target_pass_rate = t;
       return true;
     }},
};

// Every mapping on the way to the field is in the document (and a mapping);
// the field itself is absent, null or a scalar.
bool ParentsAreMappings(const YAML::Node& root, std::string_view path) {
  if (!root.IsDefined() || !root.IsMap()) return false;
  YAML::Node n = root;
  size_t start = 0;
  while (true) {
    const size_t dot = path.find('.', start);
    const std::string_view key = path.substr(start, dot == std::string_view::npos ? path.npos : dot - start);
    YAML::Node child = Reader::Child(n, key);
    if (dot == std::string_view::npos) return !child.IsDefined() || child.IsScalar();
    if (!child.IsDefined() || !child.IsMap()) return false;
    n.reset(child);
    start = dot + 1;
  }
}

}  // namespace

bool FastOverrides::PlainNumber(std::string_view t, double& out) {
  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?
  size_t i = 0;
  const size_t n = t.size();
  auto digits = [&] {
    const size_t from = i;
    while (i < n && t[i] >= '0' && t[i] <= '9') ++i;
    return i - from;
  };
  if (i < n && t[i] == '-') ++i;
  if (i >= n) return false;
  if (t[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < n && t[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < n && (t[i] == '+' || t[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  if (i != n) return false;
  // Both this and yaml-cpp's stream extraction round correctly to the nearest double.
  auto [end, ec] = std::from_chars(t.data(), t.data() + n, out);
  return ec == std::errc() && end == t.data() + n && std::isfinite(out);
}

std::vector<std::string_view> FastOverrides::Fields() {
  std::vector<std::string_view> out;
  for (const Field& f : kFields) out.push_back(f.path);
  return out;
}

FastOverrides::FastOverrides(const ScenarioDocument& doc, const Catalog& catalog, std::vector<Override> fixed)
    : doc_(doc), catalog_(catalog), fixed_(std::move(fixed)) {
  auto base = doc_.Load(catalog_, fixed_);
  if (!base) return;
  // The document as the loader saw it: the fixed overrides and the
  // framework's defaults applied.
  YAML::Node root = YAML::Clone(doc_.root());
  try {
    for (const Override& o : fixed_) SetPath(root, o.path, YAML::Load(o.value));
  } catch (const YAML::Exception&) {
    return;
  }
  std::string framework;
  std::vector<FrameworkDefault> supplied;
  std::vector<Problem> problems;
  ApplyFramework(root, doc_.origin(), framework, supplied, problems);
  if (!problems.empty()) return;  // cannot happen: the document loaded
  for (const Field& f : kFields) {
    if (ParentsAreMappings(root, f.path) && f.usable(root, *base)) direct_.push_back(&f);
  }
  for (int which = 0; which < 2; ++which) {
    const char* key = which == 0 ? "prompt_tokens" : "response_tokens";
    YAML::Node d = At(root, {"environment", key});
    length_map_[which] = YAML::Node(YAML::NodeType::Map);
    if (d.IsMap()) length_map_[which][key] = YAML::Clone(d);  // else the field is not usable
  }
  // The pass-rate form's two numbers as the loader read them.
  pass_rate_mean_ = fields::kDefaultPassRateMean;
  concentration_ = fields::kDefaultConcentration;
  Reader r(doc_.origin());
  YAML::Node pr = At(root, {"environment", "pass_rate"});
  r.Double(pr, "mean", "environment.pass_rate", pass_rate_mean_, fields::kPassRateMean);
  r.Double(pr, "concentration", "environment.pass_rate", concentration_, fields::kConcentration);
  base_ = std::move(*base);
}

const Distribution* FastOverrides::LengthWithMean(int which, double mean) const {
  uint64_t bits = 0;
  std::memcpy(&bits, &mean, sizeof bits);
  auto& memo = length_memo_[which];
  for (const auto& [b, d] : memo) {
    if (b == bits) return d ? &*d : nullptr;
  }
  if (memo.size() >= kMaxLengthMemo) memo.clear();
  // The mapping with the new mean (17 digits: read back to the same double),
  // read by the loader's own ReadDist with the environment's rules.
  const char* key = which == 0 ? "prompt_tokens" : "response_tokens";
  YAML::Node map = YAML::Clone(length_map_[which]);
  map[key]["mean"] = YAML::Node(fmt::format("{:.17g}", mean));
  Reader r(doc_.origin());
  Loader loader(catalog_, r, doc_.base_dir());
  Distribution d;
  loader.ReadDistField(map, key, "environment", d, kTokenRules);
  std::optional<Distribution> out;
  if (r.problems().empty() && (which == 0 || ResponseMeanAccepted(d))) out = std::move(d);
  memo.emplace_back(bits, std::move(out));
  return memo.back().second ? &*memo.back().second : nullptr;
}

bool FastOverrides::Direct(std::string_view path) const {
  for (const Field* f : direct_) {
    if (f->path == path) return true;
  }
  return false;
}

Result<Scenario> FastOverrides::Load(const std::vector<Override>& overrides) const {
  auto yaml_way = [&] {
    std::vector<Override> all = fixed_;
    all.insert(all.end(), overrides.begin(), overrides.end());
    return doc_.Load(catalog_, all);
  };
  Scenario s;
  if (TryLoadInto(s, overrides)) return s;
  return yaml_way();
}

bool FastOverrides::TryLoadInto(Scenario& out, const std::vector<Override>& overrides) const {
  if (!base_) return false;
  // Up to a few fields a point: look each one up, read its value.
  constexpr size_t kMax = 16;
  if (overrides.size() > kMax) return false;
  const Field* field[kMax];
  double value[kMax];
  for (size_t i = 0; i < overrides.size(); ++i) {
    field[i] = nullptr;
    for (const Field* f : direct_) {
      if (f->path == overrides[i].path) {
        field[i] = f;
        break;
      }
    }
    if (!field[i] || !PlainNumber(overrides[i].value, value[i])) return false;
  }
  out = *base_;
  Working w{pass_rate_mean_, concentration_, false};
  for (size_t i = 0; i < overrides.size(); ++i) {
    if (!field[i]->set(*this, out, w, value[i])) return false;  // refused: the loader says why
  }
  if (w.pass_rate) fields::SetBetaOfMean(out.environment.pass_rate, w.mean, w.concentration);
  return true;
}

}  // namespace rlcost::scenario_internal
