// A scenario: one RL post-training run (SCENARIO.md, format version 1), parsed,
// validated and with every default filled in. Catalog ids are resolved: the
// scenario carries the GpuSpec and ModelSpec it runs with.
//
//   rlcost::Catalog cat = rlcost::Catalog::Builtin().value();
//   rlcost::Result<rlcost::Scenario> s = rlcost::LoadScenarioFile("run.yaml", cat);
//   if (!s) { std::cerr << s.error().ToString(); return 2; }   // every problem, one per line
//   s->algorithm.group_size;
//
// Overrides (`--set key=value`) are applied to the document before validation.
#pragma once

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/distribution.h"
#include "rlcost/error.h"
#include "rlcost/lever_spec.h"
#include "rlcost/types.h"

namespace rlcost {

struct HardwareSpec {
  GpuSpec gpu;                    // resolved from `hardware.gpu`
  int gpus = 8;
  int gpus_per_node = 8;
  // `hardware.nvlink_domain`: GPUs joined by NVLink (the gpu's
  // intra_node_gb_per_s link). 0 = not stated: NvlinkDomainGpus() derives it.
  int nvlink_domain = 0;
  double price_per_gpu_hour = 0;  // default: gpu.price_per_hour
  SpotSpec spot;                  // `hardware.spot` (rlcost/lever_spec.h); none by default
};

// GPUs that share one NVLink domain: hardware.nvlink_domain when stated, else
// the larger of a node and the catalog GPU's nvlink_domain. A node's GPUs
// always share NVLink (HGX: 8); a rack-scale system's domain spans its trays
// (GB200 NVL72: 72 GPUs, 4 per compute tray). docs/model.md, "NVLink domain".
inline int NvlinkDomainGpus(const HardwareSpec& h) {
  if (h.nvlink_domain > 0) return h.nvlink_domain;
  return std::max({h.gpus_per_node, h.gpu.nvlink_domain, 1});
}

// vLLM (V1) captures decode CUDA graphs for batches up to
// max_cudagraph_capture_size = min(2 x max_num_seqs, 512) unless told
// otherwise, and runs a larger batch without a graph: vllm-project/vllm
// vllm/config/vllm.py VllmConfig._set_cudagraph_sizes @ 000fc94b (the
// dispatcher picks CUDAGraphMode.NONE above that size). Every vLLM default of
// max_num_seqs (256 or 1024 by GPU, vllm/engine/arg_utils.py
// get_batch_defaults @ 99d7eb5d) makes that 512. docs/model.md, "CUDA-graph
// coverage".
inline constexpr int kVllmCudaGraphMaxBatch = 512;

// Which of the loader's rules chose placement.train_backend for a file that
// does not state it (docs/model.md, "Which trainer backend"), kept so that the
// estimate says why without deriving it again. kNone: stated, or a Scenario
// built in code (read literally).
enum class TrainBackendRule {
  kNone,
  kRoutedExperts,   // megatron: the model has routed experts (checked first)
  kMegatronLayout,  // megatron: the placement states train_pp or train_ep
  kFsdpDefault,     // fsdp: neither; the frameworks' default trainer
};

struct PlacementSpec {
  PlacementMode mode = PlacementMode::kColocated;
  std::optional<ResplitSpec> resplit;  // `placement.resplit` (rlcost/lever_spec.h); none by default
  int rollout_gpus = 0;  // colocated: = hardware.gpus
  int train_gpus = 0;    // colocated: = hardware.gpus
  int rollout_tp = 1;
  // vllm: CPU scheduling between decode iterations is exposed (the catalog's
  // decode_iter_overhead_s); vllm-async, sglang, trtllm overlap it with GPU work.
  InferenceEngine engine = InferenceEngine::kVllm;
  // Data-parallel attention inside each engine (SGLang --enable-dp-attention,
  // vLLM DP + EP): the KV cache divides by rollout_tp for every model.
  bool dp_attention = false;
  // Share of each rollout GPU's memory the inference engine may fill (vLLM
  // gpu_memory_utilization, SGLang mem_fraction_static): its weights and KV
  // cache; colocated, the training state stays resident only in the rest.
  // Not set: the engine takes what the training state leaves, less a 10%
  // reserve (vLLM's default 0.9 on a GPU of its own).
  std::optional<double> gpu_memory_utilization;
  // Megatron layout of the trainer (docs/model.md, "MoE and the training
  // layout"). All 1 = today's ZeRO-3 data-parallel trainer. train_ep shards the
  // routed experts (expert parallel); train_tp, train_cp and train_pp shard
  // every layer (tensor / context / pipeline parallel); the data-parallel size
  // is train_gpus / (train_tp * train_cp * train_pp).
  int train_tp = 1;
  int train_cp = 1;
  int train_pp = 1;
  int train_ep = 1;
  // Tokens per micro-batch (sequences packed, as NeMo RL's
  // sequence_packing.train_mb_tokens = max_total_sequence_length x
  // train_micro_batch_size); sets the micro-batch count (the pipeline bubble)
  // and the tokens per expert of the expert GEMMs. 0 = not stated: one
  // sequence of mean length per micro-batch for the bubble, and the expert
  // GEMMs' M is not tile-quantised.
  int train_micro_batch_tokens = 0;
  // Sequences per micro-batch of the update on each data-parallel rank
  // (veRL actor.ppo_micro_batch_size_per_gpu, NeMo RL policy.
  // train_micro_batch_size without sequence packing), packed to their own
  // lengths (veRL use_remove_padding, Megatron THD): the micro-batch holds
  // this many mean-length sequences. Used when train_micro_batch_tokens is
  // not stated. 0 = not stated. docs/model.md, "Micro-batches of each pass".
  int train_micro_batch_seqs = 0;
  // The forward-only passes' own micro-batches (old log-probs, reference):
  // tokens (veRL rollout.log_prob_max_token_len_per_gpu with
  // log_prob_use_dynamic_bsz, NeMo RL sequence_packing.logprob_mb_tokens) or
  // sequences (veRL rollout.log_prob_micro_batch_size_per_gpu, NeMo RL
  // policy.logprob_batch_size). 0 = not stated: the update's micro-batch.
  int logprob_micro_batch_tokens = 0;
  int logprob_micro_batch_seqs = 0;
  // pipelined (default): tensors packed into two alternating buffers, the
  // trainer gathers the next bucket while the last one is broadcast (NeMo RL's
  // packed_broadcast_producer, veRL's NCCL checkpoint engine); bucketed: one
  // collective per bucket, gather and broadcast one after the other (veRL
  // fully-async's checkpoint engine as its ablation measured it); per-tensor:
  // one collective per tensor.
  WeightSyncMethod weight_sync = WeightSyncMethod::kPipelined;
  // Colocated: how the vLLM engine sleeps while the trainer owns the GPU.
  // 1 (vLLM's default, LLM.sleep(level=1), NeMo RL's): its weights are copied
  // to host memory and back on waking, every step; 2 (veRL with vLLM >=
  // 0.8.5): discarded, the sync rewrites them. docs/model.md, "Engine sleep".
  int engine_sleep_level = 1;
  // Training state moved to host memory between phases (veRL
  // actor.fsdp_config.param_offload / optimizer_offload), beyond what PlanMemory
  // offloads because it does not fit. docs/model.md, "Offload".
  struct Offload {
    bool params = false;     // fp32 parameters, to the GPU for each pass and back
    bool optimizer = false;  // Adam moments, to the GPU for the update and back
  } offload;
  // Colocated: the trainer's optimizer states leave the GPU for generation
  // every step. pageable (default, NeMo RL r0.6.0: offload_before_refit /
  // prepare_for_training move them tensor by tensor into pageable host memory
  // and back); pinned (the same moves at the PCIe rate); none (they stay on the
  // GPU, veRL's default optimizer_offload: false). Ignored when disaggregated,
  // when placement.offload.optimizer prices the move, or when the optimizer
  // lives in host memory anyway. docs/model.md, "Refit offload".
  RefitOffload refit_offload = RefitOffload::kPageable;
  // The update recomputes each layer's forward in its backward pass instead of
  // keeping the activations (veRL actor_rollout_ref.model.
  // enable_gradient_checkpointing, Megatron recompute_granularity: full,
  // NeMo RL activation_checkpointing): one more forward pass per update,
  // 8N + 4A instead of 6N + 3A FLOPs per token. docs/model.md, "Gradient
  // checkpointing".
  bool gradient_checkpointing = false;
  // The trainer's log-prob, reference, critic and update passes run on every
  // sequence padded to max prompt + max response (veRL with
  // use_remove_padding: false, its default up to v0.6) instead of the
  // trajectories' own tokens (packed, the default). docs/model.md, "Training
  // on padded sequences".
  TrainPadding train_padding = TrainPadding::kPacked;
  // megatron: data-parallel traffic is inside the measured train MFU. fsdp
  // (PyTorch FSDP/FSDP2: NeMo RL's DTensor policy, veRL's FSDP actor): every
  // micro-batch all-gathers the parameters (forward and backward) and
  // reduce-scatters fp32 gradients over the sharding group; a pass takes at
  // least that traffic's time. docs/model.md, "FSDP traffic per micro-batch".
  // A file that does not state it gets the loader's resolution
  // (stated.train_backend false, the rule it took in
  // stated.train_backend_rule): megatron where the placement states
  // train_pp or train_ep (dimensions only Megatron has) or the model has
  // routed experts (FSDP has no expert parallel), fsdp otherwise, the
  // frameworks' own default (docs/model.md, "Which trainer backend"). A
  // Scenario built in code is read literally: megatron.
  TrainBackend train_backend = TrainBackend::kMegatron;
  // balanced (default, rlcost's behaviour before the field): the pipeline
  // stages take equal work. even: Megatron-Core's default split, num_layers /
  // train_pp layers a stage, the output layer (vocab x hidden) on the last
  // stage besides, which sets the pipeline's pace (veRL's Megatron actor
  // sets no first/last-stage layer counts). docs/model.md, "Pipeline stages
  // split evenly".
  PipelineSplit train_pp_split = PipelineSplit::kBalanced;
  // The training state is sharded over groups of this many GPUs and
  // replicated across the groups (FSDP2 hybrid sharding: veRL
  // actor.fsdp_config.fsdp_size); 0 = over all the training GPUs (ZeRO-3).
  // Each GPU holds 1/train_shard_gpus of it, and moves that much when it is
  // offloaded. docs/model.md, "Sharding groups".
  int train_shard_gpus = 0;
  // Which layout choices the scenario states (its file or a --set); the
  // planner (src/plan) chooses the rest. A Scenario built in code states
  // none, and is read literally unless a caller plans it.
  struct Stated {
    bool mode = false;
    bool split = false;         // rollout_gpus or train_gpus
    bool rollout_tp = false;
    bool dp_attention = false;
    bool train_layout = false;  // any of train_tp, train_cp, train_pp, train_ep
    bool train_backend = false;
    // Not stated: the loader's rule that chose train_backend, the reason the
    // estimate's assumption gives.
    TrainBackendRule train_backend_rule = TrainBackendRule::kNone;
  } stated;
};

struct SandboxSpec {
  double cpus_per_rollout = 1;
  double startup_s = 0;
  double price_per_cpu_hour = 0.04;
  int max_concurrent = 512;
};

struct RewardSpec {
  RewardType type = RewardType::kOutcome;
  int credited_steps = 1;        // process rewards: steps with their own reward
  Distribution verify_s;         // wall time to compute the reward, per trajectory
  // Verifier errors (`environment.reward.noise`; docs/model.md, "Noisy
  // rewards"): P(reward 1 | wrong rollout) and P(reward 0 | right rollout).
  // Both 0 = a perfect verifier (the default); each in [0, 1), their sum < 1.
  struct Noise {
    double false_positive = 0;
    double false_negative = 0;
  } noise;
  // `environment.reward.verifier` (docs/model.md, "Verifiers"). rule and
  // tests take verify_s (tests: inside the trajectory's sandbox); llm-judge and
  // reward-model run `model` on GPUs: `calls_per_rollout` calls per rollout,
  // each `input_tokens` in (0 = the trajectory's mean length) and
  // `output_tokens` out (a reward model: 0, one scoring pass), on the policy's
  // GPUs between phases (`gpus: shared`, 0 here) or on `gpus` GPUs of its own.
  // `ensemble` (Weaver-style, docs/model.md "Ensembles of verifiers"):
  // `members`, each a verifier of another kind with its own `noise`, whose
  // pass/fail votes are combined by `aggregation`; the ensemble's error rates
  // follow from its members' (conditional independence) and fill `noise` above.
  enum class Aggregation { kWeighted, kMajority };
  struct Verifier {
    VerifierKind kind = VerifierKind::kRule;
    std::string model_id;
    ModelSpec model;
    double input_tokens = 0;
    double output_tokens = 0;
    double calls_per_rollout = 1;
    int gpus = 0;  // 0 = shared
    Noise noise;   // an ensemble member's error rates
    std::vector<Verifier> members;  // ensemble only
    Aggregation aggregation = Aggregation::kWeighted;
  } verifier;
  // `environment.reward.rubric` (docs/model.md, "Rubrics"): the reward is
  // the weighted sum of criteria; each `llm-judge` criterion is one call of the
  // verifier's judge model per rollout (its own verdict length), a `rule`
  // criterion runs on the CPU. Weights may be negative (a penalty) but sum > 0.
  struct RubricItem {
    std::string name;
    double weight = 1;
    bool judged = true;        // kind llm-judge (true) or rule
    double output_tokens = 0;  // judged: verdict tokens; 0 = the verifier's output_tokens
    // P(the criterion is met) on a rollout, in [0, 1]; not set = the
    // environment's mean pass rate (docs/model.md, "Rubrics": reward bits).
    std::optional<double> pass_rate;
  };
  std::vector<RubricItem> rubric;
};

// The error rates of an ensemble's combined vote (docs/model.md, "Ensembles of
// verifiers"): members' votes conditionally independent given the true outcome;
// `weighted` rewards a rollout when P(right | votes) > 1/2 under that model with
// prior P(right) = `prior` (Weaver's label model with the accuracies known),
// `majority` when more than half the members pass it.
RewardSpec::Noise EnsembleNoise(const RewardSpec::Verifier& ensemble, double prior);

// `environment.failures`: a share of trajectories whose sandbox or
// environment fails (crash, timeout). Their tokens and sandbox time are spent
// and wasted; they are retried until the batch is full, or dropped (the step
// trains on fewer). docs/model.md, "Environment failures".
struct EnvFailureSpec {
  double rate = 0;    // in [0, 1)
  bool retry = true;  // handling: retry | drop
};

// The base model's per-task pass-rate distribution.
struct PassRateSpec {
  enum class Kind { kBeta, kHistogram, kTasks };
  Kind kind = Kind::kBeta;
  double a = 0.7, b = 1.3;       // Beta(a, b); default mean 0.35, concentration 2
  std::vector<std::pair<double, double>> histogram;  // (pass rate, probability), sums to 1
  std::vector<double> task_pass_rates;  // kTasks: observed per-task pass rates (k/n)
  int samples_per_task = 0;      // kTasks: n of the pilot; 0 = infer from the rates' granularity
  std::string file;              // kTasks: resolved path of the CSV
  double mean() const;           // mean pass rate of the distribution as given
};

// `environment.response_tokens_schedule`: responses grow (or shrink) during RL.
// The mean response length of every step; the shape of
// `environment.response_tokens` carries over (same dist and cv, same min/max
// clip: max is the generation limit, a setting of the run, not of the policy).
// docs/model.md, "Workload over time".
struct LengthSchedule {
  std::vector<double> mean_per_step;   // steps 1..algorithm.steps, in order
  std::string source;                  // "linear 800 -> 3000 tokens" or the CSV's path
  DistKind kind = DistKind::kFixed;    // shape of environment.response_tokens
  double cv = 0;
  std::optional<double> min, max;
  double clipped = 0;                  // response_tokens.clipped: share stopped at max
  // The response-length distribution of a step whose mean is `mean`.
  tl::expected<Distribution, std::string> At(double mean) const;
  double RunMean() const;              // mean over the steps
};

struct EnvironmentSpec {
  std::string name = "env";
  Distribution turns = Distribution::Fixed(1);
  Distribution prompt_tokens = Distribution::Fixed(300);
  Distribution response_tokens = Distribution::Fixed(1000);  // per turn
  Distribution tool_output_tokens = Distribution::Fixed(0);  // per turn
  Distribution tool_latency_s = Distribution::Fixed(0);      // per turn
  std::optional<SandboxSpec> sandbox;
  RewardSpec reward;
  EnvFailureSpec failures;  // rate 0 = none (the default)
  PassRateSpec pass_rate;
  // When set, response_tokens holds the run-mean distribution (what the
  // simulator and per-step tools see) and the analytic run integrates over it.
  std::optional<LengthSchedule> response_tokens_schedule;
  // Bounds the framework puts on a trajectory (docs/model.md, "Trajectory
  // bounds"): a token budget over everything after the first prompt (every
  // response and tool output; veRL's rollout.response_length in its agent
  // loop), and a timeout per tool call. 0: none.
  int max_trajectory_tokens = 0;
  double tool_timeout_s = 0;
  // Tool calls in flight at once over the whole run (an environment's worker
  // pool; 0: no limit). Sandboxes apart: environment.sandbox.max_concurrent.
  int tool_concurrency = 0;
  // With a bound set, turns, response_tokens, tool_output_tokens and
  // tool_latency_s above hold what the run generates under the bounds
  // (empirical, drawn when the scenario is read), so every analytic figure
  // sees the bounded run; `unbounded` keeps what the task would generate
  // without them, which the simulator draws from and bounds exactly.
  struct Unbounded {
    Distribution turns, response_tokens, tool_output_tokens, tool_latency_s;
  };
  std::optional<Unbounded> unbounded;
};

struct LoraSpec {
  int rank = 32;
  int tenants = 1;
};

struct AlgorithmSpec {
  Algorithm name = Algorithm::kGrpo;
  int group_size = 16;
  int prompts_per_step = 128;
  int steps = 500;
  bool dynamic_sampling = false;
  // Dynamic sampling generates in rounds, as veRL's DAPO trainer does
  // (recipe/dapo/dapo_ray_trainer.py): prompts per generation round
  // (veRL data.gen_batch_size; 0 = prompts_per_step, veRL's default) and the
  // most rounds per step (algorithm.filter_groups.max_num_gen_batches;
  // 0 = no limit, veRL's default).
  int gen_batch_prompts = 0;
  int max_gen_batches = 0;
  bool reference_model = true;
  bool recompute_logprobs = true;
  // Optimizer steps per RL step: the update splits the step's samples into
  // this many mini-batches and steps the optimizer after each (veRL
  // data.train_batch_size / actor.ppo_mini_batch_size; NeMo RL samples per
  // step / policy.train_global_batch_size). 1 = one optimizer step over the
  // whole batch. docs/model.md, "Optimizer steps per RL step".
  int minibatches = 1;
  // Passes of the update over the step's batch, each through all the
  // mini-batches (veRL actor.ppo_epochs, default 1): the update's FLOPs and
  // optimizer steps times this.
  int ppo_epochs = 1;
  // A value model of the policy's size, trained beside it (PPO with GAE).
  // Default: true for ppo, false otherwise; `critic: false` is PPO with a
  // group-mean baseline instead (AReaL/ReaL-HF `disable_value: true`).
  bool critic = false;
  std::optional<LoraSpec> lora;  // absent = full fine-tuning
};

struct PrecisionSpec {
  Precision rollout = Precision::kBf16;
  Precision kv_cache = Precision::kBf16;
  Precision train = Precision::kBf16;
};

struct PipelineSpec {
  PipelineMode mode = PipelineMode::kSync;
  double max_staleness = 1;
  bool partial_rollouts = false;
  Dispatch dispatch = Dispatch::kAsync;
  TailSpec tail;  // `pipeline.tail` (rlcost/lever_spec.h); none by default
};

// The learning curve of "The Art of Scaling Reinforcement Learning Compute for
// LLMs" (2025): R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B), with C counted in
// useful samples trained on (hardware-independent). R0 is the base model's mean
// pass rate. Defaults are ILLUSTRATIVE, not measured (docs/model.md).
struct LearningCurveSpec {
  double asymptote = 0.8;                  // A
  double exponent = 1.0;                   // B
  double midpoint_useful_samples = 2.0e5;  // C_mid
  // Useful samples per training step in the run the curve was measured on
  // (`goal.curve.batch_useful_samples`; a preset's own batch): what the
  // noise-scale view of the steps needs (docs/model.md, sec. 7c).
  std::optional<double> batch_useful_samples;
  // A published fit chosen by name (`goal.curve: NAME`, catalog/curves.yaml);
  // empty when the curve is given as numbers. `preset_label` names the run it
  // was measured on (model, task, batch, compute unit, source); `borrowed`:
  // that model is not the scenario's.
  std::string preset;
  std::string preset_label;
  bool borrowed = false;
};

struct GoalSpec {
  std::optional<double> target_pass_rate;
  std::optional<LearningCurveSpec> curve;  // `goal.curve`; defaults apply when a target is set
  // `goal.b_noise`: the gradient noise scale in useful samples (McCandlish et
  // al. 2018, arXiv:1812.06162), B_noise; with it the steps to the target
  // follow S = S_min (1 + B_noise / B) as well as the useful-sample count
  // (docs/model.md, sec. 7c). Estimate it with `rlcost noise-scale`.
  std::optional<double> b_noise;
};

// `run`: costs of the run beyond its steps (docs/model.md, "Run-level costs").
// Per-node storage bandwidth default: Llama 3's Tectonic file system sustains
// 2 TB/s for its 16,384-GPU (2,048-node) job ("The Llama 3 Herd of Models",
// 2024, sec. 3.3.1): 2e12 / 2048 = 0.977 GB/s per node.
inline constexpr double kStoragePerNodeGbPerS = 2000.0 / 2048.0;
struct StartupSpec {
  bool enabled = true;
  double storage_read_gb_per_s = kStoragePerNodeGbPerS;  // per node
  // Inference-engine warm-up (CUDA-graph capture): vLLM logs "Graph capturing
  // finished in 14 secs" for Llama-3.2-1B (vllm-project/vllm PR #11349).
  double warmup_s = 14.0;
};
struct CheckpointSpec {
  int every_steps = 0;                                    // required when the block is given
  double storage_write_gb_per_s = kStoragePerNodeGbPerS;  // per node
  bool blocking = true;         // training waits for the write (veRL, NeMo RL default)
  bool optimizer_state = true;  // Adam moments + fp32 master weights saved beside the weights
};
struct EvaluationSpec {
  int every_steps = 0;          // required when the block is given
  int prompts = 0;              // required
  int samples_per_prompt = 1;
  Distribution prompt_tokens;   // default: environment.prompt_tokens
  Distribution response_tokens; // default: environment.response_tokens (run mean)
};
// Llama 3 405B pre-training: 419 unexpected interruptions in 54 days on 16,384
// GPUs (sec. 3.3.4): 419 / (54 * 24 * 16384) per GPU-hour.
inline constexpr double kLlama3InterruptionsPerGpuHour = 419.0 / (54.0 * 24.0 * 16384.0);
struct FailureSpec {
  double interruptions_per_gpu_hour = kLlama3InterruptionsPerGpuHour;
  // A hung collective is noticed when the NCCL watchdog times out: PyTorch's
  // default ProcessGroupNCCL timeout is 10 min (pytorch/pytorch PR #110947).
  double detect_s = 600.0;
};
struct RunSpec {
  RunTuning tuning = RunTuning::kTypical;    // `run.tuning` (rlcost/types.h)
  StartupSpec startup;                       // on by default
  std::optional<CheckpointSpec> checkpoint;  // off by default (veRL trainer.save_freq: -1)
  std::optional<EvaluationSpec> evaluation;  // off by default
  std::optional<FailureSpec> failures;       // off by default
};

// `framework: NAME[@VERSION]`: a default one framework file under
// catalog/frameworks/ supplied because the scenario left the field out
// (an explicit field always wins). docs/model.md, "Frameworks".
struct FrameworkDefault {
  std::string path;    // scenario field, dotted ("engine.enforce_eager")
  std::string value;   // as YAML text ("true")
  std::string source;  // the framework's config file and commit it was read from
};

struct ExpectedMetric {
  double value = 0;
  double tolerance = 0.25;  // |pred/value - 1| <= tolerance
};

struct ExpectSpec {
  std::string source;
  std::map<std::string, ExpectedMetric> metrics;
  std::string relative_scenario;  // resolved path; empty = none
  std::map<std::string, ExpectedMetric> relative_metrics;
};

struct Scenario {
  std::string name = "scenario";
  std::string model_id;     // catalog id or inline name
  ModelSpec model;
  HardwareSpec hardware;
  PlacementSpec placement;
  EnvironmentSpec environment;
  AlgorithmSpec algorithm;
  PrecisionSpec precision;
  PipelineSpec pipeline;
  GoalSpec goal;
  RunSpec run;
  EngineSpec engine;  // rollout engine settings (rlcost/lever_spec.h)
  EnergySpec energy;  // the grid the run draws from (rlcost/lever_spec.h)
  // "" = none named: no framework's defaults, rlcost's own stand.
  std::string framework;          // "verl@0.4" as resolved: name@version
  std::vector<FrameworkDefault> framework_defaults;  // what it supplied, in file order
  std::optional<ExpectSpec> expect;
  std::string source_path;  // file it was loaded from ("" = text / built-in)
};

// The largest decode batch the rollout engine runs from a CUDA graph
// (engine.cuda_graph_max_batch): the scenario's value, else the engine's
// default: vLLM kVllmCudaGraphMaxBatch; SGLang's and TensorRT-LLM's defaults
// depend on the GPU, tp and their launch settings and are not modelled (0:
// every batch graphed). Eager engines (engine.enforce_eager) pay the launches
// at every batch anyway. docs/model.md, "CUDA-graph coverage".
inline int CudaGraphMaxBatch(const Scenario& s) {
  if (s.engine.cuda_graph_max_batch >= 0) return s.engine.cuda_graph_max_batch;
  const InferenceEngine e = s.placement.engine;
  return (e == InferenceEngine::kVllm || e == InferenceEngine::kVllmAsync) ? kVllmCudaGraphMaxBatch : 0;
}

// vLLM's default max_num_seqs for the LLM class (the offline engine veRL and
// NeMo RL build): 1024 on a GPU of at least 70 GiB whose name does not contain
// "a100", 256 on every other GPU (vllm-project/vllm vllm/engine/arg_utils.py
// EngineArgs.get_batch_defaults @ 99d7eb5d: "For GPUs like H100 and MI300x,
// use larger default values"; the A100 is kept at 256 because the larger
// budget cut its throughput, vLLM PR #17885). Releases before that branch
// (vLLM <= 0.9.1, _set_default_args_v1) used 256 on every GPU; a framework
// release that pins such a vLLM supplies 256 (catalog/frameworks).
inline constexpr int kVllmMaxNumSeqsLarge = 1024;
inline constexpr int kVllmMaxNumSeqsSmall = 256;
inline int VllmDefaultMaxNumSeqs(const GpuSpec& g) {
  auto names_a100 = [](std::string_view text) {
    for (size_t i = 0; i + 4 <= text.size(); ++i) {
      if ((text[i] == 'a' || text[i] == 'A') && text.substr(i + 1, 3) == "100") return true;
    }
    return false;
  };
  // torch reports total_memory in bytes; the catalog's memory_gb is 1e9 bytes.
  const double gib = g.memory_gb * 1e9 / (1024.0 * 1024.0 * 1024.0);
  const bool a100 = names_a100(g.id) || names_a100(g.name);
  return gib >= 70.0 && !a100 ? kVllmMaxNumSeqsLarge : kVllmMaxNumSeqsSmall;
}

// The most sequences one rollout engine runs at once (engine.max_num_seqs):
// the scenario's value (a framework's default included), else vLLM's own
// default for the GPU (VllmDefaultMaxNumSeqs); SGLang and TensorRT-LLM size
// theirs from memory and launch settings: not modelled (0: no cap beyond the
// KV cache). docs/model.md, "The engine's cap on running sequences".
inline int MaxNumSeqs(const Scenario& s) {
  if (s.engine.max_num_seqs >= 0) return s.engine.max_num_seqs;
  const InferenceEngine e = s.placement.engine;
  return (e == InferenceEngine::kVllm || e == InferenceEngine::kVllmAsync) ? VllmDefaultMaxNumSeqs(s.hardware.gpu) : 0;
}

// One `--set key=value` override: a dotted path into the document and a YAML
// scalar or flow value ("qwen3-32b", "0.45", "{mean: 500, cv: 1}").
struct Override {
  std::string path;
  std::string value;
};
Result<Override> ParseOverride(std::string_view key_equals_value);

// `base_dir` that forbids file references: where the text comes from someone
// who may not make rlcost read files (an HTTP request), a field naming a file
// is reported as a problem instead of read.
inline constexpr std::string_view kNoFileAccess = "<no file access>";
// Parses YAML (or JSON, a subset of YAML) text. `origin` names it in messages and
// `base_dir` resolves relative file references (pass-rate CSVs, relative_to).
Result<Scenario> LoadScenarioText(std::string_view text, const Catalog& catalog,
                                  const std::string& origin = "<text>",
                                  const std::string& base_dir = ".",
                                  const std::vector<Override>& overrides = {});
Result<Scenario> LoadScenarioFile(const std::string& path, const Catalog& catalog,
                                  const std::vector<Override>& overrides = {});
// The built-in default scenario (scenarios/default.yaml, compiled in).
Result<Scenario> DefaultScenario(const Catalog& catalog, const std::vector<Override>& overrides = {});

}  // namespace rlcost
