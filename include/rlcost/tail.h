// Tail handling of a synchronous step (`pipeline.tail`, rlcost/lever_spec.h):
// what each mode does to the response lengths one step decodes, in closed form
// from the response-length distribution (docs/model.md, "Tail handling"), and
// the same mechanism run on sampled lengths (sim::SampledTail) to check it.
//
//   auto t = perf::TailRounds(s.environment.response_tokens, 512, 16, s.pipeline.tail);
//   t->rounds[0].slices;   // equal-weight segment lengths the engines decode
#pragma once

#include <cstdint>
#include <vector>

#include "rlcost/distribution.h"
#include "rlcost/error.h"
#include "rlcost/lever_spec.h"

namespace rlcost::perf {

// One kind of rollout round a tail mode runs, `share` of the steps.
struct TailRound {
  double share = 1;         // of the run's steps
  double sequences = 0;     // responses decoding at the round's start (all engines)
  // Tokens each decodes in the round, as equal-weight points ascending; the
  // last is the round's expected longest (where it stops).
  std::vector<double> slices;
  double carried_context = 0;  // tokens of carried context re-prefilled (partial_rollout)
  double carried = 0;          // responses resumed from the step before
};

// Per step, averaged over the run's steps.
struct TailStep {
  std::vector<TailRound> rounds;
  double cut_tokens = 0;        // where a (short) round stops: L_c, or T for partial_rollout
  double launched = 0;          // responses started per step
  double wasted_tokens = 0;     // decoded tokens never trained on (aborted or dropped)
  double dropped_share = 0;     // of launched responses, dropped for good (over_provision)
  double deferred_share = 0;    // of trained prompts, trained later in a long round (tail_batching)
  double long_round_share = 0;  // of steps, long rounds (tail_batching)
  double carried_share = 0;     // of trained responses, begun in an earlier step (partial_rollout)
  double mean_staleness = 0;    // policy versions behind the trainer, mean over trained responses
  double trained_mean_tokens = 0;  // mean response length of what is trained on
  double none_mean_tokens = 0;     // E[L]: what `none` trains on
};

// The closed form for `n` trained responses per step in groups of `group`
// (GRPO's G; a prompt finishes when its last response does), with `slices`
// points per round. Requires spec.Active().
Result<TailStep> TailRounds(const Distribution& resp, double n, int group, const TailSpec& spec, int slices = 48);

// The cut of over_provision and tail_batching's short rounds: launching
// (1 + f) x the prompts and keeping the first 1 / (1 + f) of them to finish,
// the step stops where a prompt's G-th finished of its G' responses reaches
// the 1 / (1 + f) quantile: P(Bin(G', F(L_c)) >= G) = 1 / (1 + f); with
// G' = G (over_provision), F(L_c)^G = 1 / (1 + f). `launched_per_prompt`
// 0 = G.
double TailCut(const Distribution& resp, int group, double over_launch, int launched_per_prompt = 0);
// G': responses launched per prompt (tail_batching: round(G (1 + f)), as
// RollPacker launches eta R0 per prompt; otherwise G).
int TailResponsesPerPrompt(const TailSpec& spec, int group);

}  // namespace rlcost::perf

namespace rlcost::sim {

// The same mechanisms on sampled lengths: `steps` steps of n responses in
// groups of `group`, each length drawn from `resp` (seeded), each step's
// mechanism applied to its own draws (the step stops at its own N-th finish,
// its own aborted prompts queue, its own unfinished responses carry). The
// figures are the mean over the steps of each step's own, as TailStep's.
struct SampledTailResult {
  double cut_tokens = 0;       // mean over short rounds of where the round stopped
  double step_max_tokens = 0;  // mean over all steps of the longest segment decoded
  double wasted_tokens = 0;
  double dropped_share = 0;
  double deferred_share = 0;
  double long_round_share = 0;
  double carried_share = 0;
  double mean_staleness = 0;
  double trained_mean_tokens = 0;
  double decoded_tokens = 0;   // per step
};
Result<SampledTailResult> SampledTail(const Distribution& resp, int n, int group, const TailSpec& spec, int steps,
                                      uint64_t seed);

}  // namespace rlcost::sim
