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

#include "cli/common.h"
#include "core/file.h"
#include "forecast/backtest_report.h"
#include "forecast/forecast.h"
#include "forecast/render.h"
#include "rlcost/estimate.h"

namespace rlcost::cli {
namespace {

struct ForecastArgs {
  Common common;
  std::vector<std::string> logs;
  std::string metric;
  std::optional<double> target;
  std::optional<int> fit_until;
  std::string scenario;
  int gpus = 0;
  std::string gpu;
  std::optional<double> usd_per_gpu_hour;
  int replicates = 400;
  uint64_t seed = 1;
  double level = 0.9;
  int half_window = -1;
  std::string curve;
  bool backtest = false;
  bool smoothed_truth = false;
  bool markdown = false;
  std::string output;                       // -o: the fitted curve as a goal curve file
  std::optional<double> useful_per_step;    // useful samples a step of the logged run
  int group_size = 0;                       // its group size (0: the scenario's, else 16)
};

// The kept sigmoid, fitted on steps, as a goal curve in useful samples
// (docs/model.md, sec. 7b.2): C_mid x useful samples a step of the logged run.
std::string GoalCurveYaml(const forecast::ProgressSeries& s, const forecast::Outcome& r, double useful, int group,
                          const std::string& log, const std::string& useful_from) {
  const forecast::Curve& c = r.curve;
  return fmt::format(
      "# A goal curve fitted by `rlcost forecast {} --target {:g} -o ...` (docs/model.md, sec. 7b.2).\n"
      "# R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) with C in useful samples = the log's steps x {:.6g} useful\n"
      "# samples a step ({}). The fit's own start R0 = {:.4g}; rlcost starts the curve at the scenario's mean\n"
      "# pass rate instead. Use it: rlcost estimate SCENARIO --set goal.curve=THIS_FILE\n"
      "asymptote: {:.6g}\nexponent: {:.6g}\nmidpoint_useful_samples: {:.6g}\nbatch_useful_samples: {:.6g}\n"
      "# group size of the logged run: {} (rlcost takes a curve's run at G = 16; docs/model.md sec. 7d)\n"
      "source: \"fitted by rlcost forecast from {} ({}, {} points to step {})\"\n",
      log, r.target, useful, useful_from, c.r0, c.a, c.b, c.c_mid * useful, useful, group, log, s.metric, r.points_used,
      r.fit_until_step);
}

int Run(const ForecastArgs& a) {
  const bool json = a.common.json;
  forecast::ReadOptions ro{a.metric, a.gpus};
  forecast::Options fo;
  fo.replicates = a.replicates;
  fo.seed = a.seed;
  fo.level = a.level;
  fo.half_window = a.half_window;
  fo.smoothed_truth = a.smoothed_truth;
  if (!a.curve.empty()) {
    if (a.curve == "sigmoid") fo.only = forecast::CurveKind::kSigmoid;
    else if (a.curve == "power_law") fo.only = forecast::CurveKind::kPowerLaw;
    else return PrintError(Error::Invalid("--curve", "\"" + a.curve + "\": expected sigmoid or power_law"), json);
  }
  if (a.backtest) {
    std::vector<forecast::ProgressSeries> runs;
    for (const auto& path : a.logs) {
      auto s = forecast::ReadProgressFile(path, ro);
      if (!s) return PrintError(s.error(), json);
      runs.push_back(std::move(*s));
    }
    auto bt = forecast::RunBacktest(runs, fo);
    if (json) std::cout << Dump(forecast::BacktestToJson(bt)) << "\n";
    else std::cout << forecast::BacktestToMarkdown(bt, a.markdown);
    return 0;
  }
  if (a.logs.size() != 1) {
    return PrintError(Error::Invalid("log", fmt::format("expected one log file, got {} (several are for --backtest)",
                                                        a.logs.size())),
                      json);
  }
  if (!a.target) return PrintError(Error::Invalid("--target", "required: the metric's value to forecast the steps to"), json);
  fo.target = *a.target;
  fo.fit_until = a.fit_until;
  if (!a.output.empty()) {
    // A goal curve is rlcost's sigmoid (docs/model.md, sec. 7): fit that one.
    if (fo.only && *fo.only != forecast::CurveKind::kSigmoid) {
      return PrintError(Error::Invalid("--curve", "power_law with -o: a goal curve is a sigmoid; leave --curve out"), json);
    }
    fo.only = forecast::CurveKind::kSigmoid;
    if (a.scenario.empty() && !a.useful_per_step) {
      return PrintError(Error::Invalid("-o", "needs the logged run's useful samples a step to put the curve in useful "
                                             "samples: give --scenario FILE (the logged run) or --useful-per-step N"),
                        json);
    }
  }
  auto s = forecast::ReadProgressFile(a.logs[0], ro);
  if (!s) return PrintError(s.error(), json);
  auto r = forecast::Forecast(*s, fo);
  if (!r) return PrintError(r.error(), json);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  forecast::StepCost cost;
  if (!a.scenario.empty()) {
    auto sc = LoadAll(a.scenario, a.common);
    if (!sc) return PrintError(sc.error(), json);
    auto e = EstimateAnalytic(*sc, TextDetail::kNumbers);
    if (!e) return PrintError(e.error(), json);
    const double gpus = sc->hardware.gpus + e->step.verifier_gpus;  // a dedicated judge's GPUs are the run's too
    cost.source = "scenario";
    cost.step_s = e->step.time_s;
    cost.gpu_hours_per_step = e->step.time_s * gpus / 3600.0;
    cost.usd_per_step = e->usd_per_step;
    cost.usd_per_gpu_hour = cost.gpu_hours_per_step > 0 ? e->usd_gpu_per_step / cost.gpu_hours_per_step : nan;
    cost.note = fmt::format("step cost from the scenario {} ({}): {:.1f} s, ${:.4g} a step", a.scenario,
                            sc->name, cost.step_s, cost.usd_per_step);
  } else {
    // The price of a GPU-hour: --usd-per-gpu-hour, else the catalog price of
    // --gpu (an assumed h100-sxm when --gpus is given without either).
    double usd = a.usd_per_gpu_hour.value_or(nan);
    std::string priced;
    if (!a.usd_per_gpu_hour && (a.gpus > 0 || !a.gpu.empty())) {
      auto cat = LoadCatalog(a.common);
      if (!cat) return PrintError(cat.error(), json);
      const std::string id = a.gpu.empty() ? "h100-sxm" : a.gpu;
      const GpuSpec* g = cat->FindGpu(id);
      if (!g) {
        std::string known;
        for (const auto& k : cat->GpuIds()) known += (known.empty() ? "" : ", ") + k;
        return PrintError(Error::Invalid("--gpu", fmt::format("unknown GPU '{}'; known: {}", id, known)), json);
      }
      if (g->price_per_hour > 0) {
        usd = g->price_per_hour;
        priced = fmt::format("; ${:.2f} a GPU-hour, the catalog price of {}{}", usd, g->id,
                             a.gpu.empty() ? " (ASSUMED: no --gpu given)" : "");
      }
    }
    cost = forecast::CostFromLog(*s, r->fit_until_step, usd);
    if (!cost.note.empty()) cost.note += priced;
  }
  if (!a.output.empty()) {
    if (!r->fitted || r->curve.kind != forecast::CurveKind::kSigmoid) {
      return PrintError(Error::Invalid("-o", fmt::format("no sigmoid was fitted to the log ({}); no curve to write",
                                                         r->ok ? "the points already reach the target" : r->reason)),
                        json);
    }
    if (!(r->curve.a > 0 && r->curve.a <= 1)) {
      return PrintError(Error::Invalid("-o", fmt::format("the fitted asymptote {:.4g} is not a pass rate in (0, 1]; a "
                                                         "goal curve needs a pass-rate metric (--metric)", r->curve.a)),
                        json);
    }
    double useful = a.useful_per_step.value_or(0);
    int group = a.group_size > 0 ? a.group_size : 16;
    std::string from = "--useful-per-step";
    if (!a.useful_per_step) {
      auto sc = LoadAll(a.scenario, a.common);
      if (!sc) return PrintError(sc.error(), json);
      auto e = EstimateAnalytic(*sc, TextDetail::kNumbers);
      if (!e) return PrintError(e.error(), json);
      useful = e->signal.useful_samples_per_step;
      if (a.group_size <= 0) group = sc->algorithm.group_size;
      from = "signal.useful_samples_per_step of " + a.scenario;
    }
    if (!(useful > 0)) return PrintError(Error::Invalid("--useful-per-step", "expected > 0 useful samples a step"), json);
    if (auto ok = WriteFileAtomic(a.output, GoalCurveYaml(*s, *r, useful, group, a.logs[0], from), "-o"); !ok) {
      return PrintError(ok.error(), json);
    }
  }
  if (json) std::cout << Dump(forecast::ToJson(*s, *r, cost)) << "\n";
  else std::cout << forecast::ToText(*s, *r, cost);
  if (!a.output.empty() && !json) {
    std::cout << fmt::format("\ngoal curve written to {}: rlcost estimate SCENARIO --set goal.curve={}\n", a.output,
                             a.output);
  }
  return 0;
}

}  // namespace

void RegisterForecast(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ForecastArgs>();
  auto* sub = app.add_subcommand(
      "forecast", "fit a run's own learning curve from its log and forecast the steps, hours and dollars to a target");
  sub->add_option("log", args->logs,
                  "the run's progress: a CSV with a 'step' column ('#' lines are comments), veRL console or JSONL, "
                  "NeMo RL JSONL or metrics JSON, or a wandb CSV export")
      ->required();
  sub->add_option("--target", args->target, "the metric's value to reach (e.g. 0.55 validation accuracy)");
  sub->add_option("--metric", args->metric,
                  "the column or key to forecast (default: the first of val_acc, val/test_score/..., "
                  "validation/accuracy, critic/score/mean, train/reward present)");
  sub->add_option("--fit-until", args->fit_until, "fit only the points up to this step (a back-test)")
      ->check(CLI::Range(0, std::numeric_limits<int>::max()));
  sub->add_option("--scenario", args->scenario, "price the steps with this scenario's step cost (default: the log's step times)");
  sub->add_option("--gpus", args->gpus, "GPUs of the logged run (GPU-hours from the log's step times)")
      ->check(CLI::Range(1, 1'000'000));
  sub->add_option("--gpu", args->gpu,
                  "the logged run's GPU: its catalog price prices the GPU-hours (default with --gpus: an assumed "
                  "h100-sxm)");
  sub->add_option("--usd-per-gpu-hour", args->usd_per_gpu_hour, "price of a GPU-hour for the log's steps (default: "
                                                                  "the catalog price of --gpu)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--replicates", args->replicates, "bootstrap refits for the interval (default 400)")
      ->check(CLI::Range(0, 100'000));
  sub->add_option("--seed", args->seed, "seed of the bootstrap (default 1)")->check(SeedValidator());
  sub->add_option("--level", args->level, "nominal two-sided level of the bootstrap quantiles (default 0.9: the 5-95% quantiles; docs/forecast-validation.md gives the coverage the back-test shows)")
      ->check(CLI::Range(0.5, 0.99));
  sub->add_option("--smooth", args->half_window,
                  "a target counts as reached where the metric averaged over this many logged points either side is "
                  "(default: the first logged value at the target, the interval also spanning the average over 2.5% "
                  "of the log's points either side)")
      ->check(CLI::Range(0, 100'000));
  sub->add_option("--curve", args->curve, "fit only this curve: sigmoid or power_law (default: choose by held-out error)");
  sub->add_flag("--backtest", args->backtest,
                "fit the first 30/50/70% of each LOG and score the forecasts of targets reached later");
  sub->add_flag("--smoothed-truth", args->smoothed_truth,
                "with --backtest: the true step is where the average over 2.5% of the points either side reaches the "
                "target (default: the first logged value that does)");
  sub->add_flag("--markdown", args->markdown, "with --backtest: the tables as Markdown (docs/forecast-validation.md)");
  sub->add_option("-o,--output", args->output,
                  "write the fitted sigmoid as a goal curve (YAML) that `estimate --set goal.curve=FILE` reads; needs "
                  "--scenario (the logged run) or --useful-per-step");
  sub->add_option("--useful-per-step", args->useful_per_step,
                  "useful samples a step of the logged run (default: the --scenario's signal.useful_samples_per_step)")
      ->check(CLI::PositiveNumber);
  sub->add_option("--group-size", args->group_size, "group size of the logged run (default: the --scenario's, else 16)")
      ->check(CLI::Range(2, 4096));
  AddCommon(sub, args->common);
  sub->callback([args, &exit_code] { exit_code = Run(*args); });
}

}  // namespace rlcost::cli
