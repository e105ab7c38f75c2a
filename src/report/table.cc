#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "report/report.h"
#include "report/price.h"

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

std::string PriceSource(const Scenario& s) {
  return fmt::format("{}/GPU-h, {}", FormatValue(s.hardware.price_per_gpu_hour, "USD"), PriceOrigin(s));
}

std::string EstimateToTable(const Scenario& s, const Estimate& e) {
  std::string out;
  out += fmt::format("rlcost {} — {}\n", e.method, s.name);
  out += fmt::format("  {} on {} x {} ({}, {}), {} {}, G={}, {} prompts/step, {} steps\n", s.model.id,
                     s.hardware.gpus, s.hardware.gpu.id, ToString(s.placement.mode), ToString(s.placement.engine),
                     ToString(s.pipeline.mode), ToString(s.algorithm.name), s.algorithm.group_size,
                     s.algorithm.prompts_per_step, s.algorithm.steps);
  // The headline: what a person asks first.
  out += fmt::format("\n  {} per step ({} s: rollout {:.0f}%, train {:.0f}%, other {:.0f}%), {} per useful sample\n",
                     FormatValue(e.usd_per_step, "USD"), FormatValue(e.step.time_s, "s"),
                     100 * e.step.rollout_s / std::max(e.step.time_s, 1e-12),
                     100 * e.step.train_s / std::max(e.step.time_s, 1e-12),
                     100 * e.step.other_s / std::max(e.step.time_s, 1e-12),
                     FormatValue(e.usd_per_useful_sample, "USD"));
  out += fmt::format("  run: {} over {:.1f} h on {} GPUs ({:.0f} GPU-h); MFU rollout {:.1f}%, train {:.1f}%\n",
                     FormatValue(e.usd, "USD"), e.wall_time_h, s.hardware.gpus, e.gpu_hours, 100 * e.mfu_rollout,
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
  if (e.plan) {
    for (const auto& w : e.plan->why) out += "  plan: " + w + "\n";
  } else if (e.layout.rollout_gpus > 0) {
    out += fmt::format("  layout (as written): {}, rollout_tp {} ({} engines)\n",
                       e.layout.colocated ? fmt::format("colocated on {} GPUs", e.layout.rollout_gpus)
                                          : fmt::format("disaggregated, {} rollout + {} training GPUs",
                                                        e.layout.rollout_gpus, e.layout.train_gpus),
                       e.layout.rollout_tp, e.layout.engines);
  }
  if (e.signal.wasted_rollouts_per_step > 0) {
    out += fmt::format("  wasted: {:.0f} of {:.0f} trajectories per step fail in their environment ({}): {} per step "
                       "({:.0f} GPU-s of generation{})\n",
                       e.signal.wasted_rollouts_per_step, e.signal.rollouts_per_step,
                       s.environment.failures.retry ? "retried" : "dropped", FormatValue(e.usd_wasted_per_step, "USD"),
                       e.wasted_gpu_s, s.environment.sandbox ? " and their sandboxes" : "");
  }
  std::string group;
  for (const auto& m : Metrics()) {
    auto v = m.get(e);
    if (!v) continue;
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
  if (e.goal.requested && !e.goal.reachable) {
    out += fmt::format("\n  goal: target pass rate {:.2f} is NOT reachable — {}\n", e.goal.target_pass_rate,
                       e.goal.reason);
  } else if (e.goal.requested) {
    out += fmt::format("\n  goal: target pass rate {:.2f} in about {:.0f} steps{}\n", e.goal.target_pass_rate,
                       e.goal.steps, e.goal.curve_is_illustrative ? " (ILLUSTRATIVE learning curve: default parameters, not measured)" : "");
  }
  if (!e.signal.notes.empty() || !e.step.notes.empty()) out += "\n";
  for (const auto& n : e.signal.notes) out += "  signal: " + n + "\n";
  for (const auto& n : e.step.notes) out += "  note: " + n + "\n";
  if (!e.assumptions.empty()) {
    out += "\n  assumed:\n";
    for (const auto& a : e.assumptions) out += "    - " + a + "\n";
  }
  return out;
}

}  // namespace rlcost::report
