#include "api/run.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "api/ops.h"
#include "report/report.h"
#include "rlcost/calibration.h"
#include "rlcost/embedded.h"
#include "scenario/json_scenario.h"

namespace rlcost::ops {
namespace {

// prices: "GPU=USD" each; every bad one reported at once, naming the field,
// the value and what was expected.
Result<void> ApplyPrices(const std::vector<std::string>& prices, rlcost::Catalog& cat) {
  Error bad;
  for (const auto& p : prices) {
    auto eq = p.find('=');
    std::string id = eq == std::string::npos ? p : p.substr(0, eq);
    std::string num = eq == std::string::npos ? "" : p.substr(eq + 1);
    if (eq == std::string::npos || id.empty()) {
      bad.problems.push_back({"prices", "'" + p + "': expected GPU=USD, e.g. h100-sxm=3.00"});
      continue;
    }
    const GpuSpec* g = cat.FindGpu(id);
    if (!g) {
      std::string ids;
      for (const auto& k : cat.GpuIds()) ids += (ids.empty() ? "" : ", ") + k;
      bad.problems.push_back({"prices", "unknown GPU '" + id + "'; expected one of: " + ids});
      continue;
    }
    char* end = nullptr;
    double usd = std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(usd) || !(usd > 0)) {
      bad.problems.push_back({"prices", "'" + num + "' for " + id + "; expected a price in USD per GPU-hour > 0"});
      continue;
    }
    GpuSpec copy = *g;
    copy.price_per_hour = usd;
    copy.sources["price_per_hour"] = "set with `price`";  // the command line shows --price
    cat.AddGpu(std::move(copy));
  }
  if (!bad.problems.empty()) return Fail(bad);
  return {};
}

}  // namespace

Result<std::shared_ptr<const rlcost::Catalog>> CatalogOf(const ScenarioInput& in) {
  auto builtin = BuiltinCatalog();
  if (!builtin) return Fail(builtin.error());
  if (in.catalog_files.empty() && in.prices.empty()) {
    return std::shared_ptr<const rlcost::Catalog>(*builtin, [](const rlcost::Catalog*) {});  // shared, never freed
  }
  if (!in.allow_files && !in.catalog_files.empty()) {
    return Fail(ErrorCode::kInvalidInput, "catalog", "a catalog file cannot be named here");
  }
  auto cat = std::make_shared<rlcost::Catalog>(**builtin);
  for (const auto& f : in.catalog_files) {
    if (auto ok = cat->AddFile(f); !ok) return Fail(ok.error());
  }
  if (auto ok = ApplyPrices(in.prices, *cat); !ok) return Fail(ok.error());
  return std::shared_ptr<const rlcost::Catalog>(std::move(cat));
}

Result<Scenario> LoadScenarioOf(const ScenarioInput& in, const rlcost::Catalog& cat, std::vector<std::string>* warnings) {
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
  if (!in.grid.empty()) overrides.push_back({"energy.grid", in.grid});
  Result<Scenario> sc = Fail(ErrorCode::kInternal, "", "no scenario");
  const std::string base_dir = in.allow_files ? "." : std::string(kNoFileAccess);
  if (!in.file.empty()) {
    if (!in.allow_files) return Fail(ErrorCode::kInvalidInput, "", "a scenario file cannot be named here; send its text");
    sc = LoadScenarioFile(in.file, cat, overrides);
  } else if (!in.text.empty()) {
    sc = LoadScenarioText(in.text, cat, in.origin, base_dir, overrides);
  } else if (in.json) {
    sc = scenario_internal::LoadScenarioJson(*in.json, cat, in.origin, base_dir, overrides);
  } else if (!in.allow_files) {
    // The built-in default under a request's rules: a `set` naming a file
    // ({file: ...}, {hf_config: ...}) is refused like the scenario's own fields.
    auto d = EmbeddedFile("default.yaml");
    if (!d) return Fail(ErrorCode::kInternal, "", "the built-in default scenario is not embedded");
    sc = LoadScenarioText(std::string(*d), cat, "default.yaml", base_dir, overrides);
  } else {
    sc = DefaultScenario(cat, overrides);
  }
  if (!sc) return sc;
  if (!in.calibration.empty()) {
    if (!in.allow_files) return Fail(ErrorCode::kInvalidInput, "calibration", "a calibration file cannot be named here");
    auto cal = LoadCalibrationFile(in.calibration);
    if (!cal) return Fail(cal.error());
    // Factors fitted on one GPU describe that GPU's kernels and links.
    if (!cal->gpu_id.empty() && warnings) {
      const GpuSpec* fitted = cat.FindGpu(cal->gpu_id);
      const std::string fitted_id = fitted ? fitted->id : cal->gpu_id;
      if (fitted_id != sc->hardware.gpu.id) {
        warnings->push_back(in.calibration + " was fitted on " + fitted_id + "; this scenario runs on " +
                            sc->hardware.gpu.id + ", where its efficiency factors are an assumption, not a measurement");
      }
    }
    ApplyCalibration(*cal, *sc);
  }
  return sc;
}

