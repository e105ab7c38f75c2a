// The forecast's cost, JSON and text (`rlcost forecast`).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/numbers.h"
#include "forecast/forecast.h"
#include "forecast/render.h"

namespace rlcost::forecast {
namespace {


double Mean(const std::vector<double>& v) {
  double s = 0;
  int n = 0;
  for (double x : v) {
    if (std::isfinite(x)) s += x, ++n;
  }
  return n ? s / n : kNaN;
}

// JSON has no infinity or NaN: such a figure is "n/a" and not_available says why.
void Put(nlohmann::json& obj, nlohmann::json& not_available, const std::string& key, double v,
         const std::string& why) {
  if (std::isfinite(v)) {
    obj[key] = v;
  } else {
    obj[key] = "n/a";
    not_available[key] = why;
  }
}

std::string Num(double v, const char* fmt_spec = "{:.4g}") {
  return std::isfinite(v) ? fmt::format(fmt::runtime(fmt_spec), v) : "n/a";
}

// Where the step column goes back: [{line, from_step, to_step}] (empty: never).
nlohmann::json ResumesJson(const ProgressSeries& s) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto& re : s.resumes) a.push_back({{"line", re.line}, {"from_step", re.from_step}, {"to_step", re.to_step}});
  return a;
}

}  // namespace

StepCost CostFromLog(const ProgressSeries& s, int fit_until_step, double usd_per_gpu_hour) {
  StepCost c;
  std::vector<double> t, g;
  double spent_s = 0, spent_g = 0;
  int n_t = 0, n_g = 0;
  for (size_t i = 0; i < s.cost_steps.size(); ++i) {
    if (s.cost_steps[i] > fit_until_step) break;
    t.push_back(s.step_s[i]);
    g.push_back(s.step_gpu_hours[i]);
    if (std::isfinite(s.step_s[i])) spent_s += s.step_s[i], ++n_t;
    if (std::isfinite(s.step_gpu_hours[i])) spent_g += s.step_gpu_hours[i], ++n_g;
  }
  const size_t k = std::min<size_t>(20, t.size());
  c.step_s = Mean(std::vector<double>(t.end() - long(k), t.end()));
  c.gpu_hours_per_step = Mean(std::vector<double>(g.end() - long(k), g.end()));
  // Steps the log did not time are counted at the mean of those it did.
  const double done = double(fit_until_step - s.first_step + 1);
  c.spent_wall_h = n_t ? spent_s / 3600.0 * std::max(1.0, done / n_t) : kNaN;
  c.spent_gpu_hours = n_g ? spent_g * std::max(1.0, done / n_g) : kNaN;
  c.usd_per_gpu_hour = usd_per_gpu_hour;
  c.usd_per_step = c.gpu_hours_per_step * usd_per_gpu_hour;
  if (std::isfinite(c.step_s) || std::isfinite(c.gpu_hours_per_step)) {
    c.source = "log";
    c.note = fmt::format("step cost from the log: the mean of its last {} timed steps up to step {}", k,
                         fit_until_step);
  }
  return c;
}

Totals PriceTo(const ProgressSeries& s, const Outcome& r, const StepCost& cost, double step) {
  Totals t;
  t.steps = step;
  t.remaining_steps = std::max(0.0, step - r.fit_until_step);
  const double done_to = step - s.first_step + 1;  // steps from the start
  if (cost.source == "log") {
    t.wall_h = cost.spent_wall_h + t.remaining_steps * cost.step_s / 3600.0;
    t.gpu_hours = cost.spent_gpu_hours + t.remaining_steps * cost.gpu_hours_per_step;
    if (r.already_reached || step <= r.fit_until_step) {
      t.wall_h = done_to * Mean({cost.step_s}) / 3600.0;
      t.gpu_hours = done_to * cost.gpu_hours_per_step;
    }
    t.usd = t.gpu_hours * cost.usd_per_gpu_hour;
  } else if (cost.source == "scenario") {
    t.wall_h = done_to * cost.step_s / 3600.0;
    t.gpu_hours = done_to * cost.gpu_hours_per_step;
    t.usd = done_to * cost.usd_per_step;
  } else {
    t.wall_h = t.gpu_hours = t.usd = kNaN;
  }
  return t;
}

