// `calibrate` and `validate` (api/fit_op.h).
#include "api/fit_op.h"

#include <filesystem>
#include <optional>

#include "api/validate_render.h"
#include "core/file.h"
#include "fit/calibrate.h"
#include "fit/interval.h"
#include "fit/learning.h"
#include "fit/named_fit.h"
#include "ingest/training_log.h"
#include "rlcost/calibration.h"

namespace rlcost::ops {

Result<void> CalibrateInput::Validate() const {
  Error bad;
  if (log.empty()) bad.problems.push_back({"log", "missing; expected a training log file"});
  if (scenario.file.empty()) bad.problems.push_back({"scenario", "missing; expected the logged run's scenario file"});
  if (!bad.problems.empty()) return Fail(std::move(bad));
  return {};
}

Result<CalibrateOutcome> Calibrate(const CalibrateInput& in) {
  if (auto ok = in.Validate(); !ok) return Fail(ok.error());
  CalibrateOutcome out;
  out.written = in.output;
  if (out.written.empty()) out.written = std::filesystem::path(in.log).stem().string() + ".calibration.yaml";
  // Refused before any work: an output that is one of the inputs.
  std::vector<std::string> inputs = in.scenario.catalog_files;
  inputs.push_back(in.log);
  inputs.push_back(in.scenario.file);
  inputs.push_back(in.scenario.calibration);
  if (auto ok = CheckOutputNotInput(out.written, "output", inputs); !ok) return Fail(ok.error());
  auto log = calib::ParseTrainingLogFile(in.log);
  if (!log) return Fail(log.error());
  auto steps = calib::ExtractPhases(*log);
  if (!steps) return Fail(steps.error());
  auto cat = CatalogOf(in.scenario);
  if (!cat) return Fail(cat.error());
  auto s = LoadScenarioOf(in.scenario, **cat, &out.view.warnings);
  if (!s) return Fail(s.error());
  auto fit = calib::FitCalibration(*s, *steps, in.log);
  if (!fit) return Fail(fit.error());
  if (auto ok = WriteFileAtomic(out.written, CalibrationToYaml(fit->calibration), "output"); !ok) {
    return Fail(ok.error());
  }
  out.view.json = api::CalibrationFitToJson(*fit, *log);
  out.view.json["written"] = out.written;
  out.view.text = api::CalibrationFitToText(*fit, *log);
  return out;
}

Result<void> ValidateInput::Validate() const {
  Error bad;
  if (path != "analytic" && path != "simulated" && path != "both") {
    bad.problems.push_back({"path", "'" + path + "'; expected analytic, simulated or both"});
  }
  if (sim_steps < 0) bad.problems.push_back({"sim_steps", std::to_string(sim_steps) + "; expected 0 or more"});
  if (sim_measure < 0) bad.problems.push_back({"sim_measure", std::to_string(sim_measure) + "; expected 0 or more"});
  if (!bad.problems.empty()) return Fail(std::move(bad));
  return {};
}

namespace {

nlohmann::json LearningJson(const learning::Report& learn) {
  nlohmann::json l = nlohmann::json::object();
  l["chosen"] = learn.chosen;
  for (const auto& m : learn.models) {
    l["models"].push_back({{"model", std::string(signal::ToString(m.model))}, {"rho", m.rho},
                           {"in_sample_passed", m.in_passed}, {"oos_passed", m.oos_passed},
                           {"cases", learn.cases.size()}, {"oos_median_abs_error", m.oos_median_abs_error}});
  }
  return l;
}

}  // namespace

Result<ValidateOutcome> RunValidation(const ValidateInput& in) {
  if (auto ok = in.Validate(); !ok) return Fail(ok.error());
  validate::Options opt;
  opt.analytic = in.path == "analytic" || in.path == "both";
  opt.simulated = in.path == "simulated" || in.path == "both";
  opt.sim.seed = in.seed;
  opt.sim.steps = in.sim_steps;
  opt.sim.measure_steps = in.sim_measure;
  for (const auto& s : in.sets) {
    auto o = ParseOverride(s);
    if (!o) return Fail(o.error());
    opt.overrides.push_back(*o);
  }
  ScenarioInput cat_in;
  cat_in.catalog_files = in.catalog_files;
  cat_in.prices = in.prices;
  auto cat = CatalogOf(cat_in);
  if (!cat) return Fail(cat.error());
  Calibration cal;
  if (!in.calibration.empty()) {
    auto c = LoadCalibrationFile(in.calibration);
    if (!c) return Fail(c.error());
    cal = *c;
    opt.calibration = &cal;
  }
  validate::Facts facts;
  if (!in.facts.empty()) {
    auto f = validate::LoadFacts(in.facts);
    if (!f) return Fail(f.error());
    facts = std::move(*f);
    opt.facts = &facts;
  }
  if (in.fits) {
    auto fits = validate::FitNamedDefaults(in.dir, **cat, opt);
    if (!fits) return Fail(fits.error());
    ValidateOutcome out;
    out.all_pass = true;
    out.view.text = validate::NamedFitsToText(*fits);
    return out;
  }
  auto rep = validate::ValidateDir(in.dir, **cat, opt);
  if (!rep) return Fail(rep.error());
  ValidateOutcome out;
  out.all_pass = rep->AllPass();
  if (in.intervals) {
    out.view.text = interval::BandsYaml(*rep, rep->dir_name);
    return out;
  }
  // The learning side (validation/learning/, docs/model.md sec. 7d): a section of its own after the time cases.
  std::optional<learning::Report> learn;
  if (!in.learning.empty()) {
    auto cases = learning::LoadDir(in.learning);
    if (!cases) return Fail(cases.error());
    learn = learning::Validate(std::move(*cases), std::filesystem::path(in.learning).filename().string());
  }
  if (!in.markdown.empty()) {
    std::string md = api::ValidationToMarkdown(*rep);
    // Runs a catalog default was fitted to: their out-of-sample figure is the
    // fits' leave-one-out error (docs/model.md, "Named fits").
    bool fitted_here = false;
    for (const auto& c : rep->cases) {
      for (const auto* e : c.in_sample) fitted_here |= e->figure.rfind("efficiency.default.", 0) == 0;
    }
    if (fitted_here) {
      auto fits = validate::FitNamedDefaults(in.dir, **cat, opt);
      if (!fits) return Fail(fits.error());
      md += "## Named fits and their leave-one-out error\n\nThese runs are in-sample for the two defaults fitted to "
            "them (docs/model.md, \"Named fits\"). Out of sample, each run predicted with both fits made without "
            "it (`rlcost validate " +
            rep->dir_name + " --fits`):\n\n```\n" + validate::NamedFitsToText(*fits) + "```\n";
    }
    if (learn) md += learning::ToMarkdown(*learn);
    if (auto ok = WriteFileAtomic(in.markdown, md, "markdown"); !ok) return Fail(ok.error());
  }
  out.view.json = api::ValidationToJson(*rep);
  if (learn) out.view.json["learning"] = LearningJson(*learn);
  out.view.text = api::ValidationToText(*rep);
  if (learn) out.view.text += learning::ToText(*learn);
  return out;
}

}  // namespace rlcost::ops
