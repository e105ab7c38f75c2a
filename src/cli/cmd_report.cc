// `rlcost report FILE -o report.html [--simulate] [lever options]`: one
// self-contained HTML file (inline SVG, CSS and JS; works offline).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "core/file.h"
#include "cli/lever_args.h"
#include "decide/sensitivity.h"
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
    Result<Estimate> e = v ? EstimateAnalytic(*v) : Result<Estimate>(Fail(v.error()));
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
  AddLeverOptions(sub, args->levers);
  AddCommon(sub, args->common);
  sub->callback([args, &exit_code] {
    // Refused before any work: an output that is one of the inputs.
    std::vector<std::string> inputs = args->common.catalog_files;
    inputs.push_back(args->file);
    inputs.push_back(args->common.calibration);
    if (auto ok = CheckOutputNotInput(args->out, "--output", inputs); !ok) {
      exit_code = PrintError(ok.error(), args->common.json);
      return;
    }
    Catalog cat;
    auto s = LoadAll(args->file, args->common, &cat);
    if (!s) { exit_code = PrintError(s.error(), args->common.json); return; }
    auto opt = ToOptions(args->levers);
    if (!opt) { exit_code = PrintError(opt.error(), args->common.json); return; }
    auto e = EstimateAnalytic(*s);
    if (!e) { exit_code = PrintError(e.error(), args->common.json); return; }
    report::HtmlInput in;
    in.scenario = &*s;
    in.estimate = &*e;
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
      return LoadScenario(args->file, cat, c);
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
