// perf: the time of one unit of work on one GPU or one tensor-parallel group,
// by the roofline. Pure functions: no state, no randomness. Every formula is in
// docs/model.md with its derivation.
//
//   rlcost::perf::EngineConfig e{&model, &gpu, gpu.efficiency, /*tp=*/1,
//                                Precision::kBf16, Precision::kBf16};
//   auto it = rlcost::perf::DecodeIteration(e, /*batch=*/256, /*context_tokens=*/256 * 1500);
//   it.time_s;  // one decode iteration of 256 sequences holding 384k tokens of context
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/scenario.h"
#include "rlcost/timing.h"

namespace rlcost::perf {

// Host <-> GPU copies over PCIe: Gen4 x16 moves ~25 GB/s of pinned memory in
// practice (32 GB/s peak); Gen5 doubles the peak but offload paths rarely
// reach it. One conservative figure for every GPU (offload, checkpoint
// snapshots).
inline constexpr double kHostLinkGbPerS = 25.0;
// Optimizer states copied tensor by tensor into pageable host memory
// (`state[k] = v.to("cpu")`, NeMo RL's move_optimizer): each copy is staged by
// the driver and waits for the last. NVIDIA-NeMo/RL issue #3976, Nsight
// Systems on one H100 (colocated GRPO, Megatron distributed optimizer):
// offload_before_refit took 3.76 s for 4.94 GB in 510 device-to-pageable
// copies (the copies alone 2.75 s, 1.8 GB/s; the same host's 1 GiB pageable
// benchmark 16.1 GB/s, pinned 55 GB/s): 4.94 / 3.76 = 1.31 GB/s per GPU for
// the call. This is the way out, which lands in freshly allocated pageable
// pages. docs/model.md, "Refit offload".
inline constexpr double kPageableCopyGbPerS = 4.94 / 3.76;
// The way back (`v.to("cuda")` in prepare_for_training) reads host pages that
// are already resident: the same host's 1 GiB pageable benchmark in issue
// #3976, 16.1 GB/s (ASSUMED to be the rate of the way back; the issue times
// only the way out). docs/model.md, "Refit offload".
inline constexpr double kPageableBackGbPerS = 16.1;

// A decode iteration run eagerly (engine.enforce_eager: no CUDA graphs) pays a
// host-side launch cost per layer that CUDA graph replay removes.
// vllm-project/vllm-omni issue #7960 (vLLM 0.29, 2 x A800): the Qwen2.5-Omni-7B
// thinker (the Qwen2.5-7B decoder, 28 layers) decodes at a TPOT of ~22-23 ms
// eager and ~13 ms with CUDA graphs, the same command otherwise:
// (22.5 - 13) / 28 = 0.34 ms per layer. docs/model.md, "Eager decoding".
inline constexpr double kEagerLaunchPerLayerS = (22.5e-3 - 13e-3) / 28.0;

// An inference engine: one model replica over `tp` GPUs.
struct EngineConfig {
  const ModelSpec* model = nullptr;
  const GpuSpec* gpu = nullptr;
  Efficiency eff;
  int tp = 1;
  Precision weights = Precision::kBf16;
  Precision kv = Precision::kBf16;
  int lora_rank = 0;     // 0 = no adapters
  int lora_tenants = 0;  // distinct adapters served in the same batch
  // Data-parallel attention (SGLang --enable-dp-attention, vLLM
  // data_parallel_size with expert parallelism): each rank runs attention for
  // its own share of the sequences and holds their whole KV cache, so the
  // cache divides by tp even when the model's KV heads (or MLA's one latent)
  // cannot be split (placement.dp_attention).
  bool dp_attention = false;
  // engine.speculative: the engine drafts tokens and verifies them in one
  // pass (docs/model.md, "Speculative decoding in rollout"); DecodeArmsFor then
  // prices a generated token, not a verification step.
  std::optional<SpeculativeSpec> speculative;
  // No CUDA graphs (engine.enforce_eager): kEagerLaunchPerLayerS per layer per
  // decode iteration.
  bool eager = false;
  // The largest batch decoded from a CUDA graph (CudaGraphMaxBatch of the
  // scenario); a larger batch pays the eager launches. 0 = every batch graphed.
  double cuda_graph_max_batch = 0;
  // The most sequences running at once (MaxNumSeqs of the scenario: vLLM
  // max_num_seqs); 0 = only the KV cache bounds the batch.
  double max_num_seqs = 0;
  // GPUs joined by NVLink (NvlinkDomainGpus of the scenario's hardware); 0 =
  // the catalog GPU's nvlink_domain.
  int nvlink_domain = 0;
};

// The scenario's efficiency as its rollout engine runs: the GPU's (catalog,
// inline or calibrated) with the inference engine's own default derived here,
// where it is used, not written into the GPU at parse time, so that a lever
// that swaps the GPU keeps the engine (docs/model.md, "Inference engines"): an
// overlap scheduler (vllm-async, sglang, trtllm) hides the per-iteration CPU
// work the catalog's decode_iter_overhead_s measures for plain vLLM, unless
// that figure was calibrated or set on this scenario (EngineDefaultKept).
Efficiency RolloutEfficiency(const Scenario& s);
// The MFU the update runs at: train_mfu (train_mfu_moe for an MoE model),
// times typical_update_share unless `run.tuning: tuned` (docs/model.md, "Named
// fits"). Forward-only passes keep logprob_mfu, which the fit leaves alone.
double UpdateMfu(const Scenario& s);
// The refit offload's way out into fresh pageable host memory, GB/s per GPU:
// 1 / efficiency.pageable_copy_s_per_gb (docs/model.md, "Named fits").
double PageableCopyGbPerS(const Scenario& s);
// True when gpu.sources says decode_iter_overhead_s was calibrated or set,
// so the engine's default does not replace it.
bool EngineDefaultKept(const GpuSpec& g);
// The rollout engine of a scenario, built in one place for the closed form
// and the simulator alike.
EngineConfig RolloutEngine(const Scenario& s);
// TensorRT-LLM's default capacity scheduler (GUARANTEED_NO_EVICT,
// cpp/tensorrt_llm/batch_manager/capacityScheduler.cpp @ cf6abc45) admits a
// request only when the blocks it needs to run to completion — its context
// plus max_new_tokens — fit beside those still reserved by the requests in
// flight, and never preempts. docs/model.md, "TensorRT-LLM's no-evict
// admission".
// Tokens one request reserves: the mean trajectory with its last response at
// the response's declared maximum, M - E[R] + R_max (single turn: P + R_max).
// 0 when the response has no finite maximum (the reservation is unknown).
double NoEvictReserveTokens(const Scenario& s);
// Requests whose reservations fit in `kv_tokens` at once:
// max(1, floor(kv_tokens / reserve_tokens)); 0 (no cap) when either is <= 0.
double NoEvictSeats(double kv_tokens, double reserve_tokens);
// NoEvictSeats of the scenario's engine (PlanMemory's kv_tokens_per_engine)
// when placement.engine is trtllm; 0 for every other engine, or when the
// reservation is unknown or the memory plan fails.
double TrtllmNoEvictSeats(const Scenario& s);

// Cost of one unit of work. flops and bytes are per GPU of the engine.
struct Work {
  double time_s = 0;
  double flops = 0;        // model FLOPs (for MFU), per GPU
  double bytes = 0;        // HBM bytes moved, per GPU
  bool compute_bound = false;
};

// --- Sizes ---------------------------------------------------------------
// KV cache per token of context. GQA: 2 * layers * kv_heads * head_dim * bytes(kv);
// MLA: layers * (kv_lora_rank + rope_head_dim) * bytes(kv).
double KvBytesPerToken(const ModelSpec& m, Precision kv);
// Ways one engine's KV cache is split over its tp GPUs: each GPU holds
// 1/KvShards of it and reads 1/KvShards of it per iteration. GQA: the KV heads
// split over the ranks, ranks beyond kv_heads hold copies: min(tp, kv_heads).
// MLA: one latent per token that every rank needs: 1. Data-parallel attention:
// tp (each rank holds whole caches of its own sequences).
double KvShards(const ModelSpec& m, int tp, bool dp_attention);
// Attention FLOPs per new token per token of context, forward.
// Decode (absorbed MLA: scores and values over the cached latent):
//   MLA 2 * L * H * (2 * kv_lora_rank + rope), GQA 4 * L * H * d.
double DecodeAttentionFlopsPerContextToken(const ModelSpec& m);
// Prefill and training (per-head MLA: keys head_dim + rope wide, values
// v_head_dim wide): MLA 2 * L * H * (d + rope + d_v), GQA 4 * L * H * d.
double AttentionFlopsPerContextToken(const ModelSpec& m);
// Mean tokens of one trajectory at its end: prompt + turns x response +
// (turns - 1) x tool output.
double MeanTrajectoryTokens(const Scenario& s);
// Parameters the update trains: the whole model, or the LoRA adapters of
// every tenant.
double TrainableParams(const Scenario& s);
// E[s^2] / E[s]^2 of the length s of one trajectory (prompt, responses and
// tool outputs of every turn), from the scenario's distributions taken as
// independent. Causal attention costs grow with s^2, so a batch of trained
// trajectories of mean length m costs as if each were m * this long.
double TrajectoryLengthDispersion(const Scenario& s);
// All weights at a precision, bytes.
double WeightBytes(const ModelSpec& m, Precision p);
// Trainable parameters of a LoRA adapter of rank r on every linear layer.
double LoraParams(const ModelSpec& m, int rank);
// Expected routed experts touched per layer by a batch of `tokens` tokens, each
// choosing k of E uniformly: E * (1 - (1 - k/E)^tokens). Dense models: 0.
double ExpertsTouched(const ModelSpec& m, double tokens);
// Weight bytes read by one forward step over `tokens` tokens (whole model, all
// TP shards): dense part + routed experts in proportion to ExpertsTouched.
double WeightBytesRead(const ModelSpec& m, Precision p, double tokens);
// Model FLOPs for one token at context position `context` (forward only):
// 2 * active_params + attention 4 * layers * heads * head_dim * context.
double ForwardFlopsPerToken(const ModelSpec& m, double context);

// --- Inference -----------------------------------------------------------
// Time of `count` tensor-parallel all-reduces of `bytes` each over the
// engine's tp GPUs: inside one NVLink domain (gpu.nvlink_domain) vLLM's
// custom all-reduce (tp 2, 4, 6, 8, under 8 MiB, at its measured share of
// the link) or NCCL at line rate; beyond it NCCL's ring with per-hop
// latencies from NCCL's tuning model and the network as the slowest link.
double AllReduceTime(const EngineConfig& e, double bytes, double count);
// The same with every message at the link's line rate: never above
// AllReduceTime and affine in `bytes` (where AllReduceTime steps down at the
// custom kernel's 8 MiB limit), for lower bounds.
double AllReduceLineRateTime(const EngineConfig& e, double bytes, double count);
// One decode iteration: `batch` running sequences holding `context_tokens`
// tokens of KV in total. Two parts run one after the other, each at its own
// roofline: weights + linear layers max(W/(BW*eff_bw), F_lin/(peak*eff_c)),
// then KV reads + attention max(KV/(BW*eff_bw), F_attn/(peak*eff_c));
// plus tensor-parallel all-reduces and the engine's fixed overhead.
Work DecodeIteration(const EngineConfig& e, double batch, double context_tokens);
// n consecutive iterations with a fixed batch whose context grows by `batch`
// tokens per iteration, starting at `context_tokens`: closed form (the weight
// part does not depend on the context; the attention part's max switches at
// most once because both its arms are linear in context).
Work DecodeIterations(const EngineConfig& e, double batch, double context_tokens, double n);
// The roofline parts of a decode iteration for one engine at one batch size,
// per GPU: the weight part's time (a constant) and the attention part's two
// arms as linear functions a + b * C of the total context C. They do not
// depend on the context, so an event loop that decodes the same batch many
// times computes them once (DecodeArmsFor) and evaluates them cheaply:
// DecodeIterations(DecodeArmsFor(e, batch), batch, c, n) is bit-for-bit
// DecodeIterations(e, batch, c, n).
struct DecodeArms {
  struct Linear {
    double a = 0, b = 0;  // f(C) = a + b * C
    // Sum over i in [i0, i1) of f(c0 + batch * i).
    double Sum(double c0, double batch, double i0, double i1) const {
      if (i1 <= i0) return 0;
      double n = i1 - i0;
      double sum_i = (i0 + i1 - 1.0) * n / 2.0;
      return n * (a + b * c0) + b * batch * sum_i;
    }
  };
  Linear mem_s, compute_s;  // attention part: KV reads, attention FLOPs
  Linear flops, bytes;       // whole iteration
  double weights_s = 0;      // weight part: max(weight bytes, linear FLOPs)
  bool weights_compute_bound = false;
  double fixed_s = 0;  // all-reduces + overhead, per iteration
};
DecodeArms DecodeArmsFor(const EngineConfig& e, double batch);
// For many batch sizes of one engine (a fluid model whose batch changes at
// every event), perf::DecodeArmsKept (src/perf/decode_arms_kept.h) keeps what
// does not depend on the batch and gives DecodeArmsFor's bits.
// Whether a decode iteration of `batch` sequences launches its kernels
// eagerly: e.eager, or a batch above e.cuda_graph_max_batch (> 0).
bool RunsEagerly(const EngineConfig& e, double batch);

// --- Speculative decoding (src/perf/speculative.cc) ----------------------
// The arms of one generated token when the engine speculates: a verification
// pass over k + 1 tokens per sequence (weights read once, linear and
// attention FLOPs x (k + 1), experts touched by batch x (k + 1) tokens) plus k
// draft passes (draft_layers of the target's layers and the output
// projection), all divided by the expected tokens per step
// (1 - a^(k+1)) / (1 - a). DecodeArmsFor calls it when e.speculative is set.
DecodeArms SpeculativeDecodeArms(const EngineConfig& e, double batch);
// Bytes of the draft's weights in one engine (all its GPUs): draft_layers of
// the target's layers (embeddings and output projection shared). 0 without
// engine.speculative.
double DraftWeightBytes(const Scenario& s);
// The draft's KV cache per token as a share of the target's (its layers over
// the target's). 0 without engine.speculative.
double DraftKvShare(const Scenario& s);
// hardware.spot.rollout (docs/model.md, "Spot GPUs"): seconds a preempted
// rollout node is gone — restart_s if set, else a replacement's start-up:
// the policy's bf16 weights read at run.startup.storage_read_gb_per_s plus
// the engine warm-up (run.startup.warmup_s).
double SpotRolloutRestartS(const Scenario& s);
// The share u of the rollout pool lost to preemptions when a rollout is in
// flight for `in_flight_s` (rlcost::SpotLostShare); 0 without spot rollout
// GPUs or when colocated (the rollout GPUs are the trainer's: hardware.spot.train).
double SpotRolloutLostShare(const Scenario& s, double in_flight_s);
// Speed-up of decoding at `batch` sequences of `context` tokens each: the
// plain time per generated token over the speculative one (> 1: speculation
// pays); for tables and tests.
double SpeculativeSpeedup(const EngineConfig& e, double batch, double context);
// Inline so an event loop's many calls (and those that only read time_s)
// cost a few multiplies.
inline Work DecodeIterations(const DecodeArms& arms, double batch, double context_tokens, double n) {
  Work w;
  if (n <= 0 || batch <= 0) return w;
  // Iteration i has context C_i = C0 + batch * i. The weight part is the same
  // every iteration. In the attention part, memory arm minus compute arm is
  // linear in i, so its max switches at most once, at i*.
  double da = arms.mem_s.a - arms.compute_s.a;
  double db = arms.mem_s.b - arms.compute_s.b;
  double split = n;  // iterations [0, split) use the arm that wins at i = 0
  bool mem_first = da + db * context_tokens >= 0;
  // c* = -da / db is the crossover context; when da and db share a sign it is
  // <= 0, before any context, and the divisions below can be skipped (they
  // would give i* <= 0: no switch).
  if (db != 0 && da != 0 && (da > 0) != (db > 0)) {
    double c_star = -da / db;
    double i_star = std::ceil((c_star - context_tokens) / batch);
    if (i_star > 0 && i_star < n) split = i_star;
  }
  const DecodeArms::Linear& first = mem_first ? arms.mem_s : arms.compute_s;
  const DecodeArms::Linear& second = mem_first ? arms.compute_s : arms.mem_s;
  w.time_s = first.Sum(context_tokens, batch, 0, split) + second.Sum(context_tokens, batch, split, n) +
             n * (arms.weights_s + arms.fixed_s);
  w.flops = arms.flops.Sum(context_tokens, batch, 0, n);
  w.bytes = arms.bytes.Sum(context_tokens, batch, 0, n);
  // Compute-bound: both parts at their compute roofline throughout.
  w.compute_bound = arms.weights_compute_bound && !mem_first && split >= n;
  return w;
}
// Prefill of `tokens` new tokens spread evenly over `sequences` sequences,
// each appended after `context_before` tokens of its own cached context (a
// prompt, a resumed sequence, a tool output). Attention is per sequence.
Work Prefill(const EngineConfig& e, double tokens, double context_before, double sequences = 1);

// --- Verifiers -----------------------------------------------------------
// The GPU work of a model verifier (environment.reward.verifier: llm-judge or
// reward-model) for `rollouts` trajectories of one step: the judge's engines
// prefill each call's input and decode its output at the batch its KV cache
// allows (docs/model.md, "Verifiers"). rule and tests: no GPU work (zero).
struct VerifierWork {
  bool on_gpu = false;
  bool shared = true;       // on the policy's GPUs between phases
  int gpus = 0;             // GPUs the judge runs on (the policy's when shared)
  int tp = 1;               // tensor parallel size of one judge engine
  int engines = 0;
  double calls = 0;         // judge calls per step
  double batch = 0;         // concurrent calls per engine
  double kv_tokens = 0;     // KV cache one judge engine holds, tokens
  double input_tokens = 0;  // per call
  double prefill_s = 0, decode_s = 0;
  double weight_load_s = 0; // shared: the judge's weights copied in from host memory each step
  double time_s = 0;        // prefill + decode (+ weight load when shared): wall time on its GPUs
  double last_call_s = 0;   // one call alone, batch 1 (what a step waits for at least on dedicated GPUs)
  double flops = 0;         // all judge GPUs
  double output_tokens = 0; // per call (a rubric: the mean over its judged criteria)
  std::string what;         // "llm-judge qwen3-8b", for notes
  // An ensemble: the work of each member on GPUs (the fields above then sum
  // calls, flops and dedicated GPUs; the step combines members in WithVerifier).
  std::vector<VerifierWork> members;
};
// Fails with kDoesNotFit when the judge's weights and one call's KV cache do
// not fit on its GPUs at any tensor-parallel size. A rubric multiplies the
// judge's calls by its llm-judge criteria (docs/model.md, "Rubrics").
Result<VerifierWork> VerifierCost(const Scenario& s, double rollouts);

// --- Memory --------------------------------------------------------------
struct MemoryPlan {
  double gpu_memory_gb = 0;
  double rollout_weights_gb = 0;   // per GPU, inference weights (one TP shard)
  double train_state_gb = 0;       // per GPU, weights + grads + optimizer (sharded)
  double critic_state_gb = 0;      // per GPU, PPO critic's weights + grads + optimizer (sharded); 0 without one
  double reference_gb = 0;         // per GPU, frozen reference weights in bf16 (sharded); 0 without one or with LoRA
  double activation_reserve_gb = 0;
  double kv_budget_gb = 0;         // per GPU, for the KV cache
  double kv_tokens_per_engine = 0; // tokens of context one engine can hold
  double needed_gb = 0;            // per GPU, without KV
  // Colocated: the training state does not fit beside the inference engine and
  // is moved to host memory during generation (NeMo RL's and veRL's offload).
  bool train_state_offloaded = false;
  // The optimizer states do not fit on the training GPUs even alone and live
  // in host memory (ZeRO-Offload): 12 of the 16 bytes per parameter.
  bool optimizer_offloaded = false;
  double host_transfer_gb = 0;     // per GPU per step, each direction
};
// Memory per GPU. Colocated: training state (ZeRO-3 sharded over the training GPUs),
// the PPO critic's training state and the reference weights stay resident
// beside the inference weights (veRL's defaults), or all move to host memory
// while generating when they leave no room; disaggregated: each side alone.
// Fails with kDoesNotFit and the numbers when the model cannot fit or leaves no
// room for one sequence of mean length.
// `rollout_tp` plans the same run at another engine size (what-if, without
// copying the scenario); nullopt = placement.rollout_tp.
Result<MemoryPlan> PlanMemory(const Scenario& s, std::optional<int> rollout_tp = std::nullopt);
// Time per step to move offloaded state to host memory and back over PCIe.
double HostTransferTime(const MemoryPlan& plan);
// HostTransferTime plus the explicit offload of placement.offload (offload.cc):
// each pass that needs the parameters brings them back from host memory and
// sends them out again; the update does the same with the optimizer states.
double OffloadTime(const Scenario& s, const MemoryPlan& plan);
// Of OffloadTime: a colocated vLLM engine at sleep level 1 copies its shard of
// the rollout weights to host memory when it goes to sleep at the end of
// generation (NeMo RL times it inside "generation", not the refit); the copy
// back at wake-up is WeightSync's engine_s. 0 otherwise. docs/model.md,
// "Engine sleep".
double EngineSleepCopyTime(const Scenario& s);
// Of OffloadTime: colocated, the optimizer states moved to host memory before
// the refit and back before the update (placement.refit_offload), per step.
// 0 when disaggregated, `none`, or when another path already moves or keeps
// them there (placement.offload.optimizer, ZeRO-Offload).
double RefitOffloadGb(const Scenario& s, const MemoryPlan& plan);  // per GPU, each direction
double RefitOffloadTime(const Scenario& s, const MemoryPlan& plan);     // the way back, before the update
double RefitOffloadOutTime(const Scenario& s, const MemoryPlan& plan);  // the way out, inside the refit
// The trainer's own weights moved to host memory at the end of the refit
// (NeMo RL's offload_after_refit) and back before the log-prob pass, with the
// refit offload: FSDP/DTensor its fp32 shard through pageable memory,
// Megatron its bf16 parameter buffer into pinned memory. GB per GPU each way,
// and the two times. docs/model.md, "Trainer weights after the refit".
double RefitWeightsGb(const Scenario& s, const MemoryPlan& plan);
double RefitWeightsOutTime(const Scenario& s, const MemoryPlan& plan);
double RefitWeightsBackTime(const Scenario& s, const MemoryPlan& plan);

// --- Training ------------------------------------------------------------
// Policy update over `tokens` tokens on `gpus` GPUs: 6 * N_active per token for
// full fine-tuning, 4 * N_active + 6 * N_adapter for LoRA, plus attention (x3),
// at the train MFU.
Work TrainStep(const Scenario& s, double tokens, double mean_seq_len, int gpus);
// One optimizer step on one training GPU: mixed-precision Adam over its
// shard of the trainable parameters (TrainableParams / ShardGpus), 30 bytes
// of HBM traffic per parameter at the GPU's peak bandwidth.
// docs/model.md, "Optimizer steps per RL step".
double OptimizerStepTime(const Scenario& s);
// placement.train_backend fsdp: seconds of FSDP parameter all-gathers (bf16,
// forward and backward) and fp32 gradient reduce-scatters that a pass over
// `tokens` moves per GPU, every micro-batch, over the sharding group (the
// train_tp shard's data-parallel ranks; NVLink inside one domain, else the
// network) at eff.weight_sync_eff of the link. Forward-only passes gather
// once. 0 for megatron, and when no micro-batch is stated (MicrobatchTokens).
// docs/model.md, "FSDP traffic per micro-batch".
double FsdpTrafficTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only);
// What algorithm.minibatches (N) and ppo_epochs (E) add to TrainStep's time
// besides the E passes themselves: the N E - 1 optimizer steps beyond the
// one the measured train MFU holds, and the pipeline drained and refilled
// once per mini-batch instead of once per pass (train_pp > 1).
struct OptimizerStepsCost {
  double steps = 1;         // minibatches x ppo_epochs (each up to 1e9)
  double flush_s = 0;       // extra pipeline bubble, all passes
  double optimizer_s = 0;   // (steps - 1) * OptimizerStepTime
};
OptimizerStepsCost OptimizerStepsOverhead(const Scenario& s, double tokens, double mean_seq_len, int gpus);
// Wall time over model-FLOP time of the update under
// placement.gradient_checkpointing: (U + F) / U with U the update's FLOPs per
// token and F one forward's (2N + A); 4/3 for full fine-tuning. 1 without it.
// docs/model.md, "Gradient checkpointing".
double RecomputeFactor(const Scenario& s, double update_flops_per_token, double attention_flops_per_token);
// GPUs the training state is sharded over: placement.train_shard_gpus when
// set (at most the training GPUs), else all the training GPUs.
// docs/model.md, "Sharding groups".
int ShardGpus(const Scenario& s);
// Tokens the trainer's linear layers run on per real token: 1 when packed;
// under placement.train_padding: max-length, (max prompt + max response) /
// the mean trajectory length. docs/model.md, "Training on padded sequences".
double PaddedTokenFactor(const Scenario& s, double mean_seq_len);
// --- Packed micro-batches (src/perf/packing.cc) --------------------------
// Micro-batches a data-parallel rank fills packing `tokens` tokens of
// single-turn sequences into placement.train_micro_batch_tokens (C): the
// sequences longer than C/2 one each, the shorter ones in the room they leave
// and then in bins of their own (Martello-Toth bound L2, alpha 0). Without
// a stated budget, or for multi-turn trajectories: TrainMicrobatches.
// docs/model.md, "Packed micro-batches".
double PackedMicrobatches(const Scenario& s, int gpus, double tokens, double mean_seq_len);
// Whether every packed micro-batch of the update runs at its full budget:
// train_backend fsdp (NeMo RL's DTensor worker pads each pack to
// train_mb_tokens) or train_pp > 1 (Megatron-Core's pipeline sends tensors of
// one static shape), with train_micro_batch_tokens stated and no
// train_padding max-length.
bool PacksToFixedLength(const Scenario& s);
// Tokens the update's linear layers run per real token when PacksToFixedLength:
// N mini-batches x PackedMicrobatches x C over the rank's tokens (>= 1); 1
// otherwise.
double FixedLengthPackFactor(const Scenario& s, int gpus, double tokens, double mean_seq_len);
// train_backend fsdp with train_tp > 1 (DTensor TP + sequence parallel):
// seconds of the per-layer activation all-gathers and reduce-scatters a pass
// over `tokens` (as run, padding included) issues on the compute stream, 7 a
// layer forward and 7 more backward. 0 otherwise.
// docs/model.md, "DTensor tensor-parallel collectives".
double DtensorTpCollectiveTime(const Scenario& s, double tokens, int gpus, bool forward_only);
// Forward-only pass (old-policy log-probs, reference model) at logprob MFU.
Work ForwardPass(const Scenario& s, double tokens, double mean_seq_len, int gpus);
// --- Weight sync (weight_sync.cc) ---------------------------------------
// One weight sync from the trainer to the rollout engines, by part. bf16
// weights (LoRA: the adapters); docs/model.md, "Weight sync".
using rlcost::WeightSyncParts;  // timing.h: a step carries the parts of its sync
WeightSyncParts WeightSync(const Scenario& s);
// Adds the refit offload's way out (RefitOffloadOutTime) to a colocated sync:
// NeMo RL moves the optimizer states to host memory inside the refit it times
// (docs/model.md, "Refit offload"). Sets p.offload_s and adds it to p.total_s.
void ChargeRefitOffloadOut(const Scenario& s, const MemoryPlan& plan, WeightSyncParts& p);
double WeightSyncTime(const Scenario& s);  // WeightSync(s).total_s
// Tensors of a checkpoint in the Hugging Face layout (one per expert matrix).
double CheckpointTensors(const ModelSpec& m);
// Collective calls of the trainer's per-parameter export in a colocated refit:
// Megatron layout, per local tensor one call per group of more than one GPU it
// is gathered over (TP all-gather, PP broadcast, EP all-gather of each local
// expert); FSDP (train_backend: fsdp) one all-gather per checkpoint tensor;
// Megatron data parallel only, 0. docs/model.md, "Per-parameter export".
double ExportCalls(const Scenario& s);
// FSDP2 / DTensor trainer (train_backend: fsdp, no pp / ep): the refit's
// full_tensor() gathers of its fp32 parameters, TP first then the FSDP shards
// (`bf16_bytes`: the weights at 2 bytes each). docs/model.md, "DTensor refit".
double FsdpGatherTime(const Scenario& s, double bf16_bytes);
// Groups NeMo RL splits a colocated refit into: the state dict over a buffer
// of 0.8 (DTensor) or 0.2 (Megatron) of the GPU's free memory. docs/model.md,
// "CUDA IPC refit".
double RefitGroups(const Scenario& s);
// Colocated CUDA IPC: handles rebuilt on each engine GPU (per tensor for
// DTensor, per packed group for Megatron) plus the driver's relay of every
// worker's handles and metadata. docs/model.md, "CUDA IPC refit".
double RefitIpcTime(const Scenario& s, double tensors);
// One line for the estimate's notes: the parts and what they rest on.
std::string DescribeWeightSync(const Scenario& s, const WeightSyncParts& p);

