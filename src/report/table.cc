#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "core/strings.h"
#include "report/report.h"
#include "report/price.h"
#include "fit/interval.h"

namespace rlcost::report {

namespace {
// 1234567 -> "1,234,567"
std::string Thousands(double v) {
  std::string digits = fmt::format("{:.0f}", std::fabs(v));
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return (v < 0 ? "-" : "") + out;
}
}  // namespace

// A value with a sensible number of digits for its size.
std::string FormatValue(double v, std::string_view unit) {
  if (!std::isfinite(v)) return "n/a";
  if (unit == "" && v >= 0 && v <= 1.0 && v != 0) return fmt::format("{:.3f}", v);
  if (unit == "USD") {
    if (std::fabs(v) >= 100) return "$" + Thousands(v);
    if (std::fabs(v) >= 1) return fmt::format("${:.2f}", v);
    return fmt::format("${:.3g}", v);
  }
  double a = std::fabs(v);
  if (a >= 1e6) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.3g}", v);
}

std::string PriceOrigin(const Scenario& s) {
  const double p = s.hardware.price_per_gpu_hour;
  const auto& g = s.hardware.gpu;
  if (p != g.price_per_hour) return "set in the scenario (hardware.price_per_gpu_hour)";
  if (auto it = g.sources.find("price_per_hour"); it != g.sources.end()) return it->second;
  return "no source given in the catalog";
}

// The catalog writes a price's source as "KIND, DATE, override it: $X/GPU-h,
// what it is and where it was published" (catalog/gpus.yaml). Shown beside
// the price, that repeats the price and reads as a jumble; for people it is
// "market price as of DATE: what it is ...; a catalog default, change it
// with hardware.price_per_gpu_hour". Anything else (a price the front end
// set, a catalog file, the scenario) is shown as written.
std::string ReadablePriceOrigin(std::string_view origin) {
  const std::string_view marker = ", override it: ";
  const size_t cut = origin.find(marker);
  if (cut == std::string_view::npos) return std::string(origin);
  std::string_view head = origin.substr(0, cut);  // "MARKET, 2026-05-20" or "ASSUMPTION"
  std::string_view rest = origin.substr(cut + marker.size());
  // Drop the price the line already shows: "$2.95/GPU-h, ".
  if (!rest.empty() && rest.front() == '$') {
    if (size_t comma = rest.find(", "); comma != std::string_view::npos && comma < 24) rest = rest.substr(comma + 2);
  }
  std::string kind(head), date;
  if (size_t comma = head.find(", "); comma != std::string_view::npos) {
    kind = std::string(head.substr(0, comma));
    date = std::string(head.substr(comma + 2));
  }
  std::string what = kind == "MARKET"       ? "market price"
                     : kind == "ASSUMPTION" ? "ASSUMED price"
                     : kind == "LIST"       ? "list price"
                                            : kind;
  if (!date.empty()) what += " as of " + date;
  // The knob every front end takes (a scenario field), not one front end's
  // own: the HTML report and the server show this line too.
  return fmt::format("{}: {}; a catalog default, change it with hardware.price_per_gpu_hour", what, rest);
}

std::string PriceSource(const Scenario& s) {
  return fmt::format("{}/GPU-h, {}", FormatValue(s.hardware.price_per_gpu_hour, "USD"),
                     ReadablePriceOrigin(PriceOrigin(s)));
}

