// Weight sync from the trainer to the rollout engines, as it runs: the trainer
// gathers its shards into full tensors, the tensors travel to the engines
// (CUDA IPC on the same GPU when colocated; an NCCL broadcast when
// disaggregated), each engine copies its tensor-parallel shard into its
// weights, every collective call costs a fixed host-side overhead, and a
// colocated engine is woken (weights and KV cache re-allocated) and put back
// to sleep around it. Derivation and sources: docs/model.md, "Weight sync".
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/numbers.h"
#include "perf/refit_gather.h"
#include "perf/trainer_weights.h"
#include "rlcost/perf.h"

namespace rlcost::perf {
namespace {

// Host-side cost of one collective call of a weight sync (Python dispatch, the
// handshake of every rank of the group, the NCCL launch), independent of its
// bytes. nvidia-cosmos/cosmos-rl PR #723 (measured on twelve single-rank
// rollout replicas over two nodes): 3.30 GiB in 321 per-parameter broadcasts
// took 0.34 s, the same bytes in one grouped broadcast 0.05 s:
// (0.34 - 0.05) / (321 - 1) = 0.906 ms per call. Not read off any case the
// tests or validation/ check.
constexpr double kCollectiveCallS = 0.906e-3;
// Bucketed sync (checkpoint engine): tensors are packed into buckets of this
// size and each bucket is one collective. veRL fully_async
// `async_training.checkpoint_engine.device_buffer_size_M` default 4096 MB
// (volcengine/verl docs/advance/fully_async.md @ ca44f95).
constexpr double kBucketBytes = 4096.0 * 1024 * 1024;
// Colocated: the inference engine sleeps while the trainer owns the GPU and
// is woken for the sync (weights re-mapped, KV cache re-allocated), once per
// step. vLLM sleep mode wakes a model in "~0.1-0.4 s" (vLLM blog "Zero-Reload
// Model Switching with vLLM Sleep Mode", Embedded LLM, 2025-10-03,
// vllm-project/vllm-project.github.io PR #89); middle of the range.
constexpr double kEngineWakeSleepS = 0.25;

// CUDA IPC refit (colocated, NeMo RL v0.3.0): the trainer wraps each full
// tensor (or, packed, each group's buffer) in a CUDA IPC handle, the handles
// travel through the driver to every engine GPU, and each engine GPU rebuilds
// its tensors from them (nemo_rl/algorithms/grpo.py:416-432,
// models/policy/lm_policy.py:468-528, models/generation/vllm_backend.py:125-186
// @ b1c86a81). NeMo blog "NeMo-RL: Journey of Optimizing Weight Transfer in
// Large MoE Models by 10x" (2025-08-12), measured on DeepSeek-V3 (training
// EP64 PP8 on 512 GPUs, generation TP64):
//   - one rebuild_cuda_tensor call takes "about 0.18 milliseconds";
constexpr double kIpcRebuildS = 0.18e-3;
//   - packed (one handle per group's buffer), recovering a bucket takes 12 ms
//     ("from 120ms to 12ms", Figure 5);
constexpr double kPackedRebuildS = 12e-3;
//   - the IPC handle transfer of NeMo RL v0.3 took 33.5 s (Table 1) for "over
//     90 thousand parameters" relayed for 512 workers: the driver collects
//     every worker's handles and metadata (one entry per tensor) and passes
//     each engine GPU its own (the blog's Part 2/3: linear in workers and in
//     the metadata). 33.5 / (512 x 90,000) = 0.727 us per worker and tensor.
//     Not read off any case the tests or validation/ check.
constexpr double kIpcRelayS = 33.5 / (512.0 * 90000.0);
// Share of a GPU's free memory each refit group may fill (prepare_weights_for_ipc,
// NRL_REFIT_BUFFER_MEMORY_RATIO defaults): DTensor 0.8
// (dtensor_policy_worker.py:1179-1183), Megatron 0.2 (megatron_policy_worker.py:1411-1414).
constexpr double kDtensorBufferShare = 0.8;
constexpr double kMegatronBufferShare = 0.2;

// FSDP2 / DTensor trainer without pipeline or expert parallelism (a
// DTensor TP dimension allowed): its refit gathers each state-dict tensor
// with full_tensor().
bool FsdpLayout(const Scenario& s) {
  const PlacementSpec& pl = s.placement;
  return pl.train_backend == TrainBackend::kFsdp && std::max(1, pl.train_pp) == 1 && std::max(1, pl.train_ep) == 1;
}

// Achieved GB/s of a ring collective over `gpus` GPUs: NVLink inside one
// NVLink domain (a node; GB200 NVL72: 72 GPUs), the network once the ring
// leaves it (docs/model.md, "NVLink domain"). With `tiling` > 0 the ring is
// one of the groups of `gpus` consecutive ranks over `tiling` GPUs, which
// run at once: when one of them straddles two domains, the step waits for
// it at the network's speed (docs/model.md, "Groups across NVLink domains").
double RingLinkGbPerS(const Scenario& s, int gpus, int tiling = 0) {
  const GpuSpec& g = s.hardware.gpu;
  const int domain = NvlinkDomainGpus(s.hardware);
  const bool leaves = gpus > domain || (tiling > 0 && SmallestDomainPart(gpus, tiling, domain) < gpus);
  double link = leaves ? g.inter_node_gb_per_s : g.intra_node_gb_per_s;
  return std::max(link, 1.0) * g.efficiency.weight_sync_eff;
}

}  // namespace

bool GatherParamsRefit(const Scenario& s) {
  const PlacementSpec& pl = s.placement;
  if (pl.mode != PlacementMode::kColocated || pl.weight_sync != WeightSyncMethod::kBucketed) return false;
  if (pl.train_backend == TrainBackend::kFsdp) return false;
  return std::max(1, pl.train_tp) * std::max(1, pl.train_pp) * std::max(1, pl.train_ep) > 1;
}

double ExportCalls(const Scenario& s) {
  const PlacementSpec& pl = s.placement;
  const ModelSpec& m = s.model;
  if (s.algorithm.lora) return 0;  // the adapters: counted as the sync's own tensors
  const int tp = std::max(1, pl.train_tp), pp = std::max(1, pl.train_pp), ep = std::max(1, pl.train_ep);
  if (FsdpLayout(s)) {
    // FSDP2 / DTensor: full_tensor() on every state-dict tensor (v0.3.0
    // nemo_rl/models/policy/dtensor_policy_worker.py:1200-1209): one all-gather
    // per mesh dimension of more than one GPU (TP, then the FSDP shards).
    const int dp = std::max(1, ShardGpus(s) / tp);
    return CheckpointTensors(m) * ((tp > 1 ? 1.0 : 0.0) + (dp > 1 ? 1.0 : 0.0));
  }
  if (tp * pp * ep * std::max(1, pl.train_cp) > 1) {
    // Megatron-Core's local tensors, each gathered on its own (NeMo RL v0.3.0
    // nemo_rl/models/megatron/refit_utils.py:98-144, gather_params: for every
    // parameter an all_gather over the TP group if it is TP-sharded, a
    // broadcast over the PP group, and for a routed expert an all_gather over
    // the EP group). Only groups of more than one GPU are counted.
    const double tpc = tp > 1 ? 1.0 : 0.0, ppc = pp > 1 ? 1.0 : 0.0, epc = ep > 1 ? 1.0 : 0.0;
    double per_layer = 0;
    if (m.is_moe()) {
      // linear_qkv, its fused norm, linear_proj, the pre-MLP norm, the router
      // (qkv and proj TP-sharded); each shared expert's fc1 and fc2
      // (TP-sharded); fc1 (gate and up fused) and fc2 of each of the layer's
      // E / ep local experts (expert tensor parallel 1, NeMo RL's base
      // grpo_math_1B_megatron.yaml expert_tensor_parallel_size: 1).
      const double shared = 2.0 * m.shared_experts;
      const double local_experts = 2.0 * std::ceil(static_cast<double>(m.experts) / ep);
      per_layer = (2.0 + shared) * tpc + (5.0 + shared) * ppc + local_experts * (epc + ppc);
    } else {
      // linear_qkv, linear_proj, linear_fc1, linear_fc2 (TP-sharded) and the
      // two norms fused into qkv and fc1.
      per_layer = 4.0 * tpc + 6.0 * ppc;
    }
    // Embedding and LM head (TP-sharded), final norm.
    return m.layers * per_layer + 2.0 * tpc + 3.0 * ppc;
  }
  // (An FSDP trainer took the branch above: FsdpLayout, or a pipeline or
  // expert dimension, which the Megatron branch counts.)
  // Megatron data parallel only: every GPU holds the whole model; nothing to gather.
  return 0;
}

double CheckpointTensors(const ModelSpec& m) {
  // Hugging Face layout, per layer: q, k, v, o and two norms; a dense MLP has
  // gate, up, down; an MoE layer has a router and gate, up, down per routed
  // and per shared expert. Plus embeddings, final norm and LM head.
  double per_layer = 6.0;
  if (m.is_moe()) {
    per_layer += 1.0 + 3.0 * (m.experts + m.shared_experts);
  } else {
    per_layer += 3.0;
  }
  return m.layers * per_layer + 3.0;
}

double FsdpGatherTime(const Scenario& s, double bf16_bytes) {
  const PlacementSpec& pl = s.placement;
  // The trainer's parameters are its fp32 master weights: NeMo RL loads the
  // model in float32 "to keep master weights in float32"
  // (dtensor_policy_worker.py:188-192 @ b1c86a81), veRL's FSDP actor likewise
  // (fsdp_workers.py _build_model_optimizer); full_tensor() gathers them at
  // that precision and only then converts to bf16 (:1207,
  // `full_tensor.to(self.dtype)`; veRL fsdp_workers.py:731 @ b178a3c). LoRA:
  // the adapters as the sync moves them.
  const double x = s.algorithm.lora ? bf16_bytes : 2.0 * bf16_bytes;
  const int shard = ShardGpus(s);
  const int tp = std::clamp(pl.train_tp, 1, shard);
  const int dp = std::max(1, shard / tp);
  // full_tensor() on a (dp, tp) mesh replicates the innermost mesh dimension
  // first (torch/distributed/tensor/_redistribute.py,
  // _gen_transform_infos_non_cached: "traverse from inner placement to outer
  // placement"): an all-gather over the tp GPUs, after which each GPU holds
  // 1/dp of the tensor, then one over the dp GPUs of its ring, each GPU
  // receiving (dp - 1)/dp of the full tensor through the ring's slowest link.
  double t = 0;
  if (tp > 1) t += x * (tp - 1.0) / tp / (RingLinkGbPerS(s, tp, shard) * kGB);
  if (dp > 1) t += x * (dp - 1.0) / dp / (RingLinkGbPerS(s, shard) * kGB);
  return t;
}

double RefitGroups(const Scenario& s) {
  const PlacementSpec& pl = s.placement;
  const ModelSpec& m = s.model;
  const GpuSpec& g = s.hardware.gpu;
  const double params = m.params_b * 1e9;
  const bool fsdp = FsdpLayout(s);
  // The state dict as the trainer lists it: DTensor, the full fp32 size of each
  // tensor (dtensor_policy_worker.py:1137-1146, element_size() x numel() of the
  // fp32 parameters); Megatron, each gathered tensor at the bf16 refit dtype
  // (models/megatron/refit_utils.py get_param_info).
  const double state = s.algorithm.lora ? TrainableParams(s) * 2.0 : (fsdp ? 4.0 : 2.0) * params;
  // Free memory at the refit: the GPU less the engine's woken weights and the
  // trainer's own weights (its optimizer states already moved out), the bytes
  // offload_after_refit later moves.
  const double engine = WeightBytes(m, s.precision.rollout) / std::max(1, pl.rollout_tp);
  const double trainer = TrainerWeightBytesPerGpu(s);
  const double free = std::max(g.memory_gb * kGB - engine - trainer, 0.05 * g.memory_gb * kGB);
  const double buffer = (fsdp ? kDtensorBufferShare : kMegatronBufferShare) * free;
  return std::max(1.0, std::ceil(state / buffer));
}

double RefitIpcTime(const Scenario& s, double tensors) {
  // DTensor sends one handle per tensor (v0.3.0 get_weights_ipc_handles,
  // dtensor_policy_worker.py:1188-1226: `serialized = (False, all_handles)`);
  // Megatron packs a group of 32 or more tensors into one buffer per dtype
  // (megatron_policy_worker.py:1444-1511, NEMO_RL_MEGATRON_IPC_TENSOR_PACKING_THRESHOLD 32).
  const double rebuild = FsdpLayout(s) ? tensors * kIpcRebuildS : RefitGroups(s) * kPackedRebuildS;
  const double relay = std::max(1, s.placement.train_gpus) * tensors * kIpcRelayS;
  return rebuild + relay;
}

WeightSyncParts WeightSync(const Scenario& s) {
  WeightSyncParts p;
  const GpuSpec& g = s.hardware.gpu;
  const int tp = std::max(1, s.placement.rollout_tp);
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  // The trainer holds bf16 weights; LoRA moves only the adapters (two
  // matrices, A and B, per adapted linear layer: q, k, v, o, gate, up, down).
  if (s.algorithm.lora) {
    p.bytes = TrainableParams(s) * 2.0;
    p.tensors = 2.0 * 7.0 * s.model.layers * s.algorithm.lora->tenants;
  } else {
    p.bytes = WeightBytes(s.model, Precision::kBf16);
    p.tensors = CheckpointTensors(s.model);
  }
  const int train_gpus = std::max(1, s.placement.train_gpus);
  const PlacementSpec& pl = s.placement;
  const int stage_split = std::max(1, pl.train_tp) * std::max(1, pl.train_ep);
  const int stages = std::max(1, pl.train_pp);
  if (FsdpLayout(s)) {
    p.gather_s = FsdpGatherTime(s, p.bytes);
  } else if (stage_split * stages * std::max(1, pl.train_cp) > 1) {
    // Megatron layout, exported to Hugging Face tensors by Megatron-Bridge
    // (the stream NeMo RL refits from): for every parameter,
    // broadcast_from_pp_rank sends the owning stage's shard to ALL pipeline
    // ranks, then gather_from_tp_ranks / gather_from_ep_ranks all-gather its
    // tp (dense) and tp * ep (routed experts) shards, so every training GPU
    // receives every full tensor (docs/model.md, "Weight sync").
    // NeMo RL v0.3's colocated CUDA IPC refit gathers with its own
    // gather_params instead (nemo_rl/models/megatron/refit_utils.py:79-160 @
    // b1c86a81), per parameter: an all_gather over the TP group (:114; a
    // routed expert's over the expert-TP group, of one GPU with NeMo RL's
    // expert_tensor_parallel_size: 1), then a broadcast of the FULL tensor
    // from its owning stage over the PP group (:127), then for a routed expert
    // an all_gather over the EP group (:142): the pipeline broadcast moves the
    // dense bytes tp times over, and the experts' all-gather runs over the ep
    // ranks alone, which Megatron-Core's expert rank generator (order
    // tp-cp-ep-dp-pp with tp = etp = 1) makes ep consecutive ranks
    // (docs/model.md, "v0.3 gather order").
    const bool v03 = GatherParamsRefit(s);
    const int ttp = std::max(1, pl.train_tp), tep = std::max(1, pl.train_ep);
    const double expert = s.algorithm.lora ? 0.0 : std::min(p.bytes, s.model.routed_expert_params_b() * 1e9 * 2.0);
    const double dense = p.bytes - expert;
    // What each stage broadcasts to the others, and the ring the routed experts are all-gathered over.
    const double stage_bytes = v03 ? dense + expert / tep : dense / ttp + expert / (ttp * tep);
    const int expert_ring = v03 ? tep : ttp * tep;
    // One broadcast per parameter from its owning stage, one after another: a
    // broadcast takes S / B whatever the group size, all of S leaving the root
    // through its one link (NVIDIA/nccl-tests doc/PERFORMANCE.md, "Broadcast":
    // t = S/B, bus bandwidth factor 1, where an all-gather's is (n - 1)/n), so
    // every stage waits for all of stage_bytes (docs/model.md, "Weight sync").
    if (stages > 1) p.gather_s += stage_bytes / (RingLinkGbPerS(s, train_gpus) * kGB);
    if (ttp > 1) p.gather_s += dense * (ttp - 1.0) / ttp / (RingLinkGbPerS(s, ttp, train_gpus) * kGB);
    if (expert_ring > 1) {
      p.gather_s += expert * (expert_ring - 1.0) / expert_ring / (RingLinkGbPerS(s, expert_ring, train_gpus) * kGB);
    }
  } else if (train_gpus > 1) {
    // Gather: every tensor is all-gathered from its shards over the training
    // GPUs (FSDP / ZeRO-3); each GPU receives (N - 1) / N of the bytes.
    p.gather_s = p.bytes * (train_gpus - 1.0) / train_gpus / (RingLinkGbPerS(s, train_gpus) * kGB);
  }
  if (!colocated) {
    // Broadcast trainer -> every rollout GPU, which keeps its shard: a
    // pipelined ring moves all bytes through the slowest link of the group.
    int group = train_gpus + std::max(1, s.placement.rollout_gpus);
    p.transfer_s = p.bytes / (RingLinkGbPerS(s, group) * kGB);
  } else {
    // Same GPU: the engine maps the trainer's tensors by CUDA IPC, no copy
    // between GPUs; it sleeps while training and is woken for the sync.
    // Sleep level 1 (vLLM's default; NeMo RL's sleep(level=1)) copies the
    // engine's weights to host memory when it goes to sleep and back when it
    // wakes (the sync then overwrites them): each GPU moves its shard of the
    // rollout weights over PCIe twice a step. Only the way back is inside the
    // refit: NeMo RL's refit_policy_generation wakes the engine with
    // prepare_for_generation(tags=["weights"]) (v0.3.0 grpo.py:411-413 @
    // b1c86a81), while the way out runs in finish_generation(), inside its
    // "generation" timer (grpo.py:551-580), and is charged with the step's
    // host transfers (EngineSleepCopyTime, step.offload_s). Level 2 (veRL)
    // discards them. docs/model.md, "Engine sleep".
    p.engine_s = kEngineWakeSleepS + EngineSleepCopyTime(s);
  }
  // Each engine GPU copies its shard into its weights: read + write in HBM.
  p.load_s = 2.0 * p.bytes / tp / (g.hbm_tb_per_s * 1e12 * g.efficiency.decode_bw);
  p.collectives = s.placement.weight_sync == WeightSyncMethod::kPerTensor
                      ? p.tensors
                      : std::max(1.0, std::ceil(p.bytes / kBucketBytes));
  if (colocated) {
    // Colocated, the engine takes the trainer's tensors by CUDA IPC in groups,
    // but the trainer still gathers them parameter by parameter, each gather a
    // collective call of its own (docs/model.md, "Per-parameter export").
    p.export_calls = ExportCalls(s);
    p.collectives += p.export_calls;
  }
  p.calls_s = p.collectives * kCollectiveCallS;
  // Colocated and bucketed: the trainer hands the engine groups of tensors by
  // CUDA IPC (NeMo RL's update_weights_from_ipc_handles, SkyRL's "ipc"
  // backend); veRL's hybrid engine loads them in-process (per-tensor).
  if (colocated && s.placement.weight_sync == WeightSyncMethod::kBucketed) p.ipc_s = RefitIpcTime(s, p.tensors);
  if (s.placement.weight_sync == WeightSyncMethod::kPipelined && p.transfer_s > 0 && p.gather_s > 0) {
    // Two buffers: the trainer gathers (exports) bucket i + 1 on one CUDA
    // stream while bucket i is broadcast on the other, so with c buckets of
    // gather g/c and broadcast t/c the two-stage pipeline takes
    // g/c + t/c + (c - 1) max(g, t)/c = max(g, t) + min(g, t)/c.
    // NeMo RL nemo_rl/utils/packed_tensor.py packed_broadcast_producer @
    // c339070 (r0.6.0; NRL_REFIT_NUM_BUFFERS default 2, the export iterator
    // runs inside the next buffer's stream); veRL
    // verl/checkpoint_engine/nccl_checkpoint_engine.py send_weights @ 29f3865
    // (fills the next bucket while the last broadcast is in flight).
    const double c = std::max(1.0, p.collectives);
    const double lo = std::min(p.gather_s, p.transfer_s);
    p.overlap_s = lo - lo / c;
  }
  p.total_s = p.gather_s + p.transfer_s + p.load_s + p.calls_s + p.ipc_s + p.engine_s - p.overlap_s;
  return p;
}

double WeightSyncTime(const Scenario& s) { return WeightSync(s).total_s; }

void ChargeRefitOffloadOut(const Scenario& s, const MemoryPlan& plan, WeightSyncParts& p) {
  p.total_s -= p.offload_s;
  // The optimizer states first (offload_before_refit), the trainer's own
  // weights last (offload_after_refit), both inside the timed refit.
  p.weights_out_s = RefitWeightsOutTime(s, plan);
  p.offload_s = RefitOffloadOutTime(s, plan) + p.weights_out_s;
  p.total_s += p.offload_s;
}

std::string DescribeWeightSync(const Scenario& s, const WeightSyncParts& p) {
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  std::string out = fmt::format(
      "weight sync {:.2f} s ({}, {:.1f} GB in {:.0f} tensors): trainer gather {:.2f} s", p.total_s,
      ToString(s.placement.weight_sync), p.bytes / kGB, p.tensors, p.gather_s);
  if (GatherParamsRefit(s)) {
    out += " (as NeMo RL v0.3's gather_params, the CUDA IPC refit's: each tensor all-gathered over TP, broadcast "
           "whole over PP, experts all-gathered over EP)";
  }
  if (!colocated) out += fmt::format(" + broadcast to the engines {:.2f} s", p.transfer_s);
  if (p.overlap_s > 0) out += fmt::format(" - {:.2f} s of the two hidden by pipelining the buckets", p.overlap_s);
  out += fmt::format(" + engine load {:.2f} s + {:.0f} collective calls {:.2f} s", p.load_s, p.collectives,
                     p.calls_s);
  if (p.export_calls > 0) {
    out += fmt::format(" (of the calls, {:.0f} are the trainer gathering its parameters one by one)", p.export_calls);
  }
  if (p.ipc_s > 0) {
    out += fmt::format(" + CUDA IPC handles relayed to the engines and rebuilt {:.2f} s", p.ipc_s);
  }
  if (p.offload_s > 0) {
    out += fmt::format(" + the trainer's optimizer states to host memory {:.2f} s (inside the refit, as NeMo RL's "
                       "offload_before_refit; placement.refit_offload)",
                       p.offload_s - p.weights_out_s);
  }
  if (p.weights_out_s > 0) {
    out += fmt::format(" + the trainer's own weights to host memory {:.2f} s (NeMo RL's offload_after_refit)",
                       p.weights_out_s);
  }
  if (colocated) {
    out += fmt::format(" + engine wake/sleep {:.2f} s (vLLM sleep level {}{})", p.engine_s,
                       s.placement.engine_sleep_level,
                       p.engine_s > kEngineWakeSleepS
                           ? ": its weights back from host memory over PCIe; the copy out at the end of generation "
                             "is with the step's host transfers"
                           : ": weights discarded");
  }
  return out;
}

}  // namespace rlcost::perf
