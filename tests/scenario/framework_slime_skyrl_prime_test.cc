// `framework: slime | skyrl | prime-rl [@VERSION]` (catalog/frameworks/
// slime.yaml, skyrl.yaml, prime-rl.yaml; docs/model.md, "Frameworks"): each
// release fills exactly the fields its file lists, with the values read from
// the framework's own config at the tag named there; an explicit field (file
// or --set) wins; an unknown version names the listed ones; `estimate --json`
// lists what was supplied under framework.defaults_supplied.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "report/report.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "framework_support.h"
#include "scenario/overrides.h"

namespace rlcost {
namespace {

using fwtest::ErrorOf;
using fwtest::kBase;
using fwtest::Load;
using fwtest::Paths;
using fwtest::ExpectSourcesName;

TEST(FrameworkSlime, OlderReleaseSuppliesItsDefaults) {
  // slime v0.2.4 (bd217a63f): SGLang with CUDA graphs, 512 MiB buckets
  // gathered then broadcast, no Megatron recompute, the old log-probs
  // recomputed (use_rollout_logprobs False), no reference (kl_coef 0,
  // use_kl_loss False).
  auto s = Load(kBase + "framework: slime@0.2\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "slime@0.2");
  EXPECT_EQ(s->placement.engine, InferenceEngine::kSglang);
  EXPECT_FALSE(s->engine.enforce_eager);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kBucketed);
  EXPECT_FALSE(s->placement.gradient_checkpointing);
  EXPECT_TRUE(s->algorithm.recompute_logprobs);
  EXPECT_FALSE(s->algorithm.reference_model);
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"placement.engine", "engine.enforce_eager", "placement.weight_sync",
                                                  "placement.gradient_checkpointing", "algorithm.recompute_logprobs",
                                                  "algorithm.reference_model"}));
  ExpectSourcesName(*s, "bd217a63f");
}

TEST(FrameworkSlime, NewestReleaseSkipsTheLogProbPassAndExplicitFieldsWin) {
  // No version: v0.3.1 (a6272da0d), whose actor reuses the loss's forward as
  // the old log-probs with one optimizer step per rollout.
  auto s = Load(kBase + "framework: slime\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "slime@0.3");
  EXPECT_FALSE(s->algorithm.recompute_logprobs);
  EXPECT_EQ(s->placement.engine, InferenceEngine::kSglang);
  ExpectSourcesName(*s, "a6272da0d");
  // The file's own value and a --set both win, and neither is listed.
  auto own = Load(kBase + "framework: slime\nalgorithm: {recompute_logprobs: true}\n",
                  {{"placement.engine", "vllm"}});
  ASSERT_TRUE(own) << own.error().ToString();
  EXPECT_TRUE(own->algorithm.recompute_logprobs);
  EXPECT_EQ(own->placement.engine, InferenceEngine::kVllm);
  EXPECT_EQ(Paths(*own), (std::vector<std::string>{"engine.enforce_eager", "placement.weight_sync",
                                                    "placement.gradient_checkpointing", "algorithm.reference_model"}));
  const std::string m = ErrorOf(kBase + "framework: slime@0.1\n");
  EXPECT_NE(m.find("framework"), std::string::npos) << m;
  EXPECT_NE(m.find("no version '0.1'"), std::string::npos) << m;
  EXPECT_NE(m.find("0.2, 0.3"), std::string::npos) << m;
}

TEST(FrameworkSkyrl, OlderReleaseDecodesEagerly) {
  // skyrl-train 0.4.0 (332c7cbcc): vLLM eager, 0.8 of each GPU, sleep level
  // 2, optimizer to pageable host memory after each step, gradient
  // checkpointing, CUDA-IPC batches of 1 GB, old log-probs recomputed, KL
  // loss to a reference.
  auto s = Load(kBase + "framework: skyrl@train-0.4\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "skyrl@train-0.4");
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllm);
  EXPECT_TRUE(s->engine.enforce_eager);
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.8);
  EXPECT_EQ(s->placement.engine_sleep_level, 2);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kPageable);
  EXPECT_TRUE(s->placement.gradient_checkpointing);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kBucketed);
  EXPECT_TRUE(s->algorithm.recompute_logprobs);
  EXPECT_TRUE(s->algorithm.reference_model);
  EXPECT_EQ(Paths(*s),
            (std::vector<std::string>{"placement.engine", "engine.enforce_eager", "placement.gpu_memory_utilization",
                                      "placement.engine_sleep_level", "placement.refit_offload",
                                      "placement.gradient_checkpointing", "placement.weight_sync",
                                      "algorithm.recompute_logprobs", "algorithm.reference_model"}));
  ExpectSourcesName(*s, "332c7cbcc");
}

