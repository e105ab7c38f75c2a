// `rlcost estimate [FILE] [--json]` and `rlcost simulate FILE [--json] [--seed N]`.
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "core/file.h"
#include "report/intervals.h"
#include "report/report.h"
#include "rlcost/estimate.h"

namespace rlcost::cli {
namespace {

struct EstimateArgs {
  Common common;
  std::string file;
  bool full = false;
};

struct SimulateArgs {
  Common common;
  std::string file;
  uint64_t seed = 1;
  int steps = 0;
  std::string trace;
  bool full = false;
};

// Brief by default (the answer, where it goes, the assumptions); --full: every metric.
int Print(const Scenario& s, const Estimate& e, bool json, bool full) {
  if (json) {
    std::cout << Dump(report::EstimateToJson(s, e)) << "\n";
  } else if (full) {
    std::cout << report::EstimateToTable(s, e) << report::IntervalsToTable(e);
  } else {
    std::cout << report::EstimateBrief(s, e);
  }
  return 0;
}

}  // namespace

void RegisterEstimate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EstimateArgs>();
  auto* sub = app.add_subcommand("estimate", "closed-form (analytic) cost estimate of a scenario (default: the built-in one)");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default (scenarios/default.yaml)");
  sub->add_flag("--full", args->full, "every metric with its unit and meaning (default: the brief answer)");
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    auto loaded = LoadAll(args->file, args->common);
    if (!loaded) { exit_code = PrintError(loaded.error(), args->common.json); return; }
    auto s = PlanIfAsked(std::move(*loaded), args->common);
    if (!s) { exit_code = PrintError(s.error(), args->common.json); return; }
    auto e = EstimateAnalytic(s->scenario);
    if (!e) { exit_code = PrintError(e.error(), args->common.json); return; }
    e->plan = s->plan;
    AddLiteralNotes(s->scenario, *e, args->common);
    AddScalingNotes(s->scenario, *e, args->common);
    exit_code = Print(s->scenario, *e, args->common.json, args->full);
  });
}

void RegisterSimulate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SimulateArgs>();
  auto* sub = app.add_subcommand("simulate", "discrete-event simulation of the RL loop");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--seed", args->seed, "random seed (same seed, same result)")->check(SeedValidator());
  sub->add_option("--steps", args->steps, "steps to simulate (default: the scenario's algorithm.steps)")
      ->check(CLI::Range(1, 1'000'000'000));
  sub->add_option("--trace", args->trace, "write a Chrome trace-event JSON (Perfetto, chrome://tracing)");
  sub->add_flag("--full", args->full, "every metric with its unit and meaning (default: the brief answer)");
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    auto loaded = LoadAll(args->file, args->common);
    if (!loaded) { exit_code = PrintError(loaded.error(), args->common.json); return; }
    // The layout is planned with the closed form, then simulated.
    auto s = PlanIfAsked(std::move(*loaded), args->common);
    if (!s) { exit_code = PrintError(s.error(), args->common.json); return; }
    // The trace may replace none of what this run read: its scenario, a
    // catalog, the calibration, a pass-rate CSV or the scenario compared with (#40).
    std::vector<std::string> inputs = args->common.catalog_files;
    inputs.push_back(args->file);
    inputs.push_back(args->common.calibration);
    inputs.push_back(s->scenario.environment.pass_rate.file);
    if (s->scenario.expect) inputs.push_back(s->scenario.expect->relative_scenario);
    if (auto ok = CheckOutputNotInput(args->trace, "--trace", inputs); !ok) {
      exit_code = PrintError(ok.error(), args->common.json);
      return;
    }
    sim::Options opt;
    opt.seed = args->seed;
    opt.steps = args->steps;
    opt.trace_path = args->trace;
    auto e = EstimateSimulated(s->scenario, opt);
    if (!e) { exit_code = PrintError(e.error(), args->common.json); return; }
    e->plan = s->plan;
    exit_code = Print(s->scenario, *e, args->common.json, args->full);
  });
}

}  // namespace rlcost::cli
