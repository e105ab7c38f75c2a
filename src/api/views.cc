#include "api/views.h"

#include <limits>
#include <map>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "api/illustrative.h"
#include "catalog/format.h"
#include "core/file.h"
#include "decide/claims.h"
#include "decide/levers.h"
#include "forecast/backtest_report.h"
#include "forecast/forecast.h"
#include "forecast/render.h"
#include "report/claims_table.h"
#include "report/intervals.h"
#include "report/levers_table.h"
#include "report/report.h"
#include "report/sensitivity.h"
#include "decide/sensitivity.h"
#include "core/cancel.h"

namespace rlcost::ops {

claims::LoadVariant VariantOf(const ScenarioInput& in, const rlcost::Catalog& cat);

namespace {

// The note on what the dollars to the goal rest on, after a table.
std::string WithGoalNote(std::string text, const Scenario& s) {
  if (const std::string note = api::GoalCurveNote(s); !note.empty()) text += "  note: " + note + "\n";
  return text;
}

using Inputs = std::map<std::string, std::string>;

void Flatten(const YAML::Node& n, const std::string& path, Inputs& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      Flatten(kv.second, path.empty() ? key : path + "." + key, out);
    }
  } else if (n.IsSequence()) {
    bool scalars = true;
    for (const auto& x : n) scalars = scalars && x.IsScalar();
    if (scalars) {
      std::string list;
      for (const auto& x : n) list += (list.empty() ? "" : ", ") + x.Scalar();
      out[path] = "[" + list + "]";
    } else {
      for (size_t i = 0; i < n.size(); ++i) Flatten(n[i], fmt::format("{}[{}]", path, i), out);
    }
  } else if (n.IsScalar()) {
    out[path] = n.Scalar();
  } else if (!path.empty()) {
    out[path] = "null";
  }
}

Inputs ReadInputs(const std::string& file, const std::vector<std::string>& sets) {
  Inputs out;
  try {
    Flatten(YAML::LoadFile(file), "", out);
  } catch (const std::exception&) {
    // The scenario loader has read this file already; a file it could not
    // read never gets here. Nothing to list then.
  }
  for (const auto& kv : sets) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq);
    // A --set of a whole mapping replaces what was under it.
    for (auto it = out.lower_bound(key + "."); it != out.end() && it->first.starts_with(key + ".");) it = out.erase(it);
    out[key] = kv.substr(eq + 1);
  }
  return out;
}

struct InputDiff {
  size_t column;
  std::string path, a, b;
};

// Field paths whose value differs between the first column and each other one.
std::vector<InputDiff> DifferingInputs(const std::vector<Inputs>& in) {
  std::vector<InputDiff> out;
  for (size_t i = 1; i < in.size(); ++i) {
    std::map<std::string, std::pair<std::string, std::string>> both;
    for (const auto& [k, v] : in[0]) both[k].first = v;
    for (const auto& [k, v] : in[i]) both[k].second = v;
    for (const auto& [k, ab] : both) {
      const bool in_a = in[0].count(k), in_b = in[i].count(k);
      if (in_a && in_b && ab.first == ab.second) continue;
      out.push_back({i, k, in_a ? ab.first : "(not set: default)", in_b ? ab.second : "(not set: default)"});
    }
  }
  return out;
}

std::string DiffsToText(const std::vector<InputDiff>& diffs, size_t columns) {
  std::string out = "rlcost compare — inputs that differ from A (as written, with the overrides and variants applied; a field "
                    "left out takes its default)\n";
  for (size_t i = 1; i < columns; ++i) {
    bool any = false;
    for (const auto& d : diffs) {
      if (d.column != i) continue;
      out += fmt::format("  {}: {}: {} → {}\n", char('A' + i % 26), d.path, d.a, d.b);
      any = true;
    }
    if (!any) out += fmt::format("  {}: no input differs from A\n", char('A' + i % 26));
  }
  return out + "\n";
}


}  // namespace

Result<View> EstimateView(const ScenarioInput& in, bool full) {
  auto run = LoadRun(in);
  if (!run) return Fail(run.error());
  auto e = EstimateRun(*run, in);
  if (!e) return Fail(e.error());
  View v;
  v.json = report::EstimateToJson(run->scenario, *e);
  v.text = full ? report::EstimateToTable(run->scenario, *e) + report::IntervalsToTable(*e)
                : report::EstimateBrief(run->scenario, *e);
  v.warnings = std::move(run->warnings);
  return v;
}

