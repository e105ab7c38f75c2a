// GPUs and model architectures as data (catalog/gpus.yaml, catalog/models.yaml,
// compiled into the binary), each number with its source; users add their own
// entries with a file of the same shape.
//
//   rlcost::Catalog cat = rlcost::Catalog::Builtin().value();
//   if (auto ok = cat.AddFile("my_gpus.yaml"); !ok) ...;
//   const rlcost::GpuSpec* h100 = cat.FindGpu("h100-sxm");
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/types.h"

namespace rlcost {

// Achieved fractions of the roofline, per GPU and phase. Defaults come from
// published measurements (catalog/gpus.yaml, docs/model.md); `rlcost calibrate`
// fits them to a user's own log and `--calibration FILE` overrides them.
struct Efficiency {
  double decode_bw = 0.70;           // achieved / peak HBM bandwidth while decoding
  double decode_compute = 0.50;      // achieved / peak FLOP/s when decode is compute-bound
  double decode_iter_overhead_s = 0.0;  // fixed per decode iteration (scheduler, sampling, launches)
  double moe_layer_decode_s = 0.0;   // fixed per layer of an MoE model per decode iteration (routing, expert GEMM launches)
  double moe_layer_train_s = 0.0;    // floor per MoE layer per training micro-batch, forward + backward (host-issued kernels, per-layer sync)
  double prefill_mfu = 0.50;         // prefill model FLOPs utilisation
  double train_mfu = 0.40;           // policy update MFU (forward + backward)
  double train_mfu_moe = 0.224;      // the same for MoE models (grouped GEMMs, routing, expert all-to-all)
  double logprob_mfu = 0.45;         // log-prob / reference forward MFU
  double step_overhead_s = 0.0;      // fixed per training step (scheduling, data, checkpoint share)
  double weight_sync_eff = 0.5;      // achieved / peak link bandwidth for weight broadcast
  // The update's MFU in a typical RL run as a share of train_mfu / train_mfu_moe
  // (run.tuning: typical); 1 = as published. A named fit in the catalog.
  double typical_update_share = 1.0;
  // Seconds per GB of a blocking copy from the GPU into fresh pageable host
  // memory, per GPU (the refit offload's way out). Unset: NVIDIA-NeMo/RL
  // issue #3976's Nsight measurement, 3.76 s for 4.94 GB (include/rlcost/perf.h).
  double pageable_copy_s_per_gb = 3.76 / 4.94;
};

// The Efficiency fields by name, with their physical range: the one table
// that the catalog loader, calibration files and `rlcost calibrate` share.
struct EfficiencyField {
  const char* name;
  double Efficiency::*member;
  bool fraction;  // true: (0, 1]; false: seconds >= 0
  // false: a figure of the runs, not of one GPU (the named fits: the trainer's
  // tuning, the hosts' copy rate), the same for every GPU, so a GPU without a
  // value of its own does not "borrow" it from another GPU's measurements.
  bool per_gpu = true;
};
const std::vector<EfficiencyField>& EfficiencyFields();

// Fixed cost per decode iteration of an engine whose scheduler overlaps CPU
// work with the GPU (nullopt for plain vLLM: the catalog's measured
// decode_iter_overhead_s applies). Sources in docs/model.md.
std::optional<double> OverlappedIterOverheadS(InferenceEngine engine);

struct GpuSpec {
  std::string id;                 // catalog id, e.g. "h100-sxm"
  std::string name;               // human name
  // Other names that find this entry (`h100`, `H100-80GB`); lookups ignore case.
  std::vector<std::string> aliases;
  double memory_gb = 0;           // HBM capacity, GB (1e9 bytes)
  double hbm_tb_per_s = 0;        // peak HBM bandwidth, TB/s (1e12 bytes/s)
  double tflops_bf16 = 0;         // dense peak, TFLOP/s
  double tflops_fp8 = 0;          // dense peak; 0 = not supported
  double tflops_fp4 = 0;          // dense peak; 0 = not supported
  double intra_node_gb_per_s = 0; // NVLink / Infinity Fabric per GPU, one direction, GB/s
  double inter_node_gb_per_s = 0; // network per GPU, one direction, GB/s
  // GPUs joined by intra_node_gb_per_s links (one NVLink domain): 8 on an HGX
  // board, 72 in a GB200 NVL72 rack although a node holds 4. A collective
  // among more GPUs crosses the network (docs/model.md, "Tensor-parallel
  // all-reduce"). Optional in a catalog file; default 8 (assumed).
  int nvlink_domain = 8;
  // Measured maximum achievable dense matmul TFLOP/s (the best large GEMM a
  // benchmark finds, below the datasheet peak); 0 = not measured. Used to
  // split a training step into GEMM time and the rest when the trainer runs
  // its GEMMs in FP8 (docs/model.md, "FP8 training").
  double matmul_tflops_bf16 = 0;
  double matmul_tflops_fp8 = 0;
  double price_per_hour = 0;      // default USD per GPU-hour
  // Board power limit (thermal design power), W; 0 = not stated. Energy
  // estimates scale each phase's measured share of it (docs/model.md, "Energy").
  double tdp_w = 0;
  Efficiency efficiency;          // defaults for this GPU
  std::map<std::string, std::string> sources;  // field -> where the number comes from

