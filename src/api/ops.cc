#include "api/ops.h"
#include "api/illustrative.h"
#include "api/sweep_checks.h"
#include "api/views.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "catalog/format.h"
#include "api/fit_op.h"
#include "decide/claims.h"
#include "core/yaml.h"
#include "decide/levers.h"
#include "explore/design.h"
#include "explore/store.h"
#include "explore/sweep.h"
#include "decide/sensitivity.h"
#include "plan/plan.h"
#include "report/claims_table.h"
#include "report/html.h"
#include "report/levers_table.h"
#include "report/report.h"
#include "report/sensitivity.h"
#include "rlcost/estimate.h"
#include "rlcost/embedded.h"
#include "rlcost/scenario.h"
#include "core/nesting.h"
#include "scenario/document.h"
#include "scenario/json_scenario.h"
#include "core/cancel.h"

namespace rlcost::ops {
namespace {

Result<Scenario> Load(const ScenarioInput& in, const rlcost::Catalog& cat) { return LoadScenarioOf(in, cat); }

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

Result<levers::Options> ToOptions(const LeverInput& a) {
  auto order = levers::ParseLeverList(a.order, "order");
  if (!order) return Fail(order.error());
  if (a.tenants < 0) {
    return Fail(ErrorCode::kInvalidInput, "tenants", "must be >= 1, got " + std::to_string(a.tenants));
  }
  if (a.rank < 0) {
    return Fail(ErrorCode::kInvalidInput, "rank", "must be >= 1, got " + std::to_string(a.rank));
  }
  // Fields are named as the request spells them; a front end translates
  // ("fp8_discount" is --fp8-discount on the command line).
  auto field = [](const char* name) { return std::string(name); };
  Error bad;
  for (auto [v, name] : {std::pair{&a.staleness_discount, "staleness_discount"}, std::pair{&a.fp8_discount, "fp8_discount"},
                         std::pair{&a.fp4_discount, "fp4_discount"}}) {
    if (!*v) continue;
    if (auto r = levers::CheckDiscount(**v, field(name)); !r) bad.problems.push_back(r.error().problems.front());
  }
  for (auto [v, name] : {std::pair{&a.moe_pass_rate, "moe_pass_rate"}, std::pair{&a.dense_pass_rate, "dense_pass_rate"}}) {
    if (*v && !(**v > 0 && **v < 1)) {
      bad.problems.push_back({field(name), fmt::format("{}: a mean pass rate is a number in (0, 1)", **v)});
    }
  }
  if (!bad.problems.empty()) {
    bad.code = ErrorCode::kInvalidInput;
    return Fail(bad);
  }
  if (a.baseline != "run" && a.baseline != "naive") {
    bad.problems.push_back({"baseline", "'" + a.baseline + "'; expected run (your run as planned) or naive (the essay's "
                                        "naive H100 + synchronous baseline)"});
  }
  if (!bad.problems.empty()) {
    bad.code = ErrorCode::kInvalidInput;
    return Fail(bad);
  }
  levers::Options o;
  o.baseline = a.baseline == "naive" ? levers::Baseline::kNaive : levers::Baseline::kRun;
  o.order = *order;
  o.gpu_id = a.gpu;
  o.tenants = a.tenants;
  o.lora_rank = a.rank;
  o.moe_model = a.moe_model;
  o.dense_model = a.dense_model;
  o.moe_pass_rate = a.moe_pass_rate;
  o.dense_pass_rate = a.dense_pass_rate;
  o.discounts.staleness = a.staleness_discount;
  o.discounts.fp8 = a.fp8_discount;
  o.discounts.fp4 = a.fp4_discount;
  return o;
}

std::string Dump(const nlohmann::json& j) {
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
}

Result<const rlcost::Catalog*> BuiltinCatalog() {
  static const Result<rlcost::Catalog> cat = rlcost::Catalog::Builtin();  // thread-safe static init
  if (!cat) return Fail(cat.error());
  return &*cat;
}

// The JSON operations are the views' JSON (api/views.h): one computation each.
Result<nlohmann::json> Estimate(const ScenarioInput& in) {
  auto v = EstimateView(in);
  if (!v) return Fail(v.error());
  return std::move(v->json);
}

Result<nlohmann::json> Simulate(const ScenarioInput& in, uint64_t seed, int steps, const std::atomic<bool>* cancel) {
  SimulateInput si;
  si.seed = seed;
  si.steps = steps;
  si.cancel = cancel;
  auto v = SimulateView(in, si);
  if (!v) return Fail(v.error());
  return std::move(v->json);
}

Result<levers::Waterfall> BuildWaterfall(const Run& run, const ScenarioInput& in, const LeverInput& lv) {
  auto opt = ToOptions(lv);
  if (!opt) return Fail(opt.error());
  opt->replan = ReplanOf(in);  // every alternative planned as the user's run is
  return levers::BuildWaterfall(run.scenario, *run.catalog, *opt);
}

Result<nlohmann::json> Waterfall(const ScenarioInput& in, const LeverInput& lv) {
  auto v = WaterfallView(in, lv);
  if (!v) return Fail(v.error());
  return std::move(v->json);
}

Result<nlohmann::json> Price(const ScenarioInput& in, const PriceInput& p) {
  auto v = PriceView(in, p);
  if (!v) return Fail(v.error());
  return std::move(v->json);
}

// The request's scenario again with extra overrides after its own.
claims::LoadVariant VariantOf(const ScenarioInput& in, const rlcost::Catalog& cat) {
  return [in, &cat](const std::vector<std::string>& sets) {
    ScenarioInput v = in;
    v.sets.insert(v.sets.end(), sets.begin(), sets.end());
    return Load(v, cat);
  };
}

// The scenario of `in` with more overrides after its own, for the tornado.
sensitivity::Loader LoaderOf(const ScenarioInput& in, const rlcost::Catalog& cat) {
  return [in, &cat](const std::vector<Override>& extra) -> Result<Scenario> {
    ScenarioInput more = in;
    for (const auto& o : extra) more.sets.push_back(o.path + "=" + o.value);
    return Load(more, cat);
  };
}

Result<nlohmann::json> Sensitivity(const ScenarioInput& in, const SensitivityInput& si) {
  auto v = SensitivityView(in, si);
  if (!v) return Fail(v.error());
  return std::move(v->json);
}

Result<nlohmann::json> Claims(const ScenarioInput& in) {
  auto v = ClaimsView(in);
  if (!v) return Fail(v.error());
  return std::move(v->json);
}

Result<nlohmann::json> Catalog() {
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  return nlohmann::json::parse(FormatCatalogJson(**cat));
}

Result<std::string> HtmlReport(const ScenarioInput& in) {
  auto r = Report(in, ReportInput{});
  if (!r) return Fail(r.error());
  return std::move(r->html);
}

Result<nlohmann::json> ScenarioDocument(const ScenarioInput& in) {
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  auto s = Load(in, **cat);  // refuses what does not load, with its field paths
  if (!s) return Fail(s.error());
  if (!in.file.empty()) return Fail(ErrorCode::kNotImplemented, "", "not yet: a scenario file as a document");
  if (in.text.empty() && in.json) {
    if (!in.sets.empty()) return Fail(ErrorCode::kNotImplemented, "set", "not yet: overrides on a scenario document");
    return *in.json;
  }
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
  ValidateInput v;
  v.dir = dir;
  v.path = path;
  v.seed = seed;
  v.sim_steps = sim_steps;
  auto r = RunValidation(v);
  if (!r) return Fail(r.error());
  return std::move(r->view.json);
}

namespace {

// A JSON value as one value of a --vary list: numbers and booleans as JSON
// spells them, lists and mappings as YAML flow (JSON is), text as it is unless
// a comma, bracket or quote in it would split or change it (then quoted).
Result<std::string> VaryValue(const nlohmann::json& v, const std::string& path) {
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    if (s.empty() || s.find_first_of(",[]{}\"'") != std::string::npos || s.front() == ' ' || s.back() == ' ') {
      return v.dump();
    }
    return s;
  }
  if (v.is_null()) return Fail(ErrorCode::kInvalidInput, path, "null is not a value to vary; expected a value of the field");
  return v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// The rows are flat objects of scalars: copied key by key, in their order.
nlohmann::json Unordered(const nlohmann::ordered_json& o) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& [k, v] : o.items()) {
    switch (v.type()) {
      case nlohmann::json::value_t::number_integer: out[k] = v.get<int64_t>(); break;
      case nlohmann::json::value_t::number_unsigned: out[k] = v.get<uint64_t>(); break;
      case nlohmann::json::value_t::number_float: out[k] = v.get<double>(); break;
      case nlohmann::json::value_t::boolean: out[k] = v.get<bool>(); break;
      case nlohmann::json::value_t::string: out[k] = v.get<std::string>(); break;
      default: out[k] = nullptr; break;
    }
  }
  return out;
}

// The point limit of a request's sweep, checked before a sample allocates its points.
Result<void> CheckPointLimit(const SweepInput& sw, const std::vector<explore::Axis>& axes) {
  if (sw.sample > 0) {
    if (sw.sample > sw.max_points) {
      return Fail(ErrorCode::kInvalidInput, "sample",
                  std::to_string(sw.sample) + " points; at most " + std::to_string(sw.max_points) + " in one sweep here");
    }
    return {};
  }
  uint64_t n = 1;
  for (const auto& a : axes) {
    if (a.values.empty()) continue;  // a range without a step: Design::Grid says so
    if (n > sw.max_points / a.values.size()) {
      return Fail(ErrorCode::kInvalidInput, "vary",
                  "the grid has more than " + std::to_string(sw.max_points) +
                      " points, the most one sweep may have here; vary fewer values or ask for a sample");
    }
    n *= a.values.size();
  }
  return {};
}

// The scenario a sweep varies, as text each sweep thread parses for itself
// (yaml-cpp nodes are not shared), under the input's file rules.
Result<scenario_internal::ScenarioDocument> SweepDocument(const ScenarioInput& in) {
  const std::string base_dir = in.allow_files ? "." : std::string(kNoFileAccess);
  if (!in.file.empty()) {
    if (!in.allow_files) return Fail(ErrorCode::kInvalidInput, "", "a scenario file cannot be named here; send its text");
    return scenario_internal::ScenarioDocument::FromFile(in.file);
  }
  if (!in.text.empty()) return scenario_internal::ScenarioDocument::FromText(in.text, in.origin, base_dir, "");
  if (in.json) return scenario_internal::ScenarioDocument::FromText(in.json->dump(), in.origin, base_dir, "");
  auto d = EmbeddedFile("default.yaml");  // as FromFile(""), under this input's file rules
  if (!d) return Fail(ErrorCode::kInternal, "", "the built-in default scenario is not embedded");
  return scenario_internal::ScenarioDocument::FromText(std::string(*d), "default.yaml", base_dir, "");
}

// Why a request's sweep stopped before its last point: `why` "time" or "cancelled".
Error StoppedError(const SweepInput& sw, const std::string& why, uint64_t done, uint64_t planned) {
  char secs[32];
  std::snprintf(secs, sizeof(secs), "%g", sw.max_seconds);
  return Error(ErrorCode::kInvalidInput, "",
               why == "time" ? "the sweep took longer than " + std::string(secs) + " s (" + std::to_string(done) +
                                   " of " + std::to_string(planned) + " points done); ask for fewer points" +
                                   (sw.simulate ? ", fewer steps or the closed form" : "")
                             : "the sweep was interrupted (" + std::to_string(done) + " of " +
                                   std::to_string(planned) + " points done)");
}

// The columns of a sweep's rows, each with its unit and meaning.
nlohmann::json MetricsJson(const std::vector<const MetricDef*>& metrics) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto* m : metrics) {
    out.push_back({{"key", std::string(m->key)}, {"unit", std::string(m->unit)}, {"description", std::string(m->description)}});
  }
  return out;
}

}  // namespace