Result<View> SimulateView(const ScenarioInput& in, const SimulateInput& si) {
  if (si.steps < 0) return Fail(ErrorCode::kInvalidInput, "steps", "must be >= 0 (0 = the scenario's), got " + std::to_string(si.steps));
  if (!si.trace.empty() && !in.allow_files) return Fail(ErrorCode::kInvalidInput, "trace", "a trace file cannot be written here");
  auto run = LoadRun(in);  // the layout planned with the closed form, then simulated
  if (!run) return Fail(run.error());
  const Scenario& s = run->scenario;
  // The trace may replace none of what this run read: its scenario, a
  // catalog, the calibration, a pass-rate CSV or the scenario compared with (#40).
  std::vector<std::string> inputs = in.catalog_files;
  inputs.push_back(in.file);
  inputs.push_back(in.calibration);
  inputs.push_back(s.environment.pass_rate.file);
  if (s.expect) inputs.push_back(s.expect->relative_scenario);
  if (auto ok = CheckOutputNotInput(si.trace, "trace", inputs); !ok) return Fail(ok.error());
  sim::Options opt;
  opt.seed = si.seed;
  opt.steps = si.steps;
  opt.trace_path = si.trace;
  ScopedCancel polled(si.cancel);  // the simulator stops once *cancel is set
  auto e = EstimateSimulated(s, opt);
  if (!e) return Fail(e.error());
  e->plan = run->plan;
  View v;
  v.json = report::EstimateToJson(s, *e);
  v.text = si.full ? report::EstimateToTable(s, *e) + report::IntervalsToTable(*e) : report::EstimateBrief(s, *e);
  v.warnings = std::move(run->warnings);
  return v;
}

Result<View> WaterfallView(const ScenarioInput& in, const LeverInput& lv) {
  auto run = LoadRun(in);  // planned as `estimate` is, so that the two answer for the same run
  if (!run) return Fail(run.error());
  auto wf = BuildWaterfall(*run, in, lv);
  if (!wf) return Fail(wf.error());
  View v;
  v.json = report::WaterfallToJson(*wf);
  if (run->scenario.goal.target_pass_rate) api::FlagGoalCurve(v.json, run->scenario);  // $ to goal
  v.text = WithGoalNote(report::WaterfallToTable(*wf), run->scenario);
  v.warnings = std::move(run->warnings);
  return v;
}

Result<View> PriceView(const ScenarioInput& in, const PriceInput& p) {
  auto run = LoadRun(in);
  if (!run) return Fail(run.error());
  const Scenario& s = run->scenario;
  std::vector<levers::Lever> stack;
  if (!p.stack.empty()) {
    auto st = levers::ParseLeverList(p.stack, "stack");
    if (!st) return Fail(st.error());
    stack = *st;
  }
  if (p.tenants < 0) return Fail(ErrorCode::kInvalidInput, "tenants", "must be >= 1, got " + std::to_string(p.tenants));
  // The quality discounts, checked as the waterfall's are (errors name the field).
  LeverInput lv;
  lv.staleness_discount = p.staleness_discount;
  lv.fp8_discount = p.fp8_discount;
  lv.fp4_discount = p.fp4_discount;
  auto checked = ToOptions(lv);
  if (!checked) return Fail(checked.error());
  levers::Options opt;
  opt.tenants = p.tenants;
  opt.discounts = checked->discounts;
  opt.replan = ReplanOf(in);
  // Each row is planned for its own model and GPU from the scenario as written,
  // as `estimate --set hardware.gpu=...` plans it: the layout planned for the
  // scenario's own GPU (an engine memory share, a split) is not carried over.
  Scenario literal = s;
  if (opt.replan) {
    auto as_written = LoadScenarioOf(in, *run->catalog);
    if (!as_written) return Fail(as_written.error());
    literal = std::move(*as_written);
  }
  auto card = levers::BuildPriceCard(literal, *run->catalog, p.models, p.gpus, stack, opt);
  if (!card) return Fail(card.error());
  View v;
  v.json = report::PriceCardToJson(*card);
  api::FlagGoalCurve(v.json, s);  // what curve $ to goal rests on
  v.text = WithGoalNote(report::PriceCardToTable(*card), s);
  v.warnings = std::move(run->warnings);
  return v;
}

