// sim: the time model of the RL loop, two ways.
//   AnalyticStep  — closed forms over the length distributions (microseconds);
//   Simulate      — deterministic discrete-event simulation (milliseconds):
//                   engines with continuous batching and a KV budget, tool
//                   calls on a sandbox pool, trainer, weight sync, pipelines.
// Where the closed form is exact (fixed lengths, no contention) they agree
// within 1%.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/scenario.h"
#include "rlcost/text_detail.h"
#include "rlcost/signal.h"
#include "rlcost/timing.h"

namespace rlcost::sim {

Result<StepTiming> AnalyticStep(const Scenario& s, const signal::Summary& sig,
                                TextDetail detail = TextDetail::kFull);

// The slowest of `engines` engines, each given `sequences` responses of
// length coefficient of variation `length_cv`, holds this factor times the
// mean engine's response tokens: 1 + z_E cv / sqrt(n), z_E the expected
// largest of E standard normals (Blom). docs/model.md, "The busiest engine".
double BusiestEngineFactor(double engines, double sequences, double length_cv);

struct Options {
  uint64_t seed = 1;
  int steps = 0;              // 0 = the scenario's algorithm.steps
  // > 0: the per-step figures of a run longer than its warm-up and this
  // many steps are measured on a shorter run and extrapolated to the whole
  // run (docs/model.md, "Steady steps"): the simulator runs W warm-up steps
  // and W + measure_steps steps (two runs, same seed), and each per-step
  // total of the N-step run is read off the line through the two. A run of
  // at most 2 W + measure_steps steps is simulated whole (the same bits).
  int measure_steps = 0;
  std::string trace_path;     // Chrome trace-event JSON; empty = none
};

struct Percentiles {
  double p50 = 0, p90 = 0, p99 = 0, max = 0;
};

struct SimResult {
  StepTiming mean_step;                  // mean over the simulated steps
  Percentiles trajectory_time_s;
  Percentiles trajectory_tokens;         // generated tokens per trajectory
  // GPU-seconds per step idle, by cause. Their sum is mean_step.gpu_s_idle.
  double idle_length_tail_gpu_s = 0;
  double idle_waiting_trainer_gpu_s = 0;
  double idle_tools_gpu_s = 0;
  double idle_weight_sync_gpu_s = 0;
  double sandbox_wait_s = 0;             // total trajectory-seconds queued for a sandbox slot, per step
  double mean_batch_occupancy = 0;       // running sequences / KV capacity, time-weighted
  long long events = 0;
  int steps_simulated = 0;
  // Options::measure_steps: the figures stand for a run of this many steps,
  // extrapolated from runs of `warmup_steps` and steps_simulated steps; 0 =
  // the run of steps_simulated steps itself.
  int extrapolated_to_steps = 0;
  int warmup_steps = 0;
  uint64_t seed = 0;
  // Added by the simulator (docs/model.md (sim section)).
  double idle_waiting_rollout_gpu_s = 0; // trainer GPUs waiting for a full batch (disaggregated), per step
  double preemptions = 0;                // sequences evicted from a full KV cache and recomputed, per step
  int engines = 0;                       // inference engines (tensor-parallel groups)
  double kv_blocks_per_engine = 0;       // 16-token KV blocks one engine holds
  // Decoding below the engine's peak batch in the length tail, (1 - batch /
  // peak) x tp x dt: busy (booked as rollout), not idle, per step.
  double length_tail_underfill_gpu_s = 0;
  // Model verifiers run as engine work (docs/model.md, "Judges in the
  // simulator"); judge_simulated false = none, or one left to the closed form.
  bool judge_simulated = false;
  double idle_waiting_judge_gpu_s = 0;  // policy GPUs waiting for rewards from judges, per step (an idle cause)
  double idle_judge_pool_gpu_s = 0;     // dedicated judge GPUs with no call to work on, per step (an idle cause)
  double judge_calls = 0;               // per step
  double judge_busy_gpu_s = 0;          // judge GPUs working (a shared judge's weight loads included), per step
  double judge_phase_s = 0;             // sync: wall time judges hold the policy's GPUs, per step
  double judge_queue_wait_s = 0;        // mean wait of a call for a judge engine's batch
  double judge_max_queue = 0;           // most calls waiting at once
};

Result<SimResult> Simulate(const Scenario& s, const signal::Summary& sig, const Options& opt);

// Options::measure_steps (docs/model.md, "Steady steps"): the warm-up steps
// of `s`'s pipeline, and `r` (a run of k steps) with its per-step totals put
// on the line through `r` and `w` (a run of fewer steps) at a run of n steps.
int SteadyWarmupSteps(const Scenario& s);
void ExtrapolateSteps(SimResult& r, const SimResult& w, int n);

}  // namespace rlcost::sim