TEST(FrameworkSkyrl, NewestReleaseUsesCudaGraphsAndExplicitFieldsWin) {
  auto s = Load(kBase + "framework: skyrl\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "skyrl@0.3");
  EXPECT_FALSE(s->engine.enforce_eager);  // config.py:758 @ skyrl-v0.3.0
  EXPECT_EQ(s->placement.engine_sleep_level, 2);
  EXPECT_EQ(s->framework_defaults.size(), 9u);
  ExpectSourcesName(*s, "f5bc3b78d");
  auto own = Load(kBase + "framework: skyrl\nengine: {enforce_eager: true}\nplacement: {refit_offload: none}\n",
                  {{"placement.gpu_memory_utilization", "0.6"}});
  ASSERT_TRUE(own) << own.error().ToString();
  EXPECT_TRUE(own->engine.enforce_eager);
  EXPECT_EQ(own->placement.refit_offload, RefitOffload::kNone);
  ASSERT_TRUE(own->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*own->placement.gpu_memory_utilization, 0.6);
  EXPECT_EQ(own->framework_defaults.size(), 6u);
  for (const auto& d : own->framework_defaults) {
    EXPECT_NE(d.path, "engine.enforce_eager");
    EXPECT_NE(d.path, "placement.refit_offload");
    EXPECT_NE(d.path, "placement.gpu_memory_utilization");
  }
  const std::string m = ErrorOf(kBase + "framework: skyrl@0.2\n");
  EXPECT_NE(m.find("no version '0.2'"), std::string::npos) << m;
  EXPECT_NE(m.find("train-0.4, 0.3"), std::string::npos) << m;
}

TEST(FrameworkPrimeRl, OlderReleaseKeepsTheOptimizerOnTheGpu) {
  // prime-rl v0.6.0 (38494ccb4): vLLM with CUDA graphs at 0.9 of each GPU, no
  // offload, no activation checkpointing, vLLM's log-probs as the old
  // policy's, no reference model.
  auto s = Load(kBase + "framework: prime-rl@0.6\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "prime-rl@0.6");
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllm);
  EXPECT_FALSE(s->engine.enforce_eager);
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.9);
  EXPECT_FALSE(s->placement.offload.params);
  EXPECT_FALSE(s->placement.offload.optimizer);
  EXPECT_FALSE(s->placement.gradient_checkpointing);
  EXPECT_FALSE(s->algorithm.recompute_logprobs);
  EXPECT_FALSE(s->algorithm.reference_model);
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"placement.engine", "engine.enforce_eager",
                                                  "placement.gpu_memory_utilization", "placement.offload",
                                                  "placement.gradient_checkpointing", "algorithm.recompute_logprobs",
                                                  "algorithm.reference_model"}));
  ExpectSourcesName(*s, "38494ccb4");
}

TEST(FrameworkPrimeRl, NewestReleaseOffloadsTheOptimizerAndCheckpoints) {
  // v0.8.0 (60bc29547): optim_cpu_offload True, ac full on every layer.
  auto s = Load(kBase + "framework: prime-rl\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "prime-rl@0.8");
  EXPECT_FALSE(s->placement.offload.params);
  EXPECT_TRUE(s->placement.offload.optimizer);
  EXPECT_TRUE(s->placement.gradient_checkpointing);
  ExpectSourcesName(*s, "60bc29547");
  // A mapping the file states wins whole: the framework's offload is not
  // merged into it, nor listed.
  auto own = Load(kBase + "framework: prime-rl\nplacement: {offload: {optimizer: false}}\n",
                  {{"placement.gradient_checkpointing", "false"}});
  ASSERT_TRUE(own) << own.error().ToString();
  EXPECT_FALSE(own->placement.offload.optimizer);
  EXPECT_FALSE(own->placement.gradient_checkpointing);
  for (const auto& d : own->framework_defaults) {
    EXPECT_NE(d.path, "placement.offload");
    EXPECT_NE(d.path, "placement.gradient_checkpointing");
  }
  EXPECT_EQ(own->framework_defaults.size(), 5u);
  const std::string m = ErrorOf(kBase + "framework: prime-rl@0.7\n");
  EXPECT_NE(m.find("no version '0.7'"), std::string::npos) << m;
  EXPECT_NE(m.find("0.6, 0.8"), std::string::npos) << m;
}

TEST(FrameworkSlimeSkyrlPrimeRl, EstimateJsonListsTheDefaultsSupplied) {
  // `rlcost estimate FILE --json` writes report::EstimateToJson: the resolved
  // framework and each default it supplied, with its value and source.
  struct Case {
    std::string line, name, first_field, first_value;
    size_t n;
  };
  const std::vector<Case> cases = {
      {"framework: slime\nplacement: {mode: disaggregated}\n", "slime@0.3", "placement.engine", "sglang", 6},
      {"framework: skyrl@train-0.4\n", "skyrl@train-0.4", "placement.engine", "vllm", 9},
      {"framework: prime-rl\nplacement: {mode: disaggregated}\n", "prime-rl@0.8", "placement.engine", "vllm", 7},
  };
  for (const auto& c : cases) {
    auto s = Load(kBase + c.line);
    ASSERT_TRUE(s) << c.line << s.error().ToString();
    auto e = EstimateAnalytic(*s);
    ASSERT_TRUE(e) << c.line << e.error().ToString();
    const auto j = report::EstimateToJson(*s, *e);
    ASSERT_TRUE(j.contains("framework")) << c.line;
    EXPECT_EQ(j["framework"]["name"], c.name);
    const auto& d = j["framework"]["defaults_supplied"];
    ASSERT_EQ(d.size(), c.n) << c.line;
    EXPECT_EQ(d[0]["field"], c.first_field);
    EXPECT_EQ(d[0]["value"], c.first_value);
    for (const auto& x : d) EXPECT_FALSE(x["source"].get<std::string>().empty()) << x.dump();
  }
}

}  // namespace
}  // namespace rlcost
