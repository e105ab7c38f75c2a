// The run beyond one mean step. docs/model.md, "Run-level costs" (start-up,
// checkpoints, evaluation, failures) and "Workload over time" (length schedule).
#include "core/numbers.h"
#include "econ/run.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "core/count.h"
#include "rlcost/perf.h"
#include "rlcost/sim.h"

namespace rlcost::econ_internal {
namespace {

// A checkpoint on storage holds bf16 weights (2 bytes per parameter); with the
// optimizer state also the fp32 master weights and Adam's two moments, 12 bytes
// (ZeRO, Rajbhandari et al. 2020, sec. 3.1: "K = 12" for mixed-precision Adam).
constexpr double kCheckpointWeightBytesPerParam = 2.0;
constexpr double kCheckpointOptimizerBytesPerParam = 12.0;
// A non-blocking checkpoint first snapshots each GPU's shard to host memory over
// PCIe (perf::kHostLinkGbPerS); the write to storage then proceeds in the
// background.

// Every double of StepTiming: the schedule's mean step is their weighted mean,
// so the identities that hold per step (time = rollout + train + other, GPU
// time = wall x GPUs) hold for the mean too.
constexpr std::array kStepFields = {
    &StepTiming::time_s,          &StepTiming::rollout_s,       &StepTiming::train_s,
    &StepTiming::other_s,         &StepTiming::logprob_s,       &StepTiming::reference_s,
    &StepTiming::weight_sync_s,   &StepTiming::reward_s,        &StepTiming::overhead_s,
    &StepTiming::offload_s,       &StepTiming::refit_offload_s, &StepTiming::gpu_s_rollout,   &StepTiming::gpu_s_train,
    &StepTiming::gpu_s_other,     &StepTiming::gpu_s_idle,      &StepTiming::rollout_busy_s,
    &StepTiming::train_busy_s,    &StepTiming::rollout_flops,   &StepTiming::train_flops,
    &StepTiming::other_flops,     &StepTiming::rollouts_generated, &StepTiming::rollouts_trained,
    &StepTiming::generated_tokens, &StepTiming::prefill_tokens, &StepTiming::trained_tokens,
    &StepTiming::sandbox_cpu_s,   &StepTiming::mean_batch,      &StepTiming::kv_capacity_sequences, &StepTiming::spot_lost_s, &StepTiming::spot_lost_share,
    &StepTiming::tail_rollout_saved_s, &StepTiming::tail_wasted_tokens, &StepTiming::tail_launched};

int Nodes(int gpus, int gpus_per_node) { return std::max(1, (gpus + gpus_per_node - 1) / gpus_per_node); }

double CheckpointGb(const Scenario& s, const CheckpointSpec& c) {
  const auto& a = s.algorithm;
  double trainable = perf::TrainableParams(s);
  double per_param = kCheckpointWeightBytesPerParam + (c.optimizer_state ? kCheckpointOptimizerBytesPerParam : 0.0);
  double models = a.critic ? 2.0 : 1.0;  // the critic is saved beside the policy
  return trainable * per_param * models / kGB;
}

// Model files read at start-up: the policy's weights (the reference model is
// the same file, served from the page cache) and the critic's.
double StartupLoadGb(const Scenario& s) {
  return perf::WeightBytes(s.model, Precision::kBf16) * (s.algorithm.critic ? 2.0 : 1.0) / kGB;
}

}  // namespace

Result<StepTiming> ScheduledAnalyticStep(const Scenario& s, const signal::Summary& sig, TextDetail detail) {
  const auto& sched = s.environment.response_tokens_schedule;
  if (!sched || sched->mean_per_step.empty()) return sim::AnalyticStep(s, sig, detail);
  const auto& means = sched->mean_per_step;
  auto [lo_it, hi_it] = std::minmax_element(means.begin(), means.end());
  const double lo = *lo_it, hi = *hi_it;
  if (hi - lo <= 1e-9 * hi) return sim::AnalyticStep(s, sig, detail);  // flat: s holds that length
  // Weights: step i's mean length m_i falls between nodes j and j+1 and adds
  // (1 - f) to node j, f to node j+1; divided by the number of steps.
  std::array<double, kScheduleNodes> node_len{}, w{};
  const double h = (hi - lo) / (kScheduleNodes - 1);
  for (int j = 0; j < kScheduleNodes; ++j) node_len[j] = lo + h * j;
  for (double m : means) {
    double x = (m - lo) / h;
    int j = FloorCount(x, 0, kScheduleNodes - 2);
    double f = std::clamp(x - j, 0.0, 1.0);
    w[j] += 1.0 - f;
    w[j + 1] += f;
  }
  const double n = static_cast<double>(means.size());
  StepTiming mean_step;
  std::array<double, kStepFields.size()> sums{};
  double first_s = 0, last_s = 0, best_gap = std::numeric_limits<double>::infinity();
  std::array<double, kScheduleNodes> node_time{};
  for (int j = 0; j < kScheduleNodes; ++j) {
    Scenario sj = s;
    auto d = sched->At(node_len[j]);
    if (!d) return Fail(ErrorCode::kInvalidInput, "environment.response_tokens_schedule", d.error());
    sj.environment.response_tokens = *d;
    auto t = sim::AnalyticStep(sj, sig, detail);
    if (!t) return Fail(t.error());
    node_time[j] = t->time_s;
    // Counts, notes and anything not blended come from the node nearest the run mean.
    if (double gap = std::abs(node_len[j] - sched->RunMean()); gap < best_gap) {
      best_gap = gap;
      mean_step = *t;
    }
    for (size_t k = 0; k < kStepFields.size(); ++k) sums[k] += w[j] / n * (*t).*kStepFields[k];
  }
  for (size_t k = 0; k < kStepFields.size(); ++k) mean_step.*kStepFields[k] = sums[k];
  // Step time at the first and last step, by the same interpolation.
  auto interp = [&](double m) {
    double x = (m - lo) / h;
    int j = FloorCount(x, 0, kScheduleNodes - 2);
    double f = std::clamp(x - j, 0.0, 1.0);
    return (1 - f) * node_time[j] + f * node_time[j + 1];
  };
  first_s = interp(means.front());
  last_s = interp(means.back());
  mean_step.notes.push_back(fmt::format(
      "response length schedule ({}): mean {:.0f} tokens at the first step, {:.0f} at the last; step time {:.0f} s "
      "-> {:.0f} s, {:.0f} s on average ({} analytic points, interpolated in length)",
      sched->source, means.front(), means.back(), first_s, last_s, mean_step.time_s, kScheduleNodes));
  return mean_step;
}

void AddWeightedStep(StepTiming& into, const StepTiming& t, double w) {
  for (auto f : kStepFields) into.*f += w * t.*f;
}

void CopyBlendedFields(StepTiming& into, const StepTiming& from) {
  for (auto f : kStepFields) into.*f = from.*f;
}

Result<double> EvaluationPassS(const Scenario& s) {
  if (!s.run.evaluation) return 0.0;
  const EvaluationSpec& ev = *s.run.evaluation;
  Scenario e = s;
  e.algorithm.prompts_per_step = ev.prompts;
  e.algorithm.group_size = ev.samples_per_prompt;
  e.algorithm.dynamic_sampling = false;
  e.environment.prompt_tokens = ev.prompt_tokens;
  e.environment.response_tokens = ev.response_tokens;
  e.environment.response_tokens_schedule.reset();
  // One batch with the current weights, nothing trained: a synchronous rollout.
  e.pipeline.mode = PipelineMode::kSync;
  e.pipeline.partial_rollouts = false;
  auto sig = signal::Analyze(e);
  if (!sig) return Fail(sig.error());
  auto t = sim::AnalyticStep(e, *sig);
  if (!t) return Fail(t.error());
  return t->rollout_busy_s + t->reward_s;
}

double PolicyUsdPerHour(const Scenario& s) {
  const double od = s.hardware.price_per_gpu_hour;
  const SpotSpec& sp = s.hardware.spot;
  const double train_price = sp.Train() ? sp.train->PricePerGpuHour(od) : od;
  if (s.placement.mode == PlacementMode::kColocated) return s.hardware.gpus * train_price;
  const double rollout_price = sp.Rollout() ? sp.rollout->PricePerGpuHour(od) : od;
  return s.placement.rollout_gpus * rollout_price + s.placement.train_gpus * train_price;
}

double SpotTrainPreemptionsPerHour(const Scenario& s) {
  if (!s.hardware.spot.Train()) return 0;
  const int gpn = std::max(1, s.hardware.gpus_per_node);
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  const int nodes = Nodes(colocated || s.placement.train_gpus <= 0 ? s.hardware.gpus : s.placement.train_gpus, gpn);
  return s.hardware.spot.train->preemptions_per_hour * nodes;
}

RunBreakdown BuildRunBreakdown(const Scenario& s, double step_time_s, double evaluation_s) {
  RunBreakdown r;
  const double steps = s.algorithm.steps;
  const int gpn = std::max(1, s.hardware.gpus_per_node);
  const int train_nodes = Nodes(s.placement.train_gpus > 0 ? s.placement.train_gpus : s.hardware.gpus, gpn);
  r.steps_h = step_time_s * steps / 3600.0;

  // Start-up: every node reads the model files from storage in parallel, then
  // the inference engines warm up (CUDA-graph capture).
  const StartupSpec& st = s.run.startup;
  const double one_startup_s = StartupLoadGb(s) / st.storage_read_gb_per_s + st.warmup_s;
  r.startup_s = st.enabled ? one_startup_s : 0.0;
  r.startup_h = r.startup_s / 3600.0;

  // Checkpoints: the training nodes write their shards in parallel.
  double segments = 1, segment_ckpt_s = 0, restore_s = 0;
  if (s.run.checkpoint) {
    const CheckpointSpec& c = *s.run.checkpoint;
    r.checkpoint_gb = CheckpointGb(s, c);
    const double write_s = r.checkpoint_gb / (train_nodes * c.storage_write_gb_per_s);
    if (c.blocking) {
      r.checkpoint_s = write_s;
    } else {
      // Snapshot to host memory, then write in the background; a write that
      // outlasts the interval holds up the next checkpoint by the difference.
      const int train_gpus = s.placement.train_gpus > 0 ? s.placement.train_gpus : s.hardware.gpus;
      const double snapshot_s = r.checkpoint_gb / train_gpus / perf::kHostLinkGbPerS;
      r.checkpoint_s = snapshot_s + std::max(0.0, write_s - c.every_steps * step_time_s);
    }
    r.checkpoints = std::floor(steps / c.every_steps);
    r.checkpoints_h = r.checkpoints * r.checkpoint_s / 3600.0;
    segments = std::max(1.0, steps / c.every_steps);
    segment_ckpt_s = r.checkpoint_s;
    restore_s = r.checkpoint_gb / (train_nodes * st.storage_read_gb_per_s);
  }

  if (s.run.evaluation) {
    r.evaluation_s = evaluation_s;
    r.evaluations = std::floor(steps / s.run.evaluation->every_steps);
    r.evaluation_h = r.evaluations * evaluation_s / 3600.0;
  }

  // Failures: Daly (2006), "A higher order estimate of the optimum checkpoint
  // interval for restart dumps", FGCS 22(3), eq. (1): with exponential failures
  // of mean time M, restart time R, work per segment tau and checkpoint time
  // delta, the expected wall time is T = M e^(R/M) (e^((tau + delta)/M) - 1) x segments.
  // Spot training nodes (hardware.spot.train; docs/model.md, "Spot GPUs") are
  // interruptions of their own: no hang to detect (the cloud gives notice),
  // restart_s (default: a start-up) and the restore. With run.failures too,
  // the two Poisson processes add and a restart costs their rate-weighted mean.
  const double fail_rate_h = s.run.failures ? s.run.failures->interruptions_per_gpu_hour * s.hardware.gpus : 0.0;
  const double spot_rate_h = SpotTrainPreemptionsPerHour(s);
  if (fail_rate_h + spot_rate_h > 0) {
    const double mtbf_s = 3600.0 / (fail_rate_h + spot_rate_h);
    const double work_s = (r.steps_h + r.evaluation_h) * 3600.0;
    const double fail_restart_s = (s.run.failures ? s.run.failures->detect_s : 0.0) + one_startup_s + restore_s;
    const double spot_restart_s =
        (spot_rate_h > 0 && s.hardware.spot.train->restart_s ? *s.hardware.spot.train->restart_s : one_startup_s) +
        restore_s;
    const double restart_s = (fail_rate_h * fail_restart_s + spot_rate_h * spot_restart_s) / (fail_rate_h + spot_rate_h);
    const double tau = work_s / segments;
    const double total_s =
        mtbf_s * std::exp(restart_s / mtbf_s) * std::expm1((tau + segment_ckpt_s) / mtbf_s) * segments;
    const double overhead_s = total_s - work_s - segments * segment_ckpt_s;
    r.restarts_h = std::isfinite(overhead_s) ? std::max(0.0, overhead_s) / 3600.0
                                             : std::numeric_limits<double>::infinity();
    r.expected_interruptions = total_s / mtbf_s;
  }
  return r;
}

std::vector<std::string> RunAssumptions(const Scenario& s, const RunBreakdown& r) {
  std::vector<std::string> a;
  const StartupSpec& st = s.run.startup;
  if (st.enabled) {
    a.push_back(fmt::format(
        "start-up: {:.0f} GB of model files read at {:.2f} GB/s per node (Llama 3's 2 TB/s storage over 2,048 "
        "nodes unless run.startup.storage_read_gb_per_s is set) + {:.0f} s engine warm-up (CUDA-graph capture, "
        "vLLM PR #11349); {:.0f} s once (run.startup: false to leave it out)",
        StartupLoadGb(s), st.storage_read_gb_per_s, st.warmup_s, r.startup_s));
  }
  if (s.run.checkpoint) {
    const auto& c = *s.run.checkpoint;
    a.push_back(fmt::format("checkpoints: {:.0f} x {:.0f} GB ({}{}) written at {:.2f} GB/s per training node, "
                            "{}: {:.0f} s each on the critical path",
                            r.checkpoints, r.checkpoint_gb, "bf16 weights",
                            c.optimizer_state ? " + fp32 Adam state, 14 bytes/parameter" : ", 2 bytes/parameter",
                            c.storage_write_gb_per_s, c.blocking ? "training waits" : "non-blocking",
                            r.checkpoint_s));
  }
  if (s.run.evaluation) {
    const auto& ev = *s.run.evaluation;
    a.push_back(fmt::format("evaluation: {:.0f} passes of {} prompts x {} samples, {:.0f} s each (a synchronous "
                            "batch on the rollout engines, analytic)",
                            r.evaluations, ev.prompts, ev.samples_per_prompt, r.evaluation_s));
  }
  if (s.run.failures) {
    const auto& f = *s.run.failures;
    a.push_back(fmt::format(
        "failures: {:.3g} interruptions per GPU-hour{} -> {:.2g} expected; each costs {:.0f} s to detect (NCCL "
        "timeout) + a restart + the work since the last checkpoint (Daly 2006)",
        f.interruptions_per_gpu_hour,
        f.interruptions_per_gpu_hour == kLlama3InterruptionsPerGpuHour
            ? " (Llama 3: 419 in 54 days on 16,384 GPUs)"
            : "",
        r.expected_interruptions, f.detect_s));
    if (!s.run.checkpoint) a.push_back("failures without run.checkpoint: every interruption restarts the run from step 0");
  }
  if (const auto& sched = s.environment.response_tokens_schedule) {
    a.push_back(fmt::format("response length schedule ({}): the shape of environment.response_tokens (cv, max) is "
                            "kept at every mean; the simulator runs the run-mean length ({:.0f} tokens)",
                            sched->source, sched->RunMean()));
  }
  return a;
}

}  // namespace rlcost::econ_internal
