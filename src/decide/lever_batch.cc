// The levers that change how many rollouts a step has and who they train:
// 2-GRPO (smaller groups), the bigger batch, LoRA tenants sharing one base.
// Rules and formulas: docs/model.md (levers section).
#include <algorithm>

#include <fmt/format.h>

#include "decide/levers_internal.h"

namespace rlcost::levers::internal {

void ApplyGrpo2(Building& b) {
  if (!Has(b.levers, Lever::kGrpo2)) return;
  // Prompts per step kept: 8x fewer rollouts, as in arXiv 2510.00977's claim.
  b.s.algorithm.group_size = b.opt.grpo2_group_size;
  b.said.push_back(fmt::format("G = {} with {} prompts/step (prompts kept, rollouts / {:g})", b.opt.grpo2_group_size,
                               b.s.algorithm.prompts_per_step,
                               double(b.base.algorithm.group_size) / b.opt.grpo2_group_size));
}

void ApplyBatchAndLora(Building& b) {
  Scenario& s = b.s;
  const int t_count = TenantsFor(b.base, b.opt);
  if (Has(b.levers, Lever::kBatch)) {
    // The batch LoRA tenancy brings (T tenants x the baseline's prompts), on one
    // fully fine-tuned model: the batch-size part of the tenancy lever.
    s.algorithm.prompts_per_step = b.base.algorithm.prompts_per_step * t_count;
    b.said.push_back(fmt::format("{} prompts/step ({} x {}), one model", s.algorithm.prompts_per_step, t_count,
                                 b.base.algorithm.prompts_per_step));
  }
  if (Has(b.levers, Lever::kLora)) {
    b.tenants = t_count;
    LoraSpec l{RankFor(b.base, b.opt), b.tenants};
    s.algorithm.lora = l;
    // The step's prompts are shared out over the tenants: each tenant's adapter
    // learns from its own share only.
    b.one_tenant = s;
    b.one_tenant->algorithm.lora = LoraSpec{l.rank, 1};
    b.one_tenant->algorithm.prompts_per_step = std::max(1, s.algorithm.prompts_per_step / b.tenants);
    b.said.push_back(fmt::format("LoRA rank {}, {} tenants x {} prompts on one base; cost per tenant = step cost / {}",
                                 l.rank, b.tenants, b.one_tenant->algorithm.prompts_per_step, b.tenants));
  }
}

}  // namespace rlcost::levers::internal