  // Dense peak FLOP/s for a precision (falls back to the nearest supported one
  // above it: fp4 -> fp8 -> bf16).
  double PeakFlops(Precision p) const;
  bool Supports(Precision p) const;
  // Achieved / peak of a large dense GEMM at precision p (bf16 or fp8): the
  // measured matmul_tflops_* over the peak; without a measurement, the bf16
  // fraction stands for fp8 and kAssumedMatmulFraction for bf16.
  double MatmulFraction(Precision p) const;
  bool MatmulFractionMeasured(Precision p) const;
};
// H100 SXM's measured bf16 matmul fraction (794.5 / 989, docs/model.md),
// assumed for a GPU whose catalog entry states no measurement.
inline constexpr double kAssumedMatmulFraction = 0.803;

struct ModelSpec {
  std::string id;
  std::string name;
  // Other names that find this entry, e.g. the Hugging Face id `Qwen/Qwen3-32B`;
  // lookups ignore case.
  std::vector<std::string> aliases;
  double params_b = 0;            // total parameters, billions
  double active_params_b = 0;     // per token (MoE); = params_b for dense
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;               // GQA
  int head_dim = 0;
  int vocab = 0;                  // 0 = unknown
  int experts = 0;                // routed experts (MoE); 0 = dense
  int experts_per_token = 0;
  int shared_experts = 0;
  Attention attention = Attention::kGqa;
  int kv_lora_rank = 0;           // MLA
  int rope_head_dim = 0;          // MLA
  // Value head width (MLA: config.json v_head_dim). 0 = head_dim. Query/key
  // heads of MLA are head_dim (qk_nope_head_dim) + rope_head_dim wide.
  int v_head_dim = 0;
  std::map<std::string, std::string> sources;

  bool is_moe() const { return experts > 0; }
  // Parameters in routed experts (all of them), billions. From
  //   total = dense + routed,  active = dense + routed * k / E.
  double routed_expert_params_b() const;
  // Parameters every token uses (attention, embeddings, shared experts), billions.
  double dense_params_b() const;
};

class Catalog {
 public:
  // The catalog compiled into the binary.
  static Result<Catalog> Builtin();
  // The same catalog parsed from the embedded catalog/*.yaml, as user files
  // are. Builtin() is generated from it at build time, so it starts without
  // parsing YAML (src/catalog/codegen.h); a test checks the two are equal.
  static Result<Catalog> BuiltinFromYaml();
  // Parses a catalog document (YAML or JSON) with top-level `gpus:` and/or `models:`
  // mappings of id -> entry. `origin` names the source in error messages.
  Result<void> AddText(std::string_view text, const std::string& origin);
  Result<void> AddFile(const std::string& path);

  // Finds an entry by its id or one of its aliases, ignoring case; a model
  // also by the last part of a Hugging Face id ("Qwen/Qwen3-32B" -> qwen3-32b).
  const GpuSpec* FindGpu(std::string_view id) const;
  const ModelSpec* FindModel(std::string_view id) const;
  std::vector<std::string> GpuIds() const;
  std::vector<std::string> ModelIds() const;
  const std::map<std::string, GpuSpec>& gpus() const { return gpus_; }
  const std::map<std::string, ModelSpec>& models() const { return models_; }

  void AddGpu(GpuSpec g) { gpus_[g.id] = std::move(g); }
  void AddModel(ModelSpec m) { models_[m.id] = std::move(m); }

 private:
  std::map<std::string, GpuSpec> gpus_;
  std::map<std::string, ModelSpec> models_;
};

}  // namespace rlcost