nlohmann::json ToJson(const ProgressSeries& s, const Outcome& r, const StepCost& cost) {
  nlohmann::json f = nlohmann::json::object();
  nlohmann::json na = nlohmann::json::object();
  f["file"] = s.path;
  f["format"] = s.format;
  f["metric"] = s.metric;
  f["metric_chosen"] = s.metric_chosen;
  f["target"] = r.target;
  f["fit"] = {{"points", r.points_used},
              {"first_step", s.first_step},
              {"fit_until_step", r.fit_until_step},
              {"points_left_out_at_start", r.points_skipped},
              {"binned", r.binned}};
  f["fit"]["resumed"] = ResumesJson(s);
  const std::string why = r.reason;
  Put(f, na, "steps_to_target", r.ok ? r.steps_to_target : kNaN, why);
  f["already_reached"] = r.ok && r.already_reached;
  if (r.ok && r.already_reached) f["reached_value"] = r.reached_value;
  f["beyond_reach"] = r.beyond_reach;
  f["reached_means"] =
      r.half_window == 0
          ? fmt::format("steps_to_target: the first logged value at or above the target; the interval also spans the "
                        "first step where the average over {} logged point{} either side is",
                        r.half_window_wide, r.half_window_wide == 1 ? "" : "s")
          : fmt::format("the metric averaged over {} logged point{} either side first at or above the target",
                        r.half_window, r.half_window == 1 ? "" : "s");
  Put(f, na, "curve_steps_to_target", r.fitted ? r.curve_steps_to_target : kNaN,
      r.fitted ? "the fitted curve does not reach the target within 20x the steps fitted" : why);
  f["p_beyond_reach"] = r.replicates > 0 ? nlohmann::json(r.p_beyond_reach) : nlohmann::json("n/a");
  const bool fitted = r.fitted;
  Put(f, na, "asymptote", fitted ? r.curve.Asymptote() : kNaN, why.empty() ? "no curve was fitted" : why);

  const Totals t = r.ok ? PriceTo(s, r, cost, r.steps_to_target) : Totals{kNaN, kNaN, kNaN, kNaN, kNaN};
  Put(f, na, "remaining_steps", t.remaining_steps, why);
  const std::string no_cost = cost.source.empty()
                                  ? "the log gives no step times (and no --scenario was given) to price the steps"
                                  : why;
  Put(f, na, "wall_hours_to_target", t.wall_h, r.ok ? (std::isfinite(cost.step_s) ? "" : no_cost) : why);
  Put(f, na, "gpu_hours_to_target", t.gpu_hours,
      r.ok ? (std::isfinite(cost.gpu_hours_per_step) ? ""
                                                       : (cost.source.empty() ? no_cost
                                                                              : "the log has step times but no GPU "
                                                                                "count: give --gpus or --scenario"))
           : why);
  Put(f, na, "usd_to_target", t.usd,
      r.ok ? (std::isfinite(t.gpu_hours) ? "no price per GPU-hour: give --usd-per-gpu-hour or --scenario"
                                         : (na.contains("gpu_hours_to_target") ? na["gpu_hours_to_target"].get<std::string>()
                                                                              : no_cost))
           : why);

  nlohmann::json iv = nlohmann::json::object();
  nlohmann::json iv_na = nlohmann::json::object();
  iv["method"] =
      "moving-block bootstrap of the residuals (blocks of consecutive points): each curve refitted, then run on "
      "with resampled residual blocks as noise; replicates of both curves pooled";
  iv["curves_pooled"] = r.curves_pooled;
  iv["level"] = r.level;
  iv["replicates"] = r.replicates;
  iv["block_length"] = r.block_length;
  iv["coverage_in_backtest"] = kBacktestCoverageNote;
  nlohmann::json st = nlohmann::json::object();
  nlohmann::json st_na = nlohmann::json::object();
  Put(st, st_na, "low", r.replicates > 0 ? r.interval_low : kNaN, r.replicates > 0 ? "" : "no bootstrap refit");
  Put(st, st_na, "high", r.replicates > 0 ? r.interval_high : kNaN,
      r.replicates > 0 ? fmt::format("more than {:.0f}% of the bootstrap runs do not reach the target (within 20x "
                                     "the steps fitted)",
                                     100 * (1 - r.level) / 2)
                       : "no bootstrap refit");
  if (!st_na.empty()) st["not_available"] = st_na;
  iv["steps_to_target"] = st;
  nlohmann::json as = nlohmann::json::object();
  nlohmann::json as_na = nlohmann::json::object();
  Put(as, as_na, "low", r.replicates > 0 ? r.asymptote_low : kNaN, "no bootstrap refit");
  Put(as, as_na, "high", r.replicates > 0 ? r.asymptote_high : kNaN, "no bootstrap refit");
  if (!as_na.empty()) as["not_available"] = as_na;
  iv["asymptote"] = as;
  f["interval"] = iv;

  nlohmann::json m = nlohmann::json::object();
  if (fitted) {
    m["curve"] = CurveName(r.curve.kind);
    m["compute_unit"] = "training steps done (C = step - first_step + 1; each step trains the same batch)";
    if (r.curve.kind == CurveKind::kSigmoid) {
      m["formula"] = "R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)";
      m["source"] = "ScaleRL sigmoid, arXiv 2510.13786";
      m["parameters"] = {{"R0", r.curve.r0}, {"A", r.curve.a}, {"B", r.curve.b}, {"C_mid", r.curve.c_mid}};
    } else {
      m["formula"] = "R(C) = A - D * C^-alpha";
      m["source"] = "power law in compute, arXiv 2509.25300 (ceiling A fitted)";
      m["parameters"] = {{"A", r.curve.a}, {"D", r.curve.d}, {"alpha", r.curve.alpha}};
    }
    m["rmse"] = r.rmse;
  }
  nlohmann::json cands = nlohmann::json::array();
  for (const auto& c : r.candidates) {
    nlohmann::json cj = {{"curve", CurveName(c.kind)}, {"fitted", c.fitted}, {"min_points", c.min_points}};
    cj["heldout_rmse"] = std::isfinite(c.heldout_rmse) ? nlohmann::json(c.heldout_rmse) : nlohmann::json("n/a");
    cands.push_back(cj);
  }
  m["chosen_by"] = "lowest error on the last quarter of the points, each curve fitted on the first three quarters";
  m["candidates"] = cands;
  f["model"] = m;

  nlohmann::json sc = {{"source", cost.source.empty() ? "none" : cost.source}, {"note", cost.note}};
  nlohmann::json sc_na = nlohmann::json::object();
  Put(sc, sc_na, "step_s", cost.step_s, "not logged");
  Put(sc, sc_na, "gpu_hours_per_step", cost.gpu_hours_per_step, "no GPU count");
  Put(sc, sc_na, "usd_per_step", cost.usd_per_step, "no price");
  f["step_cost"] = sc;
  // Empty reasons are the figures that are known.
  for (auto it = na.begin(); it != na.end();) {
    if (it->is_string() && it->get<std::string>().empty()) it = na.erase(it);
    else ++it;
  }
  if (!na.empty()) f["not_available"] = na;
  if (!r.ok) f["reason"] = r.reason;
  nlohmann::json j;
  j["forecast"] = f;
  return j;
}

