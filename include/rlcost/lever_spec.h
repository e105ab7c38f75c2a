// Scenario fields of the levers added in 2026 (SCENARIO.md sections `engine`
// and `energy`): speculative decoding in the rollout engines and the
// electricity grid the run draws from. Each carries its sourced defaults;
// the formulas are in docs/model.md ("Speculative decoding in rollout",
// "Energy").
//
//   engine:
//     speculative: {method: mtp, draft_tokens: 1, acceptance: 0.85}
//   energy:
//     grid: france            # or a number: grams CO2e per kWh
//
//   s.engine.speculative->ExpectedTokensPerStep();   // (1 - a^(k+1)) / (1 - a)
#pragma once

#include <cmath>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace rlcost {

// How the draft tokens are proposed.
//   mtp:   the model's own multi-token-prediction module (DeepSeek-V3's one
//          MTP layer; vLLM speculative_config method deepseek_mtp / mtp).
//   eagle: an EAGLE / EAGLE-3 draft head, one decoder layer of the target's
//          width trained on its hidden states (Li et al. 2025, arXiv 2503.01840).
//   ngram: prompt lookup, no draft model (vLLM method ngram).
enum class SpeculativeMethod { kMtp, kEagle, kNgram };
std::string_view ToString(SpeculativeMethod m);
std::optional<SpeculativeMethod> SpeculativeMethodFromString(std::string_view s);

// DeepSeek-V3 Technical Report (arXiv 2412.19437), sec. 5.4.3: "the acceptance
// rate of the second token prediction ranges between 85% and 90% across
// various generation topics"; the lower end is the default for mtp.
inline constexpr double kMtpAcceptance = 0.85;

struct SpeculativeSpec {
  SpeculativeMethod method = SpeculativeMethod::kMtp;
  int draft_tokens = 1;      // k: tokens proposed per verification step
  double acceptance = kMtpAcceptance;  // a: probability each drafted token is accepted (given the previous was)
  // Decoder layers of the target's shape the draft runs per drafted token
  // (mtp: DeepSeek-V3 has 1 MTP module; eagle: 1 layer; ngram: 0). The draft
  // also computes the output projection (vocab x hidden) once per drafted token.
  double draft_layers = 1;
  // Expected tokens a sequence advances per verification step when each of k
  // drafted tokens is accepted with probability a, independently, and the
  // target always adds one token of its own (Leviathan, Kalman, Matias 2023,
  // "Fast Inference from Transformers via Speculative Decoding", eq. 1):
  // (1 - a^(k+1)) / (1 - a); a = 1 gives k + 1.
  double ExpectedTokensPerStep() const {
    const double k = draft_tokens, a = acceptance;
    if (a >= 1.0) return k + 1.0;
    return (1.0 - std::pow(a, k + 1.0)) / (1.0 - a);
  }
};

// `engine`: settings of the rollout inference engine beyond the placement.
struct EngineSpec {
  std::optional<SpeculativeSpec> speculative;  // absent = plain decoding
  // The engine runs its model eagerly, without CUDA graphs (vLLM
  // enforce_eager, SGLang --disable-cuda-graph): every kernel of every layer is
  // launched from Python each decode iteration (docs/model.md, "Eager
  // decoding"). Default false: vLLM's and SGLang's own default (CUDA graphs
  // captured for decode).
  bool enforce_eager = false;
  // engine.cuda_graph_max_batch: the largest decode batch (running sequences)
  // the engine replays from a captured CUDA graph; a decode iteration with more
  // runs eagerly and pays the launches of "Eager decoding" (docs/model.md,
  // "CUDA-graph coverage"). -1 = the engine's default (CudaGraphMaxBatch in
  // rlcost/scenario.h); 0 = every batch runs from a graph.
  int cuda_graph_max_batch = -1;
  // engine.max_num_seqs: the most sequences the engine runs at once (vLLM
  // max_num_seqs; its scheduler admits no more while that many are running or
  // prefilling); the rest wait for a slot (docs/model.md, "The engine's cap on
  // running sequences"). -1 = the engine's default (MaxNumSeqs in
  // rlcost/scenario.h); 0 = no cap beyond the KV cache.
  int max_num_seqs = -1;
};

// `hardware.spot`: spot (preemptible) GPUs for one role of the run
// (docs/model.md, "Spot GPUs"). A cloud reclaims a spot instance when it needs
// it back: the role pays less per GPU-hour and loses work at each preemption.
//   rollout: a preempted node's engines lose the partial rollouts in flight and
//            the node is gone for restart_s (a replacement loads the model and
//            warms up); the rest of the pool redoes the lost work.
//   train:   a preempted trainer node stops the run until it is back and the
//            last checkpoint is restored; the steps since it are redone (the
//            Daly restart model of run.failures, at this rate).
// No price or rate has a default: spot prices move by the hour and region
// and the reclaim rate is a property of the market the user buys in.
struct SpotRole {
  bool enabled = true;                // false: on-demand (for sweeps: --over hardware.spot.rollout.enabled=false,true)
  std::optional<double> price;        // USD per GPU-hour
  std::optional<double> price_ratio;  // or: a fraction of the on-demand price (hardware.price_per_gpu_hour)
  double preemptions_per_hour = 0;    // per node (one cloud instance of gpus_per_node GPUs)
  std::optional<double> restart_s;    // node lost per preemption; default: the run's start-up (model load + warm-up)
  double PricePerGpuHour(double on_demand) const {
    if (!enabled) return on_demand;
    if (price) return *price;
    return price_ratio.value_or(1.0) * on_demand;
  }
};
struct SpotSpec {
  std::optional<SpotRole> rollout;
  std::optional<SpotRole> train;
  bool Rollout() const { return rollout && rollout->enabled; }
  bool Train() const { return train && train->enabled; }
};

