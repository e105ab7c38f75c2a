// The scenario loader (SCENARIO.md, format version 1): YAML/JSON text ->
// overrides applied to the tree -> one validating pass that fills a Scenario
// and collects every problem with its dotted path and line.
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

namespace rlcost {

double PassRateSpec::mean() const {
  switch (kind) {
    case Kind::kBeta: return a / (a + b);
    case Kind::kHistogram: {
      double m = 0, total = 0;
      for (const auto& [p, w] : histogram) {
        m += p * w;
        total += w;
      }
      return total > 0 ? m / total : 0;
    }
    case Kind::kTasks:
      if (task_pass_rates.empty()) return 0;
      return std::accumulate(task_pass_rates.begin(), task_pass_rates.end(), 0.0) /
             static_cast<double>(task_pass_rates.size());
  }
  return 0;
}

tl::expected<Distribution, std::string> LengthSchedule::At(double mean) const {
  if (kind == DistKind::kFixed && clipped == 0) return Distribution::Fixed(mean);
  std::optional<double> lo = min;
  if (lo && *lo > mean) lo = mean;
  return Distribution::Make(kind, mean, cv, lo, max, clipped);
}

double LengthSchedule::RunMean() const {
  if (mean_per_step.empty()) return 0;
  return std::accumulate(mean_per_step.begin(), mean_per_step.end(), 0.0) /
         static_cast<double>(mean_per_step.size());
}

namespace scenario_internal {

namespace {
std::vector<std::string> SplitPath(const std::string& dotted) {
  std::vector<std::string> keys;
  std::string cur;
  for (char c : dotted) {
    if (c == '.') {
      keys.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  keys.push_back(cur);
  return keys;
}

std::string TrimSpaces(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

// yaml-cpp's handle semantics make `node = node[key]` overwrite the parent, so
// the walk recurses with fresh handles instead.
void SetKeys(YAML::Node node, const std::vector<std::string>& keys, size_t i, const YAML::Node& value) {
  const std::string& k = keys[i];
  if (i + 1 == keys.size()) {
    node[k] = value;
    return;
  }
  YAML::Node child = node[k];
  if (!child.IsDefined() || !child.IsMap()) node[k] = YAML::Node(YAML::NodeType::Map);
  SetKeys(node[k], keys, i + 1, value);
}
}  // namespace

void SetPath(YAML::Node& root, const std::string& dotted_path, const YAML::Node& value) {
  if (!root.IsDefined() || !root.IsMap()) root.reset(YAML::Node(YAML::NodeType::Map));
  SetKeys(root, SplitPath(dotted_path), 0, value);
}

Result<std::vector<Override>> ParseOverrides(const std::vector<std::string>& items) {
  std::vector<Override> out;
  Error err;
  for (const auto& s : items) {
    auto o = ParseOverride(s);
    if (o) {
      out.push_back(std::move(*o));
    } else {
      for (auto& p : o.error().problems) err.problems.push_back(std::move(p));
    }
  }
  if (!err.problems.empty()) return Fail(std::move(err));
  return out;
}

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

std::string JoinIds(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

std::string UnknownId(const std::string& what, const std::string& id, const std::vector<std::string>& known) {
  std::string msg = "unknown " + what + " '" + id + "'";
  std::string guess = ClosestMatch(id, known);
  if (!guess.empty()) msg += "; did you mean '" + guess + "'?";
  msg += known.empty() ? " (the catalog has none)" : "; known: " + JoinIds(known);
  return msg;
}

// Limits a distribution's values must respect (per field).
struct DistRules {
  double min_value = 0;                 // every value drawn is >= this
  std::optional<double> default_min;    // clip applied when `min` is not given
  double max_value = kMaxPlausible;     // every value given (mean, max, sample) is <= this
  std::string_view max_why;             // where max_value comes from
};

// Bounds on what a scenario may ask for, each with its reason (docs/model.md,
// "Loading"). The largest GPU clusters announced hold a few 1e5 GPUs.
constexpr int kMaxGpus = 1'000'000;
constexpr std::string_view kMaxGpusWhy = "more GPUs than any cluster built holds";
// The longest context window announced: 10M tokens (Llama 4 Scout, Meta,
// April 2025); the catalog's models hold 128k-1M.
constexpr DistRules kTokenRules{.max_value = 1e7, .max_why = "tokens: no model's context window holds more"};
// A call longer than 11.6 days is not part of a rollout.
constexpr DistRules kSecondsRules{.max_value = 1e6, .max_why = "seconds: 11.6 days for one call"};
// A sample list keeps every value in memory; a million values describe any
// length distribution to within 0.1% of its quantiles.
constexpr size_t kMaxSamples = 1'000'000;
// An ensemble's votes are combined over all 2^K patterns (EnsembleNoise):
// 12 members = 4096 patterns. Weaver's ensembles have up to 33 verifiers, but
// a cost estimate needs only their error rates; group similar ones.
constexpr size_t kMaxEnsembleMembers = 12;
constexpr size_t kMaxRubricItems = 64;

class Loader {
 public:
  Loader(const Catalog& catalog, Reader& r, std::string base_dir)
      : catalog_(catalog), r_(r), base_dir_(std::move(base_dir)) {}

  Scenario Load(const YAML::Node& root) {
    Scenario s;
    r_.CheckKeys(root, "", {"name", "model", "hardware", "placement", "environment", "algorithm", "precision",
                            "pipeline", "goal", "run", "expect", "framework", "engine", "energy"});
    r_.String(root, "name", "", s.name);
    ReadModel(root, s);
    bool gpu_ok = ReadHardware(root, s);
    ReadPlacement(root, s);
    ReadEnvironment(root, s.environment);
    CheckTrainPadding(root, s);
    ReadAlgorithm(root, s.algorithm);
    ReadResponseSchedule(root, s);  // needs algorithm.steps
    ReadRun(root, s);               // evaluation defaults to the environment's lengths
    ReadPrecision(root, s.precision, gpu_ok ? &s.hardware.gpu : nullptr);
    ReadPipeline(root, s.pipeline);
    model_id_ = s.model_id;  // a named curve says when it was measured on another model
    ReadGoal(root, s.goal);
    ReadExpect(root, s);
    ReadLeverSections(r_, root, s);  // engine, energy (spec/lever_spec.cc)
    return s;
  }

 private:
  // Padding to the maximum length needs the maxima it pads to; a multi-turn
  // trajectory's padded shape (veRL's agent loop pads its whole response span)
  // is not priced yet.
  void CheckTrainPadding(const YAML::Node& root, const Scenario& s) {
    if (s.placement.train_padding != TrainPadding::kMaxLength) return;
    YAML::Node at = Reader::Child(Reader::Child(root, "placement"), "train_padding");
    const auto& env = s.environment;
    if (!std::isfinite(env.prompt_tokens.max()) || !std::isfinite(env.response_tokens.max())) {
      r_.Add(at, "placement.train_padding",
             "max-length pads every sequence to the maximum prompt + response length; expected "
             "environment.prompt_tokens.max and environment.response_tokens.max (veRL's data.max_prompt_length and "
             "data.max_response_length)");
    } else if (env.turns.max() > 1.0) {
      r_.Add(at, "placement.train_padding",
             "max-length is not yet priced for multi-turn trajectories (environment.turns above 1); use packed");
    }
  }

  std::string Resolve(const std::string& rel) const {
    std::filesystem::path p(rel);
    if (p.is_absolute() || base_dir_.empty()) return p.lexically_normal().string();
    return (std::filesystem::path(base_dir_) / p).lexically_normal().string();
  }

  // Reports a missing or unreadable file at `path`; true when it can be read.
  bool CheckReadable(const YAML::Node& at, const std::string& path, const std::string& rel,
                     const std::string& resolved, bool folder_ok = false) {
    if (base_dir_ == kNoFileAccess) {
      r_.Add(at, path, "names the file '" + rel + "', but files cannot be read here; give the data inline");
      return false;
    }
    std::error_code ec;
    if (!std::filesystem::exists(resolved, ec)) {
      r_.Add(at, path, "file '" + rel + "' not found (looked for " + resolved + ")");
      return false;
    }
    if (folder_ok && std::filesystem::is_directory(resolved, ec)) return true;  // its config.json, read bounded
    if (!std::filesystem::is_regular_file(resolved, ec)) {
      r_.Add(at, path, "cannot read file '" + rel + "' (" + resolved + "): not a regular file");
      return false;
    }
    if (::access(resolved.c_str(), R_OK) != 0) {
      r_.Add(at, path, "cannot read file '" + rel + "' (" + resolved + ")");
      return false;
    }
    return true;
  }

  // Reads the CSV named by the scalar `file_n` (relative to the scenario);
  // reports a missing, unreadable or malformed file at `path`. `resolved_out`
  // receives the resolved path.
  std::optional<CsvTable> ReadCsvField(const YAML::Node& file_n, const std::string& path,
                                       std::string* resolved_out, std::string* rel_out) {
    auto rel = r_.AsString(file_n, path);
    if (!rel) return std::nullopt;
    std::string resolved = Resolve(*rel);
    if (!CheckReadable(file_n, path, *rel, resolved)) return std::nullopt;
    auto t = ReadCsv(resolved);
    if (!t) {
      r_.Add(file_n, path, t.error());
      return std::nullopt;
    }
    *resolved_out = resolved;
    *rel_out = *rel;
    return std::move(*t);
  }

  void ReadModel(const YAML::Node& root, Scenario& s) {
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
  void ReadHfModel(const YAML::Node& n, Scenario& s) {
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

  bool ReadHardware(const YAML::Node& root, Scenario& s) {
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

  void ReadPlacement(const YAML::Node& root, Scenario& s) {
    PlacementSpec& p = s.placement;
    const int gpus = s.hardware.gpus;
    YAML::Node n = Reader::Child(root, "placement");
    r_.CheckKeys(n, "placement", {"mode", "rollout_gpus", "train_gpus", "rollout_tp", "engine", "dp_attention",
                                  "gpu_memory_utilization",
                                  "train_tp", "train_cp", "train_pp", "train_ep", "train_micro_batch_tokens",
                                  "weight_sync", "offload", "engine_sleep_level", "refit_offload",
                                  "gradient_checkpointing", "resplit", "train_padding", "train_shard_gpus"});
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
  void ReadTrainLayout(const YAML::Node& n, Scenario& s) {
    PlacementSpec& p = s.placement;
    bool ok = true;
    for (auto [key, field] : {std::pair{"train_tp", &p.train_tp}, std::pair{"train_cp", &p.train_cp},
                              std::pair{"train_pp", &p.train_pp}, std::pair{"train_ep", &p.train_ep},
                              std::pair{"train_micro_batch_tokens", &p.train_micro_batch_tokens}}) {
      bool given = Reader::Child(n, key).IsDefined();
      if (given && !r_.Int(n, key, "placement", *field, 1)) ok = false;
    }
    if (!ok || p.train_gpus < 1) return;
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
  void CheckTpAgainstModel(const YAML::Node& n, const Scenario& s) {
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

  bool CheckDistMax(const YAML::Node& at, const std::string& path, double v, const DistRules& rules) {
    if (v <= rules.max_value) return true;
    r_.Add(at, path, fmt::format("{} is out of range; expected at most {}{}", Num(v), Num(rules.max_value),
                                 rules.max_why.empty() ? std::string() : " (" + std::string(rules.max_why) + ")"));
    return false;
  }

  void ReadDist(const YAML::Node& map, std::string_view key, const std::string& parent, Distribution& out,
                const DistRules& rules = {}) {
    YAML::Node n = Reader::Child(map, key);
    if (!n.IsDefined()) return;
    const std::string path = Join(parent, key);
    if (n.IsScalar()) {
      auto v = r_.AsNumber(n, path);
      if (!v) return;
      if (*v < rules.min_value) {
        r_.Add(n, path, fmt::format("{} is out of range; expected a number >= {} or a distribution mapping", Num(*v),
                                    Num(rules.min_value)));
        return;
      }
      if (!CheckDistMax(n, path, *v, rules)) return;
      out = Distribution::Fixed(*v);
      return;
    }
    if (!n.IsMap()) {
      r_.Add(n, path, "expected a number or a distribution mapping {mean, cv, max, min, dist, clipped}, got " + Describe(n));
      return;
    }
    r_.CheckKeys(n, path, {"mean", "cv", "min", "max", "dist", "samples", "file", "clipped"});
    YAML::Node samples_n = Reader::Child(n, "samples"), file_n = Reader::Child(n, "file");
    if (samples_n.IsDefined() || file_n.IsDefined()) {
      ReadEmpirical(n, path, samples_n, file_n, out, rules);
      return;
    }
    YAML::Node mean_n = Reader::Child(n, "mean");
    if (!mean_n.IsDefined()) {
      r_.Add(n, Join(path, "mean"), "missing; a distribution mapping needs 'mean' (or 'samples' / 'file')");
      return;
    }
    DistKind kind = DistKind::kLognormal;
    bool ok = true;
    if (YAML::Node d = Reader::Child(n, "dist"); d.IsDefined()) {
      auto s = r_.AsString(d, Join(path, "dist"));
      auto k = s ? DistKindFromString(*s) : std::nullopt;
      if (s && (!k || *k == DistKind::kEmpirical)) {
        r_.Add(d, Join(path, "dist"),
               "unknown value '" + *s + "'; expected lognormal | normal | exponential | uniform | fixed");
      }
      if (!k || *k == DistKind::kEmpirical) ok = false; else kind = *k;
    }
    double mean = 0, cv = 0;
    double min_v = -1, max_v = -1;
    ok = r_.Double(n, "mean", path, mean, {.min = rules.min_value}) && ok;
    if (ok) ok = CheckDistMax(Reader::Child(n, "mean"), Join(path, "mean"), mean, rules);
    const bool has_cv = Reader::Child(n, "cv").IsDefined();
    // A cv above 100 is a spread no length or latency shows; it also keeps
    // the shape's logs and squares finite.
    if (has_cv) ok = r_.Double(n, "cv", path, cv, {.min = 0.0, .max = 100.0}) && ok;
    bool has_min = Reader::Child(n, "min").IsDefined(), has_max = Reader::Child(n, "max").IsDefined();
    if (has_min) ok = r_.Double(n, "min", path, min_v, {.min = 0.0}) && ok;
    if (has_max) ok = r_.Double(n, "max", path, max_v, {.min = 0.0}) && ok;
    if (has_max && ok) ok = CheckDistMax(Reader::Child(n, "max"), Join(path, "max"), max_v, rules);
    // `clipped`: the share of draws that stop exactly at max (docs/model.md,
    // "Responses clipped at the maximum length").
    double clipped = 0;
    const YAML::Node clipped_n = Reader::Child(n, "clipped");
    if (clipped_n.IsDefined()) {
      auto v = r_.AsNumber(clipped_n, Join(path, "clipped"));
      if (!v) {
        ok = false;
      } else if (!(*v >= 0 && *v < 1)) {
        r_.Add(clipped_n, Join(path, "clipped"),
               fmt::format("{} is out of range; expected the share of draws at max, in [0, 1)", Num(*v)));
        ok = false;
      } else if (!has_max) {
        r_.Add(clipped_n, Join(path, "clipped"),
               fmt::format("{} needs 'max' (the length the clipped draws stop at); add max", Num(*v)));
        ok = false;
      } else {
        clipped = *v;
      }
    }
    if (!ok) return;
    // `cv` would be dropped without a word: a fixed value has none, an
    // exponential's is 1 by definition.
    if (has_cv && kind == DistKind::kFixed && cv != 0) {
      r_.Add(Reader::Child(n, "cv"), Join(path, "cv"),
             fmt::format("{} is not used with dist: fixed (a fixed value has no spread); remove cv or choose "
                         "lognormal | normal | uniform",
                         Num(cv)));
      return;
    }
    if (has_cv && kind == DistKind::kExponential && cv != 1) {
      r_.Add(Reader::Child(n, "cv"), Join(path, "cv"),
             fmt::format("{} is not used with dist: exponential (its cv is 1 by definition); remove cv or choose "
                         "lognormal | normal | uniform",
                         Num(cv)));
      return;
    }
    if (has_max && max_v < mean) {
      r_.Add(Reader::Child(n, "max"), Join(path, "max"),
             fmt::format("{} is below the mean {}; expected max >= mean (mean is the mean after clipping)", Num(max_v),
                         Num(mean)));
      ok = false;
    }
    if (has_min && min_v > mean) {
      r_.Add(Reader::Child(n, "min"), Join(path, "min"),
             fmt::format("{} is above the mean {}; expected min <= mean (mean is the mean after clipping)", Num(min_v),
                         Num(mean)));
      ok = false;
    }
    if (!ok) return;
    std::optional<double> min_opt = has_min ? std::optional<double>(min_v) : rules.default_min;
    if (min_opt && has_max && *min_opt > max_v) min_opt = max_v;
    if (min_opt && *min_opt > mean) min_opt = mean;
    auto d = Distribution::Make(kind, mean, cv, min_opt, has_max ? std::optional<double>(max_v) : std::nullopt,
                                clipped);
    if (!d) {
      r_.Add(clipped > 0 ? clipped_n : n, clipped > 0 ? Join(path, "clipped") : path, d.error());
      return;
    }
    out = *d;
  }

  void ReadEmpirical(const YAML::Node& n, const std::string& path, const YAML::Node& samples_n,
                     const YAML::Node& file_n, Distribution& out, const DistRules& rules) {
    for (const char* k : {"mean", "cv", "min", "max", "dist"}) {
      if (Reader::Child(n, k).IsDefined())
        r_.Add(Reader::Child(n, k), Join(path, k), "not used with 'samples' or 'file' (the data set the distribution)");
    }
    if (Reader::Child(n, "clipped").IsDefined())
      r_.Add(Reader::Child(n, "clipped"), Join(path, "clipped"),
             "not used with 'samples' or 'file': the share at the maximum length is already in the data");
    if (samples_n.IsDefined() && file_n.IsDefined()) {
      r_.Add(n, path, "give either 'samples' or 'file', not both");
      return;
    }
    std::vector<double> values;
    bool ok = true;
    if (samples_n.IsDefined()) {
      const std::string sp = Join(path, "samples");
      if (!samples_n.IsSequence() || samples_n.size() == 0) {
        r_.Add(samples_n, sp, "expected a non-empty list of numbers, got " + Describe(samples_n));
        return;
      }
      if (samples_n.size() > kMaxSamples) {
        r_.Add(samples_n, sp, fmt::format("{} values; expected at most {} (a million samples fix any quantile to "
                                          "0.1%; more only cost memory)",
                                          samples_n.size(), kMaxSamples));
        return;
      }
      for (size_t i = 0; i < samples_n.size(); ++i) {
        std::string ip = fmt::format("{}[{}]", sp, i);
        auto v = r_.AsNumber(samples_n[i], ip);
        if (!v) { ok = false; continue; }
        if (*v < rules.min_value) {
          r_.Add(samples_n[i], ip, fmt::format("{} is out of range; expected a number >= {}", Num(*v),
                                               Num(rules.min_value)));
          ok = false;
          continue;
        }
        if (!CheckDistMax(samples_n[i], ip, *v, rules)) { ok = false; continue; }
        values.push_back(*v);
      }
    } else {
      const std::string fp = Join(path, "file");
      std::string resolved, rel_name;
      auto t = ReadCsvField(file_n, fp, &resolved, &rel_name);
      if (!t) return;
      const std::string* rel = &rel_name;
      size_t cols = t->header.empty() ? (t->rows.empty() ? 1 : t->rows[0].size()) : t->header.size();
      if (cols != 1) {
        r_.Add(file_n, fp, fmt::format("'{}' has {} columns; expected one number per line", *rel, cols));
        return;
      }
      for (size_t i = 0; i < t->rows.size(); ++i) {
        double v = 0;
        const std::string& cell = t->rows[i].empty() ? std::string() : t->rows[i][0];
        if (t->rows[i].size() != 1 || !ParseNumber(cell, v) || v < rules.min_value || v > rules.max_value) {
          r_.AddAtLine(t->lines[i], fp,
                       fmt::format("'{}' is not a number in [{}, {}]", cell, Num(rules.min_value), Num(rules.max_value)),
                       resolved);
          ok = false;
          continue;
        }
        values.push_back(v);
      }
      if (values.size() > kMaxSamples) {
        r_.Add(file_n, fp, fmt::format("'{}' holds {} values; expected at most {}", *rel, values.size(), kMaxSamples));
        return;
      }
      if (values.empty() && ok) {
        r_.Add(file_n, fp, "'" + *rel + "' holds no values");
        return;
      }
    }
    if (!ok) return;
    auto d = Distribution::Empirical(std::move(values));
    if (!d) {
      r_.Add(n, path, d.error());
      return;
    }
    out = *d;
  }

  void ReadEnvironment(const YAML::Node& root, EnvironmentSpec& e) {
    const std::string path = "environment";
    YAML::Node n = Reader::Child(root, "environment");
    if (!r_.CheckKeys(n, path, {"name", "turns", "prompt_tokens", "response_tokens", "tool_output_tokens",
                                "tool_latency_s", "sandbox", "reward", "failures", "pass_rate", "response_tokens_schedule"}))
      return;
    r_.String(n, "name", path, e.name);
    // A trajectory has at least one model turn: turns >= 1, clipped at 1 from below.
    // 1e4 turns: every turn holds at least one generated token plus its
    // prompt, so more would not fit any context window with room to spare.
    ReadDist(n, "turns", path, e.turns,
             {.min_value = 1, .default_min = 1.0, .max_value = 1e4, .max_why = "model turns per trajectory"});
    ReadDist(n, "prompt_tokens", path, e.prompt_tokens, kTokenRules);
    ReadDist(n, "response_tokens", path, e.response_tokens, kTokenRules);
    // Every rate per generated token divides by this mean.
    if (YAML::Node rt = Reader::Child(n, "response_tokens"); rt.IsDefined() && !(e.response_tokens.mean() > 0)) {
      r_.Add(rt, Join(path, "response_tokens"),
             "a mean of 0 tokens; expected a mean > 0 (a rollout generates at least one token)");
    }
    ReadDist(n, "tool_output_tokens", path, e.tool_output_tokens, kTokenRules);
    ReadDist(n, "tool_latency_s", path, e.tool_latency_s, kSecondsRules);

    if (YAML::Node sb = Reader::Child(n, "sandbox"); sb.IsDefined()) {
      const std::string sp = "environment.sandbox";
      if (r_.CheckKeys(sb, sp, {"cpus_per_rollout", "startup_s", "price_per_cpu_hour", "max_concurrent"})) {
        SandboxSpec box;
        r_.Double(sb, "cpus_per_rollout", sp, box.cpus_per_rollout, fields::kNonNegative);
        r_.Double(sb, "startup_s", sp, box.startup_s, fields::kNonNegative);
        r_.Double(sb, "price_per_cpu_hour", sp, box.price_per_cpu_hour, fields::kPricePerHour);
        r_.Int(sb, "max_concurrent", sp, box.max_concurrent, fields::kMaxConcurrent.min, fields::kMaxConcurrent.max);
        e.sandbox = box;
      }
    }

    if (YAML::Node rw = Reader::Child(n, "reward"); rw.IsDefined()) {
      const std::string rp = "environment.reward";
      if (r_.CheckKeys(rw, rp, {"type", "credited_steps", "verify_s", "noise", "verifier", "rubric"})) {
        r_.Enum(rw, "type", rp, e.reward.type, &RewardTypeFromString, AcceptedNames<RewardType>());
        r_.Int(rw, "credited_steps", rp, e.reward.credited_steps, 1);
        ReadDist(rw, "verify_s", rp, e.reward.verify_s, kSecondsRules);
        ReadRewardNoise(rw, e.reward.noise);
        ReadVerifier(rw, e);
        ReadRubric(rw, e.reward);
      }
    }
    ReadEnvFailures(n, e.failures);
    ReadPassRate(n, e.pass_rate);
    CombineEnsemble(n, e);
  }

  // environment.reward.verifier: {kind, model, input_tokens, output_tokens,
  // calls_per_rollout, gpus: shared | N}; the model is a catalog id. kind
  // ensemble: {kind: ensemble, aggregation, members: [verifier + noise, ...]}.
  void ReadVerifier(const YAML::Node& reward, EnvironmentSpec& e) {
    const std::string path = "environment.reward.verifier";
    YAML::Node n = Reader::Child(reward, "verifier");
    if (!n.IsDefined()) return;
    auto& v = e.reward.verifier;
    if (n.IsScalar()) {  // `verifier: rule`
      if (!r_.Enum(reward, "verifier", "environment.reward", v.kind, &VerifierKindFromString,
                   AcceptedNames<VerifierKind>()))
        return;
      if (v.kind == VerifierKind::kEnsemble) {
        r_.Add(n, path, "'ensemble' needs its members; expected {kind: ensemble, members: [{kind: ..., noise: "
                        "{false_positive: ..., false_negative: ...}}, ...]}");
        return;
      }
    } else if (Reader::Child(n, "kind").IsDefined() && Reader::Child(n, "kind").IsScalar() &&
               Reader::Child(n, "kind").Scalar() == "ensemble") {
      v.kind = VerifierKind::kEnsemble;
      ReadEnsemble(n, path, e);
      return;
    }
    ReadOneVerifier(n, path, v, e, /*member=*/false);
  }

  // One verifier (the reward's, or an ensemble's member at `path`).
  void ReadOneVerifier(const YAML::Node& n, const std::string& path, RewardSpec::Verifier& v,
                       const EnvironmentSpec& e, bool member) {
    if (n.IsMap()) {
      std::vector<std::string> keys = {"kind", "model", "input_tokens", "output_tokens", "calls_per_rollout", "gpus"};
      if (member) keys.push_back("noise");
      if (!r_.CheckKeys(n, path, keys)) return;
      if (!Reader::Child(n, "kind").IsDefined()) {
        r_.Add(n, Join(path, "kind"), "missing; expected " + AcceptedNames<VerifierKind>());
        return;
      }
      if (!r_.Enum(n, "kind", path, v.kind, &VerifierKindFromString, AcceptedNames<VerifierKind>())) return;
      if (member && v.kind == VerifierKind::kEnsemble) {
        r_.Add(Reader::Child(n, "kind"), Join(path, "kind"),
               "an ensemble cannot be a member of an ensemble; expected rule, tests, llm-judge or reward-model");
        return;
      }
      if (member) ReadNoise(n, Join(path, "noise"), v.noise);
    } else if (member) {
      r_.Add(n, path, "expected a mapping {kind: ..., noise: {false_positive: ..., false_negative: ...}}");
      return;
    }
    const bool on_gpu = v.kind == VerifierKind::kLlmJudge || v.kind == VerifierKind::kRewardModel;
    if (!on_gpu) {
      for (const char* k : {"model", "input_tokens", "output_tokens", "calls_per_rollout", "gpus"}) {
        if (n.IsMap() && Reader::Child(n, k).IsDefined())
          r_.Add(Reader::Child(n, k), Join(path, k),
                 fmt::format("only used by kind llm-judge or reward-model (this verifier is '{}')", ToString(v.kind)));
      }
      if (v.kind == VerifierKind::kTests && !e.sandbox)
        r_.Add(n, Join(path, "kind"),
               "tests run in the trajectory's sandbox; expected an environment.sandbox block");
      return;
    }
    if (!n.IsMap()) {
      r_.Add(n, path, fmt::format("'{}' needs a model; expected {{kind: {}, model: <catalog id>, ...}}",
                                  ToString(v.kind), ToString(v.kind)));
      return;
    }
    YAML::Node m = Reader::Child(n, "model");
    if (!m.IsDefined()) {
      r_.Add(n, Join(path, "model"), "missing; expected a catalog model id (" + JoinIds(catalog_.ModelIds()) + ")");
    } else if (auto id = r_.AsString(m, Join(path, "model"))) {
      if (const ModelSpec* spec = catalog_.FindModel(*id)) {
        v.model = *spec;
        v.model_id = *id;
      } else {
        r_.Add(m, Join(path, "model"), UnknownId("model", *id, catalog_.ModelIds()));
      }
    }
    r_.Double(n, "input_tokens", path, v.input_tokens, {.min = 0.0});
    r_.Double(n, "calls_per_rollout", path, v.calls_per_rollout, {.min = 0.0, .min_exclusive = true});
    if (v.kind == VerifierKind::kLlmJudge) {
      if (!Reader::Child(n, "output_tokens").IsDefined())
        r_.Add(n, Join(path, "output_tokens"), "missing; expected the tokens an llm-judge writes per call (>= 1)");
      r_.Double(n, "output_tokens", path, v.output_tokens, {.min = 1.0});
    } else if (Reader::Child(n, "output_tokens").IsDefined()) {
      r_.Double(n, "output_tokens", path, v.output_tokens, {.min = 0.0, .max = 0.0});
    }
    if (YAML::Node g = Reader::Child(n, "gpus"); g.IsDefined()) {
      if (g.IsScalar() && g.Scalar() == "shared") {
        v.gpus = 0;
      } else if (auto k = r_.AsInt(g, Join(path, "gpus")); k && (*k < 1 || *k > 1'000'000)) {
        r_.Add(g, Join(path, "gpus"), fmt::format("{}; expected 'shared' or a number of GPUs >= 1", *k));
      } else if (k) {
        v.gpus = static_cast<int>(*k);
      }
    }
  }

  // {kind: ensemble, aggregation: weighted | majority, members: [...]}: 2 to
  // kMaxEnsembleMembers members, each with its own noise.
  void ReadEnsemble(const YAML::Node& n, const std::string& path, EnvironmentSpec& e) {
    auto& out = e.reward.verifier;
    if (!r_.CheckKeys(n, path, {"kind", "aggregation", "members"})) return;
    if (YAML::Node a = Reader::Child(n, "aggregation"); a.IsDefined()) {
      if (auto name = r_.AsString(a, Join(path, "aggregation"))) {
        if (*name == "weighted") {
          out.aggregation = RewardSpec::Aggregation::kWeighted;
        } else if (*name == "majority") {
          out.aggregation = RewardSpec::Aggregation::kMajority;
        } else {
          r_.Add(a, Join(path, "aggregation"), "unknown value '" + *name + "'; expected weighted or majority");
        }
      }
    }
    const std::string mp = Join(path, "members");
    YAML::Node ms = Reader::Child(n, "members");
    if (!ms.IsDefined()) {
      r_.Add(n, mp, "missing; expected a list of 2 or more verifiers, each with its noise");
      return;
    }
    if (!ms.IsSequence() || ms.size() < 2 || ms.size() > kMaxEnsembleMembers) {
      r_.Add(ms, mp,
             fmt::format("{}; expected a list of 2 to {} verifiers",
                         ms.IsSequence() ? fmt::format("{} member{}", ms.size(), ms.size() == 1 ? "" : "s")
                                         : std::string("not a list"),
                         kMaxEnsembleMembers));
      return;
    }
    for (size_t i = 0; i < ms.size(); ++i) {
      RewardSpec::Verifier member;
      ReadOneVerifier(ms[i], fmt::format("{}[{}]", mp, i), member, e, /*member=*/true);
      out.members.push_back(std::move(member));
    }
  }

  // environment.reward.rubric: [{name, weight, kind: llm-judge | rule, output_tokens, pass_rate}, ...].
  void ReadRubric(const YAML::Node& reward, RewardSpec& rw) {
    const std::string path = "environment.reward.rubric";
    YAML::Node n = Reader::Child(reward, "rubric");
    if (!n.IsDefined()) return;
    if (!n.IsSequence() || n.size() == 0) {
      r_.Add(n, path, "expected a list of criteria [{name, weight, kind: llm-judge | rule}, ...]");
      return;
    }
    if (n.size() > kMaxRubricItems) {
      r_.Add(n, path, fmt::format("{} criteria; expected at most {}", n.size(), kMaxRubricItems));
      return;
    }
    const size_t before = r_.problems().size();
    double sum = 0;
    for (size_t i = 0; i < n.size(); ++i) {
      const std::string ip = fmt::format("{}[{}]", path, i);
      YAML::Node item = n[i];
      if (!r_.CheckKeys(item, ip, {"name", "weight", "kind", "output_tokens", "pass_rate"})) continue;
      RewardSpec::RubricItem it;
      it.name = fmt::format("criterion {}", i + 1);
      r_.String(item, "name", ip, it.name);
      if (!Reader::Child(item, "weight").IsDefined()) {
        r_.Add(item, Join(ip, "weight"), "missing; expected the criterion's weight in the reward (a number)");
      } else {
        r_.Double(item, "weight", ip, it.weight, {.min = -kMaxPlausible, .max = kMaxPlausible});
      }
      if (YAML::Node k = Reader::Child(item, "kind"); k.IsDefined()) {
        if (auto kind = r_.AsString(k, Join(ip, "kind"))) {
          if (*kind == "llm-judge") {
            it.judged = true;
          } else if (*kind == "rule") {
            it.judged = false;
          } else {
            r_.Add(k, Join(ip, "kind"), "unknown value '" + *kind + "'; expected llm-judge or rule");
          }
        }
      }
      if (it.judged && rw.verifier.kind != VerifierKind::kLlmJudge) {
        r_.Add(item, Join(ip, "kind"),
               fmt::format("an llm-judge criterion is judged by environment.reward.verifier, which is '{}'; "
                           "expected a verifier {{kind: llm-judge, model: ...}} or kind: rule here",
                           ToString(rw.verifier.kind)));
      }
      if (Reader::Child(item, "output_tokens").IsDefined()) {
        if (!it.judged)
          r_.Add(Reader::Child(item, "output_tokens"), Join(ip, "output_tokens"),
                 "only used by kind llm-judge (this criterion is a rule)");
        else
          r_.Double(item, "output_tokens", ip, it.output_tokens, {.min = 1.0});
      }
      if (Reader::Child(item, "pass_rate").IsDefined()) {
        double pr = 0;
        if (r_.Double(item, "pass_rate", ip, pr, {.min = 0.0, .max = 1.0})) it.pass_rate = pr;
      }
      sum += it.weight;
      rw.rubric.push_back(std::move(it));
    }
    if (r_.problems().size() == before && !(sum > 0)) {
      std::string terms;
      for (const auto& it : rw.rubric) terms += (terms.empty() ? "" : " + ") + Num(it.weight);
      r_.Add(n, path,
             fmt::format("weights sum to {} = {}; expected a positive sum (the reward is the weighted sum of the "
                         "criteria, normalised by it)",
                         terms, Num(sum)));
    }
  }

  // A noise block {false_positive, false_negative} at `path`: each in [0, 1)
  // and fp + fn < 1 (at fp + fn = 1 the reward says nothing about the outcome).
  void ReadNoise(const YAML::Node& parent, const std::string& path, RewardSpec::Noise& noise) {
    YAML::Node n = Reader::Child(parent, "noise");
    if (!n.IsDefined() || !r_.CheckKeys(n, path, {"false_positive", "false_negative"})) return;
    const Range rate{.min = 0.0, .max = 1.0, .max_exclusive = true};
    const size_t before = r_.problems().size();  // an absent rate stays 0
    r_.Double(n, "false_positive", path, noise.false_positive, rate);
    r_.Double(n, "false_negative", path, noise.false_negative, rate);
    if (r_.problems().size() == before && noise.false_positive + noise.false_negative >= 1) {
      r_.Add(n, path,
             fmt::format("false_positive + false_negative = {} + {} = {}; expected a sum below 1 (at 1 the "
                         "reward no longer depends on whether the rollout is right)",
                         Num(noise.false_positive), Num(noise.false_negative),
                         Num(noise.false_positive + noise.false_negative)));
    }
  }

  // environment.reward.noise.
  void ReadRewardNoise(const YAML::Node& reward, RewardSpec::Noise& noise) {
    ReadNoise(reward, "environment.reward.noise", noise);
  }

  // An ensemble's error rates follow from its members': they fill
  // environment.reward.noise (which must then be absent). Needs the pass rate
  // (the weighted vote's prior), so runs after it is read.
  void CombineEnsemble(const YAML::Node& env, EnvironmentSpec& e) {
    auto& v = e.reward.verifier;
    if (v.kind != VerifierKind::kEnsemble || v.members.size() < 2) return;
    YAML::Node rw = Reader::Child(env, "reward");
    if (YAML::Node noise = Reader::Child(rw, "noise"); noise.IsDefined()) {
      r_.Add(noise, "environment.reward.noise",
             "an ensemble's error rates follow from its members' (environment.reward.verifier.members[i].noise); "
             "expected no environment.reward.noise beside an ensemble");
      return;
    }
    const double prior = e.pass_rate.mean();
    e.reward.noise = EnsembleNoise(v, prior);
    if (!(e.reward.noise.false_positive + e.reward.noise.false_negative < 1)) {
      r_.Add(Reader::Child(Reader::Child(rw, "verifier"), "members"), "environment.reward.verifier.members",
             fmt::format("the members' combined vote has false_positive + false_negative = {} + {} >= 1 (with a "
                         "mean pass rate of {} as the vote's prior); expected members better than chance",
                         Num(e.reward.noise.false_positive), Num(e.reward.noise.false_negative), Num(prior)));
    }
  }

  // environment.failures: {rate, handling: retry | drop}.
  void ReadEnvFailures(const YAML::Node& env, EnvFailureSpec& f) {
    const std::string path = "environment.failures";
    YAML::Node n = Reader::Child(env, "failures");
    if (!n.IsDefined() || !r_.CheckKeys(n, path, {"rate", "handling"})) return;
    if (!Reader::Child(n, "rate").IsDefined())
      r_.Add(n, Join(path, "rate"), "missing; expected the share of trajectories whose environment fails, in [0, 1)");
    r_.Double(n, "rate", path, f.rate, {.min = 0.0, .max = 1.0, .max_exclusive = true});
    if (YAML::Node h = Reader::Child(n, "handling"); h.IsDefined()) {
      if (auto name = r_.AsString(h, Join(path, "handling"))) {
        if (*name == "retry") {
          f.retry = true;
        } else if (*name == "drop") {
          f.retry = false;
        } else {
          r_.Add(h, Join(path, "handling"), "unknown value '" + *name + "'; expected retry or drop");
        }
      }
    }
  }

  void ReadPassRate(const YAML::Node& env, PassRateSpec& pr) {
    const std::string path = "environment.pass_rate";
    YAML::Node n = Reader::Child(env, "pass_rate");
    if (!n.IsDefined()) return;
    if (n.IsScalar()) {  // every task passes with the same probability
      double p = 0;
      if (r_.Double(env, "pass_rate", "environment", p, {.min = 0.0, .max = 1.0})) {
        pr.kind = PassRateSpec::Kind::kHistogram;
        pr.histogram = {{p, 1.0}};
      }
      return;
    }
    if (!r_.CheckKeys(n, path, {"mean", "concentration", "a", "b", "histogram", "file", "samples_per_task"})) return;
    auto has = [&](const char* k) { return Reader::Child(n, k).IsDefined(); };
    int forms = (has("mean") || has("concentration")) + (has("a") || has("b")) + has("histogram") + has("file");
    if (forms > 1) {
      r_.Add(n, path,
             "mixes forms; expected one of {mean, concentration}, {a, b}, {histogram: {...}} or {file: x.csv}");
      return;
    }
    if (has("samples_per_task") && !has("file")) {
      r_.Add(Reader::Child(n, "samples_per_task"), Join(path, "samples_per_task"), "only used with 'file'");
    }
    if (has("a") || has("b")) {
      double a = pr.a, b = pr.b;
      bool ok = true;
      for (const char* k : {"a", "b"}) {
        if (!has(k)) {
          r_.Add(n, Join(path, k), "missing; the {a, b} form needs both Beta parameters");
          ok = false;
        }
      }
      ok = r_.Double(n, "a", path, a, {.min = 0.0, .min_exclusive = true}) && ok;
      ok = r_.Double(n, "b", path, b, {.min = 0.0, .min_exclusive = true}) && ok;
      if (ok) {
        pr.kind = PassRateSpec::Kind::kBeta;
        pr.a = a;
        pr.b = b;
      }
      return;
    }
    if (has("histogram")) {
      ReadHistogram(Reader::Child(n, "histogram"), Join(path, "histogram"), pr);
      return;
    }
    if (has("file")) {
      ReadPassRateFile(n, path, pr);
      return;
    }
    // {mean, concentration}: Beta(mean * c, (1 - mean) * c). Defaults 0.35 and 2.
    double mean = fields::kDefaultPassRateMean, conc = fields::kDefaultConcentration;
    bool ok = true;
    if (has("mean")) ok = r_.Double(n, "mean", path, mean, fields::kPassRateMean) && ok;
    if (has("concentration")) ok = r_.Double(n, "concentration", path, conc, fields::kConcentration) && ok;
    if (ok) fields::SetBetaOfMean(pr, mean, conc);
  }

  void ReadHistogram(const YAML::Node& h, const std::string& path, PassRateSpec& pr) {
    if (!h.IsMap() || h.size() == 0) {
      r_.Add(h, path, "expected a mapping of pass rate -> weight, e.g. {0.0: 0.4, 0.5: 0.3, 1.0: 0.3}, got " +
                          Describe(h));
      return;
    }
    std::vector<std::pair<double, double>> bins;
    bool ok = true;
    for (auto it = h.begin(); it != h.end(); ++it) {
      std::string kp = Join(path, it->first.IsScalar() ? it->first.Scalar() : "?");
      double p = 0, w = 0;
      if (!it->first.IsScalar() || !ParseNumber(it->first.Scalar(), p) || p < 0 || p > 1) {
        r_.Add(it->first, kp, "the key " + Describe(it->first) + " is not a pass rate; expected a number in [0, 1]");
        ok = false;
        continue;
      }
      auto wv = r_.AsNumber(it->second, kp);
      if (!wv) { ok = false; continue; }
      w = *wv;
      if (w < 0) {
        r_.Add(it->second, kp, Num(w) + " is out of range; expected a weight >= 0");
        ok = false;
        continue;
      }
      bins.emplace_back(p, w);
    }
    if (!ok) return;
    double total = 0;
    for (const auto& [p, w] : bins) total += w;
    if (!(total > 0)) {
      r_.Add(h, path, "the weights sum to 0; expected a positive total");
      return;
    }
    std::sort(bins.begin(), bins.end());
    pr.kind = PassRateSpec::Kind::kHistogram;
    pr.histogram.clear();
    for (const auto& [p, w] : bins) {
      if (!pr.histogram.empty() && pr.histogram.back().first == p) {
        pr.histogram.back().second += w / total;
      } else {
        pr.histogram.emplace_back(p, w / total);
      }
    }
  }

  void ReadPassRateFile(const YAML::Node& n, const std::string& path, PassRateSpec& pr) {
    YAML::Node file_n = Reader::Child(n, "file");
    const std::string fp = Join(path, "file");
    int declared_n = 0;
    bool has_n = r_.Int(n, "samples_per_task", path, declared_n, 1);
    std::string resolved, rel_name;
    auto t = ReadCsvField(file_n, fp, &resolved, &rel_name);
    if (!t) return;
    const std::string* rel = &rel_name;
    int rate_col = t->Column("pass_rate");
    int succ_col = t->Column("successes"), samp_col = t->Column("samples");
    if (t->header.empty() || (rate_col < 0 && (succ_col < 0 || samp_col < 0))) {
      r_.Add(file_n, fp,
             "'" + *rel + "' needs a header with a 'pass_rate' column, or 'successes' and 'samples' columns");
      return;
    }
    std::vector<double> rates;
    int common_n = -1;  // -1 not seen yet, 0 varies
    bool ok = true;
    for (size_t i = 0; i < t->rows.size(); ++i) {
      const auto& row = t->rows[i];
      auto cell = [&](int c) { return c < static_cast<int>(row.size()) ? row[c] : std::string(); };
      if (rate_col >= 0) {
        double v = 0;
        if (!ParseNumber(cell(rate_col), v) || v < 0 || v > 1) {
          r_.AddAtLine(t->lines[i], fp, "pass_rate '" + cell(rate_col) + "' is not a number in [0, 1]", resolved);
          ok = false;
          continue;
        }
        rates.push_back(v);
      } else {
        double k = 0, m = 0;
        if (!ParseNumber(cell(samp_col), m) || m < 1 || m > 1e9 || m != std::floor(m)) {
          r_.AddAtLine(t->lines[i], fp, "samples '" + cell(samp_col) + "' is not a whole number from 1 to 1e9", resolved);
          ok = false;
          continue;
        }
        if (!ParseNumber(cell(succ_col), k) || k < 0 || k > m || k != std::floor(k)) {
          r_.AddAtLine(t->lines[i], fp,
                       "successes '" + cell(succ_col) + "' is not a whole number in [0, samples = " + Num(m) + "]",
                       resolved);
          ok = false;
          continue;
        }
        rates.push_back(k / m);
        int mi = static_cast<int>(m);
        common_n = common_n == -1 ? mi : (common_n == mi ? mi : 0);
      }
    }
    if (!ok) return;
    if (rates.empty()) {
      r_.Add(file_n, fp, "'" + *rel + "' holds no tasks");
      return;
    }
    pr.kind = PassRateSpec::Kind::kTasks;
    pr.task_pass_rates = std::move(rates);
    pr.file = resolved;
    pr.samples_per_task = has_n ? declared_n : std::max(common_n, 0);
    if (has_n && common_n > 0 && common_n != declared_n) {
      r_.Add(Reader::Child(n, "samples_per_task"), Join(path, "samples_per_task"),
             fmt::format("{} disagrees with the file's samples column ({})", declared_n, common_n));
    }
  }

  // environment.response_tokens_schedule: {start_mean, end_mean} (linear from
  // step 1 to the last step) or {file: lengths.csv} with columns step,mean, one
  // row per step. The shape (dist, cv, min, max) is response_tokens's.
  void ReadResponseSchedule(const YAML::Node& root, Scenario& s) {
    const std::string path = "environment.response_tokens_schedule";
    YAML::Node env = Reader::Child(root, "environment");
    YAML::Node n = env.IsDefined() && env.IsMap() ? Reader::Child(env, "response_tokens_schedule") : YAML::Node();
    if (!n.IsDefined()) return;
    if (!r_.CheckKeys(n, path, {"start_mean", "end_mean", "file"})) return;
    LengthSchedule sched;
    // The shape of environment.response_tokens (already validated by ReadDist).
    YAML::Node rt = Reader::Child(env, "response_tokens");
    if (rt.IsDefined() && rt.IsMap()) {
      if (Reader::Child(rt, "samples").IsDefined() || Reader::Child(rt, "file").IsDefined()) {
        r_.Add(n, path,
               "not supported with an empirical environment.response_tokens (samples/file); expected "
               "response_tokens as {mean, cv, max, dist}, whose shape the schedule keeps");
        return;
      }
      try {
        sched.kind = DistKind::kLognormal;
        if (YAML::Node d = Reader::Child(rt, "dist"); d.IsDefined()) {
          if (auto k = DistKindFromString(d.Scalar())) sched.kind = *k;
        }
        if (YAML::Node c = Reader::Child(rt, "cv"); c.IsDefined()) sched.cv = c.as<double>();
        if (YAML::Node c = Reader::Child(rt, "min"); c.IsDefined()) sched.min = c.as<double>();
        if (YAML::Node c = Reader::Child(rt, "max"); c.IsDefined()) sched.max = c.as<double>();
        if (YAML::Node c = Reader::Child(rt, "clipped"); c.IsDefined()) sched.clipped = c.as<double>();
      } catch (const YAML::Exception&) {
        return;  // response_tokens itself is malformed; ReadDist has reported it
      }
    }
    const int steps = s.algorithm.steps;
    auto check_mean = [&](const YAML::Node& at, const std::string& where, double v, int line,
                          const std::string& file) {
      std::string msg;
      if (!(v > 0)) {
        msg = fmt::format("{} is out of range; expected a mean response length > 0 tokens", Num(v));
      } else if (sched.max && v > *sched.max) {
        msg = fmt::format("{} is above environment.response_tokens.max {}; expected a mean <= max (max is the "
                          "generation limit)", Num(v), Num(*sched.max));
      } else if (sched.min && v < *sched.min) {
        msg = fmt::format("{} is below environment.response_tokens.min {}", Num(v), Num(*sched.min));
      } else if (sched.max && sched.clipped > 0 && sched.clipped < 1) {
        // Each step's mean must leave room for the share at max (`clipped`).
        if (auto d = sched.At(v); !d) msg = d.error();
      }
      if (msg.empty()) return true;
      if (line > 0) r_.AddAtLine(line, where, msg, file); else r_.Add(at, where, msg);
      return false;
    };
    YAML::Node file_n = Reader::Child(n, "file");
    if (file_n.IsDefined()) {
      for (const char* k : {"start_mean", "end_mean"}) {
        if (Reader::Child(n, k).IsDefined())
          r_.Add(Reader::Child(n, k), Join(path, k), "not used with 'file' (the file gives every step's mean)");
      }
      const std::string fp = Join(path, "file");
      std::string resolved, rel;
      auto t = ReadCsvField(file_n, fp, &resolved, &rel);
      if (!t) return;
      int step_col = t->Column("step"), mean_col = t->Column("mean");
      if (t->header.empty() || step_col < 0 || mean_col < 0) {
        r_.Add(file_n, fp, "'" + rel + "' needs a header with 'step' and 'mean' columns (one row per step)");
        return;
      }
      bool ok = true;
      double prev_step = 0;
      for (size_t i = 0; i < t->rows.size(); ++i) {
        const auto& row = t->rows[i];
        auto cell = [&](int c) { return c < static_cast<int>(row.size()) ? row[c] : std::string(); };
        double st = 0, mean = 0;
        if (!ParseNumber(cell(step_col), st) || st < 0 || st != std::floor(st)) {
          r_.AddAtLine(t->lines[i], fp, "step '" + cell(step_col) + "' is not a whole number >= 0", resolved);
          ok = false;
          break;
        }
        if (i == 0 && st > 1) {
          r_.AddAtLine(t->lines[i], fp,
                       fmt::format("the first step is {}; expected the schedule to start at step 0 or 1", Num(st)),
                       resolved);
          ok = false;
          break;
        }
        if (i > 0 && st != prev_step + 1) {
          r_.AddAtLine(t->lines[i], fp,
                       st > prev_step + 1
                           ? fmt::format("gap: step {} follows step {}; expected step {} (one row per step)",
                                         Num(st), Num(prev_step), Num(prev_step + 1))
                           : fmt::format("step {} follows step {}; expected step {} (steps in order, each once)",
                                         Num(st), Num(prev_step), Num(prev_step + 1)),
                       resolved);
          ok = false;
          break;
        }
        prev_step = st;
        if (!ParseNumber(cell(mean_col), mean)) {
          r_.AddAtLine(t->lines[i], fp, "mean '" + cell(mean_col) + "' is not a number", resolved);
          ok = false;
          continue;
        }
        if (!check_mean(file_n, fp, mean, t->lines[i], resolved)) {
          ok = false;
          continue;
        }
        if (static_cast<int>(sched.mean_per_step.size()) < steps) sched.mean_per_step.push_back(mean);
      }
      if (!ok) return;
      if (static_cast<int>(t->rows.size()) < steps) {
        r_.Add(file_n, fp,
               fmt::format("'{}' gives {} steps; expected a row for each of the run's {} steps (algorithm.steps)",
                           rel, t->rows.size(), steps));
        return;
      }
      sched.source = rel;
    } else {
      double start = 0, end = 0;
      bool ok = true;
      for (const char* k : {"start_mean", "end_mean"}) {
        if (!Reader::Child(n, k).IsDefined()) {
          r_.Add(n, Join(path, k), "missing; expected {start_mean, end_mean} (tokens) or {file: lengths.csv}");
          ok = false;
        }
      }
      if (!ok) return;
      ok = r_.Double(n, "start_mean", path, start) && ok;
      ok = r_.Double(n, "end_mean", path, end) && ok;
      if (!ok) return;
      ok = check_mean(Reader::Child(n, "start_mean"), Join(path, "start_mean"), start, 0, "");
      ok = check_mean(Reader::Child(n, "end_mean"), Join(path, "end_mean"), end, 0, "") && ok;
      if (!ok) return;
      sched.mean_per_step.resize(steps);
      for (int i = 0; i < steps; ++i) {
        sched.mean_per_step[i] = steps > 1 ? start + (end - start) * i / (steps - 1.0) : 0.5 * (start + end);
      }
      sched.source = fmt::format("linear {} -> {} tokens", Num(start), Num(end));
    }
    if (sched.mean_per_step.empty()) return;
    auto d = sched.At(sched.RunMean());
    if (!d) {
      r_.Add(n, path, d.error());
      return;
    }
    s.environment.response_tokens = *d;
    s.environment.response_tokens_schedule = std::move(sched);
  }

  // `run`: start-up, checkpoints, evaluation, failures (docs/model.md, "Run-level costs").
  void ReadRun(const YAML::Node& root, Scenario& s) {
    const std::string path = "run";
    YAML::Node n = Reader::Child(root, "run");
    if (!r_.CheckKeys(n, path, {"startup", "checkpoint", "evaluation", "failures"})) return;
    RunSpec& run = s.run;
    // A block may be `false` (off) or `true` (on with the defaults) where that makes sense.
    auto flag = [&](const YAML::Node& b, const std::string& bp) -> std::optional<bool> {
      if (!b.IsScalar()) return std::nullopt;
      bool v = false;
      if (YAML::convert<bool>::decode(b, v)) return v;
      r_.Add(b, bp, "expected true, false or a mapping, got " + Describe(b));
      return false;
    };
    if (YAML::Node b = Reader::Child(n, "startup"); b.IsDefined()) {
      const std::string bp = "run.startup";
      if (auto f = flag(b, bp)) {
        run.startup.enabled = *f;
      } else if (r_.CheckKeys(b, bp, {"storage_read_gb_per_s", "warmup_s"})) {
        r_.Double(b, "storage_read_gb_per_s", bp, run.startup.storage_read_gb_per_s,
                  {.min = 0.0, .min_exclusive = true});
        r_.Double(b, "warmup_s", bp, run.startup.warmup_s, {.min = 0.0});
      }
    }
    auto required_int = [&](const YAML::Node& b, const std::string& bp, const char* key, int& out,
                            const char* what) {
      if (!Reader::Child(b, key).IsDefined()) {
        r_.Add(b, Join(bp, key), std::string("missing; expected ") + what);
        return false;
      }
      return r_.Int(b, key, bp, out, 1);
    };
    if (YAML::Node b = Reader::Child(n, "checkpoint"); b.IsDefined()) {
      const std::string bp = "run.checkpoint";
      auto f = flag(b, bp);
      if (f && *f) {
        r_.Add(b, bp, "true needs the interval; expected a mapping such as {every_steps: 50}");
      } else if (!f && r_.CheckKeys(b, bp, {"every_steps", "storage_write_gb_per_s", "blocking", "optimizer_state"})) {
        CheckpointSpec c;
        bool ok = required_int(b, bp, "every_steps", c.every_steps, "the steps between checkpoints (>= 1)");
        ok = (!Reader::Child(b, "storage_write_gb_per_s").IsDefined() ||
              r_.Double(b, "storage_write_gb_per_s", bp, c.storage_write_gb_per_s,
                        {.min = 0.0, .min_exclusive = true})) && ok;
        r_.Bool(b, "blocking", bp, c.blocking);
        r_.Bool(b, "optimizer_state", bp, c.optimizer_state);
        if (ok) run.checkpoint = c;
      }
    }
    if (YAML::Node b = Reader::Child(n, "evaluation"); b.IsDefined()) {
      const std::string bp = "run.evaluation";
      auto f = flag(b, bp);
      if (f && *f) {
        r_.Add(b, bp, "true needs the workload; expected a mapping such as {every_steps: 50, prompts: 500}");
      } else if (!f && r_.CheckKeys(b, bp, {"every_steps", "prompts", "samples_per_prompt", "prompt_tokens",
                                             "response_tokens"})) {
        EvaluationSpec ev;
        ev.prompt_tokens = s.environment.prompt_tokens;
        ev.response_tokens = s.environment.response_tokens;
        bool ok = required_int(b, bp, "every_steps", ev.every_steps, "the steps between evaluations (>= 1)");
        ok = required_int(b, bp, "prompts", ev.prompts, "the number of evaluation prompts (>= 1)") && ok;
        r_.Int(b, "samples_per_prompt", bp, ev.samples_per_prompt, 1);
        ReadDist(b, "prompt_tokens", bp, ev.prompt_tokens, kTokenRules);
        ReadDist(b, "response_tokens", bp, ev.response_tokens, kTokenRules);
        if (ok) run.evaluation = ev;
      }
    }
    if (YAML::Node b = Reader::Child(n, "failures"); b.IsDefined()) {
      const std::string bp = "run.failures";
      if (auto f = flag(b, bp)) {
        if (*f) run.failures = FailureSpec{};
      } else if (r_.CheckKeys(b, bp, {"interruptions_per_gpu_hour", "detect_s"})) {
        FailureSpec fs;
        r_.Double(b, "interruptions_per_gpu_hour", bp, fs.interruptions_per_gpu_hour, {.min = 0.0});
        r_.Double(b, "detect_s", bp, fs.detect_s, {.min = 0.0});
        run.failures = fs;
      }
    }
  }

  void ReadAlgorithm(const YAML::Node& root, AlgorithmSpec& a) {
    const std::string path = "algorithm";
    YAML::Node n = Reader::Child(root, "algorithm");
    if (!r_.CheckKeys(n, path, {"name", "group_size", "prompts_per_step", "steps", "dynamic_sampling",
                                "reference_model", "recompute_logprobs", "critic", "lora", "gen_batch_prompts",
                                "max_gen_batches", "minibatches", "ppo_epochs"}))
      return;
    r_.Enum(n, "name", path, a.name, &AlgorithmFromString, AcceptedNames<Algorithm>());
    r_.Int(n, "group_size", path, a.group_size, fields::kGroupSize.min, fields::kGroupSize.max);
    r_.Int(n, "prompts_per_step", path, a.prompts_per_step, fields::kPromptsPerStep.min, fields::kPromptsPerStep.max);
    r_.Int(n, "steps", path, a.steps, fields::kSteps.min, fields::kSteps.max);
    r_.Bool(n, "dynamic_sampling", path, a.dynamic_sampling);
    r_.Int(n, "gen_batch_prompts", path, a.gen_batch_prompts, 1);
    r_.Int(n, "max_gen_batches", path, a.max_gen_batches, 0);
    for (const char* key : {"gen_batch_prompts", "max_gen_batches"}) {
      if (!a.dynamic_sampling && Reader::Child(n, key).IsDefined()) {
        YAML::Node v = Reader::Child(n, key);
        r_.Add(v, Join(path, key),
               fmt::format("{} given, but generation rounds apply only with algorithm.dynamic_sampling: true; "
                           "expected dynamic_sampling: true, or leave {} out",
                           v.IsScalar() ? v.Scalar() : std::string("a value"), key));
      }
    }
    // DAPO drops the KL penalty, so it has no reference pass by default
    // (Yu et al. 2025, "DAPO", section 2.3 "Removing KL Divergence").
    a.reference_model = a.name != Algorithm::kDapo;
    r_.Bool(n, "reference_model", path, a.reference_model);
    r_.Bool(n, "recompute_logprobs", path, a.recompute_logprobs);
    // Optimizer steps per RL step (docs/model.md, "Optimizer steps per RL
    // step"): each mini-batch holds whole samples, as veRL's data.split and
    // NeMo RL's global batches do.
    if (r_.Int(n, "minibatches", path, a.minibatches, 1)) {
      const long long samples = static_cast<long long>(a.prompts_per_step) * a.group_size;
      if (samples > 0 && samples % a.minibatches != 0) {
        r_.Add(Reader::Child(n, "minibatches"), Join(path, "minibatches"),
               fmt::format("{} does not divide the step's {} samples (prompts_per_step {} x group_size {}); "
                           "expected a divisor of {}, each optimizer step taking an equal share",
                           a.minibatches, samples, a.prompts_per_step, a.group_size, samples));
      }
    }
    r_.Int(n, "ppo_epochs", path, a.ppo_epochs, 1);
    a.critic = a.name == Algorithm::kPpo;
    r_.Bool(n, "critic", path, a.critic);
    if (a.critic && a.name != Algorithm::kPpo) {
      r_.Add(Reader::Child(n, "critic"), Join(path, "critic"),
             fmt::format("true needs algorithm.name: ppo; {} uses the group's rewards as its baseline, "
                         "not a value model",
                         ToString(a.name)));
    }
    YAML::Node lora = Reader::Child(n, "lora");
    if (lora.IsDefined()) {
      bool enabled = true;
      if (lora.IsScalar() && YAML::convert<bool>::decode(lora, enabled)) {
        if (enabled) a.lora = LoraSpec{};  // `lora: true` = the defaults
        return;
      }
      if (r_.CheckKeys(lora, "algorithm.lora", {"rank", "tenants"})) {
        LoraSpec l;
        r_.Int(lora, "rank", "algorithm.lora", l.rank, 1);
        r_.Int(lora, "tenants", "algorithm.lora", l.tenants, 1);
        a.lora = l;
      }
    }
  }

  void ReadPrecision(const YAML::Node& root, PrecisionSpec& p, const GpuSpec* gpu) {
    const std::string path = "precision";
    YAML::Node n = Reader::Child(root, "precision");
    if (!r_.CheckKeys(n, path, {"rollout", "kv_cache", "train"})) return;
    r_.Enum(n, "rollout", path, p.rollout, &PrecisionFromString, AcceptedNames<Precision>());
    auto no_fp4 = [](std::string_view s) -> std::optional<Precision> {
      auto v = PrecisionFromString(s);
      if (v == Precision::kFp4) return std::nullopt;
      return v;
    };
    r_.Enum(n, "kv_cache", path, p.kv_cache, +no_fp4, "bf16 | fp8");
    r_.Enum(n, "train", path, p.train, +no_fp4, "bf16 | fp8");
    if (!gpu) return;
    // The KV cache is storage (any GPU can hold fp8 bytes); rollout and train
    // precisions are compute and need the tensor-core support.
    for (auto [key, prec] : {std::pair{"rollout", p.rollout}, std::pair{"train", p.train}}) {
      if (gpu->Supports(prec)) continue;
      std::string supported = "bf16";
      if (gpu->Supports(Precision::kFp8)) supported += " | fp8";
      if (gpu->Supports(Precision::kFp4)) supported += " | fp4";
      YAML::Node at = Reader::Child(n, key);
      r_.Add(at.IsDefined() ? at : n, Join(path, key),
             fmt::format("{} is not supported by {} (it runs {})", ToString(prec), gpu->id, supported));
    }
  }

  void ReadPipeline(const YAML::Node& root, PipelineSpec& p) {
    const std::string path = "pipeline";
    YAML::Node n = Reader::Child(root, "pipeline");
    if (!r_.CheckKeys(n, path, {"mode", "max_staleness", "partial_rollouts", "dispatch", "tail"})) return;
    r_.Enum(n, "mode", path, p.mode, &PipelineModeFromString, AcceptedNames<PipelineMode>());
    r_.Double(n, "max_staleness", path, p.max_staleness, fields::kNonNegative);
    r_.Bool(n, "partial_rollouts", path, p.partial_rollouts);
    r_.Enum(n, "dispatch", path, p.dispatch, &DispatchFromString, AcceptedNames<Dispatch>());
  }

  static bool IsCurveFile(const std::string& v) {
    auto ends = [&](std::string_view e) { return v.size() > e.size() && v.compare(v.size() - e.size(), e.size(), e) == 0; };
    return ends(".yaml") || ends(".yml");
  }

  void ReadGoal(const YAML::Node& root, GoalSpec& g) {
    const std::string path = "goal";
    YAML::Node n = Reader::Child(root, "goal");
    if (!r_.CheckKeys(n, path, {"target_pass_rate", "curve", "b_noise"})) return;
    double target = 0;
    if (r_.Double(n, "target_pass_rate", path, target, fields::kTargetPassRate)) g.target_pass_rate = target;
    double b_noise = 0;
    if (r_.Double(n, "b_noise", path, b_noise, {.min = 0.0, .min_exclusive = true})) g.b_noise = b_noise;
    YAML::Node c = Reader::Child(n, "curve");
    if (c.IsDefined() && c.IsScalar() && IsCurveFile(c.Scalar())) {
      // `goal.curve: FILE.yaml`: a curve written by `rlcost forecast LOG --target T -o FILE` (or by hand), the
      // same keys as the mapping below.
      try {
        c = YAML::LoadFile(c.Scalar());
      } catch (const YAML::Exception& e) {
        r_.Add(c, "goal.curve", fmt::format("\"{}\": cannot read the curve file ({}); expected a YAML file of "
                                            "asymptote, exponent, midpoint_useful_samples", c.Scalar(), e.what()));
        return;
      }
      if (!c.IsMap()) {
        r_.Add(n, "goal.curve", "the curve file is not a mapping; expected asymptote, exponent, midpoint_useful_samples");
        return;
      }
    }
    if (c.IsDefined() && c.IsScalar()) {  // `goal.curve: NAME`: a published fit (catalog/curves.yaml)
      auto preset = scenario_internal::CurveFromPreset(c.Scalar(), model_id_, "goal.curve");
      if (preset) {
        g.curve = *preset;
      } else {
        for (const auto& p : preset.error().problems) r_.Add(c, p.path, p.message);
      }
      return;
    }
    if (r_.CheckKeys(c, "goal.curve",
                     {"asymptote", "exponent", "midpoint_useful_samples", "batch_useful_samples", "source"})) {
      LearningCurveSpec curve;
      const std::string cp = "goal.curve";
      r_.Double(c, "asymptote", cp, curve.asymptote, {.min = 0.0, .min_exclusive = true, .max = 1.0});
      r_.Double(c, "exponent", cp, curve.exponent, {.min = 0.0, .min_exclusive = true});
      r_.Double(c, "midpoint_useful_samples", cp, curve.midpoint_useful_samples, {.min = 0.0, .min_exclusive = true});
      double batch = 0;
      if (r_.Double(c, "batch_useful_samples", cp, batch, {.min = 0.0, .min_exclusive = true})) {
        curve.batch_useful_samples = batch;
      }
      r_.String(c, "source", cp, curve.preset_label);
      g.curve = curve;
    }
  }

  void ReadMetrics(const YAML::Node& m, const std::string& path, std::map<std::string, ExpectedMetric>& out) {
    if (!m.IsDefined()) return;
    if (!m.IsMap()) {
      r_.Add(m, path, "expected a mapping of metric -> {value, tolerance}, got " + Describe(m));
      return;
    }
    for (auto it = m.begin(); it != m.end(); ++it) {
      if (!it->first.IsScalar()) continue;
      const std::string key = it->first.Scalar();
      const std::string kp = Join(path, key);
      if (it->second.IsScalar()) {  // `metric: 92.8` = value with the default tolerance
        ExpectedMetric em;
        if (r_.Double(m, key, path, em.value)) out[key] = em;
        continue;
      }
      if (!r_.CheckKeys(it->second, kp, {"value", "tolerance"})) continue;
      ExpectedMetric em;
      if (!Reader::Child(it->second, "value").IsDefined()) {
        r_.Add(it->second, Join(kp, "value"), "missing; expected the measured figure");
        continue;
      }
      bool ok = r_.Double(it->second, "value", kp, em.value);
      if (ok && em.value == 0) {
        r_.Add(Reader::Child(it->second, "value"), Join(kp, "value"),
               "0 cannot be compared as a ratio; expected a non-zero figure");
        ok = false;
      }
      if (Reader::Child(it->second, "tolerance").IsDefined())
        ok = r_.Double(it->second, "tolerance", kp, em.tolerance, {.min = 0.0}) && ok;
      if (ok) out[key] = em;
    }
  }

  void ReadExpect(const YAML::Node& root, Scenario& s) {
    YAML::Node n = Reader::Child(root, "expect");
    if (!r_.CheckKeys(n, "expect", {"source", "metrics", "relative_to"})) return;
    ExpectSpec e;
    r_.String(n, "source", "expect", e.source);
    ReadMetrics(Reader::Child(n, "metrics"), "expect.metrics", e.metrics);
    YAML::Node rel = Reader::Child(n, "relative_to");
    if (r_.CheckKeys(rel, "expect.relative_to", {"scenario", "metrics"})) {
      YAML::Node sc = Reader::Child(rel, "scenario");
      if (!sc.IsDefined()) {
        r_.Add(rel, "expect.relative_to.scenario", "missing; expected the path of the scenario to compare with");
      } else if (auto p = r_.AsString(sc, "expect.relative_to.scenario")) {
        std::string resolved = Resolve(*p);
        if (CheckReadable(sc, "expect.relative_to.scenario", *p, resolved)) e.relative_scenario = resolved;
      }
      ReadMetrics(Reader::Child(rel, "metrics"), "expect.relative_to.metrics", e.relative_metrics);
    }
    s.expect = std::move(e);
  }

  const Catalog& catalog_;
  Reader& r_;
  std::string base_dir_;
  std::string model_id_;  // for ReadGoal
};

}  // namespace
}  // namespace scenario_internal

Result<Override> ParseOverride(std::string_view key_equals_value) {
  using scenario_internal::TrimSpaces;
  auto bad = [](std::string path, std::string msg) {
    Error e;
    e.code = ErrorCode::kInvalidInput;
    e.problems.push_back(Problem{std::move(path), std::move(msg), 0, "set"});
    return Fail(std::move(e));
  };
  size_t eq = key_equals_value.find('=');
  if (eq == std::string_view::npos) {
    return bad("", "expected key=value (e.g. model=qwen3-32b), got '" + std::string(key_equals_value) + "'");
  }
  Override o{TrimSpaces(key_equals_value.substr(0, eq)), TrimSpaces(key_equals_value.substr(eq + 1))};
  if (o.path.empty() || o.path.front() == '.' || o.path.back() == '.' || o.path.find("..") != std::string::npos) {
    return bad(o.path, "expected a dotted field path such as algorithm.group_size, got '" + o.path + "'");
  }
  if (o.value.empty()) return bad(o.path, "empty value; expected key=value");
  // Parsed to check it (aliases bounded: core/yaml.h); read again when applied.
  if (auto v = LoadYamlValue(o.value, o.path, "set"); !v) return Fail(v.error());
  return o;
}

Result<Scenario> LoadScenarioText(std::string_view text, const Catalog& catalog, const std::string& origin,
                                  const std::string& base_dir, const std::vector<Override>& overrides) {
  // One document per file, and nothing yaml-cpp would loop on (core/yaml.h).
  auto root = LoadOneYamlDocument(text, origin, "a scenario file");
  if (!root) return Fail(root.error());
  return scenario_internal::LoadScenarioNode(*root, catalog, origin, base_dir, overrides);
}

Result<Scenario> scenario_internal::LoadScenarioNode(YAML::Node root, const Catalog& catalog, const std::string& origin,
                                                 const std::string& base_dir,
                                                 const std::vector<Override>& overrides) {
  using namespace scenario_internal;
  Error err;
  err.code = ErrorCode::kInvalidInput;
  std::vector<std::string> override_paths;
  // What aliases may add, for all the --set values together (core/yaml.h):
  // every walk below is then bounded by the size of the text.
  size_t alias_budget = kMaxYamlAliasNodes;
  for (const auto& o : overrides) {
    // Another framework's key (veRL, NeMo RL): name the scenario field instead.
    if (const ingest::ForeignKey* k = ingest::FindForeignKey(o.path)) {
      std::string msg = "not a scenario field; did you mean " + k->scenario_path + " (" + k->tool + "'s " + k->key +
                        (k->how.empty() ? "" : "; " + k->how) + ")?";
      err.problems.push_back(Problem{o.path, std::move(msg), 0, "set"});
      continue;
    }
    // A mapping the flag creates is the flag's, not the file's: an unknown
    // key there is blamed on --set.
    if (root.IsMap()) {
      std::string prefix;
      YAML::Node at = root;
      for (const std::string& key : SplitPath(o.path)) {
        prefix = prefix.empty() ? key : prefix + "." + key;
        if (!at.IsMap() || !Reader::Child(at, key).IsDefined()) {
          if (prefix != o.path) override_paths.push_back(prefix);
          break;
        }
        at.reset(Reader::Child(at, key));  // reset: plain `=` would overwrite the node in the tree
      }
    }
    auto value = LoadYamlValue(o.value, o.path, "set", &alias_budget);
    if (!value) {
      for (auto& p : value.error().problems) err.problems.push_back(std::move(p));
      continue;
    }
    SetPath(root, o.path, *value);
    override_paths.push_back(o.path);
  }
  if (!err.problems.empty()) {
    CapProblems(err.problems);
    return Fail(std::move(err));
  }
  if (!root.IsDefined() || root.IsNull()) {
    err.problems.push_back(
        Problem{"", "empty scenario (no fields from line 1 on); expected a mapping with at least 'model' and 'hardware.gpu'",
                1, origin});
    return Fail(std::move(err));
  }
  if (!root.IsMap()) {
    err.problems.push_back(Problem{"", "expected a mapping of scenario fields at the top level, got " + Describe(root),
                                   LineOf(root), origin});
    return Fail(std::move(err));
  }
  // Text is UTF-8 end to end: a key or value that is not is refused here,
  // with its path, before anything echoes it (a terminal, a JSON error).
  // The first kMaxProblems are reported, the rest counted.
  size_t utf8_more = 0;
  auto add_utf8 = [&](Problem p) {
    if (err.problems.size() < kMaxProblems) {
      err.problems.push_back(std::move(p));
    } else {
      ++utf8_more;
    }
  };
  std::function<void(const YAML::Node&, const std::string&)> check_utf8 = [&](const YAML::Node& n,
                                                                              const std::string& path) {
    auto from_set = [&] {
      for (const auto& o : override_paths) {
        if (path == o || path.rfind(o + ".", 0) == 0) return true;
      }
      return false;
    };
    if (n.IsScalar()) {
      if (std::string why = Utf8Problem(n.Scalar()); !why.empty()) {
        const bool set = from_set();
        add_utf8(Problem{path, set ? why : why + "; save the file as UTF-8", set ? 0 : LineOf(n), set ? "set" : origin});
      }
    } else if (n.IsSequence()) {
      for (size_t i = 0; i < n.size(); ++i) check_utf8(n[i], path + "[" + std::to_string(i) + "]");
    } else if (n.IsMap()) {
      for (const auto& kv : n) {
        const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
        const std::string at = path.empty() ? SanitizeUtf8(key) : path + "." + SanitizeUtf8(key);
        if (std::string why = Utf8Problem(key); !why.empty()) {
          add_utf8(Problem{at, "key " + why + "; save the file as UTF-8", LineOf(kv.first), origin});
        }
        check_utf8(kv.second, at);
      }
    }
  };
  check_utf8(root, "");
  if (utf8_more > 0) err.problems.push_back(MoreProblems(utf8_more));
  if (!err.problems.empty()) return Fail(std::move(err));
  // `framework`: its defaults fill the fields the file and --set left out.
  std::string framework;
  std::vector<FrameworkDefault> framework_defaults;
  ApplyFramework(root, origin, framework, framework_defaults, err.problems);
  if (!err.problems.empty()) return Fail(std::move(err));
  Reader reader(origin);
  reader.SetOverridePaths(override_paths);
  Scenario s;
  try {
    Loader loader(catalog, reader, base_dir);
    s = loader.Load(root);
    s.framework = framework;
    s.framework_defaults = std::move(framework_defaults);
  } catch (const YAML::Exception& e) {  // a yaml-cpp corner the reader did not anticipate
    reader.AddAtLine(e.mark.is_null() ? 0 : e.mark.line + 1, "", "cannot read the scenario: " + e.msg, origin);
  }
  if (!reader.problems().empty()) {
    err.problems = reader.TakeProblems();
    // In file order: the scenario's own lines first, then other files (CSVs, --set).
    std::stable_sort(err.problems.begin(), err.problems.end(), [&](const Problem& a, const Problem& b) {
      int fa = a.file == origin ? 0 : 1, fb = b.file == origin ? 0 : 1;
      if (fa != fb) return fa < fb;
      return fa == 0 && a.line < b.line;
    });
    CapProblems(err.problems);
    return Fail(std::move(err));
  }
  return s;
}

Result<Scenario> LoadScenarioFile(const std::string& path, const Catalog& catalog,
                                  const std::vector<Override>& overrides) {
  auto file = scenario_internal::ReadScenarioFile(path);
  if (!file) return Fail(file.error());
  auto s = LoadScenarioText(file->text, catalog, file->origin, file->base, overrides);
  if (s) s->source_path = path;
  return s;
}

Result<Scenario> DefaultScenario(const Catalog& catalog, const std::vector<Override>& overrides) {
  auto text = EmbeddedFile("default.yaml");
  if (!text) return Fail(ErrorCode::kInternal, "", "the built-in default scenario is not embedded");
  return LoadScenarioText(*text, catalog, "default.yaml", ".", overrides);
}

}  // namespace rlcost
