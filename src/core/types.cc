#include "rlcost/types.h"

#include <algorithm>
#include <array>
#include <utility>

namespace rlcost {
namespace {

template <typename E, size_t N>
using Names = std::array<std::pair<E, std::string_view>, N>;

constexpr Names<Precision, 3> kPrecision{{{Precision::kBf16, "bf16"}, {Precision::kFp8, "fp8"}, {Precision::kFp4, "fp4"}}};
constexpr Names<Attention, 2> kAttention{{{Attention::kGqa, "gqa"}, {Attention::kMla, "mla"}}};
constexpr Names<PlacementMode, 2> kPlacement{{{PlacementMode::kColocated, "colocated"}, {PlacementMode::kDisaggregated, "disaggregated"}}};
constexpr Names<PipelineMode, 2> kPipeline{{{PipelineMode::kSync, "sync"}, {PipelineMode::kAsync, "async"}}};
constexpr Names<Dispatch, 2> kDispatch{{{Dispatch::kAsync, "async"}, {Dispatch::kLockstep, "lockstep"}}};
constexpr Names<RewardType, 2> kReward{{{RewardType::kOutcome, "outcome"}, {RewardType::kProcess, "process"}}};
constexpr Names<Algorithm, 4> kAlgorithm{{{Algorithm::kGrpo, "grpo"}, {Algorithm::kDapo, "dapo"}, {Algorithm::kRloo, "rloo"}, {Algorithm::kPpo, "ppo"}}};
constexpr Names<DistKind, 6> kDist{{{DistKind::kFixed, "fixed"}, {DistKind::kLognormal, "lognormal"}, {DistKind::kNormal, "normal"},
                                    {DistKind::kExponential, "exponential"}, {DistKind::kUniform, "uniform"}, {DistKind::kEmpirical, "empirical"}}};

constexpr Names<InferenceEngine, 4> kEngine{{{InferenceEngine::kVllm, "vllm"}, {InferenceEngine::kVllmAsync, "vllm-async"},
                                             {InferenceEngine::kSglang, "sglang"}, {InferenceEngine::kTrtllm, "trtllm"}}};
constexpr Names<WeightSyncMethod, 3> kWeightSync{{{WeightSyncMethod::kBucketed, "bucketed"},
                                                  {WeightSyncMethod::kPerTensor, "per-tensor"},
                                                  {WeightSyncMethod::kPipelined, "pipelined"}}};
constexpr Names<RefitOffload, 3> kRefitOffload{{{RefitOffload::kPageable, "pageable"},
                                                {RefitOffload::kPinned, "pinned"},
                                                {RefitOffload::kNone, "none"}}};
constexpr Names<RunTuning, 2> kRunTuning{{{RunTuning::kTypical, "typical"}, {RunTuning::kTuned, "tuned"}}};
constexpr Names<TrainPadding, 2> kTrainPadding{{{TrainPadding::kPacked, "packed"},
                                                {TrainPadding::kMaxLength, "max-length"}}};
constexpr Names<TrainBackend, 2> kTrainBackend{{{TrainBackend::kMegatron, "megatron"},
                                                {TrainBackend::kFsdp, "fsdp"}}};
constexpr Names<PipelineSplit, 2> kPipelineSplit{{{PipelineSplit::kBalanced, "balanced"},
                                                  {PipelineSplit::kEven, "even"}}};

template <typename E, size_t N>
std::string_view Lookup(const Names<E, N>& names, E v) {
  for (const auto& [e, s] : names) if (e == v) return s;
  return "?";
}
template <typename E, size_t N>
std::optional<E> Parse(const Names<E, N>& names, std::string_view s) {
  for (const auto& [e, n] : names) if (n == s) return e;
  return std::nullopt;
}
template <typename E, size_t N>
std::string Join(const Names<E, N>& names) {
  std::string out;
  for (const auto& [e, n] : names) {
    if (!out.empty()) out += " | ";
    out += n;
  }
  return out;
}

}  // namespace

std::string_view ToString(Precision v) { return Lookup(kPrecision, v); }
std::string_view ToString(Attention v) { return Lookup(kAttention, v); }
std::string_view ToString(PlacementMode v) { return Lookup(kPlacement, v); }
std::string_view ToString(PipelineMode v) { return Lookup(kPipeline, v); }
std::string_view ToString(Dispatch v) { return Lookup(kDispatch, v); }
std::string_view ToString(RewardType v) { return Lookup(kReward, v); }
std::string_view ToString(Algorithm v) { return Lookup(kAlgorithm, v); }
std::string_view ToString(DistKind v) { return Lookup(kDist, v); }
std::string_view ToString(InferenceEngine v) { return Lookup(kEngine, v); }
std::string_view ToString(WeightSyncMethod v) { return Lookup(kWeightSync, v); }
std::string_view ToString(RefitOffload v) { return Lookup(kRefitOffload, v); }
std::string_view ToString(RunTuning v) { return Lookup(kRunTuning, v); }
std::string_view ToString(TrainPadding v) { return Lookup(kTrainPadding, v); }
std::string_view ToString(TrainBackend v) { return Lookup(kTrainBackend, v); }
std::string_view ToString(PipelineSplit v) { return Lookup(kPipelineSplit, v); }

std::optional<Precision> PrecisionFromString(std::string_view s) { return Parse(kPrecision, s); }
std::optional<Attention> AttentionFromString(std::string_view s) { return Parse(kAttention, s); }
std::optional<PlacementMode> PlacementModeFromString(std::string_view s) { return Parse(kPlacement, s); }
std::optional<PipelineMode> PipelineModeFromString(std::string_view s) { return Parse(kPipeline, s); }
std::optional<Dispatch> DispatchFromString(std::string_view s) { return Parse(kDispatch, s); }
std::optional<RewardType> RewardTypeFromString(std::string_view s) { return Parse(kReward, s); }
std::optional<Algorithm> AlgorithmFromString(std::string_view s) { return Parse(kAlgorithm, s); }
std::optional<DistKind> DistKindFromString(std::string_view s) { return Parse(kDist, s); }
std::optional<InferenceEngine> InferenceEngineFromString(std::string_view s) { return Parse(kEngine, s); }
std::optional<WeightSyncMethod> WeightSyncMethodFromString(std::string_view s) { return Parse(kWeightSync, s); }
std::optional<RefitOffload> RefitOffloadFromString(std::string_view s) { return Parse(kRefitOffload, s); }
std::optional<RunTuning> RunTuningFromString(std::string_view s) { return Parse(kRunTuning, s); }
std::optional<TrainPadding> TrainPaddingFromString(std::string_view s) { return Parse(kTrainPadding, s); }
std::optional<TrainBackend> TrainBackendFromString(std::string_view s) { return Parse(kTrainBackend, s); }
std::optional<PipelineSplit> PipelineSplitFromString(std::string_view s) { return Parse(kPipelineSplit, s); }

template <> std::string AcceptedNames<Precision>() { return Join(kPrecision); }
template <> std::string AcceptedNames<Attention>() { return Join(kAttention); }
template <> std::string AcceptedNames<PlacementMode>() { return Join(kPlacement); }
template <> std::string AcceptedNames<PipelineMode>() { return Join(kPipeline); }
template <> std::string AcceptedNames<Dispatch>() { return Join(kDispatch); }
template <> std::string AcceptedNames<RewardType>() { return Join(kReward); }
template <> std::string AcceptedNames<Algorithm>() { return Join(kAlgorithm); }
template <> std::string AcceptedNames<DistKind>() { return Join(kDist); }
template <> std::string AcceptedNames<InferenceEngine>() { return Join(kEngine); }
template <> std::string AcceptedNames<WeightSyncMethod>() { return Join(kWeightSync); }
template <> std::string AcceptedNames<RefitOffload>() { return Join(kRefitOffload); }
template <> std::string AcceptedNames<RunTuning>() { return Join(kRunTuning); }
template <> std::string AcceptedNames<TrainPadding>() { return Join(kTrainPadding); }
template <> std::string AcceptedNames<TrainBackend>() { return Join(kTrainBackend); }
template <> std::string AcceptedNames<PipelineSplit>() { return Join(kPipelineSplit); }

constexpr Names<VerifierKind, 5> kVerifier{{{VerifierKind::kRule, "rule"}, {VerifierKind::kTests, "tests"},
                                            {VerifierKind::kLlmJudge, "llm-judge"},
                                            {VerifierKind::kRewardModel, "reward-model"},
                                            {VerifierKind::kEnsemble, "ensemble"}}};
std::string_view ToString(VerifierKind v) { return Lookup(kVerifier, v); }
std::optional<VerifierKind> VerifierKindFromString(std::string_view s) { return Parse(kVerifier, s); }
template <> std::string AcceptedNames<VerifierKind>() { return Join(kVerifier); }

double BytesPer(Precision p) {
  switch (p) {
    case Precision::kBf16: return 2.0;
    case Precision::kFp8: return 1.0;
    case Precision::kFp4: return 0.5;
  }
  return 2.0;
}

namespace {
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = EditDistance(word, c);
    if (d < best_d) { best_d = d; best = c; }
  }
  return best;
}

}  // namespace rlcost
