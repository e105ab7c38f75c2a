// The scenario loader's reader class, shared by the files that read each
// section (load_model.cc, load_distributions.cc, load_environment.cc,
// load_run.cc; scenario.cc holds Load and the file helpers). Private to
// src/scenario.
#pragma once

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
#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

constexpr double kInf = std::numeric_limits<double>::infinity();

inline std::string JoinIds(const std::vector<std::string>& ids) {
  std::string s;
  for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
  return s;
}

inline std::string UnknownId(const std::string& what, const std::string& id, const std::vector<std::string>& known) {
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
// environment.response_tokens: every rate per generated token divides by its
// mean, so the loader refuses a mean of 0 (ReadEnvironment).
inline bool ResponseMeanAccepted(const Distribution& d) { return d.mean() > 0; }
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

  Scenario Load(const YAML::Node& root);

  // One distribution field of `map` as Load reads it, into `out` (problems
  // into the reader): the sweep's typed overrides of a length's mean
  // (scenario/fast_override.cc) make the distribution with the loader's own code.
  void ReadDistField(const YAML::Node& map, std::string_view key, const std::string& parent, Distribution& out,
                     const DistRules& rules) {
    ReadDist(map, key, parent, out, rules);
  }

 private:
  // Padding to the maximum length needs the maxima it pads to; a multi-turn
  // trajectory's padded shape (veRL's agent loop pads its whole response span)
  // is not priced yet.
  void CheckTrainPadding(const YAML::Node& root, const Scenario& s);

  std::string Resolve(const std::string& rel) const;

  // Reports a missing or unreadable file at `path`; true when it can be read.
  bool CheckReadable(const YAML::Node& at, const std::string& path, const std::string& rel,
                     const std::string& resolved, bool folder_ok = false);

  // Reads the CSV named by the scalar `file_n` (relative to the scenario);
  // reports a missing, unreadable or malformed file at `path`. `resolved_out`
  // receives the resolved path.
  std::optional<CsvTable> ReadCsvField(const YAML::Node& file_n, const std::string& path,
                                       std::string* resolved_out, std::string* rel_out);

  void ReadModel(const YAML::Node& root, Scenario& s);

  // `model: {hf_config: path/to/config.json, name: optional}`: the architecture
  // and parameter counts from a Hugging Face config (a file or its folder).
  void ReadHfModel(const YAML::Node& n, Scenario& s);

  bool ReadHardware(const YAML::Node& root, Scenario& s);

  void ReadPlacement(const YAML::Node& root, Scenario& s);

  // The trainer's Megatron layout (placement.train_tp/cp/pp/ep,
  // train_micro_batch_tokens): each >= 1; tp * cp * pp divides the training
  // GPUs (Megatron: world = tp * cp * pp * dp); the experts split evenly over
  // train_ep, and ep divides the GPUs of one pipeline stage (expert tensor
  // parallel 1, NeMo RL's megatron_cfg.expert_tensor_parallel_size default).
  void ReadTrainLayout(const YAML::Node& n, Scenario& s);

  // Tensor-parallel attention splits the query heads and the KV heads over
  // the ranks. vLLM's attention layers (e.g. models/llama.py LlamaAttention)
  // assert heads % tp == 0, and kv_heads % tp == 0 when tp < kv_heads or
  // tp % kv_heads == 0 when tp >= kv_heads (the KV heads then replicate);
  // SGLang's assert the same over attn_tp_size. Data-parallel attention does
  // not split heads: no constraint. vLLM runs attention data-parallel for MoE
  // models only (docs.vllm.ai/en/latest/serving/data_parallel_deployment).
  void CheckTpAgainstModel(const YAML::Node& n, const Scenario& s);

  bool CheckDistMax(const YAML::Node& at, const std::string& path, double v, const DistRules& rules);

  void ReadDist(const YAML::Node& map, std::string_view key, const std::string& parent, Distribution& out,
                const DistRules& rules = {});

  void ReadEmpirical(const YAML::Node& n, const std::string& path, const YAML::Node& samples_n,
                     const YAML::Node& file_n, Distribution& out, const DistRules& rules);

  void ReadEnvironment(const YAML::Node& root, EnvironmentSpec& e);

  // environment.reward.verifier: {kind, model, input_tokens, output_tokens,
  // calls_per_rollout, gpus: shared | N}; the model is a catalog id. kind
  // ensemble: {kind: ensemble, aggregation, members: [verifier + noise, ...]}.
  void ReadVerifier(const YAML::Node& reward, EnvironmentSpec& e);

  // One verifier (the reward's, or an ensemble's member at `path`).
  void ReadOneVerifier(const YAML::Node& n, const std::string& path, RewardSpec::Verifier& v,
                       const EnvironmentSpec& e, bool member);

  // {kind: ensemble, aggregation: weighted | majority, members: [...]}: 2 to
  // kMaxEnsembleMembers members, each with its own noise.
  void ReadEnsemble(const YAML::Node& n, const std::string& path, EnvironmentSpec& e);

  // environment.reward.rubric: [{name, weight, kind: llm-judge | rule, output_tokens, pass_rate}, ...].
  void ReadRubric(const YAML::Node& reward, RewardSpec& rw);

  // A noise block {false_positive, false_negative} at `path`: each in [0, 1)
  // and fp + fn < 1 (at fp + fn = 1 the reward says nothing about the outcome).
  void ReadNoise(const YAML::Node& parent, const std::string& path, RewardSpec::Noise& noise);

  // environment.reward.noise.
  void ReadRewardNoise(const YAML::Node& reward, RewardSpec::Noise& noise);

  // An ensemble's error rates follow from its members': they fill
  // environment.reward.noise (which must then be absent). Needs the pass rate
  // (the weighted vote's prior), so runs after it is read.
  void CombineEnsemble(const YAML::Node& env, EnvironmentSpec& e);

  // environment.failures: {rate, handling: retry | drop}.
  void ReadEnvFailures(const YAML::Node& env, EnvFailureSpec& f);

  void ReadPassRate(const YAML::Node& env, PassRateSpec& pr);
  void ReadTrajectoryBounds(const YAML::Node& env, EnvironmentSpec& e);

  void ReadHistogram(const YAML::Node& h, const std::string& path, PassRateSpec& pr);

  void ReadPassRateFile(const YAML::Node& n, const std::string& path, PassRateSpec& pr);

  // environment.response_tokens_schedule: {start_mean, end_mean} (linear from
  // step 1 to the last step) or {file: lengths.csv} with columns step,mean, one
  // row per step. The shape (dist, cv, min, max) is response_tokens's.
  void ReadResponseSchedule(const YAML::Node& root, Scenario& s);

  // `run`: start-up, checkpoints, evaluation, failures (docs/model.md, "Run-level costs").
  void ReadRun(const YAML::Node& root, Scenario& s);

  void ReadAlgorithm(const YAML::Node& root, AlgorithmSpec& a);

  void ReadPrecision(const YAML::Node& root, PrecisionSpec& p, const GpuSpec* gpu);

  void ReadPipeline(const YAML::Node& root, PipelineSpec& p);

  static bool IsCurveFile(const std::string& v);

  void ReadGoal(const YAML::Node& root, GoalSpec& g);

  void ReadMetrics(const YAML::Node& m, const std::string& path, std::map<std::string, ExpectedMetric>& out);

  void ReadExpect(const YAML::Node& root, Scenario& s);

  const Catalog& catalog_;
  Reader& r_;
  std::string base_dir_;
  std::string model_id_;  // for ReadGoal
};

}  // namespace rlcost::scenario_internal