Result<View> ClaimsView(const ScenarioInput& in) {
  auto run = LoadRun(in);  // the user's run, planned as `estimate` plans it
  if (!run) return Fail(run.error());
  auto r = claims::CheckClaims(run->scenario, *run->catalog, VariantOf(in, *run->catalog), ReplanOf(in));
  if (!r) return Fail(r.error());
  View v;
  // The JSON is the list of claims: each one whose figure counts dollars to
  // the goal says what curve that rests on.
  v.json = report::ClaimsToJson(*r);
  api::FlagGoalRows(v.json, run->scenario, api::ClaimUsesGoal);
  v.text = WithGoalNote(report::ClaimsToTable(*r), run->scenario);
  v.warnings = std::move(run->warnings);
  return v;
}

Result<View> CompareView(const CompareInput& c) {
  if (c.scenarios.size() + c.with.size() < 2 || c.scenarios.empty()) {
    return Fail(ErrorCode::kInvalidInput, "scenarios", "needs two scenarios, or one and a `with` variant");
  }
  std::vector<Inputs> inputs;
  for (const auto& in : c.scenarios) inputs.push_back(ReadInputs(in.file, in.sets));
  for (const auto& w : c.with) {
    std::vector<std::string> sets = c.scenarios[0].sets;
    sets.insert(sets.end(), w.begin(), w.end());
    inputs.push_back(ReadInputs(c.scenarios[0].file, sets));
  }
  const auto diffs = DifferingInputs(inputs);
  View v;
  std::vector<levers::CompareEntry> entries;
  // Each entry is the run `estimate` prices: loaded and planned the same way.
  auto add = [&](const ScenarioInput& in, std::string label) -> Result<void> {
    auto run = LoadRun(in);
    if (!run) return Fail(run.error());
    for (auto& w : run->warnings) v.warnings.push_back(std::move(w));
    entries.push_back(levers::MakeEntry(std::move(label), run->scenario));
    return {};
  };
  for (size_t i = 0; i < c.scenarios.size(); ++i) {
    if (auto ok = add(c.scenarios[i], i < c.labels.size() ? c.labels[i] : c.scenarios[i].file); !ok) return Fail(ok.error());
  }
  for (size_t i = 0; i < c.with.size(); ++i) {
    ScenarioInput in = c.scenarios[0];
    in.sets.insert(in.sets.end(), c.with[i].begin(), c.with[i].end());
    if (auto ok = add(in, i < c.with_labels.size() ? c.with_labels[i] : "variant"); !ok) return Fail(ok.error());
  }
  auto cmp = levers::BuildComparison(std::move(entries));
  v.json = report::ComparisonToJson(cmp);
  // The inputs that differ from the first scenario, by field path.
  nlohmann::json d = nlohmann::json::array();
  for (const auto& x : diffs) {
    d.push_back({{"column", std::string(1, char('A' + x.column % 26))}, {"path", x.path}, {"a", x.a}, {"b", x.b}});
  }
  if (v.json.is_object()) v.json["differing_inputs"] = d;
  v.text = DiffsToText(diffs, inputs.size()) + report::ComparisonToTable(cmp);
  return v;
}

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

