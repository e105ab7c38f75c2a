// The planner's pruning (plan::Options::layout_only, docs/model.md "Bounds
// that prune layouts"): the lower bound on a layout's step
// (sim AnalyticStepLowerBound) never above the step the estimate gives, worked
// by hand where it is exact, and the pruned search choosing the layout the
// full search chooses.
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "econ/run.h"
#include "plan/plan.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/signal.h"
#include "sim/analytic_rollout.h"
#include "support.h"

namespace rlcost {
namespace {

Scenario Load(const std::string& text) {
  auto s = LoadScenarioText(text, test::Cat(), "prune.yaml");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  return s ? *s : Scenario{};
}

// Every layout field left to the planner; caches far above and far below the
// batch (the all-at-once drain, FullCache, FullCacheFixed for fixed lengths),
// dense and MoE models, one to sixteen GPUs, an engine cap, dynamic sampling,
// an asynchronous run.
std::vector<std::string> Grid() {
  std::vector<std::string> out;
  for (const char* model : {"qwen3-8b", "qwen3-32b", "qwen3-30b-a3b"}) {
    for (const char* gpu : {"h100-sxm", "a100-80g"}) {
      for (int gpus : {1, 8, 16}) {
        for (const char* resp : {"{mean: 1000, cv: 0.8, max: 8192}", "{mean: 4000, cv: 0.8, max: 16384}", "2000"}) {
          for (int prompt : {200, 1500}) {
            for (const char* extra : {"", "engine: {max_num_seqs: 64}\n", "algorithm: {dynamic_sampling: true}\n",
                                      "pipeline: {mode: async}\n"}) {
              // The extras one at a time over a thinner grid.
              if (*extra && (gpus != 8 || prompt != 200)) continue;
              std::string alg = std::string(extra).rfind("algorithm", 0) == 0
                                    ? "algorithm: {name: dapo, group_size: 16, prompts_per_step: 256, dynamic_sampling: true}\n"
                                    : "algorithm: {name: grpo, group_size: 16, prompts_per_step: 256}\n";
              std::string more = std::string(extra).rfind("algorithm", 0) == 0 ? "" : extra;
              out.push_back(fmt::format(R"(model: {}
hardware: {{gpu: {}, gpus: {}}}
environment:
  prompt_tokens: {{mean: {}, cv: 0.5, max: 4096}}
  response_tokens: {}
  pass_rate: {{mean: 0.3, concentration: 2.0}}
{}{})",
                                        model, gpu, gpus, prompt, resp, alg, more));
            }
          }
        }
      }
    }
  }
  return out;
}

TEST(PlanPrune, BoundIsNeverAboveTheEstimatedStep) {
  int bounded = 0, tight = 0, layouts = 0;
  for (const std::string& text : Grid()) {
    const Scenario s = Load(text);
    auto sig = signal::Analyze(s, TextDetail::kNumbers);
    ASSERT_TRUE(sig);
    for (const plan::Layout& l : plan::Candidates(s)) {
      const Scenario c = plan::WithLayout(s, l);
      auto mem = perf::PlanMemory(c);
      if (!mem) continue;
      auto e = EstimateAnalytic(c, TextDetail::kNumbers);
      if (!e) continue;
      ++layouts;
      const double lb = sim::analytic_internal::AnalyticStepLowerBound(c, *sig);
      SCOPED_TRACE(text + plan::Describe(l));
      EXPECT_LE(lb, e->step.time_s);
      EXPECT_LE(lb * econ_internal::PolicyUsdPerHour(c) / 3600.0, e->usd_per_step * (1 + 1e-12));
      bounded += lb > 0;
      tight += lb > 0.5 * e->step.rollout_s;
    }
  }
  // Not vacuous: most layouts are bounded, and most bounds are within 2x of the rollout.
  EXPECT_GT(layouts, 500);
  EXPECT_GT(bounded, layouts * 3 / 4);
  EXPECT_GT(tight, bounded / 2);
}

// Worked by hand: one sequence of a fixed length L after a prompt p on one
// dense engine (tp 1) with room for it: I = L iterations of batch 1; the weight
// part is memory-bound at batch 1 (W0 = weights_s(1)), the fixed part the same
// at any batch (no all-reduce), and the attention reads p L + L (L - 1) / 2 tokens
// of context in all, so the bound is the drain itself, less its 1e-6 margin.
TEST(PlanPrune, BoundOfOneSequenceIsItsDrain) {
  const Scenario s = Load(R"(model: llama-3.1-8b
hardware: {gpu: h100-sxm, gpus: 1}
environment: {prompt_tokens: 1000, response_tokens: 3000}
algorithm: {name: ppo, group_size: 1, prompts_per_step: 1, steps: 1}
)");
  const perf::EngineConfig e = perf::RolloutEngine(s);
  const double p = 1000, L = 3000;
  const auto w = perf::DecodeIterations(e, 1, p, L);
  const double drain = w.time_s + perf::Prefill(e, p, 0, 1).time_s;
  const double lb = sim::analytic_internal::SingleTurnLowerBound(e, s, 1, 1, 1e6);
  const auto exact = sim::analytic_internal::SingleTurn(e, s, 1, 1, 1e6);
  EXPECT_NEAR(exact.time_s / drain, 1.0, 1e-12);
  EXPECT_NEAR(lb / drain, 1.0 - 1e-6, 1e-9);
  // The same sequence with a cache of half its peak: the KV bound on the
  // iterations (L (p + 8) + L^2 / 2 token-iterations over what the cache
  // holds) exceeds L, and the bound stays below the full-cache model.
  const double kv = 0.5 * (p + L);
  const double lb_small = sim::analytic_internal::SingleTurnLowerBound(e, s, 4, 4, 4 * kv);
  const auto small = sim::analytic_internal::SingleTurn(e, s, 4, 4, 4 * kv);
  EXPECT_LE(lb_small, small.time_s);
  EXPECT_GT(lb_small, 0.5 * small.time_s);
}

TEST(PlanPrune, PrunedSearchChoosesTheFullSearchsLayout) {
  int changed = 0, plans = 0;
  for (const std::string& text : Grid()) {
    const Scenario s = Load(text);
    for (plan::Objective o : {plan::Objective::kCost, plan::Objective::kTime}) {
      auto full = plan::PlanLayout(s, {o, false});
      auto pruned = plan::PlanLayout(s, {o, true});
      SCOPED_TRACE(text);
      ASSERT_EQ(bool(full), bool(pruned));
      if (!full) continue;
      ++plans;
      EXPECT_EQ(plan::Describe(plan::LayoutOf(full->scenario)), plan::Describe(plan::LayoutOf(pruned->scenario)));
      EXPECT_EQ(full->changed, pruned->changed);
      EXPECT_TRUE(pruned->summary.runner_up.empty());
      // The sweep's way: the layout alone, with the point's signal summary.
      auto sig = signal::Analyze(s, TextDetail::kNumbers);
      ASSERT_TRUE(sig);
      auto chosen = plan::ChooseLayout(s, *sig, o);
      ASSERT_TRUE(chosen);
      EXPECT_EQ(plan::Describe(*chosen), plan::Describe(plan::LayoutOf(full->scenario)));
      changed += full->changed;
    }
  }
  EXPECT_GT(plans, 200);
  EXPECT_GT(changed, 50);  // the planner moves off the literal layout often enough to matter
}

// The literal layout's screen (plan.cc): under RolloutBoundOnly the whole
// estimate runs with the single-turn rollout's time at its bound, so its step
// is AnalyticStepLowerBound's (the same step with the rollout bounded) and it
// never exceeds the real estimate's.
TEST(PlanPrune, RolloutBoundOnlyEstimateIsTheBoundedStep) {
  int checked = 0;
  for (const std::string& text : Grid()) {
    const Scenario s = Load(text);
    auto sig = signal::Analyze(s, TextDetail::kNumbers);
    ASSERT_TRUE(sig);
    auto real = econ_internal::EstimateAnalyticWithSignal(s, *sig, TextDetail::kNumbers);
    std::optional<Result<Estimate>> bounded;
    {
      sim::analytic_internal::RolloutBoundOnly scope;
      bounded = econ_internal::EstimateAnalyticWithSignal(s, *sig, TextDetail::kNumbers);
    }
    SCOPED_TRACE(text);
    ASSERT_EQ(bool(real), bool(*bounded));
    if (!real) continue;
    const double bound = sim::analytic_internal::AnalyticStepLowerBound(s, *sig);
    if (!(bound > 0)) continue;
    ++checked;
    EXPECT_DOUBLE_EQ((**bounded).step.time_s, bound);
    EXPECT_LE((**bounded).step.time_s, real->step.time_s);
    EXPECT_LE((**bounded).usd_per_step, real->usd_per_step * (1 + 1e-12));
  }
  EXPECT_FALSE(sim::analytic_internal::RolloutBoundOnly::Active());
  EXPECT_GT(checked, 50);
}

}  // namespace
}  // namespace rlcost
