// econ: GPU-hours, CPU-hours, dollars, MFU and cost per useful sample from a
// step timing and the signal summary. Definitions: docs/model.md, "Economics".
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "catalog/efficiency_origin.h"
#include "core/cancel.h"
#include "core/strings.h"
#include "econ/energy.h"
#include "econ/goal_steps.h"
#include "econ/resplit.h"
#include "econ/run.h"
#include "perf/dp_imbalance.h"
#include "perf/fsdp_overlap.h"
#include "perf/megatron_comm.h"
#include "perf/packing.h"
#include "perf/refit_gather.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "scenario/longest_draw.h"
#include "signal/learning_model.h"

namespace rlcost {
namespace {

double SafeDiv(double a, double b) {
  return b > 0 ? a / b : std::numeric_limits<double>::infinity();
}

// The GPUs the policy update runs on: all of them when colocated, the
// training side when disaggregated.
int UpdateGpus(const Scenario& s) {
  return s.placement.mode == PlacementMode::kColocated ? s.hardware.gpus : s.placement.train_gpus;
}

// algorithm.minibatches > 1: what the update's extra optimizer steps cost
// (docs/model.md, "Optimizer steps per RL step"). The critic, when there is
// one, takes as many steps again.
void MinibatchAssumption(const Scenario& s, const StepTiming& t, std::vector<std::string>& a) {
  if (s.algorithm.minibatches <= 1 && s.algorithm.ppo_epochs <= 1) return;
  const int train_gpus = UpdateGpus(s);
  const perf::OptimizerStepsCost c =
      perf::OptimizerStepsOverhead(s, t.trained_tokens, perf::MeanTrajectoryTokens(s), train_gpus);
  std::string flush;
  if (s.placement.train_pp > 1) {
    flush = fmt::format(", each draining the {}-stage pipeline: +{:.2f} s of bubble", s.placement.train_pp, c.flush_s);
  }
  const int epochs = std::max(1, s.algorithm.ppo_epochs);
  const std::string passes =
      epochs > 1 ? fmt::format(" over {} passes of the batch (algorithm.ppo_epochs: {} x the update's compute)", epochs,
                               epochs)
                 : "";
  const double sync_s =
      (c.steps - 1) * perf::MegatronGradSyncExposedTime(s, perf::MeanTrajectoryTokens(s), train_gpus);
  const std::string sync =
      sync_s > 0 ? fmt::format(", and their data-parallel gradient reduce-scatters and parameter all-gathers: +{:.3f} s "
                               "beyond what one micro-batch's backward and forward hide",
                               sync_s)
                 : "";
  a.push_back(fmt::format("the update runs {} optimizer steps (algorithm.minibatches {}){}{}; {} more Adam steps over "
                          "each GPU's shard of the weights: +{:.3f} s at the GPU's peak memory bandwidth{} (ASSUMED: "
                          "the measured train MFU holds one){}",
                          c.steps, std::max(1, s.algorithm.minibatches), passes, flush, c.steps - 1, c.optimizer_s,
                          sync, s.algorithm.critic ? "; the critic's update takes as many" : ""));
}

// A Megatron trainer with tensor parallelism or a pipeline: the reductions
// of its row-parallel layers and the stages' sends wait in line with the
// compute (docs/model.md, "Megatron communication left exposed").
void MegatronCommAssumption(const Scenario& s, const StepTiming& t, std::vector<std::string>& a) {
  const int train_gpus = UpdateGpus(s);
  const double mean = perf::MeanTrajectoryTokens(s);
  const double run = t.trained_tokens * perf::PaddedTokenFactor(s, mean) *
                     perf::FixedLengthPackFactor(s, train_gpus, t.trained_tokens, mean);
  const double tp_s = perf::MegatronTpCollectiveTime(s, run, train_gpus);
  const double send_s = perf::MegatronPipelineSendTime(s, run, mean, train_gpus, /*forward_only=*/false);
  if (send_s > 0) {
    a.push_back(fmt::format("Megatron pipeline of {} stages: its blocking point-to-point sends (an activation and a "
                            "gradient each slot of the 1F1B schedule) add {:.2f} s to the update (ASSUMED: "
                            "{})",
                            s.placement.train_pp, send_s,
                            s.model.is_moe() ? "sequence parallel, split over the TP ranks"
                                             : "sequence parallel off, as NeMo RL's default; whole activations"));
  }
  if (tp_s <= 0) return;
  a.push_back(fmt::format("Megatron tensor parallel {}: the row-parallel layers' all-reduces (or sequence-parallel "
                          "gathers and scatters) wait in line with the compute, {:.2f} s a pass over the update's "
                          "tokens before the pipeline bubble, about as much in each log-prob pass (ASSUMED: "
                          "tp_comm_overlap off, as NeMo RL v0.3 and veRL 0.4 run it)",
                          s.placement.train_tp, tp_s));
}

// The data-parallel ranks' unequal shares of the update and the log-prob
// passes (docs/model.md, "The slowest data-parallel rank").
void SlowestRankAssumption(const Scenario& s, const StepTiming& t, std::vector<std::string>& a) {
  const int gpus = UpdateGpus(s);
  const double mean = perf::MeanTrajectoryTokens(s);
  const double update = perf::SlowestRankFactor(s, t.trained_tokens, mean, gpus, /*forward_only=*/false);
  const double forward = perf::SlowestRankFactor(s, t.trained_tokens, mean, gpus, /*forward_only=*/true);
  if (update <= 1.0 && forward <= 1.0) return;
  const int dp = perf::DataParallelRanks(s.placement, gpus);
  if (s.placement.train_backend == TrainBackend::kFsdp) {
    a.push_back(fmt::format("FSDP's {} data-parallel ranks meet at every layer of every micro-batch, so a micro-batch "
                            "lasts as long as the rank whose sequences hold the most work: x{:.3f} on the update's "
                            "compute, x{:.3f} on the log-prob passes' (ASSUMED: a micro-batch's sequences are "
                            "independent draws of the length distribution, as veRL's balance_batch leaves them in "
                            "arrival order; the expected largest of {} about-normal sums)",
                            dp, update, forward, dp));
    return;
  }
  a.push_back(fmt::format("packed micro-batches dealt to the {} data-parallel ranks in turn: the optimizer step waits "
                          "for the rank with the most packs, x{:.3f} on the update's compute, x{:.3f} on the log-prob "
                          "passes' (ASSUMED: NeMo RL's shard_by_batch_size, pack i to rank i mod {}; the extra pack at "
                          "the mean pack's work)",
                          dp, update, forward, dp));
}

// A synchronous single-turn step ends with its longest response, decoded
// nearly alone: when the response spread's expected longest of the step's
// draws (ExpectedLongestDraw) stays under the declared cap and a longest
// response at the cap would move generation by a tenth or more, the text says
// that the figure rests on the spread's tail and what the cap would cost:
// (R_max - L) iterations at batch 1 (docs/model.md, "Generation on the
// development logs", item 1).
inline constexpr double kMaterialTailShare = 0.1;
void LongestResponseAssumption(const Scenario& s, const StepTiming& t, double draws, std::vector<std::string>& a) {
  const Distribution& r = s.environment.response_tokens;
  if (s.pipeline.mode != PipelineMode::kSync || !s.environment.turns.is_fixed() || s.environment.turns.mean() != 1 ||
      r.is_fixed() || !std::isfinite(r.max()) || !(draws > 1) || !(t.rollout_s > 0)) {
    return;
  }
  const double longest = scenario_internal::ExpectedLongestDraw(r, draws);
  const double iterations = r.max() - longest;
  if (!(iterations >= 1)) return;
  const double context = s.environment.prompt_tokens.mean() + 0.5 * (longest + r.max());
  const double iteration_s = perf::DecodeIteration(perf::RolloutEngine(s), 1, context).time_s;
  const double extra_s = iterations * iteration_s;
  if (extra_s < kMaterialTailShare * t.rollout_s) return;
  a.push_back(fmt::format(
      "generation ends with the step's longest response, decoded nearly alone: {:.0f} tokens, the expected longest "
      "of {:.0f} draws of environment.response_tokens (mean {:.0f}, cv {:.2f}, cap {:.0f}), so the figure rests on "
      "that spread's tail (ASSUMED as stated); were one response a step to run to the cap, generation would take "
      "about {:.1f} s more ({:.0f} iterations near batch 1 at {:.1f} ms each)",
      longest, draws, r.mean(), r.cv(), r.max(), extra_s, iterations, iteration_s * 1e3));
}

// Whether the policy ships a multi-token-prediction module a speculative
// `mtp` method can draft with: DeepSeek-V3 and R1 (config.json
// num_nextn_predict_layers 1); no other catalog model has one.
bool HasMtpModule(const Scenario& s) {
  if (s.model_id == "deepseek-v3") return true;
  const std::string& n = s.model.name;
  return s.model.experts > 0 && (n.find("DeepSeek-V3") != std::string::npos || n.find("DeepSeek-R1") != std::string::npos);
}

// engine.speculative: the method, draft length and acceptance, and where the
// acceptance came from (docs/model.md, "Speculative decoding").
std::string SpeculativeAssumption(const Scenario& s) {
  const SpeculativeSpec& sp = *s.engine.speculative;
  std::string source;
  if (sp.method == SpeculativeMethod::kMtp && sp.acceptance == kMtpAcceptance) {
    source = HasMtpModule(s)
                 ? "DeepSeek-V3's own MTP module: 85-90% second-token acceptance (DeepSeek-V3 report, arXiv "
                   "2412.19437 sec. 5.4.3), the lower end"
                 : fmt::format("ASSUMED: DeepSeek-V3's MTP acceptance (arXiv 2412.19437 sec. 5.4.3); {} has no MTP "
                               "module, so this stands for a draft head you would train: set "
                               "engine.speculative.acceptance to your draft's measured rate",
                               s.model.name.empty() ? s.model_id : s.model.name);
  } else {
    source = "engine.speculative.acceptance, as the scenario gives it";
  }
  return fmt::format("speculative decoding (engine.speculative): method {}, {} drafted token{} per step at acceptance "
                     "{:g} ({}); {:.2f} tokens per verification step (Leviathan et al. 2023, eq. 1)",
                     ToString(sp.method), sp.draft_tokens, sp.draft_tokens == 1 ? "" : "s", sp.acceptance, source,
                     sp.ExpectedTokensPerStep());
}

// An efficiency field in the words the estimate prints.
std::string EfficiencyFieldWords(const std::string& field) {
  static const std::pair<const char*, const char*> kWords[] = {
      {"decode_bw", "decode bandwidth"},
      {"decode_compute", "decode compute share"},
      {"decode_iter_overhead_s", "fixed cost per decode iteration"},
      {"moe_layer_decode_s", "fixed cost per MoE layer in decode"},
      {"moe_layer_train_s", "floor per MoE layer per training micro-batch"},
      {"prefill_mfu", "prefill MFU"},
      {"train_mfu", "train MFU"},
      {"train_mfu_moe", "MoE train MFU"},
      {"logprob_mfu", "log-prob MFU"},
      {"step_overhead_s", "fixed cost per step"},
      {"weight_sync_eff", "weight-sync link share"},
      {"typical_update_share", "typical RL run's share of the train MFU"},
      {"pageable_copy_s_per_gb", "pageable host copy time per GB"},
  };
  for (const auto& [name, words] : kWords) {
    if (field == name) return words;
  }
  return field;
}

// "a, b and c" in the user's words.
std::string EfficiencyFieldList(const std::vector<std::string>& fields) {
  std::string names;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    names += (i == 0 ? "" : (i + 1 == fields.size() ? " and " : ", ")) + EfficiencyFieldWords(fields[i]);
  }
  return names;
}

// The refit offload's pageable copies in the user's words: the rate, and
// whether it is the one measurement or the fit to NeMo RL's own refits.
std::string PageableOffloadWords(const Scenario& s) {
  const double rate = perf::PageableCopyGbPerS(s);
  const auto named = FittedEfficiencyFields(s.hardware.gpu);
  const bool fitted = std::find(named.begin(), named.end(), "pageable_copy_s_per_gb") != named.end();
  const std::string how =
      fitted ? fmt::format("FITTED to NeMo RL's six published refit times, not measured; the one measurement, "
                           "Nsight on an H100 in NeMo RL's tracker, found {:.2f} GB/s on another host",
                           perf::kPageableCopyGbPerS)
             : "measured with Nsight on an H100 in NeMo RL's tracker";
  return fmt::format("out tensor by tensor into pageable memory at {:.3g} GB/s per GPU ({}), back at 16.1 GB/s "
                     "(that host's pageable benchmark; ASSUMED for the way back, which the tracker does not time)",
                     rate, how);
}

std::vector<std::string> Assumptions(const Scenario& s) {
  std::vector<std::string> a;
  const auto& eff = s.hardware.gpu.efficiency;
  // Whose figures they are: kept with the GPU's sources by the catalog reader
  // (catalog/efficiency_origin.h), the same definition the JSON reads.
  const EfficiencyOrigin origin = OriginOfEfficiency(s.hardware.gpu);
  std::string whose = s.hardware.gpu.id;
  if (origin.whole_row) {
    whose = fmt::format("{}: BORROWED from {}, no measured figures of its own in catalog/efficiency.yaml",
                        s.hardware.gpu.id, origin.borrowed_from);
  } else if (!origin.borrowed_from.empty()) {
    whose = fmt::format("{}: its own figures in catalog/efficiency.yaml but {} BORROWED from {}", s.hardware.gpu.id,
                        EfficiencyFieldList(origin.borrowed_fields), origin.borrowed_from);
  }
  // Its own figures that are derivations (another GPU's measurement scaled by
  // a ratio measured on both), said as such: the same list the JSON gives.
  if (const auto derived = DerivedEfficiencyFields(s.hardware.gpu); !derived.empty()) {
    whose += fmt::format("; {} DERIVED, not measured on this GPU (each source says from what)",
                         EfficiencyFieldList(derived));
  }
  // The update as a typical RL run reaches it: a named fit, said as one.
  std::string typical;
  if (s.run.tuning == RunTuning::kTypical && eff.typical_update_share < 1.0) {
    typical = fmt::format("; the update runs at {:.3g} of the train MFU, {:.1f}% here (FITTED to eight real RL runs' "
                          "update times, veRL and NeMo RL, not a published figure: typical_update_share; run.tuning: "
                          "tuned for the published MFU)",
                          eff.typical_update_share, perf::UpdateMfu(s) * 100);
  }
  a.push_back(fmt::format("efficiency ({}): decode bandwidth {:.0f}% of peak, prefill MFU {:.0f}%, train MFU "
                          "{:.0f}%, log-prob MFU {:.0f}% (catalog/efficiency.yaml or `calibration`){}",
                          whose, eff.decode_bw * 100, eff.prefill_mfu * 100, eff.train_mfu * 100,
                          eff.logprob_mfu * 100, typical));
  a.push_back(fmt::format("inference engine: {} ({:.2f} ms of fixed cost per decode iteration{})",
                          ToString(s.placement.engine), perf::RolloutEfficiency(s).decode_iter_overhead_s * 1e3,
                          s.placement.engine == InferenceEngine::kVllm
                              ? "; set placement.engine to vllm-async, sglang or trtllm for overlap scheduling"
                              : ", overlap scheduling"));
  if (s.engine.enforce_eager) {
    a.push_back(fmt::format("inference engine without CUDA graphs (engine.enforce_eager): {:.2f} ms of kernel "
                            "launches per decode iteration ({} layers x {:.2f} ms, measured on vLLM)",
                            s.model.layers * perf::kEagerLaunchPerLayerS * 1e3, s.model.layers,
                            perf::kEagerLaunchPerLayerS * 1e3));
  }
  if (s.model.is_moe() && eff.moe_layer_train_s > 0) {
    // perf::MoeLayerFloorTime (docs/model.md, "MoE layer floor").
    a.push_back(fmt::format(
        "MoE update: each of the {} MoE layers takes at least {:.1f} ms per training micro-batch, forward and "
        "backward (a third of it in a forward-only pass): Megatron-Core's alltoall token dispatcher makes the host "
        "wait in every layer (measured on Qwen3-30B-A3B, 8 x B200); ASSUMED the same on every GPU and dispatcher "
        "(a run with DeepEP or graphed MoE layers: moe_layer_train_s 0 in --calibration)",
        s.model.layers, eff.moe_layer_train_s * 1e3));
  }
  if (s.engine.speculative) {
    a.push_back(SpeculativeAssumption(s));
  }
  if (const auto& env = s.environment; env.unbounded) {
    std::string what;
    if (env.max_trajectory_tokens > 0) {
      what = fmt::format("a budget of {} tokens after the prompt (environment.max_trajectory_tokens)",
                         env.max_trajectory_tokens);
    }
    if (env.tool_timeout_s > 0) {
      what += fmt::format("{}tool calls cut at {:g} s (environment.tool_timeout_s)", what.empty() ? "" : " and ",
                          env.tool_timeout_s);
    }
    a.push_back(fmt::format(
        "trajectories bounded as the framework bounds them: {}; a trajectory averages {:.3g} turns of {:.0f} tokens "
        "({:.3g} turns of {:.0f} unbounded) and tool calls {:.3g} s ({:.3g} s unbounded), from trajectories drawn "
        "when the scenario was read",
        what, env.turns.mean(), env.response_tokens.mean(), env.unbounded->turns.mean(),
        env.unbounded->response_tokens.mean(), env.tool_latency_s.mean(), env.unbounded->tool_latency_s.mean()));
  }
  if (s.placement.gradient_checkpointing) {
    a.push_back("the update recomputes each layer's forward in its backward pass (placement.gradient_checkpointing): "
                "one more forward per update, 4/3 of its time for full fine-tuning; train MFU counts the model's "
                "FLOPs only");
  }
  // Whether the update states its micro-batch: the condition perf prices the
  // FSDP traffic and the DTensor dispatch under (MicrobatchTokens > 0).
  auto microbatch_stated = [&s] {
    return perf::MicrobatchTokens(s, perf::MeanTrajectoryTokens(s), /*forward_only=*/false) > 0;
  };
  // A backend the scenario does not state is the loader's resolution
  // (docs/model.md, "Which trainer backend"): said with the rule it took
  // (stated.train_backend_rule), on the FSDP trainer's own line when it is
  // fsdp (one line in the brief).
  std::string why;
  switch (s.placement.stated.train_backend_rule) {
    case TrainBackendRule::kNone:  // stated, or built in code and read literally: nothing assumed
      break;
    case TrainBackendRule::kFsdpDefault:
      why = "no train_pp or train_ep, which only Megatron has, and a dense model; FSDP is the frameworks' default: "
            "veRL actor.strategy fsdp, NeMo RL policy.dtensor_cfg.enabled true";
      break;
    case TrainBackendRule::kRoutedExperts:
      why = fmt::format("{} has routed experts: an FSDP trainer has no expert parallel and gathers all {} experts of "
                        "a layer every micro-batch, and the frameworks run their MoE configs on Megatron",
                        s.model_id.empty() ? std::string("the model") : s.model_id, s.model.experts);
      break;
    case TrainBackendRule::kMegatronLayout:
      why = "the placement states train_pp or train_ep, dimensions only Megatron has";
      break;
  }
  const std::string backend_assumed =
      why.empty() ? std::string()
                  : fmt::format("ASSUMED: placement.train_backend not stated; {}; state placement.train_backend: "
                                "megatron or fsdp to choose",
                                why);
  if (s.placement.train_backend == TrainBackend::kFsdp) {
    const int tp = std::max(1, s.placement.train_tp);
    const int group = perf::FsdpShardRanks(s, s.placement.train_gpus);
    a.push_back(fmt::format(
        "FSDP trainer (placement.train_backend{}): every micro-batch all-gathers the parameters for its forward and "
        "again for its backward and reduce-scatters fp32 gradients over groups of {} ({}); a pass takes the "
        "longer of that traffic and its compute{}",
        backend_assumed.empty() ? "" : " fsdp, " + backend_assumed, GpuCount(group),
        group * tp <= NvlinkDomainGpus(s.hardware) ? "NVLink" : "over the network",
        microbatch_stated()
            ? "; the trainer reads its loss to the host after every micro-batch, so each micro-batch's first "
              "gathers and last reduce-scatters (the root unit, embedding and output layer taken as untied "
              "(ASSUMED), and the first decoder layer) overlap no compute"
            : "; NOT PRICED here: set placement.train_micro_batch_tokens or train_micro_batch_seqs (the count of "
              "micro-batches sets it)"));
  } else if (!backend_assumed.empty()) {
    a.push_back("Megatron trainer (placement.train_backend megatron, " + backend_assumed + ")");
  }
  if (perf::DtensorLayerForwardCpuTime(s) > 0 && microbatch_stated()) {
    a.push_back(fmt::format(
        "DTensor tensor parallel: the CPU issues at least {:.0f} DTensor ops per decoder layer each forward, "
        "{:.0f} us each (ASSUMED: PyTorch's own dispatch-overhead check; the run's host and torch version are not "
        "known), {:.2f} ms a layer; FSDP2 issues a layer's forward all-gather when the CPU reaches that layer, so "
        "the gather hides only under the compute the GPU still has queued",
        perf::kDtensorDispatchesPerLayer, perf::kDtensorDispatchS * 1e6, perf::DtensorLayerForwardCpuTime(s) * 1e3));
  }
  if (perf::PacksToFixedLength(s)) {
    a.push_back(fmt::format(
        "packed micro-batches of {} tokens, each run at its full length ({}): sequences longer than half of it "
        "take one each and the linear layers compute on the padding (ASSUMED: the longest pack of a mini-batch "
        "fills its budget){}",
        s.placement.train_micro_batch_tokens,
        s.placement.train_backend == TrainBackend::kFsdp ? "a DTensor/FSDP trainer pads every pack"
                                                         : "a pipeline sends tensors of one shape",
        s.placement.train_backend == TrainBackend::kFsdp && s.placement.train_tp > 1
            ? "; tensor parallel adds 7 activation all-gathers or reduce-scatters a layer each way, in line with "
              "the compute"
            : ""));
  }
  if (!s.framework.empty()) {
    if (s.framework_defaults.empty()) {
      a.push_back(fmt::format("framework {}: every default it has was set in the scenario", s.framework));
    }
    for (const auto& f : s.framework_defaults) {
      a.push_back(fmt::format("framework {} set {} = {} (not in the scenario; {})", s.framework, f.path, f.value,
                              f.source));
    }
  }
  if (s.precision.train == Precision::kFp8 && s.hardware.gpu.Supports(Precision::kFp8)) {
    const GpuSpec& g = s.hardware.gpu;
    const bool measured = g.MatmulFractionMeasured(Precision::kBf16) && g.MatmulFractionMeasured(Precision::kFp8);
    a.push_back(fmt::format("fp8 training: only the linear layers' GEMMs run in fp8 ({:.0f}% -> {:.0f}% of the bf16 "
                            "and fp8 peaks, {}); attention and the rest of the step keep their bf16 time",
                            g.MatmulFraction(Precision::kBf16) * 100, g.MatmulFraction(Precision::kFp8) * 100,
                            measured ? "measured matmul rates" : "ASSUMED: no measured matmul rate for this GPU"));
  }
  if (s.placement.mode == PlacementMode::kColocated && s.placement.refit_offload != RefitOffload::kNone &&
      !s.placement.offload.optimizer) {
    a.push_back(fmt::format("colocated trainer: its optimizer states go to host memory inside every weight sync and "
                            "back for the update, {} (NeMo RL's refit; placement.refit_offload: none if your "
                            "trainer keeps them on the GPU, as veRL does by default)",
                            s.placement.refit_offload == RefitOffload::kPinned
                                ? "into pinned memory at 25 GB/s"
                                : PageableOffloadWords(s)));
  }
  if (perf::GatherParamsRefit(s)) {
    a.push_back(
        "colocated bucketed refit with a Megatron layout: the trainer gathers as NeMo RL v0.3's gather_params does "
        "(each tensor all-gathered over TP, then broadcast whole from its stage over PP, experts all-gathered over EP; "
        "refit_utils.py @ b1c86a81), not as Megatron-Bridge's later export (TP shards over PP first); ASSUMED from "
        "placement.weight_sync: bucketed, which prices v0.3's CUDA IPC groups");
  }
  // A training group across two NVLink domains (docs/model.md, "Groups across
  // NVLink domains"): the assumption that ranks fill whole domains in order.
  {
    const PlacementSpec& pl = s.placement;
    const int domain = NvlinkDomainGpus(s.hardware);
    const int train_gpus = std::max(1, pl.train_gpus);
    const int ep = std::max(1, pl.train_ep), tep = std::max(1, pl.train_tp) * ep;
    int group = 0;
    if (s.model.is_moe() && ep > 1 && perf::SmallestDomainPart(ep, train_gpus, domain) < std::min(ep, domain)) {
      group = ep;
    } else if (tep > 1 && perf::SmallestDomainPart(tep, train_gpus, domain) < std::min(tep, domain)) {
      group = tep;
    }
    if (group > 0) {
      a.push_back(fmt::format("training group of {} GPUs across two NVLink domains of {}: with the {} training "
                              "GPUs filling whole domains in order, one group straddles the boundary and its "
                              "weight gathers and expert all-to-alls run over the network (ASSUMED; set "
                              "hardware.nvlink_domain if your racks are split otherwise)",
                              group, domain, train_gpus));
    }
  }
  // Rollout tensor parallelism: where the all-reduces run, how the KV cache splits.
  const int tp = std::max(1, s.placement.rollout_tp);
  const GpuSpec& gpu = s.hardware.gpu;
  if (tp > gpu.nvlink_domain) {
    a.push_back(fmt::format("rollout_tp {} spans {} NVLink domains of {} GPUs ({}): each layer's all-reduces "
                            "cross the network at {:.0f} GB/s per GPU with NCCL's ring latency, not NVLink",
                            tp, (tp + gpu.nvlink_domain - 1) / gpu.nvlink_domain, gpu.nvlink_domain, gpu.id,
                            gpu.inter_node_gb_per_s));
  }
  if (s.placement.dp_attention) {
    a.push_back(fmt::format("data-parallel attention: each of the {} ranks of an engine holds the whole KV cache "
                            "of its own sequences (KV capacity x{})",
                            tp, tp));
  } else if (tp > 1 && perf::KvShards(s.model, tp, false) < tp) {
    a.push_back(s.model.attention == Attention::kMla
                    ? fmt::format("KV cache: the MLA latent is held whole by each of the {} ranks of an engine "
                                  "(placement.dp_attention: true splits the sequences instead)",
                                  tp)
                    : fmt::format("KV cache: {} KV heads over rollout_tp {}: ranks beyond {} hold copies "
                                  "(placement.dp_attention: true splits the sequences instead)",
                                  s.model.kv_heads, tp, s.model.kv_heads));
  }
  if (tp > 1) {
    // Why a larger rollout_tp can be faster per GPU: less weight per GPU
    // leaves more KV cache per GPU, so larger batches (the memory plan).
    auto here = perf::PlanMemory(s);
    auto there = perf::PlanMemory(s, tp / 2);
    if (here && there) {
      const double kv_here = here->kv_tokens_per_engine / tp, kv_there = there->kv_tokens_per_engine / (tp / 2);
      a.push_back(fmt::format("memory plan: rollout_tp {} leaves {:.0f}k tokens of KV cache per GPU ({:.1f} GB of "
                              "weights each); rollout_tp {} would leave {:.0f}k ({:.1f} GB): {}",
                              tp, kv_here / 1e3, here->rollout_weights_gb, tp / 2, kv_there / 1e3,
                              there->rollout_weights_gb,
                              kv_here > kv_there
                                  ? "more KV per GPU allows larger batches, which can make the larger rollout_tp "
                                    "faster per GPU despite its all-reduces"
                                  : "the smaller rollout_tp holds more KV per GPU (copies of the KV heads or of "
                                    "the MLA latent use the rest), so the larger one buys no batch room"));
    }
  }
  {
    // The catalog default says what it is and its date (its source text).
    std::string origin;
    if (s.hardware.price_per_gpu_hour == s.hardware.gpu.price_per_hour) {
      auto it = s.hardware.gpu.sources.find("price_per_hour");
      origin = it != s.hardware.gpu.sources.end() ? " (catalog default: " + it->second + ")" : " (catalog default)";
    }
    a.push_back(fmt::format("price: ${:.2f} per GPU-hour{}", s.hardware.price_per_gpu_hour, origin));
  }
  {
    // Spot roles (docs/model.md, "Spot GPUs"): their price and reclaim rate are the user's, not measured here.
    const SpotSpec& sp = s.hardware.spot;
    const bool colocated = s.placement.mode == PlacementMode::kColocated;
    const double od = s.hardware.price_per_gpu_hour;
    if (sp.Rollout() && !colocated) {
      a.push_back(fmt::format("spot rollout GPUs (as given in hardware.spot.rollout): ${:.2f} per GPU-hour, {:g} "
                              "preemptions per node-hour, {:.0f} s to replace a node{}; a preemption loses the "
                              "partial rollouts in flight on that node (no migration of partial responses)",
                              sp.rollout->PricePerGpuHour(od), sp.rollout->preemptions_per_hour,
                              perf::SpotRolloutRestartS(s),
                              sp.rollout->restart_s ? "" : " (ASSUMED: a start-up, model load + warm-up)"));
    } else if (sp.Rollout()) {
      a.push_back("hardware.spot.rollout not used: colocated, the rollout GPUs are the trainer's (hardware.spot.train "
                  "puts the whole pool on spot)");
    }
    if (sp.Train()) {
      a.push_back(fmt::format("spot {} GPUs (as given in hardware.spot.train): ${:.2f} per GPU-hour, {:g} preemptions "
                              "per node-hour; each stops the run until a node is back and the last checkpoint is "
                              "restored, the steps since it redone{}",
                              colocated ? "training (all, colocated)" : "training", sp.train->PricePerGpuHour(od),
                              sp.train->preemptions_per_hour,
                              s.run.checkpoint ? "" : " (no run.checkpoint: from step 0)"));
    }
  }
  if (s.environment.pass_rate.kind == PassRateSpec::Kind::kBeta) {
    a.push_back(fmt::format("pass rate: Beta(a={:.3g}, b={:.3g}), mean {:.3f}", s.environment.pass_rate.a,
                            s.environment.pass_rate.b, s.environment.pass_rate.mean()));
  }
  if (s.environment.sandbox) {
    a.push_back(s.environment.turns.mean() > 1
                    ? "sandbox CPU is billed for the whole life of a trajectory's container (assumed held from "
                      "start-up through decoding and tool calls to verification)"
                    : "sandbox CPU is billed for start-up and verification (a single-turn trajectory uses its "
                      "sandbox only for the reward)");
  }
  if (s.algorithm.critic) {
    a.push_back("ppo: a critic of the policy's size adds a value forward pass and a critic update each step "
                "(algorithm.critic: false for PPO with a group-mean baseline)");
  } else if (s.algorithm.name == Algorithm::kPpo) {
    a.push_back("ppo without a critic (algorithm.critic: false): advantages from the group's mean reward, as GRPO");
  }
  return a;
}

// A model verifier's calls, added to the step as a phase of their own (the
// analytic and the simulated step alike; docs/model.md, "Verifiers"). Shared:
// between generation and training, on the policy's rollout GPUs, the rest of
// the run's GPUs waiting. Dedicated: the judge works through the calls while
// the policy generates; the step waits for the last call judged alone, or for
// the judge's whole work when that outlasts generation.
Result<StepTiming> WithVerifier(const Scenario& s, StepTiming t, TextDetail detail = TextDetail::kFull) {
  const bool text = detail == TextDetail::kFull;
  // Failed trajectories (environment.failures) are not judged.
  const double judged = t.rollouts_generated * (1.0 - s.environment.failures.rate);
  auto w = perf::VerifierCost(s, judged);
  if (!w) return Fail(w.error());
  if (!w->on_gpu) return t;
  const double policy_gpus = s.hardware.gpus;
  // An ensemble's members each as a verifier of its own; others, the one.
  std::vector<perf::VerifierWork> parts = w->members;
  if (parts.empty()) parts.push_back(*w);
  // Shared judges run one after another on the policy's GPUs once generation
  // ends; dedicated ones work through their calls during generation and finish
  // with their tail. The step waits for the last vote.
  double shared_s = 0, shared_gpu_s = 0, dedicated_wait_s = 0, dedicated_gpu_s = 0;
  int dedicated_gpus = 0;
  for (const auto& p : parts) {
    if (p.shared) {
      shared_s += p.time_s;
      shared_gpu_s += p.time_s * p.gpus;
    } else {
      dedicated_wait_s = std::max(dedicated_wait_s, std::max(p.last_call_s, p.time_s - t.rollout_busy_s));
      dedicated_gpu_s += p.time_s * p.gpus;
      dedicated_gpus += p.gpus;
    }
  }
  const double wait_s = std::max(shared_s, dedicated_wait_s);
  t.verifier_calls = w->calls;
  t.gpu_s_reward = shared_gpu_s + dedicated_gpu_s;
  t.verifier_shared_s = shared_s;
  t.gpu_s_other += shared_gpu_s;
  t.gpu_s_idle += wait_s * policy_gpus - shared_gpu_s;
  t.reward_s += wait_s;
  t.other_s += wait_s;
  t.time_s += wait_s;
  t.other_flops += w->flops;
  if (dedicated_gpus > 0) {
    t.verifier_gpus = dedicated_gpus;
    t.gpu_s_other += dedicated_gpu_s;
    t.gpu_s_idle += std::max(0.0, t.time_s * dedicated_gpus - dedicated_gpu_s);
  }
  const auto& v = s.environment.reward.verifier;
  for (const auto& p : parts) {
    if (text) t.notes.push_back(fmt::format(
        "verifier: {} judges {:.0f} calls per step ({:.0f} tokens in, {:.0f} out each) on {} {} GPU{} (tp {}, "
        "{:.0f} calls at once per engine): prefill {:.1f} s + decode {:.1f} s{}{}",
        p.what, p.calls, p.input_tokens, p.output_tokens, p.gpus, p.shared ? "of the policy's" : "dedicated",
        p.gpus == 1 ? "" : "s", p.tp, p.batch, p.prefill_s, p.decode_s,
        p.shared ? fmt::format(" + loading its weights {:.1f} s", p.weight_load_s) : std::string(),
        parts.size() == 1 ? fmt::format("; the step waits {:.1f} s for it", wait_s) : std::string()));
  }
  if (parts.size() > 1 || v.kind == VerifierKind::kEnsemble) {
    if (text) t.notes.push_back(fmt::format("verifier: the ensemble's {} members vote on every rollout; the step waits {:.1f} s "
                                  "for the last vote ({:.1f} s of judges sharing the policy's GPUs, one after "
                                  "another; {:.1f} s of dedicated judges' tail)",
                                  v.members.size(), wait_s, shared_s, dedicated_wait_s));
  }
  if (!s.environment.reward.rubric.empty() && v.kind == VerifierKind::kLlmJudge) {
    int judged_items = 0;
    for (const auto& it : s.environment.reward.rubric) judged_items += it.judged ? 1 : 0;
    if (text) t.notes.push_back(fmt::format("rubric: {} criteria, {} judged by {} (one call each per rollout), the rest by rules",
                                  s.environment.reward.rubric.size(), judged_items, v.model_id));
  }
  return t;
}

// The simulated step with the expected spot-rollout loss of the closed form
// (SpotLostShare over the simulated rollout time): the pool redoes u / (1 - u)
// of its busy time. Synchronous, the step waits for all of it; pipelined, the
// engines' time spent waiting for the trainer absorbs it first.
void SimSpotLoss(const Scenario& s, sim::SimResult& r) {
  StepTiming& t = r.mean_step;
  if (!s.hardware.spot.Rollout() || s.placement.mode == PlacementMode::kColocated) return;
  const double u = perf::SpotRolloutLostShare(s, t.rollout_busy_s);
  if (!(u > 0) || !(u < 1)) return;  // u >= 1: the closed form reports it (EstimateAnalytic)
  const double extra = t.rollout_busy_s * u / (1 - u);
  const double rollout_gpus = std::max(1, s.placement.rollout_gpus);
  const bool pipelined = s.pipeline.mode == PipelineMode::kAsync;
  const double slack = pipelined ? r.idle_waiting_trainer_gpu_s / rollout_gpus : 0.0;
  const double longer = std::max(0.0, extra - slack);
  t.spot_lost_share = u;
  t.spot_lost_s = extra;
  t.rollout_busy_s += extra;
  t.rollout_s += longer;
  t.time_s += longer;
  t.gpu_s_rollout += extra * rollout_gpus;
  t.gpu_s_idle = std::max(0.0, t.gpu_s_idle + longer * s.hardware.gpus - extra * rollout_gpus);
  t.notes.push_back(fmt::format("spot rollout GPUs: {:.2f}% of the pool's time lost to preemptions (expected, not "
                                "simulated), {:.1f} s of generation redone per step, the step {:.1f} s longer",
                                u * 100, extra, longer));
}

}  // namespace

