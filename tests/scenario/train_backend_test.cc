// placement.train_backend when the scenario does not state it: megatron where
// the placement states train_pp or train_ep (dimensions only Megatron has) or
// the model has routed experts, fsdp otherwise (the frameworks' default), and
// the estimate's text and JSON say it was assumed and why. --set and --facts
// reach the rule as the file's own fields do. docs/model.md, "Which trainer
// backend".
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/report.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Text(const std::string& model, const std::string& placement) {
  return "name: backend\nmodel: " + model +
         "\nhardware: {gpu: h100-sxm, gpus: 64, gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 4, gpu_memory_utilization: 0.6, train_micro_batch_tokens: 4096" +
         placement +
         "}\n"
         "environment:\n  prompt_tokens: {mean: 120, cv: 0.5, max: 1024}\n"
         "  response_tokens: {mean: 392, cv: 0.7, max: 3976}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

Scenario LoadWith(const std::string& text, const std::vector<Override>& overrides = {}) {
  auto s = LoadScenarioText(text, test::Cat(), "t.yaml", ".", overrides);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  return s ? *s : Scenario{};
}

// The assumption the estimate lists for the backend, "" when none.
std::string BackendAssumption(const Scenario& s) {
  auto e = EstimateAnalytic(s);
  EXPECT_TRUE(e.has_value()) << e.error().ToString();
  if (!e) return {};
  for (const auto& a : e->assumptions) {
    if (a.find("ASSUMED: placement.train_backend not stated") != std::string::npos) return a;
  }
  return {};
}

TEST(TrainBackend, ADenseLayoutWithoutPipelineOrExpertsIsAssumedFsdpAndPricedSo) {
  const Scenario s = LoadWith(Text("llama-3.1-70b", ", train_tp: 8"));
  EXPECT_EQ(s.placement.train_backend, TrainBackend::kFsdp);
  EXPECT_FALSE(s.placement.stated.train_backend);
  // The mechanism follows the resolved backend: the same FSDP traffic as a
  // file that states fsdp.
  const Scenario stated = LoadWith(Text("llama-3.1-70b", ", train_tp: 8, train_backend: fsdp"));
  EXPECT_TRUE(stated.placement.stated.train_backend);
  const double tokens = 2048.0 * 512.0;
  const double traffic = perf::FsdpTrafficTime(s, tokens, 512, 64, /*forward_only=*/false);
  EXPECT_GT(traffic, 0.0);
  EXPECT_DOUBLE_EQ(traffic, perf::FsdpTrafficTime(stated, tokens, 512, 64, false));
  // Text and JSON say it is assumed, and why; a stated backend is not listed.
  const std::string said = BackendAssumption(s);
  EXPECT_EQ(said.rfind("FSDP trainer (placement.train_backend fsdp, ASSUMED: placement.train_backend not stated", 0), 0u)
      << said;
  EXPECT_NE(said.find("no train_pp or train_ep"), std::string::npos) << said;
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e.has_value());
  EXPECT_NE(report::EstimateToJson(s, *e)["assumptions"].dump().find("placement.train_backend fsdp, ASSUMED"),
            std::string::npos);
  EXPECT_EQ(BackendAssumption(stated), "");
}

TEST(TrainBackend, APipelineOrExpertDimensionStatedMakesItMegatronEvenAtOne) {
  // train_pp: 1 is still Megatron's word (NeMo RL's Megatron configs write
  // pipeline_model_parallel_size: 1).
  const Scenario pp1 = LoadWith(Text("llama-3.1-70b", ", train_tp: 8, train_pp: 1"));
  EXPECT_EQ(pp1.placement.train_backend, TrainBackend::kMegatron);
  EXPECT_EQ(perf::FsdpTrafficTime(pp1, 2048.0 * 512.0, 512, 64, false), 0.0);
  EXPECT_EQ(BackendAssumption(pp1).rfind("Megatron trainer (placement.train_backend megatron, ASSUMED", 0), 0u)
      << BackendAssumption(pp1);
  EXPECT_NE(BackendAssumption(pp1).find("states train_pp or train_ep"), std::string::npos) << BackendAssumption(pp1);
  const Scenario pp2 = LoadWith(Text("llama-3.1-70b", ", train_tp: 4, train_pp: 2"));
  EXPECT_EQ(pp2.placement.train_backend, TrainBackend::kMegatron);
}

