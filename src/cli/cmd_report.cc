// `rlcost report FILE -o report.html [--simulate] [lever options]`: one
// self-contained HTML file (inline SVG, CSS and JS; works offline).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "cli/common.h"
#include "core/file.h"
#include "cli/lever_args.h"
#include "decide/sensitivity.h"
#include "forecast/forecast.h"
#include "forecast/plot.h"
#include "cli/variants.h"
#include "report/html.h"
#include "report/levers_table.h"

namespace rlcost::cli {
namespace {
struct ReportArgs {
  Common common;
  LeverArgs levers;
  std::string file;
  std::string out = "report.html";
  bool simulate = false;
  uint64_t seed = 1;
  std::string progress;           // --progress LOG: the run's own learning curve, drawn
  std::optional<double> target;   // --target: what it is forecast to (default goal.target_pass_rate)
  std::string metric;             // --metric: the log's column (default: as rlcost forecast)
};
// The scenario on 1/4 .. 4x its GPUs, loaded through --set so that every
// count is checked like a user's own (tensor parallelism, memory, placement).
std::vector<report::GpuCountPoint> GpuCountSweep(const std::string& file, const Catalog& cat, const Common& common,
                                                 const Scenario& s) {
  std::vector<report::GpuCountPoint> out;
  const int g = s.hardware.gpus;
  std::vector<int> counts;
  for (int d : {4, 2}) {
    if (g % d == 0 && g / d >= 1) counts.push_back(g / d);
  }
  for (int m : {1, 2, 4}) counts.push_back(g * m);
  for (int n : counts) {
    report::GpuCountPoint p;
    p.gpus = n;
    Common c = common;
    c.sets.push_back(fmt::format("hardware.gpus={}", n));
    if (s.placement.mode == PlacementMode::kDisaggregated) {
      int r = std::clamp(static_cast<int>(std::lround(double(n) * s.placement.rollout_gpus / g)), 1, std::max(1, n - 1));
      c.sets.push_back(fmt::format("placement.rollout_gpus={}", r));
      c.sets.push_back(fmt::format("placement.train_gpus={}", n - r));
    }
    auto v = LoadScenario(file, cat, c);
    // Planned as the report's own run is (a count's own best layout).
    Result<PlannedScenario> pv = v ? PlanIfAsked(std::move(*v), c) : Result<PlannedScenario>(Fail(v.error()));
    Result<Estimate> e = pv ? EstimateAnalytic(pv->scenario) : Result<Estimate>(Fail(pv.error()));
    if (e) {
      p.usd = e->usd;
      p.wall_time_h = e->wall_time_h;
      p.usd_per_useful_sample = e->usd_per_useful_sample;
    } else {
      p.error = e.error().problems.empty() ? e.error().ToString() : e.error().problems.front().ToString();
    }
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

void RegisterReport(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand("report", "write a self-contained HTML report with charts (works offline)");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("-o,--output", args->out, "HTML file to write");
  sub->add_flag("--simulate", args->simulate, "also run the discrete-event simulator (timeline of one simulated step)");
  sub->add_option("--seed", args->seed, "simulation seed")->check(SeedValidator());
  sub->add_option("--progress", args->progress,
                  "the run's progress log (any log rlcost forecast reads): its points, the fitted learning curve and its "
                  "band are drawn in the report");
  sub->add_option("--target", args->target,
                  "with --progress: the metric's value to forecast the steps to (default: the scenario's goal.target_pass_rate)");
  sub->add_option("--metric", args->metric, "with --progress: the column or key to fit (default: as rlcost forecast)");
  AddLeverOptions(sub, args->levers);
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // Refused before any work: an output that is one of the inputs.
    std::vector<std::string> inputs = args->common.catalog_files;
    inputs.push_back(args->file);
    inputs.push_back(args->common.calibration);
    inputs.push_back(args->progress);
    if (auto ok = CheckOutputNotInput(args->out, "--output", inputs); !ok) {
      exit_code = PrintError(ok.error(), args->common.json);
      return;
    }
    Catalog cat;
    auto loaded = LoadAll(args->file, args->common, &cat);
    if (!loaded) { exit_code = PrintError(loaded.error(), args->common.json); return; }
    // The user's run as `rlcost estimate` prices it: the layout fields it
    // leaves out planned (--no-plan: literally), the plan shown first.
    auto planned = PlanIfAsked(std::move(*loaded), args->common);
    if (!planned) { exit_code = PrintError(planned.error(), args->common.json); return; }
    const Scenario* s = &planned->scenario;
    auto opt = ToOptions(args->levers);
    if (!opt) { exit_code = PrintError(opt.error(), args->common.json); return; }
    auto e = EstimateAnalytic(*s);
    if (!e) { exit_code = PrintError(e.error(), args->common.json); return; }
    e->plan = planned->plan;
    AddLiteralNotes(*s, *e, args->common);
    // --progress: the run's own curve, fitted and forecast as `rlcost forecast` does.
    std::optional<forecast::Plot> plot;
    if (!args->progress.empty()) {
      const std::optional<double> target = args->target ? args->target : s->goal.target_pass_rate;
      if (!target) {
        exit_code = PrintError(Error::Invalid("--target", "required with --progress when the scenario sets no goal.target_pass_rate: the metric's value to forecast the steps to"), args->common.json);
        return;
      }
      auto series = forecast::ReadProgressFile(args->progress, forecast::ReadOptions{args->metric, 0});
      if (!series) { exit_code = PrintError(series.error(), args->common.json); return; }
      forecast::Options fo;
      fo.target = *target;
      auto r = forecast::Forecast(*series, fo);
      if (!r) { exit_code = PrintError(r.error(), args->common.json); return; }
      plot = forecast::BuildPlot(*series, *r);
    }
    report::HtmlInput in;
    in.scenario = s;
    in.estimate = &*e;
    if (plot) in.forecast = &*plot;
    Result<Estimate> sim = Fail(ErrorCode::kNotImplemented, "", "not requested");
    if (args->simulate) {
      sim::Options so;
      so.seed = args->seed;
      sim = EstimateSimulated(*s, so);
      if (sim) {
        in.simulated = &*sim;
      } else {
        in.simulate_error = sim.error().ToString();
      }
    }
    auto wf = levers::BuildWaterfall(*s, cat, *opt);
    if (wf) {
      in.waterfall = &*wf;
    } else {
      in.waterfall_error = wf.error().ToString();
    }
    std::vector<double> ps;
    for (int i = 1; i <= 49; ++i) ps.push_back(i / 50.0);  // 0.02 .. 0.98: at 0 and 1 no group is informative
    in.curves = levers::CostVsPassRate(*s, {2, 4, 8, 16}, ps);
    in.gpu_counts = GpuCountSweep(args->file, cat, args->common, *s);
    // The tornado of `rlcost sensitivity` with its defaults (analytic).
    auto load = [&](const std::vector<Override>& extra) -> Result<Scenario> {
      Common c = args->common;
      for (const auto& o : extra) c.sets.push_back(o.path + "=" + o.value);
      auto v = LoadScenario(args->file, cat, c);
      if (!v) return Fail(v.error());
      auto pv = PlanIfAsked(std::move(*v), c);
      if (!pv) return Fail(pv.error());
      return std::move(pv->scenario);
    };
    auto tornado = sensitivity::Build(*s, load, sensitivity::Options{});
    if (tornado) {
      in.tornado = &*tornado;
    } else {
      in.tornado_error = tornado.error().ToString();
    }
    auto cl = claims::CheckClaims(*s, cat, VariantLoader(args->file, cat, args->common));
    if (cl) {
      in.claims = &*cl;
    } else {
      in.claims_error = cl.error().ToString();
    }
    if (auto ok = WriteFileAtomic(args->out, report::RenderHtml(in), "--output"); !ok) {
      exit_code = PrintError(ok.error(), args->common.json);
      return;
    }
    if (args->common.json) {
      nlohmann::json j = {{"output", args->out}, {"simulated", in.simulated != nullptr}, {"waterfall", in.waterfall != nullptr}};
      if (!in.simulate_error.empty() && args->simulate) j["simulate_error"] = in.simulate_error;
      if (!in.waterfall_error.empty()) j["waterfall_error"] = in.waterfall_error;
      std::cout << Dump(j) << "\n";
    } else {
      std::cout << "wrote " << args->out << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