// A run whose interruptions come faster than it can restart and reach its
// next checkpoint: Daly's expected time grows as e^((R + tau) / M) and, with
// 65,536 spot training GPUs, read 2e303 dollars (#40). Past kMaxRestartFactor
// times the work itself the figure says nothing but "never": refused, with
// the rate and what to change. The factor only decides where a number stops
// being shown; below it the estimate is Daly's (docs/model.md, "Run-level costs").
constexpr double kMaxRestartFactor = 1000;

std::optional<Error> NeverFinishes(const Scenario& s, const Estimate& e) {
  const double work_h = e.run.steps_h + e.run.evaluation_h;
  if (std::isfinite(e.run.restarts_h) && !(e.run.restarts_h > kMaxRestartFactor * work_h)) return std::nullopt;
  const double spot_h = econ_internal::SpotTrainPreemptionsPerHour(s);
  const double fail_h = s.run.failures ? s.run.failures->interruptions_per_gpu_hour * s.hardware.gpus : 0.0;
  const double every_s = 3600.0 / (spot_h + fail_h);
  return Error(ErrorCode::kDoesNotFit, spot_h >= fail_h ? "hardware.spot.train" : "run.failures",
               fmt::format("the run would not finish: an interruption every {:.3g} s on average across its {} GPUs, "
                           "each costing a restart and the work since the last checkpoint; the expected restarts "
                           "exceed {:.0f} times the run's own {:.3g} hours. Put fewer training GPUs on spot, lower "
                           "the interruption rate, or checkpoint more often (run.checkpoint)",
                           every_s, s.hardware.gpus, kMaxRestartFactor, work_h));
}

