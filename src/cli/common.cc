#include "cli/common.h"

#include <cmath>
#include <cstdlib>
#include <iostream>

#include "plan/plan.h"
#include "report/report.h"
#include "rlcost/calibration.h"

namespace rlcost::cli {

void AddCommon(CLI::App* sub, Common& c) {
  sub->add_option("--catalog", c.catalog_files, "extra catalog file (GPUs, models, efficiency); repeatable");
  sub->add_option("--set", c.sets, "override a scenario field, e.g. --set model=qwen3-32b; repeatable");
  sub->add_option("--calibration", c.calibration, "calibration file written by `rlcost calibrate`");
  sub->add_flag("--json", c.json, "print JSON instead of a table");
  sub->add_option("--price", c.prices,
                  "price of a GPU in USD per GPU-hour, e.g. --price h100-sxm=3.00; repeatable; sets the catalog's "
                  "default (a scenario's own hardware.price_per_gpu_hour still wins)");
  sub->add_option("--grid", c.grid,
                  "electricity grid for energy.co2e_kg: world (default), china, india, australia, germany, ireland, "
                  "canada, denmark, brazil, finland, france, or grams CO2e per kWh; same as --set energy.grid=...");
}

void AddPlanOptions(CLI::App* sub, Common& c) {
  c.plans = true;
  sub->add_flag("--no-plan", c.no_plan,
                "read the placement literally: fields the scenario leaves out keep their defaults "
                "(rollout_tp 1, colocated) instead of being planned");
  sub->add_option("--plan-for", c.plan_for,
                  "what the planner minimises for the placement fields the scenario leaves out: cost (dollars "
                  "per step, default) or time (step wall time)")
      ->check(CLI::IsMember({"cost", "time"}));
}

Result<PlannedScenario> PlanIfAsked(Scenario s, const Common& c) {
  PlannedScenario out;
  if (!c.plans || c.no_plan || !plan::AnythingToPlan(s)) {
    out.scenario = std::move(s);
    return out;
  }
  auto obj = plan::ObjectiveFromString(c.plan_for);
  if (!obj) return Fail(obj.error());
  auto p = plan::PlanLayout(s, {*obj});
  if (!p) return Fail(p.error());
  out.scenario = std::move(p->scenario);
  out.plan = std::move(p->summary);
  return out;
}

void AddLiteralNotes(const Scenario& s, Estimate& e, const Common& c) {
  if (!c.plans || e.plan) return;  // a planned estimate says it in its plan lines
  auto obj = plan::ObjectiveFromString(c.plan_for);
  if (!obj) return;
  for (auto& n : plan::LiteralNotes(s, e, {*obj})) e.step.notes.push_back(std::move(n));
}

void AddScalingNotes(const Scenario& s, Estimate& e, const Common& c) {
  if (!c.plans) return;
  auto obj = plan::ObjectiveFromString(c.plan_for);
  if (!obj) return;
  for (auto& n : plan::ScalingNotes(s, e, e.plan.has_value(), {*obj})) e.step.notes.push_back(std::move(n));
}

std::optional<plan::Objective> ReplanObjective(const Common& c) {
  if (!c.plans || c.no_plan) return std::nullopt;
  auto obj = plan::ObjectiveFromString(c.plan_for);
  if (!obj) return std::nullopt;
  return *obj;
}

namespace {

// --price GPU=USD: every bad flag reported at once, each naming the flag,
// the value and what was expected.
Result<void> ApplyPrices(const std::vector<std::string>& prices, Catalog& cat) {
  Error bad;
  for (const auto& p : prices) {
    auto eq = p.find('=');
    std::string id = eq == std::string::npos ? p : p.substr(0, eq);
    std::string num = eq == std::string::npos ? "" : p.substr(eq + 1);
    if (eq == std::string::npos || id.empty()) {
      bad.problems.push_back({"--price", "'" + p + "': expected GPU=USD, e.g. h100-sxm=3.00"});
      continue;
    }
    const GpuSpec* g = cat.FindGpu(id);
    if (!g) {
      std::string ids;
      for (const auto& k : cat.GpuIds()) ids += (ids.empty() ? "" : ", ") + k;
      bad.problems.push_back({"--price", "unknown GPU '" + id + "'; expected one of: " + ids});
      continue;
    }
    char* end = nullptr;
    double usd = std::strtod(num.c_str(), &end);
    if (num.empty() || end != num.c_str() + num.size() || !std::isfinite(usd) || !(usd > 0)) {
      bad.problems.push_back({"--price", "'" + num + "' for " + id + "; expected a price in USD per GPU-hour > 0"});
      continue;
    }
    GpuSpec copy = *g;
    copy.price_per_hour = usd;
    copy.sources["price_per_hour"] = "set with --price";
    cat.AddGpu(std::move(copy));
  }
  if (!bad.problems.empty()) return Fail(bad);
  return {};
}

}  // namespace

Result<Catalog> LoadCatalog(const Common& c) {
  auto cat = Catalog::Builtin();
  if (!cat) return cat;
  for (const auto& f : c.catalog_files) {
    if (auto ok = cat->AddFile(f); !ok) return Fail(ok.error());
  }
  if (auto ok = ApplyPrices(c.prices, *cat); !ok) return Fail(ok.error());
  return cat;
}

Result<Scenario> LoadScenario(const std::string& file, const Catalog& cat, const Common& c) {
  std::vector<Override> overrides;
  Error bad;
  for (const auto& s : c.sets) {
    auto o = ParseOverride(s);
    if (!o) {
      for (auto& p : o.error().problems) bad.problems.push_back(p);
    } else {
      overrides.push_back(*o);
    }
  }
  if (!bad.problems.empty()) return Fail(bad);
  if (!c.grid.empty()) overrides.push_back({"energy.grid", c.grid});
  auto sc = file.empty() ? DefaultScenario(cat, overrides) : LoadScenarioFile(file, cat, overrides);
  if (!sc) return sc;
  if (!c.calibration.empty()) {
    auto cal = LoadCalibrationFile(c.calibration);
    if (!cal) return Fail(cal.error());
    // Factors fitted on one GPU describe that GPU's kernels and links.
    if (!cal->gpu_id.empty()) {
      const GpuSpec* fitted = cat.FindGpu(cal->gpu_id);
      const std::string fitted_id = fitted ? fitted->id : cal->gpu_id;
      if (fitted_id != sc->hardware.gpu.id) {
        std::cerr << "warning: " << c.calibration << " was fitted on " << fitted_id << "; this scenario runs on "
                  << sc->hardware.gpu.id << ", where its efficiency factors are an assumption, not a measurement\n";
      }
    }
    ApplyCalibration(*cal, *sc);
  }
  return sc;
}

Result<Scenario> LoadAll(const std::string& file, const Common& c, Catalog* catalog_out) {
  auto cat = LoadCatalog(c);
  if (!cat) return Fail(cat.error());
  auto sc = LoadScenario(file, *cat, c);
  if (catalog_out) *catalog_out = std::move(*cat);
  return sc;
}

int PrintError(const Error& e, bool json) {
  if (json) std::cout << Dump(report::ErrorToJson(e)) << "\n";
  for (const auto& p : e.problems) std::cerr << "error: " << p.ToString() << "\n";
  switch (e.code) {
    case ErrorCode::kInvalidInput:
    case ErrorCode::kNotFound: return 2;
    case ErrorCode::kDoesNotFit: return 3;
    case ErrorCode::kNotImplemented: return 4;
    case ErrorCode::kInternal: return 1;
  }
  return 1;
}

}  // namespace rlcost::cli
