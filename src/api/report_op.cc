// The HTML report (`rlcost report`, /v1/report, the web page's download): one
// operation, so the report's lever factors are the waterfall's.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "api/ops.h"
#include "decide/claims.h"
#include "decide/sensitivity.h"
#include "forecast/forecast.h"
#include "forecast/plot.h"
#include "report/html.h"
#include "report/levers_table.h"
#include "report/report.h"

namespace rlcost::ops {

claims::LoadVariant VariantOf(const ScenarioInput& in, const rlcost::Catalog& cat);
sensitivity::Loader LoaderOf(const ScenarioInput& in, const rlcost::Catalog& cat);

namespace {

// The scenario on 1/4 .. 4x its GPUs, loaded through sets so that every count
// is checked like a user's own (tensor parallelism, memory, placement), each
// planned as the user's run is.
std::vector<report::GpuCountPoint> GpuCountSweep(const ScenarioInput& in, const rlcost::Catalog& cat, const Scenario& s) {
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
    ScenarioInput c = in;
    c.sets.push_back(fmt::format("hardware.gpus={}", n));
    if (s.placement.mode == PlacementMode::kDisaggregated) {
      int r = std::clamp(static_cast<int>(std::lround(double(n) * s.placement.rollout_gpus / g)), 1, std::max(1, n - 1));
      c.sets.push_back(fmt::format("placement.rollout_gpus={}", r));
      c.sets.push_back(fmt::format("placement.train_gpus={}", n - r));
    }
    auto v = LoadScenarioOf(c, cat);
    auto pv = v ? PlanOf(c, std::move(*v)) : Result<std::pair<Scenario, std::optional<PlanSummary>>>(Fail(v.error()));
    Result<rlcost::Estimate> e = pv ? EstimateAnalytic(pv->first) : Result<rlcost::Estimate>(Fail(pv.error()));
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

// A little over 80 lines: the report's parts in the page's order (run,
// timeline, levers, claims, tornado, curve), each computed by the operation
// that owns it and kept or noted when it fails.
Result<ReportOutput> Report(const ScenarioInput& in, const ReportInput& ri) {
  auto lever_opt = ToOptions(ri.levers);
  if (!lever_opt) return Fail(lever_opt.error());
  // The user's run as `estimate` prices it: planned, the plan shown first.
  auto run = LoadRun(in);
  if (!run) return Fail(run.error());
  const Scenario& s = run->scenario;
  const rlcost::Catalog& cat = *run->catalog;
  auto e = EstimateRun(*run, in, /*scaling_notes=*/false);
  if (!e) return Fail(e.error());
  // progress: the run's own curve, fitted and forecast as `forecast` does.
  std::optional<forecast::Plot> plot;
  if (!ri.progress.empty()) {
    if (!in.allow_files) return Fail(ErrorCode::kInvalidInput, "progress", "a progress log cannot be named here");
    const std::optional<double> target = ri.target ? ri.target : s.goal.target_pass_rate;
    if (!target) {
      return Fail(ErrorCode::kInvalidInput, "target",
                  "required with a progress log when the scenario sets no goal.target_pass_rate: the metric's value "
                  "to forecast the steps to");
    }
    auto series = forecast::ReadProgressFile(ri.progress, forecast::ReadOptions{ri.metric, 0});
    if (!series) return Fail(series.error());
    forecast::Options fo;
    fo.target = *target;
    auto r = forecast::Forecast(*series, fo);
    if (!r) return Fail(r.error());
    plot = forecast::BuildPlot(*series, *r);
  }
  report::HtmlInput h;
  h.scenario = &s;
  h.estimate = &*e;
  if (plot) h.forecast = &*plot;
  ReportOutput out;
  Result<rlcost::Estimate> sim = Fail(ErrorCode::kNotImplemented, "", "not requested");
  if (ri.simulate) {
    sim::Options so;
    so.seed = ri.seed;
    sim = EstimateSimulated(s, so);
    if (sim) {
      h.simulated = &*sim;
    } else {
      h.simulate_error = sim.error().ToString();
    }
  }
  // The levers as `waterfall` builds them: every alternative planned.
  lever_opt->replan = ReplanOf(in);
  auto wf = levers::BuildWaterfall(s, cat, *lever_opt);
  if (wf) {
    h.waterfall = &*wf;
  } else {
    h.waterfall_error = wf.error().ToString();
  }
  std::vector<double> ps;
  for (int i = 1; i <= 49; ++i) ps.push_back(i / 50.0);  // 0.02 .. 0.98: at 0 and 1 no group is informative
  h.curves = levers::CostVsPassRate(s, {2, 4, 8, 16}, ps);
  h.gpu_counts = GpuCountSweep(in, cat, s);
  // The tornado of `sensitivity` with its defaults (analytic), planned as `sensitivity` plans.
  sensitivity::Options so;
  so.replan = ReplanOf(in);
  auto tornado = sensitivity::Build(s, LoaderOf(in, cat), so);
  if (tornado) {
    h.tornado = &*tornado;
  } else {
    h.tornado_error = tornado.error().ToString();
  }
  // The claims as `claims` checks them.
  auto cl = claims::CheckClaims(s, cat, VariantOf(in, cat), ReplanOf(in));
  if (cl) {
    h.claims = &*cl;
  } else {
    h.claims_error = cl.error().ToString();
  }
  out.html = report::RenderHtml(h);
  out.simulated = h.simulated != nullptr;
  out.simulate_error = ri.simulate ? h.simulate_error : "";
  out.waterfall = h.waterfall != nullptr;
  out.waterfall_error = h.waterfall_error;
  out.warnings = run->warnings;
  out.estimate_json = report::EstimateToJson(s, *e);
  if (wf) out.waterfall_json = report::WaterfallToJson(*wf);
  return out;
}

}  // namespace rlcost::ops