Estimate BuildEstimate(const Scenario& s, const StepTiming& t, const signal::Summary& sig, double evaluation_s,
                       TextDetail detail) {
  const bool text = detail == TextDetail::kFull;
  Estimate e;
  e.scenario_name = s.name;
  e.step = t;
  e.layout.colocated = s.placement.mode == PlacementMode::kColocated;
  e.layout.rollout_gpus = s.placement.rollout_gpus;
  e.layout.train_gpus = s.placement.train_gpus;
  e.layout.rollout_tp = s.placement.rollout_tp;
  e.layout.engines = s.placement.rollout_tp > 0 ? s.placement.rollout_gpus / s.placement.rollout_tp : 0;
  e.layout.dp_attention = s.placement.dp_attention;
  if (e.layout.colocated) {
    if (auto mem = perf::PlanMemory(s)) e.layout.train_state_offloaded = mem->train_state_offloaded;
  }
  e.signal = sig;
  const double gpus = s.hardware.gpus + t.verifier_gpus;  // a dedicated judge's GPUs are the run's too
  const double gpu_s = t.time_s * gpus;
  e.rollout_fraction = SafeDiv(t.gpu_s_rollout, gpu_s);
  e.mfu_rollout = t.gpu_s_rollout > 0
                      ? t.rollout_flops / (t.gpu_s_rollout * s.hardware.gpu.PeakFlops(s.precision.rollout))
                      : 0;
  e.mfu_train = t.gpu_s_train > 0
                    ? t.train_flops / (t.gpu_s_train * s.hardware.gpu.PeakFlops(s.precision.train))
                    : 0;
  e.tokens_per_s_per_gpu = SafeDiv(t.trained_tokens, gpu_s);
  e.output_tokens_per_s_per_gpu = SafeDiv(t.generated_tokens, t.rollout_busy_s * t.rollout_gpus);
  e.clipped_share = s.environment.response_tokens.ShareAtMax();
  e.clipped_share_set = s.environment.response_tokens.clipped() > 0;

  // Dollars per hour of all the run's GPUs: the policy's (spot roles at their
  // price, docs/model.md "Spot GPUs") and a dedicated judge's at the list price.
  const double usd_per_h = econ_internal::PolicyUsdPerHour(s) + t.verifier_gpus * s.hardware.price_per_gpu_hour;
  e.usd_per_gpu_hour = gpus > 0 ? usd_per_h / gpus : 0;
  e.usd_gpu_per_step = t.time_s * usd_per_h / 3600.0;
  e.usd_sandbox_per_step =
      s.environment.sandbox ? t.sandbox_cpu_s / 3600.0 * s.environment.sandbox->price_per_cpu_hour : 0.0;
  e.usd_per_step = e.usd_gpu_per_step + e.usd_sandbox_per_step;
  // A shared judge holds the whole run's GPUs while it runs; dedicated GPUs are held all step.
  if (t.gpu_s_reward > 0)
    e.usd_verifier_per_step = (t.time_s * t.verifier_gpus + t.verifier_shared_s * s.hardware.gpus) / 3600.0 *
                              s.hardware.price_per_gpu_hour;
  if (sig.wasted_rollouts_per_step > 0 && sig.rollouts_per_step > 0) {
    // Failed trajectories run their full length (ASSUMED): their share of the
    // generated ones is their share of generation and sandbox time.
    const double share = sig.wasted_rollouts_per_step / sig.rollouts_per_step;
    e.wasted_gpu_s = t.gpu_s_rollout * share;
    const double rollout_price = s.hardware.spot.Rollout() && s.placement.mode != PlacementMode::kColocated
                                     ? s.hardware.spot.rollout->PricePerGpuHour(s.hardware.price_per_gpu_hour)
                                     : (s.placement.mode == PlacementMode::kColocated && s.hardware.spot.Train()
                                            ? s.hardware.spot.train->PricePerGpuHour(s.hardware.price_per_gpu_hour)
                                            : s.hardware.price_per_gpu_hour);
    e.usd_wasted_per_step = e.wasted_gpu_s / 3600.0 * rollout_price + e.usd_sandbox_per_step * share;
  }
  e.usd_per_useful_sample = SafeDiv(e.usd_per_step, sig.useful_samples_per_step);
  e.usd_per_reward_bit = SafeDiv(e.usd_per_step, sig.rollouts_per_step * sig.reward_bits_per_rollout);
  e.usd_per_million_trained_tokens = SafeDiv(e.usd_per_step, t.trained_tokens / 1e6);
  const double steps = s.algorithm.steps;
  // The run: its steps plus start-up, checkpoints, evaluation and restarts
  // (docs/model.md, "Run-level costs"); every GPU of the run is held for all of it.
  e.run = econ_internal::BuildRunBreakdown(s, t.time_s, evaluation_s);
  e.wall_time_h = e.run.total_h();
  e.gpu_hours = e.wall_time_h * gpus;
  e.cpu_hours = t.sandbox_cpu_s * steps / 3600.0;
  e.usd = e.wall_time_h * usd_per_h + e.usd_sandbox_per_step * steps;
  {
    // Dollars by phase (docs/model.md): the steps' GPU dollars in the
    // proportions of the step's GPU-seconds, the run-level hours at full price.
    const double step_gpu_s = t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle;
    const double steps_usd = e.run.steps_h * usd_per_h;
    UsdByPhase& u = e.usd_by_phase;
    if (step_gpu_s > 0) {
      u.rollout = steps_usd * t.gpu_s_rollout / step_gpu_s;
      u.train = steps_usd * t.gpu_s_train / step_gpu_s;
      u.other = steps_usd * t.gpu_s_other / step_gpu_s;
      u.idle = steps_usd * t.gpu_s_idle / step_gpu_s;
    } else {
      u.idle = steps_usd;
    }
    u.sandbox = e.usd_sandbox_per_step * steps;
    u.startup = e.run.startup_h * usd_per_h;
    u.checkpoints = e.run.checkpoints_h * usd_per_h;
    u.evaluation = e.run.evaluation_h * usd_per_h;
    u.restarts = e.run.restarts_h * usd_per_h;
  }
  e.energy = econ_internal::BuildEnergy(s, e);  // docs/model.md, "Energy"
  if (text) {
    e.assumptions = Assumptions(s);
    MinibatchAssumption(s, t, e.assumptions);
    MegatronCommAssumption(s, t, e.assumptions);
    SlowestRankAssumption(s, t, e.assumptions);
    LongestResponseAssumption(s, t, sig.rollouts_per_step, e.assumptions);
    for (auto& a : econ_internal::RunAssumptions(s, e.run)) e.assumptions.push_back(std::move(a));
  }
  if (s.goal.target_pass_rate) {
    GoalEstimate& g = e.goal;
    g.requested = true;
    g.target_pass_rate = *s.goal.target_pass_rate;
    g.curve_is_illustrative = !s.goal.curve.has_value();
    g.curve = !s.goal.curve ? "illustrative" : s.goal.curve->preset.empty() ? "given" : "published:" + s.goal.curve->preset;
    LearningCurveSpec curve = s.goal.curve.value_or(LearningCurveSpec{});
    econ_internal::GoalSteps(s, curve, sig, g);  // src/econ/goal_steps.cc
    if (g.reachable) {
      g.gpu_hours = g.steps * t.time_s * gpus / 3600.0;
      g.usd = g.steps * e.usd_per_step;
    }
    if (g.curve_is_illustrative && text) {
      e.assumptions.push_back(fmt::format(
          "goal: ILLUSTRATIVE learning curve R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) with default A = {:.2f}, "
          "B = {:.2f}, C_mid = {:.3g} useful samples (set goal.curve to your own fit)",
          curve.asymptote, curve.exponent, curve.midpoint_useful_samples));
    }
    if (!curve.preset.empty() && text) {
      e.assumptions.push_back(fmt::format(
          "goal: published learning curve {} ({}), {}: A = {:.3f}, B = {:.2f}, C_mid = {:.4g} useful samples",
          curve.preset, curve.borrowed ? "BORROWED from another model's run" : "measured on this model",
          curve.preset_label, curve.asymptote, curve.exponent, curve.midpoint_useful_samples));
    }
    if (g.reachable && text) {
      if (g.learning_model == "noise_scale") {
        e.assumptions.push_back(fmt::format(
            "goal: ASSUMPTION, learning model noise_scale (docs/model.md, sec. 7d): steps follow the gradient noise "
            "scale with the group's own noise rho / ((G - 1) E[p(1-p)]) against the noise between prompts (rho = {:.3g}, "
            "fitted to the published ablations of validation/learning/): {:.0f} steps = {:.0f} counted at the curve's "
            "G = {} x {:.3f} for G = {}{}",
            signal::kLearningRho, g.steps, g.learning_steps_ref, g.learning_group_ref, g.learning_factor,
            s.algorithm.group_size, g.learning_note.empty() ? "" : "; " + g.learning_note));
      } else if (g.learning_model == "useful_samples") {
        e.assumptions.push_back(fmt::format("goal: ASSUMPTION, learning model useful_samples (docs/model.md, sec. 7): "
                                            "steps = useful samples to the target / useful samples a step{}",
                                            g.learning_note.empty() ? "" : "; " + g.learning_note));
      }
    }
    if (g.steps_view == "noise_scale" && text) {
      e.assumptions.push_back(fmt::format(
          "goal: steps by the gradient noise scale (B_noise = {:.4g} useful samples, goal.b_noise): {:.0f} steps at "
          "{:.4g} useful samples a step, against {:.0f} counting useful samples (docs/model.md, sec. 7c)",
          *s.goal.b_noise, g.steps_noise_scale, g.useful_samples_per_step, g.steps_useful_samples));
    }
  }
  return e;
}

