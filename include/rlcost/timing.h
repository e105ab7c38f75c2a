// The time of one training step and the work done in it — what both the
// analytic path (closed forms) and the simulated path (discrete events)
// produce, and what econ turns into dollars.
#pragma once

#include <string>
#include <vector>

namespace rlcost {

// One weight sync from the trainer to the rollout engines, by part (computed
// by perf::WeightSync).
struct WeightSyncParts {
  double gather_s = 0;     // trainer all-gathers its shards into full tensors
  double transfer_s = 0;   // disaggregated: NCCL broadcast trainer -> every rollout GPU
  double load_s = 0;       // each engine GPU copies its tensor-parallel shard into its weights
  double calls_s = 0;      // fixed host-side cost of each collective call (per tensor or per bucket)
  double engine_s = 0;     // colocated: engine wake-up (weights, KV cache re-allocation) and sleep
  double offload_s = 0;    // colocated: the trainer's optimizer states to host memory, inside the refit (NeMo RL)
  double ipc_s = 0;        // colocated: CUDA IPC handles relayed to the engines and rebuilt there
  // pipelined: of gather and transfer, the time hidden by running the two at
  // once (bucket i is broadcast while bucket i + 1 is gathered); 0 otherwise.
  double overlap_s = 0;
  double total_s = 0;      // the parts less overlap_s: generation is paused for all of it
  double bytes = 0;        // bytes moved (the full weights), one copy
  double tensors = 0;      // tensors in the checkpoint
  double collectives = 0;  // collective calls per sync (export_calls included)
  double export_calls = 0; // colocated: of those, the trainer's per-parameter gathers (ExportCalls)
  double weights_out_s = 0;  // colocated refit offload: of offload_s, the trainer's own weights to host memory
};

struct StepTiming {
  // Wall time of one step and its split; time_s = rollout_s + train_s + other_s.
  double time_s = 0;
  double rollout_s = 0;  // generating (tool calls included), not hidden by overlap
  double train_s = 0;    // policy update, not hidden by overlap
  double other_s = 0;    // log-prob + reference + weight sync + rewards + overhead, not hidden
  // Detail of other_s (each as it adds to the critical path).
  double logprob_s = 0;
  double reference_s = 0;
  double weight_sync_s = 0;
  double reward_s = 0;
  double overhead_s = 0;
  double offload_s = 0;  // moving offloaded training state to host memory and back
  // Of offload_s: colocated, the optimizer states moved to host memory before
  // the refit and back before the update (perf::RefitOffloadTime).
  double refit_offload_s = 0;
  // The parts of one weight sync (perf::WeightSync; docs/model.md, "Weight
  // sync"), whether or not all of it lies on the critical path.
  WeightSyncParts sync_parts;

  // GPU-seconds per step over all GPUs of the run, by what they do; the four
  // add up to time_s * gpus.
  double gpu_s_rollout = 0;
  double gpu_s_train = 0;
  double gpu_s_other = 0;
  double gpu_s_idle = 0;

  // Wall time the rollout side spends generating in one step and over how many
  // GPUs (for tokens/s of rollout time). Async: the rollout workers' busy time.
  double rollout_busy_s = 0;
  int rollout_gpus = 0;
  double train_busy_s = 0;  // trainer's busy time (update + its passes)
  // hardware.spot.rollout (docs/model.md, "Spot GPUs"): of rollout_busy_s, the
  // seconds the pool spends redoing work lost to preemptions, and the share of
  // the pool's capacity lost (u).
  double spot_lost_s = 0;
  double spot_lost_share = 0;
  // pipeline.tail (docs/model.md, "Tail handling"; rlcost/tail.h TailStep):
  // per step, averaged over the run's steps.
  bool tail_active = false;
  double tail_rollout_saved_s = 0;    // generation time saved against waiting for the longest response
  double tail_cut_tokens = 0;         // response length at which a (short) round stops
  double tail_wasted_tokens = 0;      // decoded tokens never trained on
  double tail_dropped_share = 0;      // of launched responses, dropped
  double tail_deferred_share = 0;     // of trained prompts, trained in a later long round
  double tail_long_round_share = 0;   // of steps, long rounds
  double tail_carried_share = 0;      // of trained responses, begun under older weights
  double tail_mean_staleness = 0;     // policy versions behind, mean over trained responses
  double tail_trained_mean_tokens = 0;  // mean response length trained on
  double tail_launched = 0;           // responses started per step

  // Model FLOPs per step, all GPUs, by phase (for MFU).
  double rollout_flops = 0;
  double train_flops = 0;
  double other_flops = 0;

  // Work per step.
  double rollouts_generated = 0;  // trajectories, dynamic-sampling extra included
  double rollouts_trained = 0;
  double generated_tokens = 0;    // decoded tokens, all turns
  double prefill_tokens = 0;      // prompt + tool outputs prefetched into the KV cache
  double trained_tokens = 0;      // prompt + response (+ tool output) tokens in the update
  double sandbox_cpu_s = 0;       // CPU-seconds of sandbox time
  // Sandboxes in use (each held from a trajectory's start-up to its
  // verification): the most at once, and the mean over the step's wall time.
  double sandbox_peak_in_use = 0;
  double sandbox_mean_in_use = 0;

  // A model verifier (environment.reward.verifier: llm-judge, reward-model):
  // GPU-seconds per step its engines work, the GPUs it has of its own (0 when
  // it shares the policy's; those are added to the run's GPUs and cost) and its
  // calls per step. gpu_s_reward is part of gpu_s_other.
  double gpu_s_reward = 0;
  int verifier_gpus = 0;
  double verifier_shared_s = 0;  // wall time judges hold the policy's GPUs (all of the run's are billed)
  double verifier_calls = 0;

  // Decode batch: mean concurrent sequences per engine while generating.
  double mean_batch = 0;
  double kv_capacity_sequences = 0;

  std::vector<std::string> notes;  // e.g. "rollout-bound: the trainer waits 12 s per step"
};

}  // namespace rlcost