// What a step of the logged run costs: `estimate`'s step of the scenario
// (with_scenario), else the log's own GPU-hours at a GPU-hour's price.
Result<forecast::StepCost> StepCostOf(const ForecastInput& a, const forecast::ProgressSeries& series,
                                      const forecast::Outcome& fit, std::vector<std::string>* warnings) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  forecast::StepCost cost;
  if (a.with_scenario) {
    // The step `estimate` prices: the same run, planned the same way.
    auto run = LoadRun(a.scenario);
    if (!run) return Fail(run.error());
    auto e = EstimateRun(*run, a.scenario, /*scaling_notes=*/false);
    if (!e) return Fail(e.error());
    const double gpus = run->scenario.hardware.gpus + e->step.verifier_gpus;  // a dedicated judge's GPUs are the run's too
    cost.source = "scenario";
    cost.step_s = e->step.time_s;
    cost.gpu_hours_per_step = e->step.time_s * gpus / 3600.0;
    cost.usd_per_step = e->usd_per_step;
    cost.usd_per_gpu_hour = cost.gpu_hours_per_step > 0 ? e->usd_gpu_per_step / cost.gpu_hours_per_step : nan;
    cost.note = fmt::format("step cost from the scenario {} ({}): {:.1f} s, ${:.4g} a step", a.scenario_label,
                            run->scenario.name, cost.step_s, cost.usd_per_step);
    *warnings = std::move(run->warnings);
  } else {
    // The price of a GPU-hour: `usd_per_gpu_hour`, else the catalog price of
    // `gpu` (an assumed h100-sxm when `gpus` is given without either).
    double usd = a.usd_per_gpu_hour.value_or(nan);
    std::string priced;
    if (!a.usd_per_gpu_hour && (a.gpus > 0 || !a.gpu.empty())) {
      auto cat = CatalogOf(a.scenario);
      if (!cat) return Fail(cat.error());
      const std::string id = a.gpu.empty() ? "h100-sxm" : a.gpu;
      const GpuSpec* g = (*cat)->FindGpu(id);
      if (!g) {
        std::string known;
        for (const auto& k : (*cat)->GpuIds()) known += (known.empty() ? "" : ", ") + k;
        return Fail(ErrorCode::kInvalidInput, "gpu", fmt::format("unknown GPU '{}'; known: {}", id, known));
      }
      if (g->price_per_hour > 0) {
        usd = g->price_per_hour;
        priced = fmt::format("; ${:.2f} a GPU-hour, the catalog price of {}{}", usd, g->id,
                             a.gpu.empty() ? " (ASSUMED: no GPU named)" : "");
      }
    }
    cost = forecast::CostFromLog(series, fit.fit_until_step, usd);
    if (!cost.note.empty()) cost.note += priced;
  }
  return cost;
}

// With `output`: the fitted sigmoid written as a goal curve file, and the
// line that says so ("" without `output`).
Result<std::string> WriteGoalCurve(const ForecastInput& a, const forecast::ProgressSeries& series,
                                   const forecast::Outcome& fit) {
  std::string written;
  if (!a.output.empty()) {
    if (!fit.fitted || fit.curve.kind != forecast::CurveKind::kSigmoid) {
      return Fail(ErrorCode::kInvalidInput, "output",
                  fmt::format("no sigmoid was fitted to the log ({}); no curve to write",
                              fit.ok ? "the points already reach the target" : fit.reason));
    }
    if (!(fit.curve.a > 0 && fit.curve.a <= 1)) {
      return Fail(ErrorCode::kInvalidInput, "output",
                  fmt::format("the fitted asymptote {:.4g} is not a pass rate in (0, 1]; a goal curve needs a "
                              "pass-rate metric (`metric`)", fit.curve.a));
    }
    double useful = a.useful_per_step.value_or(0);
    int group = a.group_size > 0 ? a.group_size : 16;
    std::string from = "the given useful samples a step";
    if (!a.useful_per_step) {
      auto run = LoadRun(a.scenario);
      if (!run) return Fail(run.error());
      auto e = EstimateRun(*run, a.scenario, /*scaling_notes=*/false);
      if (!e) return Fail(e.error());
      useful = e->signal.useful_samples_per_step;
      if (a.group_size <= 0) group = run->scenario.algorithm.group_size;
      from = "signal.useful_samples_per_step of " + a.scenario_label;
    }
    if (!(useful > 0)) return Fail(ErrorCode::kInvalidInput, "useful_per_step", "expected > 0 useful samples a step");
    if (auto ok = WriteFileAtomic(a.output, GoalCurveYaml(series, fit, useful, group, a.logs[0], from), "output"); !ok) {
      return Fail(ok.error());
    }
    written = fmt::format("\ngoal curve written to {}: rlcost estimate SCENARIO --set goal.curve={}\n", a.output, a.output);
  }
  return written;
}