Result<Estimate> EstimateAnalytic(const Scenario& s, TextDetail detail) {
  auto sig = signal::Analyze(s, detail);
  if (!sig) return Fail(sig.error());
  return econ_internal::EstimateAnalyticWithSignal(s, *sig, detail);
}

Result<Estimate> econ_internal::EstimateAnalyticWithSignal(const Scenario& s, const signal::Summary& sig_in,
                                                           TextDetail detail) {
  // Every analytic figure passes here (a lever, a sensitivity end, an
  // optimize point, a price row): work no longer wanted stops at the next.
  if (CancelRequested()) return Fail(CancelledError("estimate", "the estimate"));
  const signal::Summary* sig = &sig_in;
  // docs/model.md, "Elastic pools": a run that re-splits its GPUs
  // (placement.resplit) is priced phase by phase, each phase at the split
  // chosen for it; the split as written is kept beside it for comparison.
  std::optional<econ_internal::ResplitPricing> rs;
  if (s.placement.resplit && s.placement.mode == PlacementMode::kDisaggregated) {
    auto r = econ_internal::PriceResplit(s, *sig, econ_internal::PolicyUsdPerHour(s));
    if (!r) return Fail(r.error());
    rs = std::move(*r);
  }
  auto t0 = rs ? Result<StepTiming>(rs->mean_step) : econ_internal::ScheduledAnalyticStep(s, *sig, detail);
  if (!t0) return Fail(t0.error());
  auto t = WithVerifier(s, *t0, detail);
  if (!t) return Fail(t.error());
  auto eval_s = econ_internal::EvaluationPassS(s);
  if (!eval_s) return Fail(eval_s.error());
  Estimate e = BuildEstimate(s, *t, *sig, *eval_s, detail);
  if (auto never = NeverFinishes(s, e)) return Fail(std::move(*never));
  e.method = "analytic";
  if (rs) {
    const Estimate::Resplit& r = rs->summary;
    e.resplit = r;
    std::string splits;
    for (size_t k = 0; k < r.rollout_gpus.size(); ++k) {
      splits += fmt::format("{}{} rollout GPUs at {:.0f} tokens", k ? ", " : "", r.rollout_gpus[k],
                            r.phase_mean_tokens[k]);
    }
    e.assumptions.push_back(fmt::format(
        "elastic pools (placement.resplit): the run re-splits its {} GPUs between rollout and training in {} phases "
        "({}), moving only where a phase's steps save more than the stop; {} change{} of split, each stopping the "
        "run {:.0f} s ({}): steps {:.2f} h and ${:.0f} against {:.2f} h and ${:.0f} with the split as written "
        "({} rollout + {} training GPUs throughout)",
        s.hardware.gpus, r.phases, splits, r.resplits, r.resplits == 1 ? "" : "s", r.resplit_s,
        s.placement.resplit->restart_s ? "as given in placement.resplit.restart_s"
                                       : "ASSUMED: one start-up, weights reloaded and engines warmed up",
        r.steps_h, r.usd, r.fixed_steps_h, r.fixed_usd, s.placement.rollout_gpus, s.placement.train_gpus));
  }
  return e;
}