Result<std::pair<Scenario, std::optional<PlanSummary>>> PlanOf(const ScenarioInput& in, Scenario s) {
  if (in.plan_for.empty() || !plan::AnythingToPlan(s)) return std::pair{std::move(s), std::optional<PlanSummary>()};
  auto obj = plan::ObjectiveFromString(in.plan_for);
  if (!obj) {
    Error e = obj.error();
    for (auto& p : e.problems) p.path = "plan_for";
    return Fail(std::move(e));
  }
  auto p = plan::PlanLayout(s, {*obj});
  if (!p) return Fail(p.error());
  return std::pair{std::move(p->scenario), std::optional<PlanSummary>(std::move(p->summary))};
}

Result<Run> LoadRun(const ScenarioInput& in) {
  Run run;
  auto cat = CatalogOf(in);
  if (!cat) return Fail(cat.error());
  run.catalog = std::move(*cat);
  auto s = LoadScenarioOf(in, *run.catalog, &run.warnings);
  if (!s) return Fail(s.error());
  auto planned = PlanOf(in, std::move(*s));
  if (!planned) return Fail(planned.error());
  run.scenario = std::move(planned->first);
  run.plan = std::move(planned->second);
  return run;
}

std::optional<plan::Objective> ReplanOf(const ScenarioInput& in) {
  if (in.plan_for.empty()) return std::nullopt;
  auto obj = plan::ObjectiveFromString(in.plan_for);
  if (!obj) return std::nullopt;
  return *obj;
}

Result<rlcost::Estimate> EstimateRun(const Run& run, const ScenarioInput& in, bool scaling_notes) {
  const Scenario& s = run.scenario;
  auto e = EstimateAnalytic(s);
  if (!e) return Fail(e.error());
  e->plan = run.plan;
  const plan::Options po{ReplanOf(in).value_or(plan::Objective::kCost)};
  // A planned estimate says it in its plan lines; one read literally gets the
  // planner's notes (a KV cache below the batch, a layout that would do better).
  if (!e->plan) {
    for (auto& n : plan::LiteralNotes(s, *e, po)) e->step.notes.push_back(std::move(n));
  }
  // No silent cliff: the same run on one node fewer has a shorter step.
  if (scaling_notes) {
    for (auto& n : plan::ScalingNotes(s, *e, e->plan.has_value(), po)) e->step.notes.push_back(std::move(n));
  }
  return e;
}

int ExitCode(const Error& e) {
  switch (e.code) {
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNotFound: return 2;
    case ErrorCode::kDoesNotFit: return 3;
    case ErrorCode::kNotImplemented: return 4;
    case ErrorCode::kInternal: return 1;
  }
  return 1;
}

nlohmann::json ErrorJson(const Error& e) { return report::ErrorToJson(e); }

int PrintError(const Error& e, bool json) {
  if (json) std::cout << Dump(ErrorJson(e)) << "\n";
  for (const auto& p : e.problems) std::cerr << "error: " << p.ToString() << "\n";
  return ExitCode(e);
}

}  // namespace rlcost::ops
