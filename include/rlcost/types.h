// Enumerations shared by every stage. Each parses and prints through one pair
// (ToString / XFromString) so messages, JSON and reports use the same names
// as the scenario format (SCENARIO.md).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rlcost {

enum class Precision { kBf16, kFp8, kFp4 };
enum class Attention { kGqa, kMla };
enum class PlacementMode { kColocated, kDisaggregated };
enum class PipelineMode { kSync, kAsync };
enum class Dispatch { kAsync, kLockstep };
enum class RewardType { kOutcome, kProcess };
enum class Algorithm { kGrpo, kDapo, kRloo, kPpo };
// The inference engine that generates rollouts: it sets the fixed cost of a
// decode iteration (docs/model.md, catalog section).
enum class InferenceEngine { kVllm, kVllmAsync, kSglang, kTrtllm };
// How a weight sync moves tensors: one collective per tensor, packed into
// buckets sent one after the other, or packed into two buffers so that the
// trainer gathers the next bucket while the last one is broadcast (pipelined).
// docs/model.md, "Weight sync".
enum class WeightSyncMethod { kBucketed, kPerTensor, kPipelined };
// Colocated: what happens to the trainer's optimizer states while the engine
// generates. Moved to host memory every step (before the refit, back before
// the update) by per-tensor copies into pageable memory (NeMo RL) or into
// pinned memory, or kept on the GPU. docs/model.md, "Refit offload".
enum class RefitOffload { kPageable, kPinned, kNone };
// What the trainer's passes compute on: the trajectories' own tokens (packed:
// sequence packing, veRL use_remove_padding, NeMo RL sequence_packing) or
// every sequence padded to the configured maximum prompt + response length
// (veRL without use_remove_padding). docs/model.md, "Training on padded
// sequences".
enum class TrainPadding { kPacked, kMaxLength };
// Which engine trains: Megatron-Core (the default; the measured train MFUs are
// Megatron runs, data-parallel traffic inside them) or a fully sharded data-
// parallel engine (PyTorch FSDP / FSDP2, NeMo RL's DTensor policy, veRL's
// FSDP actor) that all-gathers each layer's parameters in every micro-batch's
// forward and backward and reduce-scatters its gradients after each
// micro-batch's backward. docs/model.md, "FSDP traffic per micro-batch".
enum class TrainBackend { kMegatron, kFsdp };
// How well tuned the run's trainer is (`run.tuning`). `typical`, the default:
// the update runs at the share of the published pre-training MFU that real RL
// runs reached (a named fit, catalog efficiency.typical_update_share); `tuned`:
// at the published MFU itself (catalog train_mfu / train_mfu_moe).
// docs/model.md, "Named fits".
enum class RunTuning { kTypical, kTuned };
// How Megatron splits the layers over the pipeline stages: balanced (the
// measured MFUs' runs: first and last stages given fewer layers) or even
// (Megatron-Core's default: num_layers / pp each, the output layer on the
// last stage besides). docs/model.md, "Pipeline stages split evenly".
enum class PipelineSplit { kBalanced, kEven };
enum class DistKind { kFixed, kLognormal, kNormal, kExponential, kUniform, kEmpirical };
// What computes the reward (environment.reward.verifier; docs/model.md,
// "Verifiers"): a rule on the CPU, tests in the trajectory's sandbox, or a
// model on GPUs (an LLM judge that writes a verdict, a reward model that scores).
enum class VerifierKind { kRule, kTests, kLlmJudge, kRewardModel, kEnsemble };
std::string_view ToString(VerifierKind v);
std::optional<VerifierKind> VerifierKindFromString(std::string_view s);

std::string_view ToString(Precision v);
std::string_view ToString(Attention v);
std::string_view ToString(PlacementMode v);
std::string_view ToString(PipelineMode v);
std::string_view ToString(Dispatch v);
std::string_view ToString(RewardType v);
std::string_view ToString(Algorithm v);
std::string_view ToString(DistKind v);
std::string_view ToString(InferenceEngine v);
std::string_view ToString(WeightSyncMethod v);
std::string_view ToString(RefitOffload v);
std::string_view ToString(RunTuning v);
std::string_view ToString(TrainPadding v);
std::string_view ToString(TrainBackend v);
std::string_view ToString(PipelineSplit v);

std::optional<Precision> PrecisionFromString(std::string_view s);
std::optional<Attention> AttentionFromString(std::string_view s);
std::optional<PlacementMode> PlacementModeFromString(std::string_view s);
std::optional<PipelineMode> PipelineModeFromString(std::string_view s);
std::optional<Dispatch> DispatchFromString(std::string_view s);
std::optional<RewardType> RewardTypeFromString(std::string_view s);
std::optional<Algorithm> AlgorithmFromString(std::string_view s);
std::optional<DistKind> DistKindFromString(std::string_view s);
std::optional<InferenceEngine> InferenceEngineFromString(std::string_view s);
std::optional<WeightSyncMethod> WeightSyncMethodFromString(std::string_view s);
std::optional<RefitOffload> RefitOffloadFromString(std::string_view s);
std::optional<RunTuning> RunTuningFromString(std::string_view s);
std::optional<TrainPadding> TrainPaddingFromString(std::string_view s);
std::optional<TrainBackend> TrainBackendFromString(std::string_view s);
std::optional<PipelineSplit> PipelineSplitFromString(std::string_view s);

// "a | b | c": the accepted names of an enum, for error messages.
template <typename E>
std::string AcceptedNames();

// Bytes per stored value: bf16 2, fp8 1, fp4 0.5.
double BytesPer(Precision p);

// Closest candidate within a small edit distance ("" when none): did-you-mean.
std::string ClosestMatch(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace rlcost
