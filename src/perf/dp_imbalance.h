#pragma once
// The data-parallel ranks' unequal work in a pass over variable-length
// sequences: each rank gets its own sequences, and the ranks wait for one
// another (FSDP's collectives every layer of every micro-batch, Megatron's
// gradient reduce at each optimizer step, the driver for every worker's
// result), so a pass lasts as long as its slowest rank's share. Derivations:
// docs/model.md, "The slowest data-parallel rank".
//
//   double f = perf::SlowestRankFactor(s, tokens, mean_seq_len, gpus, /*forward_only=*/false);
//   compute_s *= f;  // the mean rank's compute, stretched to the slowest rank's

#include "rlcost/scenario.h"

namespace rlcost::perf {

// The largest of `ranks` independent sums of `draws` draws each, over the
// mean sum, the draws of coefficient of variation `cv`: about normal sums
// (central limit), E[max] = mean (1 + z_R cv / sqrt(n)), z_R the expected
// largest of R standard normals, Blom's approximation
// Phi^-1((R - 0.375) / (R + 0.25)) (G. Blom, 1958; 1.434 for R = 8, the
// tabulated 1.4236). 1 for one rank, no draws or cv 0.
double SlowestOfSumsFactor(double ranks, double draws, double cv);

// The slowest data-parallel rank's compute in a pass over `tokens` tokens
// (all GPUs') over the mean rank's (>= 1):
// - train_backend fsdp with micro-batches of a fixed number of sequences
//   (train_micro_batch_seqs / logprob_micro_batch_seqs, no token budget),
//   packed to their own lengths: the ranks meet at every layer's collective,
//   so each micro-batch lasts as long as the largest of the ranks' m-sequence
//   sums, SlowestOfSumsFactor(dp, m, cv of a sequence's work), the work of a
//   sequence of length L being c1 L + c2 L^2 (linear layers and causal
//   attention);
// - train_backend megatron without a pipeline, with a token budget: the packs
//   (NeMo RL's packer order, longest first) are dealt to the ranks in turn
//   (shard_by_batch_size) and the optimizer step (a log-prob pass: the
//   driver) waits for rank 0, which takes the longest pack of every round
//   and the extra pack of a partial round: its expected work (the packs at
//   Blom's plotting positions of the length distribution, the pack count b
//   varying from step to step, OverPackCounts) over the mean rank's.
// 1 otherwise: max-length padding (every sequence alike), one rank, packs
// held to one length (FixedLengthPackFactor, PipelineForwardPackFactor
// charge those), token-budget micro-batches under FSDP.
double SlowestRankFactor(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only);

}  // namespace rlcost::perf
