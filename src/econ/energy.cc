// Energy of a run: GPU-seconds by phase x the power of that kind of work.
// docs/model.md, "Energy".
#include "econ/energy.h"

#include <algorithm>
#include <cmath>

namespace rlcost::econ_internal {

double DecodePowerShare(double batch) {
  const double x = std::clamp(std::log2(std::max(batch, 1.0)) / 7.0, 0.0, 1.0);  // 2^7 = 128
  return kDecodePowerShareBatch1 + (kDecodePowerShareBatch128 - kDecodePowerShareBatch1) * x;
}

EnergyEstimate BuildEnergy(const Scenario& s, const Estimate& e) {
  EnergyEstimate en;
  en.g_co2e_per_kwh = s.energy.g_co2e_per_kwh;
  const double tdp = s.hardware.gpu.tdp_w;
  if (!(tdp > 0)) return en;
  en.known = true;
  const StepTiming& t = e.step;
  en.rollout_w = tdp * DecodePowerShare(t.mean_batch);
  en.busy_w = tdp * kBusyPowerShare;
  en.idle_w = tdp * kIdlePowerShare;
  constexpr double kJPerKwh = 3.6e6;
  // Steps: every step's GPU-seconds by phase (they add up to time_s x GPUs).
  const double steps = t.time_s > 0 ? e.run.steps_h * 3600.0 / t.time_s : 0.0;
  auto& k = en.kwh_by_phase;
  k.rollout = steps * t.gpu_s_rollout * en.rollout_w / kJPerKwh;
  k.train = steps * t.gpu_s_train * en.busy_w / kJPerKwh;
  k.other = steps * t.gpu_s_other * en.busy_w / kJPerKwh;
  k.idle = steps * t.gpu_s_idle * en.idle_w / kJPerKwh;
  // Run-level parts hold every GPU of the run: waiting on storage at idle
  // power (start-up, checkpoints), decoding (evaluation), and a restart at the
  // steps' mean power (it redoes the lost steps; detection and reload are
  // counted the same way, an upper bound).
  const double gpus = s.hardware.gpus + t.verifier_gpus;
  const double step_gpu_s = t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle;
  const double steps_j = (k.rollout + k.train + k.other + k.idle) * kJPerKwh;
  const double mean_w = steps > 0 && step_gpu_s > 0 ? steps_j / (steps * step_gpu_s) : en.idle_w;
  const double gpu_h_to_kwh = gpus * 3600.0 / kJPerKwh;
  k.startup = e.run.startup_h * gpu_h_to_kwh * en.idle_w;
  k.checkpoints = e.run.checkpoints_h * gpu_h_to_kwh * en.idle_w;
  k.evaluation = e.run.evaluation_h * gpu_h_to_kwh * en.rollout_w;
  k.restarts = e.run.restarts_h * gpu_h_to_kwh * mean_w;
  en.kwh = k.total();
  en.co2e_kg = en.kwh * en.g_co2e_per_kwh / 1000.0;
  return en;
}

}  // namespace rlcost::econ_internal