Result<std::vector<std::string>> VaryArgs(const nlohmann::json& vary, const std::string& field) {
  std::vector<std::string> out;
  Error bad;
  // One field and its values: a list, or a text as --vary takes it ("LO..HI[:STEP]", "V1,V2").
  auto one = [&](const std::string& key, const nlohmann::json& values, const std::string& at) {
    if (values.is_string()) {
      out.push_back(key + "=" + values.get<std::string>());
      return;
    }
    if (!values.is_array() || values.empty()) {
      bad.problems.push_back({at, "expected a list of values or a range \"LO..HI[:STEP]\", got " + values.dump()});
      return;
    }
    std::string list;
    for (size_t i = 0; i < values.size(); ++i) {
      auto v = VaryValue(values[i], at + "[" + std::to_string(i) + "]");
      if (!v) {
        for (auto& p : v.error().problems) bad.problems.push_back(p);
        return;
      }
      list += (i ? "," : "") + *v;
    }
    out.push_back(key + "=" + list);
  };
  if (vary.is_array()) {
    // In order: "KEY=..." texts or [KEY, values] pairs (the Python module keeps a dict's order so).
    for (size_t i = 0; i < vary.size(); ++i) {
      const std::string at = field + "[" + std::to_string(i) + "]";
      if (vary[i].is_string()) {
        out.push_back(vary[i].get<std::string>());
      } else if (vary[i].is_array() && vary[i].size() == 2 && vary[i][0].is_string()) {
        one(vary[i][0].get<std::string>(), vary[i][1], field + "." + vary[i][0].get<std::string>());
      } else {
        bad.problems.push_back({at, "expected \"KEY=V1,V2,...\" or \"KEY=LO..HI[:STEP]\", got " + vary[i].dump()});
      }
    }
  } else if (vary.is_object()) {
    for (const auto& [key, values] : vary.items()) one(key, values, field + "." + key);  // keys sorted (JSON objects have no order)
  } else {
    bad.problems.push_back({field, "expected {\"KEY\": [V1, V2, ...] or \"LO..HI[:STEP]\", ...}, got " +
                                       std::string(vary.type_name())});
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  return out;
}

Result<nlohmann::json> Sweep(const ScenarioInput& in, const SweepInput& sw, std::string* stopped) {
  // Everything that can be wrong is found before any point runs, by the
  // checks `rlcost sweep` makes (api/sweep_checks.h).
  Error bad;
  auto add = [&](const Error& e) {
    if (bad.problems.empty()) bad.code = e.code;
    for (const auto& p : e.problems) bad.problems.push_back(p);
  };
  auto fields = CheckSweepFields(sw.vary, sw.sample > 0, in.sets, sw.metrics, SweepFieldWords{}, bad);
  const std::vector<explore::Axis>& axes = fields.axes;
  const std::vector<Override>& fixed = fields.fixed;
  explore::SweepOptions opt;
  opt.metrics = fields.metrics;
  if (sw.steps < 0) add(Error(ErrorCode::kInvalidInput, "steps", "must be >= 0 (0 = the scenario's), got " + std::to_string(sw.steps)));
  if (!bad.problems.empty()) return Fail(std::move(bad));

  if (auto ok = CheckPointLimit(sw, axes); !ok) return Fail(ok.error());
  auto design = sw.sample ? explore::Design::Sample(axes, sw.sample, sw.seed) : explore::Design::Grid(axes);
  if (!design) {
    add(design.error());
    return Fail(std::move(bad));
  }
  auto cat = BuiltinCatalog();
  if (!cat) return Fail(cat.error());
  auto doc = SweepDocument(in);
  if (!doc) return Fail(doc.error());
  // The scenario itself must load (at the first point) before the sweep is
  // worth running; an unknown varied key is named as such.
  if (auto ok = explore::Check(*doc, **cat, *design, fixed); !ok) {
    add(ok.error());
    return Fail(std::move(bad));
  }

  opt.fixed = fixed;
  opt.simulate = sw.simulate;
  if (!in.plan_for.empty()) {
    auto obj = plan::ObjectiveFromString(in.plan_for);
    if (!obj) return Fail(ErrorCode::kInvalidInput, "plan_for", "'" + in.plan_for + "': expected cost or time");
    opt.plan = *obj;
  }
  opt.sim.seed = sw.seed;
  opt.sim.steps = sw.steps;
  opt.threads = sw.threads;
  std::atomic<bool> stop{false};
  std::string why;
  opt.stop = &stop;
  const auto start = std::chrono::steady_clock::now();
  opt.progress = [&](uint64_t) {
    if (stop.load()) return;
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (sw.max_seconds > 0 && s > sw.max_seconds) {
      why = "time";
      stop.store(true);
    } else if (sw.cancel && sw.cancel()) {
      why = "cancelled";
      stop.store(true);
    }
  };
  std::vector<std::string> keys;
  for (const auto& a : design->axes()) keys.push_back(a.key);
  nlohmann::json rows = nlohmann::json::array();
  const uint64_t planned = design->size();
  std::set<std::string> goal_curves;  // what the rows' goal figures rest on (api/illustrative.h)
  const uint64_t done = explore::RunSweep(*doc, **cat, *design, opt, [&](explore::PointRow&& row) {
    if (!row.goal_curve.empty()) goal_curves.insert(row.goal_curve);
    rows.push_back(Unordered(explore::RowToJson(keys, opt.metrics, row)));
  });
  if (done < planned || stop.load()) {  // stopped: a point under way may have been cut short
    if (why.empty()) why = "time";
    if (stopped) *stopped = why;
    return Fail(StoppedError(sw, why, done, planned));
  }
  // As `rlcost sweep`: each row's goal_curve, and the answer says once what
  // the goal figures rest on (goal_curve_is_illustrative, notes).
  return nlohmann::json{{"engine", sw.simulate ? "simulator" : "analytic"},
                        {"keys", keys},
                        {"metrics", MetricsJson(opt.metrics)},
                        {"points", done},
                        {"goal_curve_is_illustrative", goal_curves.count(std::string(explore::kIllustrativeCurve)) > 0},
                        {"notes", api::SweepCurveNotes(goal_curves)},
                        {"rows", std::move(rows)}};
}

int JsonDepth(std::string_view text) { return NestingDepth(text); }

// The body of an HTTP request (`rlcost serve`).
Result<RequestBody> ParseRequestBody(std::string_view body_text, bool yaml, std::initializer_list<std::string_view> allowed) {
  RequestBody p;
  p.in.allow_files = false;
  p.in.origin = "request.scenario";
  if (body_text.empty()) return p;  // the built-in default scenario
  // Brackets nest the same way in JSON and in YAML's flow style.
  if (int d = JsonDepth(body_text); d > kMaxRequestJsonDepth) {
    return Fail(ErrorCode::kInvalidInput, "request",
                "nested " + std::to_string(d) + " deep; at most " + std::to_string(kMaxRequestJsonDepth) + " levels accepted");
  }
  if (yaml) {
    p.in.text = std::string(body_text);
    return p;
  }
  nlohmann::json body;
  try {
    body = nlohmann::json::parse(body_text);  // NaN and Infinity are not JSON: refused here
  } catch (const nlohmann::json::exception& e) {
    return Fail(ErrorCode::kInvalidInput, "request", std::string("malformed JSON: ") + e.what());
  }
  if (!body.is_object()) {
    return Fail(ErrorCode::kInvalidInput, "request",
                std::string("expected a JSON object such as {\"scenario\": {...}}, got ") + body.type_name());
  }
  Error bad;
  for (auto& [key, value] : body.items()) {
    if (key == "scenario") {
      if (value.is_object()) {
        // Loaded as it is, not printed and parsed again as YAML (spec/json_scenario.h).
      p.in.json = std::make_shared<const nlohmann::json>(std::move(value));
      } else if (value.is_string()) {
        p.in.text = value.get<std::string>();
        if (int d = JsonDepth(p.in.text); d > kMaxRequestJsonDepth) {
          bad.problems.push_back({"scenario", "YAML nested " + std::to_string(d) + " deep; at most " +
                                                  std::to_string(kMaxRequestJsonDepth) + " levels accepted"});
        }
      } else if (!value.is_null()) {
        bad.problems.push_back({"scenario", std::string("expected the scenario as an object or as YAML text, got ") +
                                                value.type_name()});
      }
    } else if (key == "set") {
      if (!value.is_array()) {
        bad.problems.push_back({"set", "expected a list of \"key=value\" strings"});
        continue;
      }
      for (size_t i = 0; i < value.size(); ++i) {
        if (value[i].is_string()) {
          p.in.sets.push_back(value[i].get<std::string>());
        } else {
          bad.problems.push_back({"set[" + std::to_string(i) + "]", "expected a \"key=value\" string"});
        }
      }
    } else if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) {
      p.fields[key] = value;
    } else {
      std::string known = "scenario, set";
      for (auto a : allowed) known += ", " + std::string(a);
      bad.problems.push_back({key, "unknown field; expected one of " + known});
    }
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  return p;
}

}  // namespace rlcost::ops
