#pragma once
// Sequences packed into micro-batches and dealt to the data-parallel ranks
// (src/perf/packing.cc; docs/model.md, "Packed micro-batches"): what the
// update, the forward-only passes and the slowest-rank factor count.
//
//   double packs = perf::PackedMicrobatchesAt(s, budget, gpus, tokens, mean_seq_len);

#include <functional>

#include "rlcost/scenario.h"

namespace rlcost::perf {

// Data-parallel ranks of the training layout on `gpus` GPUs:
// gpus / (train_tp x train_cp x train_pp), at least 1.
int DataParallelRanks(const PlacementSpec& p, int gpus);

// Micro-batches of `mb_tokens` tokens a rank runs over its share of `tokens`
// (all ranks'): ceil(tokens / (dp x mb_tokens)), at least 1; 1 when
// mb_tokens <= 0.
double MicrobatchesOf(int dp, double tokens, double mb_tokens);

// How NeMo RL's packer splits `tokens` tokens of single-turn sequences
// into packs of `budget` tokens (docs/model.md, "Packed micro-batches"):
// the sequences longer than half the budget open a pack each, the shorter
// ones fill the room they leave and then packs of their own. All 0 when
// nothing is packed here (see PackedBins).
struct PackLayout {
  double sequences = 0;    // n
  double shift = 0;        // the prompt's mean: a sequence is shift + a response
  double small_share = 0;  // P(sequence <= budget / 2)
  double n_long = 0;       // packs opened by a long sequence
  double room = 0;         // tokens the long packs leave free
  double short_tokens = 0; // tokens of the short sequences
  double bins = 0;         // B, the packs (PackedBins)
  double bins_sd = 0;      // B's spread from step to step: B cv(L) / sqrt(n)
};
PackLayout PackedLayout(const Scenario& s, double budget, double tokens, double mean_seq_len);

// E[f(b)] over the step's pack count b, about normal N(bins, sd) on the
// integers (f(bins) when sd is 0): the one reading of a pack count that
// varies from step to step, used by every count of packs a rank runs.
double OverPackCounts(double bins, double sd, const std::function<double(double)>& f);

// The token budget a pass packs its sequences into (NeMo RL's
// sequence_packing train_mb_tokens, logprob_mb_tokens for a forward-only
// pass): placement.logprob_micro_batch_tokens, else
// train_micro_batch_tokens; 0 where the pass is not packed to a budget
// (max-length padding, logprob_micro_batch_seqs stated for a forward-only
// pass, no budget).
double PassPackBudget(const Scenario& s, bool forward_only);

// Packs (bins of at most the budget) that NeMo RL's packer fills from
// `tokens` tokens of single-turn sequences into `budget` tokens
// (PackedMicrobatchesAt's count before it is dealt to the ranks); 0 when
// the count falls back to micro-batches of the budget (no budget, multi-turn
// trajectories, no spread stated).
double PackedBins(const Scenario& s, double budget, double tokens, double mean_seq_len);

// The packs a data-parallel rank runs when `tokens` tokens are packed into
// micro-batches of `budget` tokens: E[ceil(b / dp)] over the step's pack
// count b (OverPackCounts), or, where nothing
// is packed, MicrobatchesOf the budget (one sequence of mean length when no
// budget). PackedMicrobatches (include/rlcost/perf.h) is this at
// train_micro_batch_tokens; a forward-only pass may pack into its own budget.
double PackedMicrobatchesAt(const Scenario& s, double budget, int gpus, double tokens, double mean_seq_len);

}  // namespace rlcost::perf
