// The slowest data-parallel rank of a pass over variable-length sequences.
// Derivations: docs/model.md, "The slowest data-parallel rank".
#include "perf/dp_imbalance.h"

#include <algorithm>
#include <cmath>

#include "perf/packing.h"
#include "rlcost/perf.h"
#include "scenario/normal.h"

namespace rlcost::perf {
namespace {

// Sequences per micro-batch when the micro-batches hold a fixed number of
// sequences (no token budget for the pass), else 0.
double SequencesPerMicrobatch(const PlacementSpec& p, bool forward_only) {
  if (forward_only) {
    if (p.logprob_micro_batch_tokens > 0) return 0;
    if (p.logprob_micro_batch_seqs > 0) return p.logprob_micro_batch_seqs;
  }
  if (p.train_micro_batch_tokens > 0) return 0;
  return std::max(0, p.train_micro_batch_seqs);
}

// FSDP: every micro-batch all-gathers each layer's parameters (and, in the
// backward, reduce-scatters its gradients) over the data-parallel ranks, so
// no rank runs a layer ahead of the slowest (veRL 0.4's FSDP actor calls
// loss.backward() per micro-batch without no_sync, verl/workers/actor/
// dp_actor.py:433-512 @ v0.4.1 8d9e350ea, FULL_SHARD from fsdp_workers.py:
// 83-89, 322-333). A micro-batch is m consecutive sequences of the rank's
// share, which veRL's balance_batch keeps in index order
// (seqlen_balancing.py:181 sorted(partition)) and so in arrival order, not
// in length: m draws of the length distribution.
double FsdpMicrobatchFactor(const Scenario& s, double tokens, double mean_seq_len, int dp, bool forward_only) {
  const double m_stated = SequencesPerMicrobatch(s.placement, forward_only);
  if (m_stated <= 0) return 1.0;
  // A micro-batch cannot hold more than the rank's share of one optimizer
  // step (an update's mini-batch) or of the forward pass.
  const double chunks = forward_only ? 1.0 : std::max(1, s.algorithm.minibatches);
  const double per_rank = tokens / mean_seq_len / dp / chunks;
  const double m = std::min(m_stated, per_rank);
  if (m < 1.0) return 1.0;
  // A sequence of length L costs c1 L + c2 L^2: the linear layers, and
  // causal attention (token i attends to i tokens: L^2 / 2 token pairs; the
  // update runs it 3 times, forward and backward).
  const double c1 = TrainLinearFlopsPerToken(s, forward_only);
  const double c2 = AttentionFlopsPerContextToken(s.model) / 2.0 * (forward_only ? 1.0 : 3.0);
  const double rel_var = std::max(0.0, TrajectoryLengthDispersion(s) - 1.0);  // Var L / E[L]^2
  const double mu = mean_seq_len;
  const double mean_work = c1 * mu + c2 * mu * mu * (1.0 + rel_var);
  // Var of the work by the delta method around the mean length.
  const double sd_work = (c1 + 2.0 * c2 * mu) * mu * std::sqrt(rel_var);
  if (mean_work <= 0) return 1.0;
  return SlowestOfSumsFactor(dp, m, sd_work / mean_work);
}

// E[ceil(X)] for X about normal, mean mu > 0, sd sd: the sum over k >= 0 of
// P(X > k); the exact ceiling without spread; a remainder uniform on [0, 1)
// (mu + 1/2) once the spread covers many integers.
double ExpectedCeil(double mu, double sd) {
  if (sd <= 1e-9 * std::max(1.0, mu)) return std::ceil(mu - 1e-9);
  if (sd > 64.0) return mu + 0.5;
  const double lo = std::max(0.0, std::floor(mu - 8.0 * sd));
  double e = lo;  // P(X > k) = 1 below lo
  for (double k = lo; k <= mu + 8.0 * sd; k += 1.0) e += scenario_internal::NormalCdf((mu - k) / sd);
  return std::max(1.0, e);
}

// Megatron without a pipeline (a pipeline pads every pack to one length:
// FixedLengthPackFactor, PipelineForwardPackFactor): NeMo RL packs each
// global batch (nemo_rl/models/policy/lm_policy.py:341-345, batch_size =
// train_global_batch_size) and deals its packs to the ranks in turn
// (nemo_rl/distributed/batched_data_dict.py:430 bin_idx % shards @ v0.3.0
// b1c86a81); each rank runs as many as it got (megatron_policy_worker.py:
// 815-857, num_microbatches = the rank's own pack count), and the optimizer
// step's gradient reduce (:870) waits for the rank with ceil(B / dp) packs,
// each taken at the mean pack's work (the packs' own spread is left out: a
// lower bound). The log-prob passes pack the whole batch at
// once (lm_policy.py:213-216, 275-278: batch_size=None) and the driver waits
// for every worker's result (:240, :304).
double MegatronPackFactor(const Scenario& s, double tokens, double mean_seq_len, int dp, bool forward_only) {
  const PlacementSpec& p = s.placement;
  if (p.train_pp > 1) return 1.0;
  double budget = p.train_micro_batch_tokens;
  if (forward_only) {
    if (p.logprob_micro_batch_seqs > 0) return 1.0;
    if (p.logprob_micro_batch_tokens > 0) budget = p.logprob_micro_batch_tokens;
  }
  const double chunks = forward_only ? 1.0 : std::max(1, s.algorithm.minibatches);
  const double bins = PackedBins(s, budget, tokens / chunks, mean_seq_len);
  if (bins <= 0) return 1.0;
  // B varies from step to step with the lengths: about normal, sd
  // B cv(L) / sqrt(n) over the n sequences packed (the packs' tokens are the
  // sequences' sum). The slowest rank's E[ceil(B / dp)] over B / dp.
  const double n = tokens / chunks / mean_seq_len;
  const double sd_bins = bins * std::sqrt(std::max(0.0, TrajectoryLengthDispersion(s) - 1.0) / std::max(1.0, n));
  return ExpectedCeil(bins / dp, sd_bins / dp) / (bins / dp);
}

}  // namespace

double SlowestOfSumsFactor(double ranks, double draws, double cv) {
  if (ranks < 2.0 - 1e-9 || draws <= 0 || cv <= 0) return 1.0;
  const double z = scenario_internal::NormalQuantile((ranks - 0.375) / (ranks + 0.25));
  return 1.0 + z * cv / std::sqrt(draws);
}

double SlowestRankFactor(const Scenario& s, double tokens, double mean_seq_len, int gpus, bool forward_only) {
  const PlacementSpec& p = s.placement;
  if (tokens <= 0 || gpus <= 0 || mean_seq_len <= 0 || p.train_padding == TrainPadding::kMaxLength) return 1.0;
  const int dp = DataParallelRanks(p, gpus);
  if (dp <= 1) return 1.0;
  if (p.train_backend == TrainBackend::kFsdp) return FsdpMicrobatchFactor(s, tokens, mean_seq_len, dp, forward_only);
  return MegatronPackFactor(s, tokens, mean_seq_len, dp, forward_only);
}

}  // namespace rlcost::perf
