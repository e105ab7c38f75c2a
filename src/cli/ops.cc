#include "cli/ops.h"

#include <charconv>
#include <cmath>

#include <yaml-cpp/yaml.h>

#include "catalog/format.h"
#include "cli/validate_render.h"
#include "core/yaml.h"
#include "econ/levers.h"
#include "fit/validate.h"
#include "report/html.h"
#include "report/levers_table.h"
#include "report/report.h"
#include "rlcost/estimate.h"
#include "rlcost/embedded.h"
#include "rlcost/scenario.h"

namespace rlcost::ops {
namespace {

Result<Scenario> Load(const ScenarioInput& in, const rlcost::Catalog& cat) {
  std::vector<Override> overrides;
  Error bad;
  for (const auto& s : in.sets) {
    auto o = ParseOverride(s);
    if (o) {
      overrides.push_back(*o);
    } else {
      for (auto& p : o.error().problems) bad.problems.push_back(p);
    }
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  if (!in.file.empty()) {
    if (!in.allow_files) return Fail(ErrorCode::kInvalidInput, "", "a scenario file cannot be named here; send its text");
    return LoadScenarioFile(in.file, cat, overrides);
  }
  if (in.text.empty()) return DefaultScenario(cat, overrides);
  return LoadScenarioText(in.text, cat, in.origin, in.allow_files ? "." : std::string(kNoFileAccess), overrides);
}

// A YAML node as JSON: plain scalars become numbers, booleans and null where
// YAML 1.2's core schema reads them so; quoted ones stay strings.
nlohmann::json YamlToJson(const YAML::Node& n) {
  if (n.IsMap()) {
    nlohmann::json o = nlohmann::json::object();
    for (const auto& kv : n) o[kv.first.Scalar()] = YamlToJson(kv.second);
    return o;
  }
  if (n.IsSequence()) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& v : n) a.push_back(YamlToJson(v));
    return a;
  }
  if (!n.IsScalar()) return nullptr;
  const std::string& v = n.Scalar();
  if (n.Tag() == "!") return v;  // quoted
  if (v == "true" || v == "True") return true;
  if (v == "false" || v == "False") return false;
  if (v == "null" || v == "~" || v.empty()) return nullptr;
  long long i = 0;
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), i); ec == std::errc() && end == v.data() + v.size()) {
    return i;
  }
  double d = 0;
  if (auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), d);
      ec == std::errc() && end == v.data() + v.size() && std::isfinite(d)) {
    return d;
  }
  return v;
}

}  // namespace

Result<levers::Options> ToOptions(const LeverInput& a, const std::string& field_prefix) {
  auto order = levers::ParseLeverList(a.order, field_prefix + "order");
  if (!order) return Fail(order.error());
  if (a.tenants < 0) {
    return Fail(ErrorCode::kInvalidInput, field_prefix + "tenants", "must be >= 1, got " + std::to_string(a.tenants));
  }
  if (a.rank < 0) {
    return Fail(ErrorCode::kInvalidInput, field_prefix + "rank", "must be >= 1, got " + std::to_string(a.rank));
  }
  levers::Options o;
  o.order = *order;
  o.gpu_id = a.gpu;
  o.tenants = a.tenants;
  o.lora_rank = a.rank;
  o.moe_model = a.moe_model;
  o.dense_model = a.dense_model;
  return o;
}

Result<const rlcost::Catalog*> BuiltinCatalog() {
  static const Result<rlcost::Catalog> cat = rlcost::Catalog::Builtin();  // thread-safe static init
  if (!cat) return Fail(cat.error());
  return &*cat;
}

// The built-in catalog and the request's scenario loaded against it: where
// every operation on a scenario starts.
struct Loaded {
  const rlcost::Catalog* cat;
  Scenario s;
};
Result<Loaded> LoadOnBuiltin(const ScenarioInput& in) {
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  auto s = Load(in, **cat);
  if (!s) return Fail(s.error());
  return Loaded{*cat, std::move(*s)};
}

Result<nlohmann::json> Estimate(const ScenarioInput& in) {
  auto loaded = LoadOnBuiltin(in);
  if (!loaded) return Fail(loaded.error());
  const Scenario& s = loaded->s;
  auto e = EstimateAnalytic(s);
  if (!e) return Fail(e.error());
  return report::EstimateToJson(s, *e);
}

