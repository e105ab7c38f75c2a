#pragma once
// Sequences packed into micro-batches and dealt to the data-parallel ranks
// (src/perf/packing.cc; docs/model.md, "Packed micro-batches"): what the
// update, the forward-only passes and the slowest-rank factor count.
//
//   double packs = perf::PackedMicrobatchesAt(s, budget, gpus, tokens, mean_seq_len);

#include "rlcost/scenario.h"

namespace rlcost::perf {

// Data-parallel ranks of the training layout on `gpus` GPUs:
// gpus / (train_tp x train_cp x train_pp), at least 1.
int DataParallelRanks(const PlacementSpec& p, int gpus);

// Micro-batches of `mb_tokens` tokens a rank runs over its share of `tokens`
// (all ranks'): ceil(tokens / (dp x mb_tokens)), at least 1; 1 when
// mb_tokens <= 0.
double MicrobatchesOf(int dp, double tokens, double mb_tokens);

// Packs (bins of at most the budget) that NeMo RL's packer fills from
// `tokens` tokens of single-turn sequences into `budget` tokens
// (PackedMicrobatchesAt's count before it is dealt to the ranks); 0 when
// the count falls back to micro-batches of the budget (no budget, multi-turn
// trajectories, no spread stated).
double PackedBins(const Scenario& s, double budget, double tokens, double mean_seq_len);

// The packs a data-parallel rank runs when `tokens` tokens are packed into
// micro-batches of `budget` tokens: ceil(PackedBins / dp), or, where nothing
// is packed, MicrobatchesOf the budget (one sequence of mean length when no
// budget). PackedMicrobatches (include/rlcost/perf.h) is this at
// train_micro_batch_tokens; a forward-only pass may pack into its own budget.
double PackedMicrobatchesAt(const Scenario& s, double budget, int gpus, double tokens, double mean_seq_len);

}  // namespace rlcost::perf