// Expected share of a spot rollout pool's capacity lost to preemptions
// (docs/model.md, "Spot GPUs"): each node of an engine is reclaimed at
// `per_node_per_hour`; an engine spans `nodes_per_engine` nodes and is lost
// when any of them is; each preemption costs the engine `restart_s` of
// absence plus the work already done on the rollouts in flight, on average
// half their generation time `in_flight_s` (a preemption falls uniformly
// within it). u = rate x nodes_per_engine x (restart_s + in_flight_s / 2) / 3600.
inline double SpotLostShare(double per_node_per_hour, int nodes_per_engine, double restart_s,
                            double in_flight_s) {
  return per_node_per_hour * nodes_per_engine * (restart_s + 0.5 * in_flight_s) / 3600.0;
}

// `pipeline.tail`: what a synchronous step does about its long tail of
// responses (docs/model.md, "Tail handling"). The step's rollout otherwise
// lasts as long as its longest response (order statistics of
// environment.response_tokens over the batch).
//   none:            the batch waits for its longest response (the default).
//   over_provision:  launch (1 + f) x the prompts, train on the first
//                    prompts_per_step whose whole group has finished, abort
//                    and drop the rest (their tokens are wasted; the trained
//                    responses are the shorter ones: a length bias).
//   tail_batching:   RollPacker (Gao et al., arXiv 2509.21009, abstract): short
//                    rounds as over_provision, but the aborted prompts are
//                    queued and, once prompts_per_step of them wait, trained
//                    in a long round of their own at full length (on-policy;
//                    the aborted partial work is redone).
//   partial_rollout: APRIL (Zhou et al., arXiv 2509.18521, abstract): launch
//                    (1 + f) x the responses, stop once the step's responses
//                    have finished, carry the unfinished ones (with what they
//                    generated) into the next step: nothing is dropped, the
//                    carried share was generated partly by older weights.
enum class TailMode { kNone, kOverProvision, kTailBatching, kPartialRollout };
std::string_view ToString(TailMode m);
std::optional<TailMode> TailModeFromString(std::string_view s);

// APRIL's README runs slime with --over-sampling-batch-size 64 for
// --rollout-batch-size 32 (github.com/RLsys-Foundation/APRIL): f = 1.
inline constexpr double kAprilOverLaunch = 1.0;

struct TailSpec {
  TailMode mode = TailMode::kNone;
  // f: the step launches (1 + f) x what it trains. partial_rollout defaults
  // to APRIL's kAprilOverLaunch; over_provision and tail_batching have no
  // published default (RollPacker tunes its factor per model in its sensitivity analysis) and
  // require it.
  double over_launch = 0;
  bool Active() const { return mode != TailMode::kNone; }
};

// `placement.resplit`: elastic rollout/training pools (Libra, arXiv
// 2606.03077): as responses grow over the run
// (environment.response_tokens_schedule), the split of a disaggregated run's
// GPUs between rollout and training is chosen again at the start of each of
// `phases` equal parts of the run; each change stops the run for restart_s
// (docs/model.md, "Elastic pools").
struct ResplitSpec {
  int phases = 4;
  // Seconds the whole run stops per re-split (engines rebuilt on the new GPUs,
  // weights reloaded); default: one start-up of the run (weights read from
  // storage + engine warm-up), an ASSUMPTION.
  std::optional<double> restart_s;
};

// A grid's carbon intensity: grams CO2-equivalent per kWh generated.
struct GridIntensity {
  std::string_view id;
  double g_co2e_per_kwh;
  std::string_view source;
};
// The built-in table (docs/model.md, "Energy"); "world" first, the default.
const std::vector<GridIntensity>& GridIntensities();
const GridIntensity* FindGrid(std::string_view id);

// Ember, Global Electricity Review 2023: the world's electricity averaged
// 436 gCO2/kWh in 2022 (GridIntensities()'s first row).
inline constexpr double kWorldGridGPerKwh = 436;

// `energy`: where the run's electricity comes from.
struct EnergySpec {
  std::string grid = "world";  // a table id, or "custom" when a number was given
  double g_co2e_per_kwh = kWorldGridGPerKwh;
  std::string grid_source = "Ember, Global Electricity Review 2023: world average 2022, 436 gCO2/kWh";
};

}  // namespace rlcost
