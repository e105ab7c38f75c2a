// `rlcost validate DIR`: every scenario with an `expect` block, predicted vs
// measured, on the analytic and the simulated path (econ/validate.h).
#include <filesystem>
#include <fstream>
#include <optional>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "core/file.h"
#include "api/validate_render.h"
#include "fit/interval.h"
#include "fit/learning.h"
#include "fit/validate.h"
#include "rlcost/calibration.h"

namespace rlcost::cli {
namespace {

struct ValidateArgs {
  Common common;
  std::string dir;
  std::string path = "both";
  bool report_only = false;
  std::string markdown;
  std::string facts;
  uint64_t seed = 1;
  int sim_steps = 0;
  int sim_measure = validate::kValidateMeasureSteps;
  bool intervals = false;
  std::string learning;
};

int Run(const ValidateArgs& a) {
  const bool json = a.common.json;
  validate::Options opt;
  opt.analytic = a.path == "analytic" || a.path == "both";
  opt.simulated = a.path == "simulated" || a.path == "both";
  opt.sim.seed = a.seed;
  opt.sim.steps = a.sim_steps;
  opt.sim.measure_steps = a.sim_measure;
  for (const auto& s : a.common.sets) {
    auto o = ParseOverride(s);
    if (!o) return PrintError(o.error(), json);
    opt.overrides.push_back(*o);
  }
  auto cat = LoadCatalog(a.common);
  if (!cat) return PrintError(cat.error(), json);
  Calibration cal;
  if (!a.common.calibration.empty()) {
    auto c = LoadCalibrationFile(a.common.calibration);
    if (!c) return PrintError(c.error(), json);
    cal = *c;
    opt.calibration = &cal;
  }
  validate::Facts facts;
  if (!a.facts.empty()) {
    auto f = validate::LoadFacts(a.facts);
    if (!f) return PrintError(f.error(), json);
    facts = std::move(*f);
    opt.facts = &facts;
  }
  auto rep = validate::ValidateDir(a.dir, *cat, opt);
  if (!rep) return PrintError(rep.error(), json);
  if (a.intervals) {
    std::cout << interval::BandsYaml(*rep, rep->dir_name);
    return 0;
  }
  // The learning side (validation/learning/, docs/model.md sec. 7d): a section of its own after the time cases.
  std::optional<learning::Report> learn;
  if (!a.learning.empty()) {
    auto cases = learning::LoadDir(a.learning);
    if (!cases) return PrintError(cases.error(), json);
    learn = learning::Validate(std::move(*cases), std::filesystem::path(a.learning).filename().string());
  }
  if (!a.markdown.empty()) {
    std::string md = api::ValidationToMarkdown(*rep);
    if (learn) md += learning::ToMarkdown(*learn);
    if (auto ok = WriteFileAtomic(a.markdown, md, "--markdown"); !ok) {
      return PrintError(ok.error(), json);
    }
  }
  if (json) {
    auto j = api::ValidationToJson(*rep);
    if (learn) {
      nlohmann::json l = nlohmann::json::object();
      l["chosen"] = learn->chosen;
      for (const auto& m : learn->models) {
        l["models"].push_back({{"model", std::string(signal::ToString(m.model))}, {"rho", m.rho},
                               {"in_sample_passed", m.in_passed}, {"oos_passed", m.oos_passed},
                               {"cases", learn->cases.size()}, {"oos_median_abs_error", m.oos_median_abs_error}});
      }
      j["learning"] = l;
    }
    std::cout << Dump(j) << "\n";
  } else {
    std::cout << api::ValidationToText(*rep);
    if (learn) std::cout << learning::ToText(*learn);
  }
  return rep->AllPass() || a.report_only ? 0 : 1;
}

}  // namespace

void RegisterValidate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  auto* sub = app.add_subcommand("validate", "compare predictions with the measured runs of a folder of scenarios with `expect` blocks");
  sub->add_option("dir", args->dir, "folder of scenarios (e.g. ../shared/validation)")->required();
  sub->add_option("--path", args->path, "analytic | simulated | both (default both)")
      ->check(CLI::IsMember({"analytic", "simulated", "both"}));
  sub->add_flag("--report-only", args->report_only, "exit 0 even when a metric is out of tolerance");
  sub->add_option("--markdown", args->markdown, "also write the report as markdown (docs/validation.md)");
  sub->add_option("--facts", args->facts,
                  "YAML of facts the published sources state but the case files leave out (engine, critic, "
                  "placement), each with its source; applied per case and listed in the report");
  sub->add_option("--seed", args->seed, "random seed of the simulated path")->check(SeedValidator());
  sub->add_option("--sim-steps", args->sim_steps, "steps the simulated path runs per scenario (0 = the scenario's)")
      ->check(CLI::Range(0, 1'000'000'000));
  sub->add_option("--sim-measure", args->sim_measure,
                  "steady steps the simulated path measures after the warm-up, extrapolated to the scenario's steps "
                  "(0 = simulate every step; default " + std::to_string(validate::kValidateMeasureSteps) + ")")
      ->check(CLI::Range(0, 1'000'000'000));
  sub->add_flag("--intervals", args->intervals,
                "print the likely-range bands read off these runs (the text of catalog/intervals.yaml) instead of the report");
  sub->add_option("--learning", args->learning,
                  "also report the learning side: a folder of published ablations (validation/learning), each the "
                  "steps two runs need to the same quality, predicted by each learning model (docs/model.md sec. 7d)");
  AddCommon(sub, args->common);
  sub->callback([args, &exit_code] { exit_code = Run(*args); });
}

}  // namespace rlcost::cli
