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

// Rounds of the deal over which rank 0's packs are summed one by one;
// beyond, in groups evaluated at their middle round.
constexpr int kDealRounds = 512;
// Points over the short sequences' lengths (their mean square).
constexpr int kShortPoints = 256;

// Megatron without a pipeline (a pipeline pads every pack to one length:
// FixedLengthPackFactor, PipelineForwardPackFactor): NeMo RL packs each
// global batch (nemo_rl/models/policy/lm_policy.py:341-345, batch_size =
// train_global_batch_size) with modified first-fit-decreasing
// (nemo_rl/data/packing/algorithms.py:426-524 @ v0.3.0 b1c86a81: a pack per
// sequence over half the budget, longest first, the shorter ones filling
// them, then first-fit-decreasing packs of the rest) and deals its packs to
// the ranks in that order (nemo_rl/distributed/batched_data_dict.py:430
// bin_idx % shards); each rank runs as many as it got
// (megatron_policy_worker.py:815-857, num_microbatches = the rank's own pack
// count: Megatron-Core's forward_backward_no_pipelining, megatron/core/
// pipeline_parallel/schedules.py:455-548 @ 2ff0f099, runs num_microbatches - 1
// under no_sync, the last with the gradient reduce, then finalize_model_grads),
// so the optimizer step (:870) waits for the slowest. Rank 0 takes the first pack of every round of dp, the longest of
// the round, and the extra pack of a partial round: the slowest. The k-th
// longest of the n_long long packs holds the sequence at Blom's plotting
// position, L = prompt + Q(1 - (1 - F(cut)) (k - 0.375) / (n_long + 0.25))
// (G. Blom 1958, as SlowestOfSumsFactor), plus its share of the short
// sequences' tokens; the short-only packs share the rest equally. The log-prob
// passes pack the whole batch at once (lm_policy.py:213-216, 275-278:
// batch_size=None) and the driver waits for every worker's result (:240,
// :304). The step's pack count b varies (OverPackCounts).
double MegatronPackFactor(const Scenario& s, double tokens, double mean_seq_len, int dp, bool forward_only) {
  const PlacementSpec& p = s.placement;
  if (p.train_pp > 1) return 1.0;
  double budget = p.train_micro_batch_tokens;
  if (forward_only) {
    if (p.logprob_micro_batch_seqs > 0) return 1.0;
    if (p.logprob_micro_batch_tokens > 0) budget = p.logprob_micro_batch_tokens;
  }
  const double chunks = forward_only ? 1.0 : std::max(1, s.algorithm.minibatches);
  const PackLayout l = PackedLayout(s, budget, tokens / chunks, mean_seq_len);
  if (l.bins <= 0) return 1.0;
  const Distribution& r = s.environment.response_tokens;
  const double c1 = TrainLinearFlopsPerToken(s, forward_only);
  const double c2 = AttentionFlopsPerContextToken(s.model) / 2.0 * (forward_only ? 1.0 : 3.0);
  auto seq_work = [&](double len) { return c1 * len + c2 * len * len; };
  // A short sequence's work per token, c1 + c2 E[L^2] / E[L] over the short
  // ones (a pack's work is the sum of its sequences').
  double short_len = 0, short_sq = 0;
  for (int i = 0; i < kShortPoints; ++i) {
    const double len = l.shift + r.Quantile(l.small_share * (i + 0.5) / kShortPoints);
    short_len += len;
    short_sq += len * len;
  }
  const double short_per_token = short_len > 0 ? c1 + c2 * short_sq / short_len : c1;
  // The short tokens fill the long packs' room first (the same share of
  // each), the rest the short-only packs.
  const double fill = l.room > 0 ? std::min(1.0, l.short_tokens / l.room) : 0.0;
  const double rest_tokens = std::max(0.0, l.short_tokens - fill * l.room);
  // A step with b packs holds b / B as many long sequences (b moves with the
  // count of long ones where they dominate, with the short tokens where
  // those do): n_long b / B long packs, the short-only packs as at B.
  auto pack_at = [&](double k, double b) {  // rank 0's k-th pack
    const double n_long = l.n_long * b / l.bins;
    const double pos = k * dp;
    if (pos >= n_long) return rest_tokens / std::max(1.0, l.bins - l.n_long) * short_per_token;
    const double u = 1.0 - (1.0 - l.small_share) * (pos + 0.625) / (n_long + 0.25);
    const double len = std::min(budget, l.shift + r.Quantile(std::clamp(u, 0.0, 1.0)));
    return seq_work(len) + fill * (budget - len) * short_per_token;
  };
  // The mean rank: all the work over dp.
  double long_work = 0;
  for (int i = 0; i < kShortPoints; ++i) {
    const double u = l.small_share + (1.0 - l.small_share) * (i + 0.5) / kShortPoints;
    long_work += seq_work(std::min(budget, l.shift + r.Quantile(u)));
  }
  const double total = l.n_long * long_work / kShortPoints + l.short_tokens * short_per_token;
  if (total <= 0) return 1.0;
  // Rank 0's packs at positions k dp < b, over the step's b (its work in
  // proportion, b / B); past kDealRounds rounds, in groups at their middle.
  const double slowest = OverPackCounts(l.bins, l.bins_sd, [&](double b) {
    const double rounds = std::ceil(b / dp - 1e-9);
    const double groups = std::min(rounds, double(kDealRounds));
    double w = 0;
    for (double g = 0; g < groups; g += 1.0) {
      const double k0 = std::floor(g * rounds / groups), k1 = std::floor((g + 1.0) * rounds / groups);
      if (k1 > k0) w += (k1 - k0) * pack_at(std::floor((k0 + k1 - 1.0) / 2.0), b);
    }
    return w * l.bins / b;
  });
  // The short sequences fill a share fill of the room, but whole packs'
  // room or none (first fit, one pack after another): a long pack's filler
  // work is fill (C - L) omega on average with variance fill (1 - fill)
  // (room a pack x omega)^2, independent from pack to pack, so the ranks'
  // sums spread too and the slowest is their largest (SlowestOfSumsFactor
  // over the B / dp packs a rank, Blom as above).
  const double filler_sd = std::sqrt(l.n_long / l.bins * fill * (1.0 - fill)) * l.room / std::max(1.0, l.n_long) *
                           short_per_token;
  const double spread = SlowestOfSumsFactor(dp, l.bins / dp, filler_sd / (total / l.bins)) - 1.0;
  return std::max(1.0, slowest / (total / dp) + spread);
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