std::string ToText(const ProgressSeries& s, const Outcome& r, const StepCost& cost) {
  std::string out;
  out += fmt::format("forecast: {} ({}), metric \"{}\"{}\n", s.path, s.format, s.metric,
                     s.metric_chosen ? " (chosen: no --metric given)" : "");
  out += fmt::format("  fitted {} point{} up to step {}; target {:.4g}\n", r.points_used, r.points_used == 1 ? "" : "s",
                     r.fit_until_step, r.target);
  for (const auto& re : s.resumes) {
    out += fmt::format("  resumed: the step column goes back{} (step {}, then {}): a run resumed from a checkpoint; "
                       "where steps repeat, the later lines are kept\n",
                       re.line > 0 ? fmt::format(" at line {}", re.line) : "", re.from_step, re.to_step);
  }
  if (r.fitted) {
    if (r.curve.kind == CurveKind::kSigmoid) {
      out += fmt::format("  curve: sigmoid R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B), R0 = {:.4g}, A = {:.4g}, "
                         "B = {:.3g}, C_mid = {:.4g} steps (rmse {:.3g})\n",
                         r.curve.r0, r.curve.a, r.curve.b, r.curve.c_mid, r.rmse);
    } else {
      out += fmt::format("  curve: power law R(C) = A - D C^-alpha, A = {:.4g}, D = {:.4g}, alpha = {:.3g} "
                         "(rmse {:.3g})\n",
                         r.curve.a, r.curve.d, r.curve.alpha, r.rmse);
    }
    for (const auto& c : r.candidates) {
      const std::string why_not = r.points_used < c.min_points
                                      ? fmt::format("not fitted ({} points; it needs {})", r.points_used, c.min_points)
                                      : std::string("no fit");
      out += fmt::format("    {}: held-out rmse {}\n", CurveName(c.kind), c.fitted ? Num(c.heldout_rmse, "{:.3g}") : why_not);
    }
    if (r.replicates > 0) {
      out += fmt::format("  asymptote A = {:.4g} ({:.0f}% interval {} .. {}); target beyond reach in {:.0f}% of {} "
                         "bootstrap refits\n",
                         r.curve.Asymptote(), 100 * r.level, Num(r.asymptote_low), Num(r.asymptote_high),
                         100 * r.p_beyond_reach, r.replicates);
    } else {
      out += fmt::format("  asymptote A = {:.4g} (no bootstrap: {})\n", r.curve.Asymptote(),
                         r.already_reached ? "the log already reaches the target" : "no refits were run");
    }
  }
  if (!r.ok) {
    out += "  steps to target: n/a: " + r.reason + "\n";
    return out;
  }
  const Totals t = PriceTo(s, r, cost, r.steps_to_target);
  if (r.already_reached) {
    out += fmt::format("  steps to target: reached at step {:.0f} in the log ({} {:.4g}{}), before step {}, the last "
                       "fitted\n",
                       r.steps_to_target, r.reached_window == 0 ? "logged value" : "average", r.reached_value,
                       r.reached_window == 0 ? ", and again later"
                                             : fmt::format(" over {} logged point{} either side", r.reached_window,
                                                           r.reached_window == 1 ? "" : "s"),
                       r.fit_until_step);
  } else {
    out += fmt::format("  steps to target: step {:.0f} ({:.0f}% interval {} .. {}; {:.0f} step{} after step {})\n",
                       r.steps_to_target, 100 * r.level, Num(r.interval_low, "{:.0f}"),
                       std::isfinite(r.interval_high) ? Num(r.interval_high, "{:.0f}") : std::string("beyond reach"),
                       t.remaining_steps, t.remaining_steps == 1 ? "" : "s", r.fit_until_step);
  }
  out += fmt::format("  to target: wall {} h, {} GPU-hours, ${}\n", Num(t.wall_h, "{:.3g}"), Num(t.gpu_hours, "{:.4g}"),
                     Num(t.usd, "{:.4g}"));
  if (!cost.note.empty()) out += "  " + cost.note + "\n";
  if (!std::isfinite(t.usd)) out += "  (no dollars: give --usd-per-gpu-hour, or --scenario to price the steps)\n";
  out += std::string("  interval: ") + kBacktestCoverageNote + "\n";
  return out;
}

}  // namespace rlcost::forecast