// --- MoE and the training layout (src/perf/moe.cc) -----------------------
// Routed-expert intermediate size, from the catalog's totals: the routed
// parameters (ModelSpec::routed_expert_params_b) are E experts x layers x
// 3 * h * I (gate, up, down). Dense models: 0.
double ExpertIntermediate(const ModelSpec& m);
// Routed-expert parameters one token uses (k of the E experts), billions.
double ActiveRoutedParams(const ModelSpec& m);
// LoRA adapter parameters one token's forward pass multiplies through (MoE:
// the adapters of its k routed experts, not all E). Dense: LoraParams.
double LoraActiveParams(const ModelSpec& m, int rank);
// 1F1B pipeline bubble (Narayanan et al. 2021, sec. 2.2.1): (pp - 1) /
// (m + pp - 1) of the pipeline's time is idle for m micro-batches.
double PipelineBubbleFraction(int pp, double microbatches);
// Micro-batches each data-parallel rank runs for `tokens` tokens of
// sequences of mean length `mean_seq_len`: ceil(tokens / (dp * mb_tokens)),
// dp = gpus / (tp * cp * pp), mb_tokens = train_micro_batch_tokens (not
// stated: one sequence, mean_seq_len).
double TrainMicrobatches(const PlacementSpec& p, int gpus, double tokens, double mean_seq_len);
// Tokens per micro-batch of one pass as the scenario states them: the update
// reads placement.train_micro_batch_tokens, else train_micro_batch_seqs mean-
// length sequences (times PaddedTokenFactor: the tokens a pass is handed are
// padded when train_padding is max-length); a forward-only pass (old log-
// probs, reference) reads logprob_micro_batch_tokens, else
// logprob_micro_batch_seqs, else the update's. 0 when none is stated.
// docs/model.md, "Micro-batches of each pass".
double MicrobatchTokens(const Scenario& s, double mean_seq_len, bool forward_only);
// Micro-batches per data-parallel rank of one pass over `tokens`:
// ceil(tokens / (dp * MicrobatchTokens)), or TrainMicrobatches' fallback (one
// mean-length sequence) when no micro-batch is stated.
double PassMicrobatches(const Scenario& s, int gpus, double tokens, double mean_seq_len, bool forward_only);
// placement.train_pp_split even (Megatron-Core's default layer split): the
// pipeline runs at the pace of its last stage, which holds num_layers / pp
// layers and the output layer besides: pp x (W_l / pp + O) / (W_l + O),
// O = 2 vocab hidden the output layer's forward FLOPs per token, W_l the
// layers' (the model's 2 N_a less the embedding and the output layer). The
// same share in the update (each term's backward is twice its forward).
// 1 when balanced, pp 1, or the vocabulary is unknown. docs/model.md,
// "Pipeline stages split evenly".
double PipelineStageFactor(const Scenario& s);
// Fraction of a GEMM dimension of size n that does useful work when it is
// cut into tiles of `tile` (tile quantisation): n / (ceil(n / tile) * tile).
double TileEfficiency(double n, double tile);
// Useful fraction of the routed-expert GEMMs of one micro-batch: tile
// quantisation of the tokens per expert (M), when train_micro_batch_tokens is
// stated. Dense models, or no micro-batch stated: 1.
double ExpertGemmEfficiency(const Scenario& s, double mean_seq_len);
// Parallel groups of `group` consecutive ranks tiling `gpus` GPUs (Megatron's
// rank order keeps a tensor-, expert- or stage-group's ranks consecutive),
// with GPUs filling NVLink domains of `domain` in rank order: the GPUs of the
// smallest part of a group that one domain holds. `group` when every group
// lies inside one domain; less when a group is larger than a domain or
// straddles the boundary between two (on 128 GB200 NVL72 GPUs the 32-GPU
// group at ranks 64-95 has 8 in the first rack, 24 in the second). The step
// waits for the slowest group. docs/model.md, "Groups across NVLink domains".
int SmallestDomainPart(int group, int gpus, int domain);
// Time of the expert-parallel all-to-alls (dispatch and combine) of `passes`
// directions (forward 2, forward + backward 4) over `tokens` tokens on
// `gpus` training GPUs, per GPU: intra-node peers over NVLink, the rest of
// the EP group over the network, both at once. 0 for dense models or train_ep 1.
double ExpertAllToAllTime(const Scenario& s, double tokens, int gpus, double passes);
// Floor of a training-engine pass of an MoE model set by the host issuing
// each MoE layer's kernels: micro-batches per rank (all mini-batches) x
// layers per pipeline stage x eff.moe_layer_train_s (forward + backward;
// a third of it for a forward-only pass). 0 for dense models.
// docs/model.md, "MoE layer floor".
double MoeLayerFloorTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only);
// Wall time of a training-engine pass whose model FLOPs per GPU are
// `flops_per_gpu`: the MFU for the model (train_mfu, or train_mfu_moe for
// MoE; forward-only passes scale logprob_mfu alike), expert GEMMs slowed by
// ExpertGemmEfficiency, an all-to-all that hides behind compute unless it is
// longer, and the pipeline bubble of the layout. Dense with no train_pp:
// flops / (peak * mfu), as before.
double TrainEngineTime(const Scenario& s, double tokens, double mean_seq_len, int gpus, double flops_per_gpu,
                       bool forward_only);
// Linear-layer (GEMM) FLOPs per trained token of a training-engine pass:
// forward 2N_active; update 6N_active (LoRA: 4N_active + 6N_adapter).
// Attention FLOPs come on top (TrainStep, ForwardPass).
double TrainLinearFlopsPerToken(const Scenario& s, bool forward_only);

}  // namespace rlcost::perf
