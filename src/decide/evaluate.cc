// One configuration: the base scenario with a set of levers applied (each
// lever family's step in its own file, decide/levers_internal.h), priced by
// the analytic model, its headline figures divided by the rollouts' worth.
// Rules and formulas: docs/model.md (levers section).
#include "decide/levers_internal.h"

namespace rlcost::levers {

using namespace internal;

Result<Config> Evaluate(const Scenario& base, const std::vector<Lever>& levers, const Catalog& cat,
                        const Options& opt) {
  Config c;
  c.levers = levers;
  Building b{base, base, cat, opt, levers};
  // Build order: what the hardware is, then how it runs, then the pipeline
  // split (which depends on all the rest).
  for (auto step : {ApplyMoe, ApplyHardware}) {
    if (auto r = step(b); !r) return Fail(r.error());
  }
  ApplyLowPrecision(b);
  ApplyGrpo2(b);
  ApplyBatchAndLora(b);
  ApplySpeculative(b);
  if (auto r = ApplyLayoutAndAsync(b); !r) return Fail(r.error());
  if (auto r = ApplyReplan(b); !r) return Fail(r.error());
  ApplyTail(b);
  for (auto step : {ApplyResplit, ApplySpot}) {
    if (auto r = step(b); !r) return Fail(r.error());
  }
  const Scenario& s = b.s;
  for (size_t i = 0; i < b.said.size(); ++i) c.detail += (i ? "; " : "") + b.said[i];
  auto e = EstimateAnalytic(s);
  c.scenario = s;
  c.tenants = b.tenants;
  if (!e) return Fail(e.error());
  c.estimate = *e;
  std::optional<Estimate> goal_est;
  if (b.one_tenant && e->goal.requested) {
    // Goal steps depend on one tenant's useful samples per step only.
    auto g = EstimateAnalytic(*b.one_tenant);
    if (g) goal_est = *g;
  }
  c.values = ValuesOf(c.estimate, goal_est ? &*goal_est : nullptr, b.tenants);
  // What the rollouts are worth: a discounted rollout counts as (1 - d) of a
  // useful sample, so the figures per unit of learning are divided by the worth
  // (the goal's steps scale as 1 / useful samples per step).
  c.discounts = DiscountsOf(s, opt.discounts);
  for (const auto& d : c.discounts) c.worth *= 1 - d.value;
  for (int i : {kUsdPerUsefulSample, kUsdPerRewardBit, kUsdToGoal}) {
    if (c.values[i]) c.values[i] = *c.values[i] / c.worth;
  }
  c.ok = true;
  return c;
}

}  // namespace rlcost::levers
