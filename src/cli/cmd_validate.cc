// `rlcost validate DIR`: every scenario with an `expect` block, predicted vs
// measured, on the analytic and the simulated path (econ/validate.h).
#include <iostream>
#include <memory>
#include <string>

#include "api/fit_op.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

struct ValidateArgs {
  Common common;
  ops::ValidateInput in;
  bool report_only = false;
};

int Run(const ValidateArgs& a) {
  ops::ValidateInput in = a.in;
  in.sets = a.common.sets;
  in.catalog_files = a.common.catalog_files;
  in.prices = a.common.prices;
  in.calibration = a.common.calibration;
  auto r = ops::RunValidation(in);
  if (!r) return PrintError(r.error(), a.common.json);
  if (in.intervals || in.fits) {
    std::cout << r->view.text;
    return 0;
  }
  std::cout << (a.common.json ? Dump(r->view.json) + "\n" : r->view.text);
  return r->all_pass || a.report_only ? 0 : 1;
}

}  // namespace

void RegisterValidate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ValidateArgs>();
  auto* sub = app.add_subcommand("validate", "compare predictions with the measured runs of a folder of scenarios with `expect` blocks");
  sub->add_option("dir", args->in.dir, "folder of scenarios (e.g. ../shared/validation)")->required();
  sub->add_option("--path", args->in.path, "analytic | simulated | both (default both)")
      ->check(CLI::IsMember({"analytic", "simulated", "both"}));
  sub->add_flag("--report-only", args->report_only, "exit 0 even when a metric is out of tolerance");
  sub->add_option("--markdown", args->in.markdown, "also write the report as markdown (docs/validation.md)");
  sub->add_option("--facts", args->in.facts,
                  "YAML of facts the published sources state but the case files leave out (engine, critic, "
                  "placement), each with its source; applied per case and listed in the report");
  sub->add_option("--seed", args->in.seed, "random seed of the simulated path")->check(SeedValidator());
  sub->add_option("--sim-steps", args->in.sim_steps, "steps the simulated path runs per scenario (0 = the scenario's)")
      ->check(CLI::Range(0, 1'000'000'000));
  sub->add_option("--sim-measure", args->in.sim_measure,
                  "steady steps the simulated path measures after the warm-up, extrapolated to the scenario's steps "
                  "(0 = simulate every step; default " + std::to_string(ops::ValidateInput{}.sim_measure) + ")")
      ->check(CLI::Range(0, 1'000'000'000));
  sub->add_flag("--intervals", args->in.intervals,
                "print the likely-range bands read off these runs (the text of catalog/intervals.yaml) instead of the report");
  sub->add_flag("--fits", args->in.fits,
                "recompute the catalog's two fitted defaults (a typical RL run's share of the train MFU, the hosts' "
                "pageable copy rate) from these runs, with each one's leave-one-out error, instead of the report");
  sub->add_option("--learning", args->in.learning,
                  "also report the learning side: a folder of published ablations (validation/learning), each the "
                  "steps two runs need to the same quality, predicted by each learning model (docs/model.md sec. 7d)");
  AddCommon(sub, args->common);
  sub->callback([args, &exit_code] { exit_code = Run(*args); });
}

}  // namespace rlcost::cli