Result<View> ForecastView(const ForecastInput& a) {
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
    else return Fail(ErrorCode::kInvalidInput, "curve", "\"" + a.curve + "\": expected sigmoid or power_law");
  }
  View v;
  if (a.backtest) {
    std::vector<forecast::ProgressSeries> runs;
    for (const auto& path : a.logs) {
      auto s = forecast::ReadProgressFile(path, ro);
      if (!s) return Fail(s.error());
      runs.push_back(std::move(*s));
    }
    auto bt = forecast::RunBacktest(runs, fo);
    v.json = forecast::BacktestToJson(bt);
    v.text = forecast::BacktestToMarkdown(bt, a.markdown);
    return v;
  }
  if (a.logs.size() != 1) {
    return Fail(ErrorCode::kInvalidInput, "log",
                fmt::format("expected one log file, got {} (several are for `backtest`)", a.logs.size()));
  }
  if (!a.target) return Fail(ErrorCode::kInvalidInput, "target", "required: the metric's value to forecast the steps to");
  fo.target = *a.target;
  fo.fit_until = a.fit_until;
  if (!a.output.empty()) {
    if (!a.scenario.allow_files) return Fail(ErrorCode::kInvalidInput, "output", "a goal curve file cannot be written here");
    // A goal curve is rlcost's sigmoid (docs/model.md, sec. 7): fit that one.
    if (fo.only && *fo.only != forecast::CurveKind::kSigmoid) {
      return Fail(ErrorCode::kInvalidInput, "curve", "power_law with `output`: a goal curve is a sigmoid; leave `curve` out");
    }
    fo.only = forecast::CurveKind::kSigmoid;
    if (!a.with_scenario && !a.useful_per_step) {
      return Fail(ErrorCode::kInvalidInput, "output",
                  "needs the logged run's useful samples a step to put the curve in useful samples: give `scenario` "
                  "(the logged run) or `useful_per_step`");
    }
  }
  auto s = forecast::ReadProgressFile(a.logs[0], ro);
  if (!s) return Fail(s.error());
  auto r = forecast::Forecast(*s, fo);
  if (!r) return Fail(r.error());
  auto cost = StepCostOf(a, *s, *r, &v.warnings);
  if (!cost) return Fail(cost.error());
  auto written = WriteGoalCurve(a, *s, *r);
  if (!written) return Fail(written.error());
  v.json = forecast::ToJson(*s, *r, *cost);
  v.text = forecast::ToText(*s, *r, *cost) + *written;
  return v;
}

sensitivity::Loader LoaderOf(const ScenarioInput& in, const rlcost::Catalog& cat);

Result<View> SensitivityView(const ScenarioInput& in, const SensitivityInput& si) {
  Error bad;
  if (!(si.span >= 0.01 && si.span <= 0.99)) {
    bad.problems.push_back({"span", fmt::format("{}; expected a share from 0.01 to 0.99 (0.5 = each input +-50%)", si.span)});
  }
  if (si.path != "analytic" && si.path != "simulated") {
    bad.problems.push_back({"path", "'" + si.path + "'; expected analytic or simulated"});
  }
  if (si.steps < 0) bad.problems.push_back({"steps", fmt::format("{}; expected >= 0 (0 = the scenario's)", si.steps)});
  for (const auto& [input, r] : si.ranges) {
    if (!std::isfinite(r.first) || !std::isfinite(r.second)) {
      bad.problems.push_back({"ranges." + input, "LOW and HIGH must be finite numbers"});
    }
  }
  if (!bad.problems.empty()) {
    bad.code = ErrorCode::kInvalidInput;
    return Fail(std::move(bad));
  }
  auto cat = CatalogOf(in);
  if (!cat) return Fail(cat.error());
  auto user = LoadScenarioOf(in, **cat);
  if (!user) return Fail(user.error());
  sensitivity::Options opt;
  opt.metric = si.metric;
  opt.span = si.span;
  opt.ranges = si.ranges;
  opt.simulated = si.path == "simulated";
  opt.sim.seed = si.seed;
  opt.sim.steps = si.steps;
  opt.replan = ReplanOf(in);
  auto t = sensitivity::Build(*user, LoaderOf(in, **cat), opt);
  if (!t) return Fail(t.error());
  View v;
  v.json = report::TornadoToJson(*t);
  api::FlagGoalRows(v.json, *user, api::RowMetricIsGoal);
  v.text = report::TornadoToTable(*t);
  if (const std::string note = api::GoalCurveNote(*user); !note.empty() && api::MentionsGoal(t->metric)) {
    v.text += "  note: " + note + "\n";
  }
  return v;
}

std::string CatalogListing(const rlcost::Catalog& cat, bool json) {
  return json ? FormatCatalogJson(cat) : FormatCatalogTable(cat);
}

}  // namespace rlcost::ops
