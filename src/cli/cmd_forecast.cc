// `rlcost forecast LOG --target T [--metric KEY] [--fit-until STEP] [--scenario FILE]`:
// fits the run's own learning curve and forecasts the steps, hours and dollars
// to a target (src/forecast/forecast.h). `--backtest` instead fits the first
// 30/50/70% of each given run and scores the forecasts of targets reached later.
#include <cmath>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "api/views.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

struct ForecastArgs {
  Common common;
  std::string scenario;
  ops::ForecastInput f;
};


int Run(const ForecastArgs& a) {
  ops::ForecastInput f = a.f;
  f.scenario = Input(a.scenario, a.common);  // its catalog prices --gpu even without --scenario
  if (!a.scenario.empty()) {
    // The step `rlcost estimate` prices: the same run, planned (--no-plan: literally).
    f.with_scenario = true;
    f.scenario_label = a.scenario;
  }
  auto v = ops::ForecastView(f);
  if (!v) return PrintError(v.error(), a.common.json);
  PrintWarnings(v->warnings);
  std::cout << (a.common.json ? Dump(v->json) + "\n" : v->text);
  return 0;
}

}  // namespace

void RegisterForecast(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ForecastArgs>();
  auto* sub = app.add_subcommand(
      "forecast", "fit a run's own learning curve from its log and forecast the steps, hours and dollars to a target");
  sub->add_option("log", args->f.logs,
                  "the run's progress: a CSV with a 'step' column ('#' lines are comments), veRL console or JSONL, "
                  "NeMo RL JSONL or metrics JSON, or a wandb CSV export")
      ->required();
  sub->add_option("--target", args->f.target, "the metric's value to reach (e.g. 0.55 validation accuracy)");
  sub->add_option("--metric", args->f.metric,
                  "the column or key to forecast (default: the first of val_acc, val/test_score/..., "
                  "validation/accuracy, critic/score/mean, train/reward present)");
  sub->add_option("--fit-until", args->f.fit_until, "fit only the points up to this step (a back-test)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  sub->add_option("--scenario", args->scenario, "price the steps with this scenario's step cost (default: the log's step times)");
  sub->add_option("--gpus", args->f.gpus, "GPUs of the logged run (GPU-hours from the log's step times)")
      ->check(CLI::Range(1, 1'000'000));
  sub->add_option("--gpu", args->f.gpu,
                  "the logged run's GPU: its catalog price prices the GPU-hours (default with --gpus: an assumed "
                  "h100-sxm)");
  sub->add_option("--usd-per-gpu-hour", args->f.usd_per_gpu_hour, "price of a GPU-hour for the log's steps (default: "
                                                                    "the catalog price of --gpu)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--replicates", args->f.replicates, "bootstrap refits for the interval (default 400)")
      ->check(CLI::Range(0, 100'000));
  sub->add_option("--seed", args->f.seed, "seed of the bootstrap (default 1)")->check(SeedValidator());
  sub->add_option("--level", args->f.level, "nominal two-sided level of the bootstrap quantiles (default 0.9: the 5-95% quantiles; docs/forecast-validation.md gives the coverage the back-test shows)")
      ->check(CLI::Range(0.5, 0.99));
  sub->add_option("--smooth", args->f.half_window,
                  "a target counts as reached where the metric averaged over this many logged points either side is "
                  "(default: the first logged value at the target, the interval also spanning the average over 2.5% "
                  "of the log's points either side)")
      ->check(CLI::Range(0, 100'000));
  sub->add_option("--curve", args->f.curve, "fit only this curve: sigmoid or power_law (default: choose by held-out error)");
  sub->add_flag("--backtest", args->f.backtest,
                "fit the first 30/50/70% of each LOG and score the forecasts of targets reached later");
  sub->add_flag("--smoothed-truth", args->f.smoothed_truth,
                "with --backtest: the true step is where the average over 2.5% of the points either side reaches the "
                "target (default: the first logged value that does)");
  sub->add_flag("--markdown", args->f.markdown, "with --backtest: the tables as Markdown (docs/forecast-validation.md)");
  sub->add_option("-o,--output", args->f.output,
                  "write the fitted sigmoid as a goal curve (YAML) that `estimate --set goal.curve=FILE` reads; needs "
                  "--scenario (the logged run) or --useful-per-step");
  sub->add_option("--useful-per-step", args->f.useful_per_step,
                  "useful samples a step of the logged run (default: the --scenario's signal.useful_samples_per_step)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--group-size", args->f.group_size, "group size of the logged run (default: the --scenario's, else 16)")
      ->check(CLI::Range(2, 4096));
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] { exit_code = Run(*args); });
}

}  // namespace rlcost::cli