Result<nlohmann::json> Simulate(const ScenarioInput& in, uint64_t seed, int steps) {
  if (steps < 0) return Fail(ErrorCode::kInvalidInput, "steps", "must be >= 0 (0 = the scenario's), got " + std::to_string(steps));
  auto loaded = LoadOnBuiltin(in);
  if (!loaded) return Fail(loaded.error());
  const Scenario& s = loaded->s;
  sim::Options opt;
  opt.seed = seed;
  opt.steps = steps;
  auto e = EstimateSimulated(s, opt);
  if (!e) return Fail(e.error());
  return report::EstimateToJson(s, *e);
}

Result<nlohmann::json> Waterfall(const ScenarioInput& in, const LeverInput& lv) {
  auto loaded = LoadOnBuiltin(in);
  if (!loaded) return Fail(loaded.error());
  const Scenario& s = loaded->s;
  const rlcost::Catalog& cat = *loaded->cat;
  auto opt = ToOptions(lv, "");
  if (!opt) return Fail(opt.error());
  auto wf = levers::BuildWaterfall(s, cat, *opt);
  if (!wf) return Fail(wf.error());
  return report::WaterfallToJson(*wf);
}

Result<nlohmann::json> Price(const ScenarioInput& in, const PriceInput& p) {
  auto loaded = LoadOnBuiltin(in);
  if (!loaded) return Fail(loaded.error());
  const Scenario& s = loaded->s;
  const rlcost::Catalog& cat = *loaded->cat;
  std::vector<levers::Lever> stack;
  if (!p.stack.empty()) {
    auto st = levers::ParseLeverList(p.stack, "stack");
    if (!st) return Fail(st.error());
    stack = *st;
  }
  if (p.tenants < 0) return Fail(ErrorCode::kInvalidInput, "tenants", "must be >= 1, got " + std::to_string(p.tenants));
  levers::Options opt;
  opt.tenants = p.tenants;
  auto card = levers::BuildPriceCard(s, cat, p.models, p.gpus, stack, opt);
  if (!card) return Fail(card.error());
  return report::PriceCardToJson(*card);
}

Result<nlohmann::json> Catalog() {
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  return nlohmann::json::parse(FormatCatalogJson(**cat));
}

Result<std::string> HtmlReport(const ScenarioInput& in) {
  auto loaded = LoadOnBuiltin(in);
  if (!loaded) return Fail(loaded.error());
  const Scenario& s = loaded->s;
  const rlcost::Catalog& cat = *loaded->cat;
  auto e = EstimateAnalytic(s);
  if (!e) return Fail(e.error());
  report::HtmlInput h;
  h.scenario = &s;
  h.estimate = &*e;
  auto opt = ToOptions(LeverInput{}, "");
  if (!opt) return Fail(opt.error());
  auto wf = levers::BuildWaterfall(s, cat, *opt);
  if (wf) {
    h.waterfall = &*wf;
  } else {
    h.waterfall_error = wf.error().ToString();
  }
  std::vector<double> ps;
  for (int i = 1; i <= 49; ++i) ps.push_back(i / 50.0);  // as `rlcost report`
  h.curves = levers::CostVsPassRate(s, {2, 4, 8, 16}, ps);
  return report::RenderHtml(h);
}

Result<nlohmann::json> ScenarioDocument(const ScenarioInput& in) {
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  auto s = Load(in, **cat);  // refuses what does not load, with its field paths
  if (!s) return Fail(s.error());
  if (!in.file.empty()) return Fail(ErrorCode::kNotImplemented, "", "not yet: a scenario file as a document");
  std::string text = in.text;
  if (text.empty()) {
    auto d = EmbeddedFile("default.yaml");
    if (!d) return Fail(ErrorCode::kInternal, "", "the default scenario is not embedded");
    text = std::string(*d);
  }
  if (!in.sets.empty()) return Fail(ErrorCode::kNotImplemented, "set", "not yet: overrides on a scenario document");
  auto doc = LoadOneYamlDocument(text, in.origin, "a scenario");
  if (!doc) return Fail(doc.error());
  return YamlToJson(*doc);
}

Result<nlohmann::json> Validate(const std::string& dir, const std::string& path, uint64_t seed, int sim_steps) {
  if (path != "analytic" && path != "simulated" && path != "both") {
    return Fail(ErrorCode::kInvalidInput, "path", "'" + path + "'; expected analytic, simulated or both");
  }
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  validate::Options opt;
  opt.analytic = path == "analytic" || path == "both";
  opt.simulated = path == "simulated" || path == "both";
  opt.sim.seed = seed;
  opt.sim.steps = sim_steps;
  auto rep = validate::ValidateDir(dir, **cat, opt);
  if (!rep) return Fail(rep.error());
  return cli::ValidationToJson(*rep);
}

int JsonDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

}  // namespace rlcost::ops
