#include "scenario/curve_presets.h"

#include <cmath>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "rlcost/embedded.h"

namespace rlcost::scenario_internal {

std::optional<double> CurvePreset::midpoint_useful_samples() const {
  if (!run_steps || !run_gpu_hours || !samples_per_step) return std::nullopt;
  return midpoint_gpu_hours * *run_steps / *run_gpu_hours * *samples_per_step;
}

namespace {

constexpr std::string_view kFile = "catalog/curves.yaml";

Result<double> Positive(const YAML::Node& n, const std::string& name, const char* key) {
  const YAML::Node v = n[key];
  double x = 0;
  if (!v.IsDefined() || !v.IsScalar() || !YAML::convert<double>::decode(v, x) || !(x > 0) || !std::isfinite(x)) {
    return Fail(Error::Invalid(fmt::format("{}: {}.{}", kFile, name, key), "expected a positive number"));
  }
  return x;
}

std::string Text(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  return v.IsDefined() && v.IsScalar() ? v.Scalar() : std::string();
}

Result<std::vector<CurvePreset>> Parse() {
  auto text = EmbeddedFile("curves.yaml");
  if (!text) return Fail(Error::Invalid(std::string(kFile), "not compiled into this program"));
  YAML::Node root;
  try {  // yaml-cpp reports syntax errors by exception; kept inside this function
    root = YAML::Load(std::string(*text));
  } catch (const YAML::Exception& e) {
    return Fail(Error::Invalid(std::string(kFile), std::string("malformed YAML: ") + e.what()));
  }
  std::vector<CurvePreset> out;
  for (auto it = root.begin(); it != root.end(); ++it) {
    CurvePreset p;
    p.name = it->first.Scalar();
    const YAML::Node n = it->second;
    p.label = Text(n, "label");
    p.source = Text(n, "source");
    p.catalog_model = Text(n, "catalog_model");
    auto a = Positive(n, p.name, "asymptote");
    auto b = Positive(n, p.name, "exponent");
    auto c = Positive(n, p.name, "midpoint_gpu_hours");
    if (!a) return Fail(a.error());
    if (!b) return Fail(b.error());
    if (!c) return Fail(c.error());
    p.asymptote = *a;
    p.exponent = *b;
    p.midpoint_gpu_hours = *c;
    if (n["run_steps"].IsDefined()) {
      auto steps = Positive(n, p.name, "run_steps");
      auto hours = Positive(n, p.name, "run_gpu_hours");
      auto batch = Positive(n, p.name, "samples_per_step");
      if (!steps) return Fail(steps.error());
      if (!hours) return Fail(hours.error());
      if (!batch) return Fail(batch.error());
      p.run_steps = *steps;
      p.run_gpu_hours = *hours;
      p.samples_per_step = *batch;
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

Result<std::vector<CurvePreset>> CurvePresets() {
  static const Result<std::vector<CurvePreset>> presets = Parse();
  return presets;
}

Result<CurvePreset> FindCurvePreset(std::string_view name) {
  auto all = CurvePresets();
  if (!all) return Fail(all.error());
  std::string names;
  for (const auto& p : *all) {
    if (p.name == name) return p;
    names += (names.empty() ? "" : ", ") + p.name;
  }
  return Fail(Error::Invalid("goal.curve", fmt::format("'{}'; expected a map {{asymptote, exponent, "
                                                       "midpoint_useful_samples}} or a published curve: {}",
                                                       name, names)));
}

Result<LearningCurveSpec> CurveFromPreset(std::string_view name, const std::string& model_id, const std::string& path) {
  auto p = FindCurvePreset(name);
  if (!p) return Fail(Error::Invalid(path, p.error().problems.empty() ? p.error().ToString()
                                                                      : p.error().problems.front().message));
  const auto mid = p->midpoint_useful_samples();
  if (!mid) {
    return Fail(Error::Invalid(
        path, fmt::format("'{}': not yet usable: its paper gives C_mid = {} GPU-hours but not the run's steps per "
                          "GPU-hour, so it cannot be counted in useful samples ({})",
                          name, p->midpoint_gpu_hours, p->source)));
  }
  LearningCurveSpec c;
  c.asymptote = p->asymptote;
  c.exponent = p->exponent;
  c.midpoint_useful_samples = *mid;
  c.batch_useful_samples = p->samples_per_step;
  c.preset = p->name;
  c.preset_label = p->label + " [" + p->source + "]";
  c.borrowed = p->catalog_model.empty() || p->catalog_model != model_id;
  return c;
}

}  // namespace rlcost::scenario_internal