namespace {

// A row whose 0 means "this does not happen in this run" (no reward model, no
// sandbox, no checkpoints, no disaggregated broadcast): the full table leaves
// it out; --json keeps every key. A 0 of the layout and planner rows is an
// answer (not colocated, no dp attention), so those stay.
bool NotApplicableZero(std::string_view key, double v) {
  if (v != 0) return false;
  return !(key.starts_with("layout.") || key.starts_with("plan."));
}

// The goal in one line: already met, reached in N steps, or cannot be reached
// and why (the reason text of signal::Goal starts "not reachable: ").
std::string GoalLine(const Estimate& e) {
  if (!e.goal.reachable) {
    std::string why = e.goal.reason;
    const std::string_view prefix = "not reachable: ";
    if (std::string_view(why).starts_with(prefix)) why = why.substr(prefix.size());
    return fmt::format("goal: target pass rate {:.2f} cannot be reached: {}", e.goal.target_pass_rate, why);
  }
  const std::string curve =
      e.goal.curve_is_illustrative ? " (ILLUSTRATIVE learning curve: default parameters, not measured)" : "";
  if (e.goal.steps < 0.5) {
    return fmt::format("goal: target pass rate {:.2f} is already met before training (the base model's mean pass "
                       "rate is at or above it): no steps needed",
                       e.goal.target_pass_rate);
  }
  return fmt::format("goal: target pass rate {:.2f} in about {:.0f} steps, {} and {:.0f} GPU-h{} (learning model "
                     "{}, an ASSUMPTION: docs/model.md sec. 7d)",
                     e.goal.target_pass_rate, e.goal.steps, FormatValue(e.goal.usd, "USD"), e.goal.gpu_hours, curve,
                     e.goal.learning_model);
}

// The layout lines of both tables: the planner's lines, or the layout as written.
std::string LayoutLines(const Estimate& e) {
  std::string out;
  if (e.plan) {
    for (const auto& w : e.plan->why) out += "  plan: " + w + "\n";
  } else if (e.layout.rollout_gpus > 0) {
    out += fmt::format("  layout (as written): {}, rollout_tp {} ({} engines)\n",
                       e.layout.colocated ? "colocated on " + GpuCount(e.layout.rollout_gpus)
                                          : fmt::format("disaggregated, {} rollout + {} training GPUs",
                                                        e.layout.rollout_gpus, e.layout.train_gpus),
                       e.layout.rollout_tp, e.layout.engines);
  }
  return out;
}

// The first two lines of every estimate table: which run, on what.
std::string RunHeader(const Scenario& s, const Estimate& e, std::string_view after) {
  return fmt::format("rlcost {} — {}\n", e.method, s.name) +
         fmt::format("  {} on {} x {} ({}, {}), {} {}, G={}, {} prompts/step, {} steps\n{}", s.model.id,
                     s.hardware.gpus, s.hardware.gpu.id, ToString(s.placement.mode), ToString(s.placement.engine),
                     ToString(s.pipeline.mode), ToString(s.algorithm.name), s.algorithm.group_size,
                     s.algorithm.prompts_per_step, s.algorithm.steps, after);
}

}  // namespace

