#pragma once
// The forward-only passes (old-policy and reference log-probs) of a
// Megatron-Core pipeline over packed sequences: every pack is padded to the
// longest of the pass, as the update's are. Derivation: docs/model.md,
// "Packed micro-batches" (2. Some trainers run every packed micro-batch at
// its full length).
//
//   double pad = perf::PipelineForwardPackFactor(s, gpus, tokens, mean_seq_len);

#include "rlcost/scenario.h"

namespace rlcost::perf {

// Tokens the linear layers of a forward-only pass run per real token when a
// Megatron pipeline (train_pp > 1) packs `tokens` into micro-batches of
// placement.logprob_micro_batch_tokens (else train_micro_batch_tokens) and
// pads every pack to the pass's longest, taken to fill the budget: the
// rank's packs x budget over its real tokens. The whole batch is packed at
// once (the log-prob passes are not split into mini-batches). 1 for the
// FSDP/DTensor backend (its get_logprobs packs without padding to the
// budget), a pass without a pipeline, a budget stated in sequences, or
// train_padding max-length.
double PipelineForwardPackFactor(const Scenario& s, int gpus, double tokens, double mean_seq_len);

}  // namespace rlcost::perf
