// The price card: each model on each GPU with a stack of levers, priced.
// Rules and formulas: docs/model.md (levers section).
#include <fmt/format.h>

#include "decide/levers_internal.h"
#include "core/cancel.h"

namespace rlcost::levers {

using namespace internal;

const std::vector<PriceMetric>& PriceMetrics() {
  static const std::vector<PriceMetric> m = {
      {"usd_per_million_trained_tokens", "$/M trained tokens", "USD"},
      {"usd_per_million_generated_tokens", "$/M generated tokens", "USD"},
      {"usd_per_useful_sample", "$/useful sample", "USD"},
      {"usd_per_reward_bit", "$/reward bit", "USD"},
      {"usd_to_goal", "$ to goal (per tenant)", "USD"},
      {"step_time_s", "step time", "s"},
  };
  return m;
}

Result<PriceCard> BuildPriceCard(const Scenario& user, const Catalog& cat, const std::vector<std::string>& models,
                                 const std::vector<std::string>& gpus, const std::vector<Lever>& stack,
                                 const Options& opt) {
  PriceCard card;
  card.scenario_name = user.name;
  card.stack = stack;
  Error bad;
  for (Lever l : stack) {
    if (l == Lever::kHardware || l == Lever::kMoe) {
      bad.problems.push_back({"stack", fmt::format("'{}' picks the model or GPU; the card's `models` and `gpus` do that",
                                                     ToString(l))});
    }
  }
  std::vector<std::string> ms = models.empty() ? std::vector<std::string>{user.model_id} : models;
  std::vector<std::string> gs = gpus.empty() ? std::vector<std::string>{user.hardware.gpu.id} : gpus;
  for (const auto& m : ms) {
    if (!cat.FindModel(m)) bad.problems.push_back({"models", fmt::format("'{}' is not in the catalog", m)});
  }
  for (const auto& g : gs) {
    if (!cat.FindGpu(g)) bad.problems.push_back({"gpus", fmt::format("'{}' is not in the catalog", g)});
  }
  if (!bad.problems.empty()) return Fail(bad);
  for (const auto& m : ms) {
    for (const auto& g : gs) {
      // A request whose answer is no longer wanted (rlcost serve) stops between rows.
      if (CancelRequested()) return Fail(CancelledError());
      Scenario s = user;
      Error err;
      SetModel(s, cat, m, &err);
      // Spot prices travel as fractions of the list price (SpotAsRatios).
      if (g != user.hardware.gpu.id) {
        s.hardware.spot = SpotAsRatios(user);
        SetGpu(s, cat, g, &err);
      }
      s.name = fmt::format("{} [{} on {}]", user.name, m, g);
      PriceRow row;
      row.model_id = m;
      row.gpu_id = g;
      Options popt = opt;
      if (!popt.speculative && user.engine.speculative) popt.speculative = user.engine.speculative;
      if (!popt.spot && (user.hardware.spot.Rollout() || user.hardware.spot.Train())) popt.spot = SpotAsRatios(user);
      if (!popt.tail && user.pipeline.tail.Active()) popt.tail = user.pipeline.tail;
      if (!popt.resplit && user.placement.resplit) popt.resplit = user.placement.resplit;
      auto c = Evaluate(s, stack, cat, popt);
      row.config = c ? *c : Failed(m + "@" + g, m + " on " + g, c.error(), stack);
      row.config.id = m + "@" + g;
      row.values.assign(PriceMetrics().size(), std::nullopt);
      if (row.config.ok) {
        const Estimate& e = row.config.estimate;
        const auto& v = row.config.values;
        row.values[0] = MetricValue(e, "cost.usd_per_million_trained_tokens");
        // Generated (decoded) tokens: the figure an inference price per output token compares with.
        auto usd_step = MetricValue(e, "cost.usd_per_step");
        auto gen = MetricValue(e, "rollout.generated_tokens_per_step");
        if (usd_step && gen && *gen > 0) row.values[1] = *usd_step / *gen * 1e6;
        row.values[2] = v[kUsdPerUsefulSample];
        row.values[3] = v[kUsdPerRewardBit];
        row.values[4] = v[kUsdToGoal];
        row.values[5] = v[kStepTime];
      }
      card.rows.push_back(std::move(row));
    }
  }
  card.notes.push_back("each row is the scenario with its model and GPU replaced (GPU at its catalog price, same GPU "
                       "count and placement), then the stack applied");
  card.notes.push_back("$/useful, $/reward bit and $ to goal are divided by what a rollout is worth after the quality "
                       "discounts (stale or low-precision rollouts), as in `rlcost waterfall`");
  card.notes.push_back("$/M trained tokens: GPU + sandbox dollars per million prompt + response tokens in the policy "
                       "update; $/M generated tokens: per million decoded tokens (compare with inference output prices)");
  return card;
}

}  // namespace rlcost::levers