std::string EstimateToTable(const Scenario& s, const Estimate& e) {
  std::string out;
  out += RunHeader(s, e, "");
  // The headline: what a person asks first.
  out += fmt::format("\n  {} per step ({} s: rollout {:.0f}%, train {:.0f}%, other {:.0f}%), {} per useful sample\n",
                     FormatValue(e.usd_per_step, "USD"), FormatValue(e.step.time_s, "s"),
                     100 * e.step.rollout_s / std::max(e.step.time_s, 1e-12),
                     100 * e.step.train_s / std::max(e.step.time_s, 1e-12),
                     100 * e.step.other_s / std::max(e.step.time_s, 1e-12),
                     FormatValue(e.usd_per_useful_sample, "USD"));
  out += fmt::format("  run: {} over {:.1f} h on {} ({:.0f} GPU-h); MFU rollout {:.1f}%, train {:.1f}%\n",
                     FormatValue(e.usd, "USD"), e.wall_time_h, GpuCount(s.hardware.gpus), e.gpu_hours, 100 * e.mfu_rollout,
                     100 * e.mfu_train);
  out += "  GPU price: " + PriceSource(s) + "\n";
  out += fmt::format("  run time: steps {:.2f} h + start-up {:.2f} h + checkpoints {:.2f} h + evaluation {:.2f} h + "
                     "restarts {:.2f} h = {:.2f} h\n",
                     e.run.steps_h, e.run.startup_h, e.run.checkpoints_h, e.run.evaluation_h, e.run.restarts_h,
                     e.wall_time_h);
  if (e.energy.known) {
    // docs/model.md, "Energy": GPU boards only; the shares of the power limit are measured on H100.
    out += fmt::format("  energy: {:.4g} kWh at the GPU boards (rollout {:.0f}%), {:.4g} kg CO2e on the {} grid "
                       "({:g} g/kWh: {}); per GPU {:.0f} W decoding, {:.0f} W in compute-bound passes, {:.0f} W idle "
                       "(shares of its {:.0f} W limit measured on H100; host, network and cooling not included)\n",
                       e.energy.kwh, 100 * e.energy.kwh_by_phase.rollout / std::max(e.energy.kwh, 1e-12),
                       e.energy.co2e_kg, s.energy.grid, e.energy.g_co2e_per_kwh, s.energy.grid_source,
                       e.energy.rollout_w, e.energy.busy_w, e.energy.idle_w, s.hardware.gpu.tdp_w);
  }
  // The layout, as given or as planned (and why), before the figures that rest on it.
  out += LayoutLines(e);
  if (e.signal.wasted_rollouts_per_step > 0) {
    out += fmt::format("  wasted: {:.0f} of {:.0f} trajectories per step fail in their environment ({}): {} per step "
                       "({:.0f} GPU-s of generation{})\n",
                       e.signal.wasted_rollouts_per_step, e.signal.rollouts_per_step,
                       s.environment.failures.retry ? "retried" : "dropped", FormatValue(e.usd_wasted_per_step, "USD"),
                       e.wasted_gpu_s, s.environment.sandbox ? " and their sandboxes" : "");
  }
  if (e.clipped_share > 0.001) {
    out += fmt::format("  responses clipped at the max length: {:.1f}% ({})\n", 100 * e.clipped_share,
                       e.clipped_share_set ? "set" : "implied by the length distribution");
  }
  std::string group;
  for (const auto& m : Metrics()) {
    auto v = m.get(e);
    if (!v) continue;
    if (NotApplicableZero(m.key, *v)) continue;
    std::string g(m.key.substr(0, m.key.find('.')));
    if (g != group) {
      out += "\n";
      group = g;
    }
    std::string unit = m.unit.empty() ? "" : std::string(m.unit);
    out += fmt::format("  {:<38} {:>14} {:<6} {}\n", m.key, FormatValue(*v, m.unit),
                       unit == "USD" ? "" : unit, m.description);
  }
  if (e.sim) {
    const auto& r = *e.sim;
    out += fmt::format("\n  simulated {} steps (seed {}, {} events)\n", r.steps_simulated, r.seed, r.events);
    out += fmt::format("  {:<38} {:>10} {:>10} {:>10} {:>10}\n", "per trajectory", "p50", "p90", "p99", "max");
    out += fmt::format("  {:<38} {:>10.1f} {:>10.1f} {:>10.1f} {:>10.1f}\n", "time (s)", r.trajectory_time_s.p50,
                       r.trajectory_time_s.p90, r.trajectory_time_s.p99, r.trajectory_time_s.max);
    out += fmt::format("  {:<38} {:>10.0f} {:>10.0f} {:>10.0f} {:>10.0f}\n", "generated tokens", r.trajectory_tokens.p50,
                       r.trajectory_tokens.p90, r.trajectory_tokens.p99, r.trajectory_tokens.max);
    out += fmt::format("  GPU idle per step (GPU-s, = gpu_time.idle_s): length tail {:.0f}, waiting on the trainer "
                       "{:.0f}, on rollouts {:.0f}, on tools {:.0f}, on weight sync {:.0f}\n",
                       r.idle_length_tail_gpu_s, r.idle_waiting_trainer_gpu_s, r.idle_waiting_rollout_gpu_s,
                       r.idle_tools_gpu_s, r.idle_weight_sync_gpu_s);
    if (r.judge_simulated) {
      out += fmt::format("  judges: {:.0f} calls per step, {:.0f} GPU-s busy; a call waits {:.2f} s for a batch on "
                         "average ({:.0f} queued at most); idle waiting for rewards {:.0f} GPU-s, judge GPUs idle "
                         "{:.0f} GPU-s\n",
                         r.judge_calls, r.judge_busy_gpu_s, r.judge_queue_wait_s, r.judge_max_queue,
                         r.idle_waiting_judge_gpu_s, r.idle_judge_pool_gpu_s);
    }
    out += fmt::format("  length tail, under-filled decode (busy, in gpu_time.rollout_s): {:.0f} GPU-s per step\n",
                       r.length_tail_underfill_gpu_s);
    out += fmt::format("  sandbox queueing {:.0f} trajectory-s per step; mean batch occupancy {:.0f}% of KV capacity; "
                       "{} preemptions\n",
                       r.sandbox_wait_s, r.mean_batch_occupancy * 100, r.preemptions);
  }
  if (e.goal.requested) out += "\n  " + GoalLine(e) + "\n";
  if (!e.signal.notes.empty() || !e.step.notes.empty()) out += "\n";
  for (const auto& n : e.signal.notes) out += "  signal: " + n + "\n";
  for (const auto& n : e.step.notes) out += "  note: " + n + "\n";
  if (!e.assumptions.empty()) {
    out += "\n  assumed:\n";
    for (const auto& a : e.assumptions) out += "    - " + a + "\n";
  }
  return out;
}

