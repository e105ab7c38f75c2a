// The pipeline's slowest stage: Megatron-Core splits the decoder layers
// evenly over the stages and puts the output layer on the last one.
// Derivation: docs/model.md, "Pipeline stages: the output layer".
#include <algorithm>

#include "rlcost/perf.h"

namespace rlcost::perf {

double PipelineStageImbalance(const Scenario& s, double linear_flops_per_token, double flops_per_token) {
  const int pp = s.placement.train_pp;
  const ModelSpec& m = s.model;
  if (pp <= 2 || flops_per_token <= 0 || linear_flops_per_token <= 0 || m.vocab <= 0 || m.hidden <= 0 ||
      m.active_params_b <= 0 || m.layers < pp) {
    return 1.0;
  }
  // The output layer's share of the linear FLOPs: V h of the N active
  // parameters (the catalog counts the input embedding, V h more, as
  // parameters too, though a lookup does no matmul; untied embeddings).
  const double head = linear_flops_per_token * double(m.vocab) * m.hidden / (m.active_params_b * 1e9);
  // Per token the pass is charged F = layers + head + embedding (the
  // phantom); the last stage runs layers / pp + head, the pace of 1F1B's
  // steady state (Narayanan et al. 2021, sec. 2.2): pp (layers / pp + head)
  // / F = 1 + head (pp - 2) / F.
  return std::max(1.0, 1.0 + head * (pp - 2.0) / flops_per_token);
}

}  // namespace rlcost::perf
