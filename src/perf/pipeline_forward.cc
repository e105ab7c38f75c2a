// The forward-only passes of a Megatron pipeline over packed sequences.
// Derivation: docs/model.md, "Packed micro-batches".
#include "perf/pipeline_forward.h"

#include <algorithm>

#include "perf/packing.h"
#include "rlcost/perf.h"

namespace rlcost::perf {

double PipelineForwardPackFactor(const Scenario& s, int gpus, double tokens, double mean_seq_len) {
  const PlacementSpec& p = s.placement;
  if (p.train_backend != TrainBackend::kMegatron || p.train_pp <= 1 || tokens <= 0 || gpus <= 0 ||
      p.train_padding == TrainPadding::kMaxLength || p.logprob_micro_batch_seqs > 0) {
    return 1.0;
  }
  // NeMo RL v0.3.0 (b1c86a81) megatron_policy_worker.py:999-1011: with
  // sequence packing and pp > 1, get_logprobs pads every pack of the rank's
  // data to get_microbatch_iterator_for_packable_sequences_len()'s longest
  // "to maintain a static PP buffer" (pad_packed_seq_to, :1035); the
  // reference pass is the same call (:1204-1207).
  const double budget = PassPackBudget(s, /*forward_only=*/true);
  if (budget <= 0) return 1.0;
  const double per_rank = tokens / DataParallelRanks(p, gpus);
  const double packs = PackedMicrobatchesAt(s, budget, gpus, tokens, mean_seq_len);
  return std::max(1.0, packs * budget / per_rank);
}

}  // namespace rlcost::perf