std::string EstimateBrief(const Scenario& s, const Estimate& e) {
  std::string out;
  out += RunHeader(s, e, "\n");
  // The answer.
  out += fmt::format("  run: {} over {:.1f} h on {} ({:.0f} GPU-h); {} per useful sample\n",
                     FormatValue(e.usd, "USD"), e.wall_time_h, GpuCount(s.hardware.gpus), e.gpu_hours,
                     FormatValue(e.usd_per_useful_sample, "USD"));
  {
    std::string ranges;
    auto all = interval::Intervals(e, interval::BandFor(e.method));
    for (auto [key, label] : {std::pair<std::string_view, std::string_view>{"run.usd", "dollars"},
                              {"run.wall_time_h", "wall time"},
                              {"cost.gpu_hours", "GPU-hours"}}) {
      auto it = all.find(std::string(key));
      const MetricDef* m = FindMetric(key);
      if (it == all.end() || !m) continue;
      ranges += fmt::format("{}{} {} .. {}{}", ranges.empty() ? "" : ", ", label, FormatValue(it->second.low, m->unit),
                            FormatValue(it->second.high, m->unit), m->unit == "USD" ? "" : " " + std::string(m->unit));
    }
    if (!ranges.empty()) out += "  likely range (80%, see below): " + ranges + "\n";
  }
  // Where the time and the money go.
  // Shares of the step's wall time: the registry's step.*_share, one definition
  // with JSON; the GPU-time share (rollout_fraction) follows on its own line.
  auto share = [&](std::string_view key) {
    const MetricDef* m = FindMetric(key);
    auto v = m ? m->get(e) : std::nullopt;
    return v ? fmt::format("{:.0f}%", 100 * *v) : std::string("n/a");
  };
  out += fmt::format("  step: {} and {} s of wall time: rollout {}, train {}, other {} of the step's wall time "
                     "(other: log-prob, reference, weight sync, rewards)\n",
                     FormatValue(e.usd_per_step, "USD"), FormatValue(e.step.time_s, "s"), share("step.rollout_share"),
                     share("step.train_share"), share("step.other_share"));
  {
    std::string phases;
    const double usd = std::max(e.usd, 1e-12);
    for (auto [key, label] : {std::pair<std::string_view, std::string_view>{"run.usd_by_phase.rollout", "rollout"},
                              {"run.usd_by_phase.train", "train"},
                              {"run.usd_by_phase.other", "other"},
                              {"run.usd_by_phase.idle", "idle"},
                              {"run.usd_by_phase.sandbox", "sandboxes"},
                              {"run.usd_by_phase.startup", "start-up"},
                              {"run.usd_by_phase.checkpoints", "checkpoints"},
                              {"run.usd_by_phase.evaluation", "evaluation"},
                              {"run.usd_by_phase.restarts", "restarts"}}) {
      const MetricDef* m = FindMetric(key);
      auto v = m ? m->get(e) : std::nullopt;
      if (!v || *v <= 0) continue;
      phases += fmt::format("{}{} {} ({:.0f}%)", phases.empty() ? "" : ", ", label, FormatValue(*v, "USD"),
                            100 * *v / usd);
    }
    if (!phases.empty()) out += "  dollars by phase: " + phases + "\n";
  }
  // The rollout share of GPU time: one definition, the registry's.
  if (const MetricDef* rf = FindMetric("rollout_fraction"); rf && rf->get(e)) {
    out += fmt::format("  {} {:.1f}% ({}); MFU rollout {:.1f}%, train {:.1f}%\n", rf->key, 100 * *rf->get(e),
                       rf->description, 100 * e.mfu_rollout, 100 * e.mfu_train);
  }
  // The signal.
  out += fmt::format("  signal: {:.0f} of {:.0f} rollouts per step carry a gradient ({:.1f}%), mean pass rate {:.3f}\n",
                     e.signal.useful_samples_per_step, e.signal.rollouts_per_step,
                     100 * e.signal.useful_samples_per_step / std::max(e.signal.rollouts_per_step, 1e-12),
                     e.signal.mean_pass_rate);
  if (e.signal.wasted_rollouts_per_step > 0) {
    out += fmt::format("  wasted: {:.0f} of {:.0f} trajectories per step fail in their environment ({}): {} per step\n",
                       e.signal.wasted_rollouts_per_step, e.signal.rollouts_per_step,
                       s.environment.failures.retry ? "retried" : "dropped", FormatValue(e.usd_wasted_per_step, "USD"));
  }
  if (e.goal.requested) out += "  " + GoalLine(e) + "\n";
  out += LayoutLines(e);
  if (e.sim) {
    const auto& r = *e.sim;
    out += fmt::format("  simulated {} steps (seed {}): trajectory time p50 {:.1f} s, p99 {:.1f} s; GPU idle {:.0f} "
                       "GPU-s per step\n",
                       r.steps_simulated, r.seed, r.trajectory_time_s.p50, r.trajectory_time_s.p99,
                       r.idle_length_tail_gpu_s + r.idle_waiting_trainer_gpu_s + r.idle_waiting_rollout_gpu_s +
                           r.idle_tools_gpu_s + r.idle_weight_sync_gpu_s);
  }
  out += "  GPU price: " + PriceSource(s) + "\n";
  // The assumptions, labelled (the price is on the line above). What a
  // framework supplied is one line here; --full and --json list each default
  // with its source.
  const std::string framework_set = "framework " + s.framework + " set ";
  std::vector<const std::string*> assumed;
  for (const auto& a : e.assumptions) {
    if (std::string_view(a).starts_with("price: ")) continue;
    if (!s.framework_defaults.empty() && std::string_view(a).starts_with(framework_set)) continue;
    assumed.push_back(&a);
  }
  std::string framework_line;
  if (!s.framework_defaults.empty()) {
    std::string list;
    for (const auto& f : s.framework_defaults) list += (list.empty() ? "" : ", ") + f.path + " = " + f.value;
    framework_line = fmt::format("framework {} set what the scenario leaves out: {} (the source of each: `full`)",
                                 s.framework, list);
    assumed.push_back(&framework_line);
  }
  if (!assumed.empty()) {
    out += "  assumed:\n";
    for (const auto* a : assumed) out += "    - " + *a + "\n";
  }
  out += "  " + interval::BandSentence(interval::BandFor(e.method), e.method) + "\n";
  out += "  every figure: `full` (table) or `json`\n";  // the request's fields; a front end says its own
  return out;
}

}  // namespace rlcost::report
