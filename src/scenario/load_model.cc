// The model, hardware and placement sections of a scenario.
// Part of the scenario loader (scenario/loader.h).
#include "rlcost/scenario.h"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <numeric>
#include <sstream>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include "catalog/parse.h"
#include "core/file.h"
#include "core/problems.h"
#include "core/utf8.h"
#include "core/yaml.h"
#include "ingest/foreign_keys.h"
#include "ingest/hf_config.h"
#include "rlcost/embedded.h"
#include "scenario/csv.h"
#include "scenario/document.h"
#include "scenario/curve_presets.h"
#include "scenario/fields.h"
#include "scenario/lever_spec.h"
#include "scenario/framework.h"
#include "scenario/overrides.h"
#include "scenario/reader.h"
#include "scenario/loader.h"

namespace rlcost::scenario_internal {

void Loader::ReadModel(const YAML::Node& root, Scenario& s) {
  YAML::Node n = Reader::Child(root, "model");
  if (!n.IsDefined()) {
    r_.Add(root, "model",
           "missing required field; expected a catalog id (" + JoinIds(catalog_.ModelIds()) +
               ") or a model mapping");
    return;
  }
  if (n.IsMap() && Reader::Child(n, "hf_config").IsDefined()) {
    ReadHfModel(n, s);
    return;
  }
  if (n.IsMap()) {
    std::string name = "custom-model";
    if (YAML::Node nm = Reader::Child(n, "name"); nm.IsDefined() && nm.IsScalar()) name = nm.Scalar();
    std::vector<Problem> problems;
    s.model = catalog_internal::ParseModel(n, name, "model", problems);
    r_.Append(std::move(problems), n);
    s.model_id = name;
    return;
  }
  auto id = r_.AsString(n, "model");
  if (!id) return;
  const ModelSpec* m = catalog_.FindModel(*id);
  if (!m) {
    r_.Add(n, "model", UnknownId("model", *id, catalog_.ModelIds()));
    return;
  }
  s.model = *m;
  s.model_id = m->id;  // the catalog's id, also when found by alias or Hugging Face id
}

// `model: {hf_config: path/to/config.json, name: optional}`: the architecture
// and parameter counts from a Hugging Face config (a file or its folder).
void Loader::ReadHfModel(const YAML::Node& n, Scenario& s) {
  if (!r_.CheckKeys(n, "model", {"hf_config", "name"})) return;
  auto rel = r_.AsString(Reader::Child(n, "hf_config"), "model.hf_config");
  if (!rel) return;
  const std::string resolved = Resolve(*rel);
  // In a request (no file access) refused before the path is looked at, so
  // the answer never tells whether the file exists.
  if (!CheckReadable(Reader::Child(n, "hf_config"), "model.hf_config", *rel, resolved, /*folder_ok=*/true)) return;
  auto arch = ingest::ReadHfConfig(resolved);
  if (!arch) {
    r_.Append(std::move(arch.error().problems), n);
    return;
  }
  std::string name = std::filesystem::path(resolved).filename().string();
  if (name == "config.json") name = std::filesystem::path(resolved).parent_path().filename().string();
  if (YAML::Node nm = Reader::Child(n, "name"); nm.IsDefined()) {
    if (auto given = r_.AsString(nm, "model.name")) name = *given;
  }
  if (name.empty()) name = "custom-model";
  s.model = ingest::ToModelSpec(*arch, name);
  s.model.name = name;
  s.model_id = name;
}

bool Loader::ReadHardware(const YAML::Node& root, Scenario& s) {
  YAML::Node hw = Reader::Child(root, "hardware");
  if (!hw.IsDefined()) {
    r_.Add(root, "hardware.gpu", "missing required field; expected a GPU id (" + JoinIds(catalog_.GpuIds()) + ")");
    return false;
  }
  if (!r_.CheckKeys(hw, "hardware", {"gpu", "gpus", "gpus_per_node", "nvlink_domain", "price_per_gpu_hour", "spot"})) return false;
  bool gpu_ok = false;
  YAML::Node g = Reader::Child(hw, "gpu");
  if (!g.IsDefined()) {
    r_.Add(hw, "hardware.gpu", "missing required field; expected a GPU id (" + JoinIds(catalog_.GpuIds()) + ")");
  } else if (g.IsMap()) {  // an inline GPU entry, same shape as the catalog's
    std::string name = "custom-gpu";
    if (YAML::Node nm = Reader::Child(g, "name"); nm.IsDefined() && nm.IsScalar()) name = nm.Scalar();
    std::vector<Problem> problems;
    // It starts from the catalog's default efficiencies, fixed costs per
    // decode iteration included, as a GPU of a catalog file does.
    s.hardware.gpu =
        catalog_internal::ParseGpu(g, name, "hardware.gpu", catalog_internal::BuiltinDefaultEfficiency(), problems);
    gpu_ok = problems.empty();
    r_.Append(std::move(problems), g);
  } else if (auto id = r_.AsString(g, "hardware.gpu")) {
    if (const GpuSpec* spec = catalog_.FindGpu(*id)) {
      s.hardware.gpu = *spec;
      gpu_ok = true;
    } else {
      r_.Add(g, "hardware.gpu", UnknownId("GPU", *id, catalog_.GpuIds()));
    }
  }
  r_.Int(hw, "gpus", "hardware", s.hardware.gpus, 1, kMaxGpus, kMaxGpusWhy);
  r_.Int(hw, "gpus_per_node", "hardware", s.hardware.gpus_per_node, 1, kMaxGpus, kMaxGpusWhy);
  // docs/model.md, "NVLink domain": GPUs joined by NVLink; not stated, the
  // larger of a node and the catalog GPU's nvlink_domain (NvlinkDomainGpus).
  r_.Int(hw, "nvlink_domain", "hardware", s.hardware.nvlink_domain, 1, kMaxGpus, kMaxGpusWhy);
  s.hardware.price_per_gpu_hour = s.hardware.gpu.price_per_hour;
  r_.Double(hw, "price_per_gpu_hour", "hardware", s.hardware.price_per_gpu_hour, fields::kPricePerHour);
  return gpu_ok;
}

void Loader::ReadPlacement(const YAML::Node& root, Scenario& s) {
  PlacementSpec& p = s.placement;
  const int gpus = s.hardware.gpus;
  YAML::Node n = Reader::Child(root, "placement");
  r_.CheckKeys(n, "placement", {"mode", "rollout_gpus", "train_gpus", "rollout_tp", "engine", "dp_attention",
                                "gpu_memory_utilization",
                                "train_tp", "train_cp", "train_pp", "train_ep", "train_micro_batch_tokens",
                                "train_micro_batch_seqs", "logprob_micro_batch_tokens", "logprob_micro_batch_seqs",
                                "weight_sync", "offload", "engine_sleep_level", "refit_offload",
                                "gradient_checkpointing", "resplit", "train_padding", "train_shard_gpus",
                                "train_backend", "train_pp_split"});
  r_.Enum(n, "mode", "placement", p.mode, &PlacementModeFromString, AcceptedNames<PlacementMode>());
  r_.Enum(n, "engine", "placement", p.engine, &InferenceEngineFromString, AcceptedNames<InferenceEngine>());
  r_.Enum(n, "weight_sync", "placement", p.weight_sync, &WeightSyncMethodFromString,
          AcceptedNames<WeightSyncMethod>());
  r_.Enum(n, "refit_offload", "placement", p.refit_offload, &RefitOffloadFromString, AcceptedNames<RefitOffload>());
  r_.Int(n, "engine_sleep_level", "placement", p.engine_sleep_level, 1, 2,
         "vLLM's sleep levels are 1 (weights to host memory) and 2 (weights discarded)");
  r_.Bool(n, "gradient_checkpointing", "placement", p.gradient_checkpointing);  // docs/model.md, "Gradient checkpointing"
  r_.Enum(n, "train_padding", "placement", p.train_padding, &TrainPaddingFromString,
          AcceptedNames<TrainPadding>());  // docs/model.md, "Training on padded sequences"
  r_.Enum(n, "train_backend", "placement", p.train_backend, &TrainBackendFromString,
          AcceptedNames<TrainBackend>());  // docs/model.md, "FSDP traffic per micro-batch"
  // Not stated (after --set, facts and a framework's defaults, which all
  // reach this node): a placement that states a pipeline or expert dimension
  // is a Megatron layout (FSDP/DTensor has neither), and so is a model with
  // routed experts (FSDP, without expert parallel, gathers every expert each
  // micro-batch; the frameworks' MoE configs are Megatron's); any other is
  // FSDP, the frameworks' default trainer (veRL actor.strategy: fsdp, NeMo RL
  // dtensor_cfg.enabled: true). docs/model.md, "Which trainer backend".
  // The rule taken is kept (stated.train_backend_rule) for the estimate's
  // assumption; routed experts are named first when both hold.
  p.stated.train_backend = Reader::Child(n, "train_backend").IsDefined();
  p.stated.train_backend_rule = TrainBackendRule::kNone;
  if (!p.stated.train_backend) {
    const bool megatron_only = Reader::Child(n, "train_pp").IsDefined() || Reader::Child(n, "train_ep").IsDefined();
    p.stated.train_backend_rule = s.model.is_moe() ? TrainBackendRule::kRoutedExperts
                                  : megatron_only  ? TrainBackendRule::kMegatronLayout
                                                   : TrainBackendRule::kFsdpDefault;
    p.train_backend =
        p.stated.train_backend_rule == TrainBackendRule::kFsdpDefault ? TrainBackend::kFsdp : TrainBackend::kMegatron;
  }
  r_.Enum(n, "train_pp_split", "placement", p.train_pp_split, &PipelineSplitFromString,
          AcceptedNames<PipelineSplit>());  // docs/model.md, "Pipeline stages split evenly"
  if (YAML::Node off = Reader::Child(n, "offload"); off.IsDefined()) {
    if (r_.CheckKeys(off, "placement.offload", {"params", "optimizer"})) {
      r_.Bool(off, "params", "placement.offload", p.offload.params);
      r_.Bool(off, "optimizer", "placement.offload", p.offload.optimizer);
    }
  }
  // The engine's own defaults (an overlap scheduler's decode overhead) are
  // derived where used: perf::RolloutEngine.
  r_.Int(n, "rollout_tp", "placement", p.rollout_tp, 1);
  r_.Int(n, "train_shard_gpus", "placement", p.train_shard_gpus, 1);  // docs/model.md, "Sharding groups"
  r_.Bool(n, "dp_attention", "placement", p.dp_attention);
  p.stated.mode = Reader::Child(n, "mode").IsDefined();
  p.stated.split = Reader::Child(n, "rollout_gpus").IsDefined() || Reader::Child(n, "train_gpus").IsDefined();
  p.stated.rollout_tp = Reader::Child(n, "rollout_tp").IsDefined();
  p.stated.dp_attention = Reader::Child(n, "dp_attention").IsDefined();
  for (const char* k : {"train_tp", "train_cp", "train_pp", "train_ep"}) {
    if (Reader::Child(n, k).IsDefined()) p.stated.train_layout = true;
  }
  if (Reader::Child(n, "gpu_memory_utilization").IsDefined()) {
    double u = 0.9;
    if (r_.Double(n, "gpu_memory_utilization", "placement", u, {.min = 0.0, .min_exclusive = true, .max = 1.0})) {
      p.gpu_memory_utilization = u;
    }
  }
  CheckTpAgainstModel(n, s);
  if (p.mode == PlacementMode::kColocated) {
    // Both phases share every GPU; rollout_gpus / train_gpus are ignored so a
    // disaggregated file can be flipped with --set placement.mode=colocated.
    p.rollout_gpus = gpus;
    p.train_gpus = gpus;
  } else {
    bool has_r = r_.Int(n, "rollout_gpus", "placement", p.rollout_gpus, 1);
    bool has_t = r_.Int(n, "train_gpus", "placement", p.train_gpus, 1);
    bool bad_r = !has_r && Reader::Child(n, "rollout_gpus").IsDefined();
    bool bad_t = !has_t && Reader::Child(n, "train_gpus").IsDefined();
    if (bad_r || bad_t) return;
    // Defaults: the rest of the GPUs go to the other side; with neither
    // given, half each (rollout gets the odd one).
    if (has_r && !has_t) p.train_gpus = gpus - p.rollout_gpus;
    if (!has_r && has_t) p.rollout_gpus = gpus - p.train_gpus;
    if (!has_r && !has_t) {
      p.train_gpus = gpus / 2;
      p.rollout_gpus = gpus - p.train_gpus;
    }
    if (p.rollout_gpus + p.train_gpus != gpus || p.rollout_gpus < 1 || p.train_gpus < 1) {
      YAML::Node at = Reader::Child(n, "rollout_gpus").IsDefined() ? Reader::Child(n, "rollout_gpus") : n;
      r_.Add(at, "placement.rollout_gpus",
             fmt::format("rollout_gpus {} + train_gpus {} = {}; expected hardware.gpus = {}, each side >= 1",
                         p.rollout_gpus, p.train_gpus, p.rollout_gpus + p.train_gpus, gpus));
      return;
    }
  }
  if (p.train_shard_gpus > 0 && (p.mode == PlacementMode::kColocated || p.stated.split) &&
      (p.train_shard_gpus > p.train_gpus || p.train_gpus % p.train_shard_gpus != 0)) {
    r_.Add(Reader::Child(n, "train_shard_gpus"), "placement.train_shard_gpus",
           fmt::format("train_shard_gpus {} does not divide the {} training GPUs; expected a divisor of {} (the "
                       "state is sharded over groups of that many GPUs and copied across the groups)",
                       p.train_shard_gpus, p.train_gpus, p.train_gpus));
  }
  if (p.rollout_gpus >= 1 && p.rollout_tp > p.rollout_gpus) {
    r_.Add(Reader::Child(n, "rollout_tp"), "placement.rollout_tp",
           fmt::format("rollout_tp {} is more than the {} rollout GPUs; expected at most {}", p.rollout_tp,
                       p.rollout_gpus, p.rollout_gpus));
  } else if (p.rollout_gpus >= 1 && p.rollout_gpus % p.rollout_tp != 0) {
    r_.Add(Reader::Child(n, "rollout_tp"), "placement.rollout_tp",
           fmt::format("rollout_tp {} does not divide the {} rollout GPUs", p.rollout_tp, p.rollout_gpus));
  }
  ReadTrainLayout(n, s);
}

// The trainer's Megatron layout (placement.train_tp/cp/pp/ep,
// train_micro_batch_tokens): each >= 1; tp * cp * pp divides the training
// GPUs (Megatron: world = tp * cp * pp * dp); the experts split evenly over
// train_ep, and ep divides the GPUs of one pipeline stage (expert tensor
// parallel 1, NeMo RL's megatron_cfg.expert_tensor_parallel_size default).
void Loader::ReadTrainLayout(const YAML::Node& n, Scenario& s) {
  PlacementSpec& p = s.placement;
  bool ok = true;
  for (auto [key, field] : {std::pair{"train_tp", &p.train_tp}, std::pair{"train_cp", &p.train_cp},
                            std::pair{"train_pp", &p.train_pp}, std::pair{"train_ep", &p.train_ep},
                            std::pair{"train_micro_batch_tokens", &p.train_micro_batch_tokens},
                            std::pair{"train_micro_batch_seqs", &p.train_micro_batch_seqs},
                            std::pair{"logprob_micro_batch_tokens", &p.logprob_micro_batch_tokens},
                            std::pair{"logprob_micro_batch_seqs", &p.logprob_micro_batch_seqs}}) {
    bool given = Reader::Child(n, key).IsDefined();
    if (given && !r_.Int(n, key, "placement", *field, 1)) ok = false;
  }
  if (!ok || p.train_gpus < 1) return;
  if (p.train_backend == TrainBackend::kFsdp && (p.train_pp > 1 || p.train_ep > 1)) {
    // NeMo RL's DTensor policy shards over (dp, cp, tp) meshes only
    // (nemo_rl/models/dtensor/parallelize.py @ v0.3.0); pipeline and expert
    // parallel are Megatron's.
    const char* at = p.train_pp > 1 ? "train_pp" : "train_ep";
    r_.Add(Reader::Child(n, "train_backend"), "placement.train_backend",
           fmt::format("fsdp with {} {}; an FSDP trainer has no pipeline or expert parallel: expected "
                       "train_backend megatron or {} 1",
                       at, at == std::string("train_pp") ? p.train_pp : p.train_ep, at));
    return;
  }
  const int model_parallel = p.train_tp * p.train_cp * p.train_pp;
  if (p.train_gpus % model_parallel != 0) {
    const char* at = Reader::Child(n, "train_pp").IsDefined()   ? "train_pp"
                     : Reader::Child(n, "train_cp").IsDefined() ? "train_cp"
                                                                 : "train_tp";
    r_.Add(Reader::Child(n, at), std::string("placement.") + at,
           fmt::format("train_tp {} x train_cp {} x train_pp {} = {} does not divide the {} training GPUs; "
                       "expected a layout whose product divides placement.train_gpus",
                       p.train_tp, p.train_cp, p.train_pp, model_parallel, p.train_gpus));
    return;
  }
  if (p.train_ep == 1 || s.model.params_b <= 0) return;  // no model: its own error stands
  YAML::Node ep_n = Reader::Child(n, "train_ep");
  if (!s.model.is_moe()) {
    r_.Add(ep_n, "placement.train_ep",
           fmt::format("{} set, but {} is dense (no routed experts); expected 1 or no train_ep", p.train_ep,
                       s.model_id.empty() ? std::string("the model") : s.model_id));
    return;
  }
  if (s.model.experts % p.train_ep != 0) {
    r_.Add(ep_n, "placement.train_ep",
           fmt::format("{} does not divide the {} routed experts of {}; expected a divisor of {}", p.train_ep,
                       s.model.experts, s.model_id, s.model.experts));
    return;
  }
  const int stage_gpus = p.train_gpus / p.train_pp;
  if (stage_gpus % p.train_ep != 0) {
    r_.Add(ep_n, "placement.train_ep",
           fmt::format("{} does not divide the {} GPUs of one pipeline stage (train_gpus {} / train_pp {}); "
                       "expected a divisor of {}",
                       p.train_ep, stage_gpus, p.train_gpus, p.train_pp, stage_gpus));
  }
}

// Tensor-parallel attention splits the query heads and the KV heads over
// the ranks. vLLM's attention layers (e.g. models/llama.py LlamaAttention)
// assert heads % tp == 0, and kv_heads % tp == 0 when tp < kv_heads or
// tp % kv_heads == 0 when tp >= kv_heads (the KV heads then replicate);
// SGLang's assert the same over attn_tp_size. Data-parallel attention does
// not split heads: no constraint. vLLM runs attention data-parallel for MoE
// models only (docs.vllm.ai/en/latest/serving/data_parallel_deployment).
void Loader::CheckTpAgainstModel(const YAML::Node& n, const Scenario& s) {
  const PlacementSpec& p = s.placement;
  const ModelSpec& m = s.model;
  const int tp = p.rollout_tp;
  if (p.dp_attention) {
    bool vllm = p.engine == InferenceEngine::kVllm || p.engine == InferenceEngine::kVllmAsync;
    if (vllm && !m.is_moe()) {
      r_.Add(Reader::Child(n, "dp_attention"), "placement.dp_attention",
             fmt::format("true with engine {} and the dense model {}: vLLM runs attention data-parallel only "
                         "for MoE models (expert layers stay tensor/expert-parallel); for a dense model use "
                         "separate engines, i.e. a smaller rollout_tp, or engine sglang",
                         ToString(p.engine), m.id));
    }
    return;
  }
  if (tp <= 1 || m.heads <= 0 || m.kv_heads <= 0) return;
  YAML::Node at = Reader::Child(n, "rollout_tp");
  if (m.heads % tp != 0) {
    r_.Add(at, "placement.rollout_tp",
           fmt::format("rollout_tp {} does not divide the {} attention heads of {}; expected a divisor of {} "
                       "(or placement.dp_attention: true)",
                       tp, m.heads, m.id, m.heads));
  } else if (m.attention == Attention::kGqa && tp < m.kv_heads && m.kv_heads % tp != 0) {
    r_.Add(at, "placement.rollout_tp",
           fmt::format("rollout_tp {} does not divide the {} KV heads of {}; expected a divisor or a multiple "
                       "of {}",
                       tp, m.kv_heads, m.id, m.kv_heads));
  } else if (m.attention == Attention::kGqa && tp > m.kv_heads && tp % m.kv_heads != 0) {
    r_.Add(at, "placement.rollout_tp",
           fmt::format("rollout_tp {} is not a multiple of the {} KV heads of {}, so they cannot be "
                       "replicated evenly; expected a divisor or a multiple of {}",
                       tp, m.kv_heads, m.id, m.kv_heads));
  }
}

}  // namespace rlcost::scenario_internal