TEST(TrainBackend, AModelWithRoutedExpertsIsAssumedMegatron) {
  const Scenario moe = LoadWith(Text("qwen3-30b-a3b", ""));
  ASSERT_TRUE(moe.model.is_moe());
  EXPECT_EQ(moe.placement.train_backend, TrainBackend::kMegatron);
  EXPECT_NE(BackendAssumption(moe).find("has routed experts"), std::string::npos) << BackendAssumption(moe);
  // Stated, the file wins.
  const Scenario fsdp = LoadWith(Text("qwen3-30b-a3b", ", train_backend: fsdp"));
  EXPECT_EQ(fsdp.placement.train_backend, TrainBackend::kFsdp);
}

TEST(TrainBackend, TheLoaderKeepsTheRuleItTookAndTheEstimateGivesIt) {
  EXPECT_EQ(LoadWith(Text("llama-3.1-70b", ", train_tp: 8")).placement.stated.train_backend_rule,
            TrainBackendRule::kFsdpDefault);
  EXPECT_EQ(LoadWith(Text("llama-3.1-70b", ", train_tp: 8, train_pp: 1")).placement.stated.train_backend_rule,
            TrainBackendRule::kMegatronLayout);
  // Both hold: the routed experts are the reason named.
  const Scenario moe_pp = LoadWith(Text("qwen3-30b-a3b", ", train_pp: 1"));
  EXPECT_EQ(moe_pp.placement.stated.train_backend_rule, TrainBackendRule::kRoutedExperts);
  EXPECT_NE(BackendAssumption(moe_pp).find("has routed experts"), std::string::npos) << BackendAssumption(moe_pp);
  EXPECT_EQ(BackendAssumption(moe_pp).find("states train_pp"), std::string::npos) << BackendAssumption(moe_pp);
  // Stated: no rule, nothing assumed.
  const Scenario stated = LoadWith(Text("llama-3.1-70b", ", train_tp: 8, train_backend: fsdp"));
  EXPECT_EQ(stated.placement.stated.train_backend_rule, TrainBackendRule::kNone);
  // The reason is the one the loader took, not one read again off the
  // scenario: a copy whose rule is cleared (as a Scenario built in code
  // has it) is read literally and says nothing is assumed.
  Scenario literal = LoadWith(Text("llama-3.1-70b", ", train_tp: 8"));
  ASSERT_NE(BackendAssumption(literal), "");
  literal.placement.stated.train_backend_rule = TrainBackendRule::kNone;
  EXPECT_EQ(BackendAssumption(literal), "");
}

TEST(TrainBackend, OverridesReachTheRuleAsTheFilesOwnFieldsDo) {
  // --set (and --facts, applied the same way) before the rule runs.
  const std::string text = Text("llama-3.1-70b", ", train_tp: 8");
  EXPECT_EQ(LoadWith(text, {{"placement.train_pp", "2"}}).placement.train_backend, TrainBackend::kMegatron);
  const Scenario set = LoadWith(text, {{"placement.train_backend", "megatron"}});
  EXPECT_EQ(set.placement.train_backend, TrainBackend::kMegatron);
  EXPECT_TRUE(set.placement.stated.train_backend);
  EXPECT_EQ(LoadWith(text, {{"model", "qwen3-30b-a3b"}, {"placement.train_tp", "1"}}).placement.train_backend,
            TrainBackend::kMegatron);
}

TEST(TrainBackend, AStatedFsdpWithAPipelineIsStillAnError) {
  auto r = LoadScenarioText(Text("llama-3.1-70b", ", train_tp: 4, train_pp: 2, train_backend: fsdp"), test::Cat(),
                            "t.yaml", ".");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("placement.train_backend: fsdp with train_pp 2"), std::string::npos)
      << r.error().ToString();
}

}  // namespace
}  // namespace rlcost