Result<Estimate> EstimateSimulated(const Scenario& s, const sim::Options& opt) {
  if (s.placement.resplit && s.placement.mode == PlacementMode::kDisaggregated) {
    // docs/model.md, "Elastic pools": priced in closed form only.
    return Fail(ErrorCode::kNotImplemented, "placement.resplit",
                "not yet: the event simulator runs one rollout/train split for the whole run; rlcost estimate prices "
                "the re-split run in closed form (placement.resplit: none simulates the split as written)");
  }
  auto sig = signal::Analyze(s);
  if (!sig) return Fail(sig.error());
  auto r = sim::Simulate(s, *sig, opt);
  if (!r) return Fail(r.error());
  // Evaluation passes are short synchronous batches: the analytic pass serves both paths.
  auto eval_s = econ_internal::EvaluationPassS(s);
  if (!eval_s) return Fail(eval_s.error());
  // Spot rollout GPUs: the simulator does not draw preemptions; their
  // expected loss is added to its rollout side here (docs/model.md, "Spot GPUs").
  SimSpotLoss(s, *r);
  // Judges the simulator ran as engine work are in its step already.
  auto t = r->judge_simulated ? Result<StepTiming>(r->mean_step) : WithVerifier(s, r->mean_step);
  if (!t) return Fail(t.error());
  Estimate e = BuildEstimate(s, *t, *sig, *eval_s);
  if (auto never = NeverFinishes(s, e)) return Fail(std::move(*never));
  e.method = "simulated";
  e.sim = *r;
  return e;
}

}  // namespace rlcost
