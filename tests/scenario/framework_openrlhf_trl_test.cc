// `framework: openrlhf[@VERSION]` and `framework: trl[@VERSION]`: the defaults
// of catalog/frameworks/openrlhf.yaml and trl.yaml fill the fields a scenario
// leaves out, an explicit field (file or --set) wins, and `estimate --json`
// lists what was supplied under framework.defaults_supplied. Every expected
// value below is the one read from the framework's own files at the tag named
// (docs/model.md, "Frameworks").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
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

const std::vector<std::string> kOpenRlhfFields = {
    "placement.engine",         "engine.enforce_eager",         "placement.gpu_memory_utilization",
    "placement.engine_sleep_level", "placement.offload",        "placement.refit_offload",
    "placement.gradient_checkpointing", "placement.weight_sync", "algorithm.recompute_logprobs",
    "algorithm.reference_model"};

TEST(FrameworkOpenRlhf, NewestReleaseSuppliesItsLauncherDefaults) {
  // OpenRLHF v0.11.0 (3c3be6234), openrlhf/cli/train_ppo_ray.py: vLLM with
  // CUDA graphs (--vllm.enforce_eager False), the engine's share 0.95, sleep
  // level 1 (vllm_engine.py:138), no Adam offload, DeepSpeed states kept on
  // the GPU (--ds.enable_sleep False), no gradient checkpointing, one
  // broadcast per tensor, old log-probs from the actor, a reference model
  // (--algo.kl.init_coef 0.01 > 0).
  auto s = Load(kBase + "framework: openrlhf\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "openrlhf@0.11");
  // vLLM 0.27.1 (setup.py:77) through the uni executor (tp 1): async
  // scheduling is on by default.
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllmAsync);
  EXPECT_FALSE(s->engine.enforce_eager);
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.95);
  EXPECT_EQ(s->placement.engine_sleep_level, 1);
  EXPECT_FALSE(s->placement.offload.params);
  EXPECT_FALSE(s->placement.offload.optimizer);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kNone);  // rlcost's own default is pageable
  EXPECT_FALSE(s->placement.gradient_checkpointing);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kPerTensor);  // rlcost's own default is pipelined
  EXPECT_TRUE(s->algorithm.recompute_logprobs);
  EXPECT_TRUE(s->algorithm.reference_model);
  EXPECT_EQ(Paths(*s), kOpenRlhfFields);
  ExpectSourcesName(*s, "v0.11.0 (3c3be6234)");
}

TEST(FrameworkOpenRlhf, OlderReleaseGaveTheEngineLessMemory) {
  // v0.6.3 (cc8dca367): --vllm_gpu_memory_utilization default 0.9 (0.95 from
  // 8ff73978); every other field as in 0.11.
  auto s = Load(kBase + "framework: openrlhf@0.6\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "openrlhf@0.6");
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllm);  // vLLM 0.8.1: no async scheduling
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.9);
  EXPECT_FALSE(s->engine.enforce_eager);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kNone);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kPerTensor);
  EXPECT_FALSE(s->placement.gradient_checkpointing);
  EXPECT_TRUE(s->algorithm.reference_model);
  EXPECT_EQ(Paths(*s), kOpenRlhfFields);
  ExpectSourcesName(*s, "v0.6.3 (cc8dca367)");
}

TEST(FrameworkOpenRlhf, ExplicitFieldsWin) {
  // The file sets the engine's share, an optimizer offload and no reference
  // model: those stand and are not listed as supplied; --set wins the same way.
  auto s = Load(kBase + "framework: openrlhf\n"
                        "placement: {gpu_memory_utilization: 0.6, offload: {optimizer: true}}\n"
                        "algorithm: {reference_model: false}\n",
                {{"engine.enforce_eager", "true"}});
  ASSERT_TRUE(s) << s.error().ToString();
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.6);
  EXPECT_TRUE(s->placement.offload.optimizer);
  EXPECT_FALSE(s->placement.offload.params);
  EXPECT_FALSE(s->algorithm.reference_model);
  EXPECT_TRUE(s->engine.enforce_eager);
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"placement.engine", "placement.engine_sleep_level",
                                                 "placement.refit_offload", "placement.gradient_checkpointing",
                                                 "placement.weight_sync", "algorithm.recompute_logprobs"}));
}

TEST(FrameworkTrl, NewestReleaseSuppliesItsGrpoConfigDefaults) {
  // TRL v1.9.0 (35def3ee0) with use_vllm=True: colocated vLLM at 0.3 of the
  // GPU (grpo_config.py:646), sleep level 2 when sleeping
  // (vllm_generation.py:370), gradient checkpointing on (base_config.py:61),
  // one load_weights per tensor, old log-probs recomputed for vLLM's
  // importance-sampling correction, no reference model (beta 0.0).
  auto s = Load(kBase + "framework: trl\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "trl@1.9");
  // LLM(distributed_executor_backend="external_launcher") on vLLM 0.17-0.25.1:
  // async scheduling on by default.
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllmAsync);
  EXPECT_FALSE(s->engine.enforce_eager);
  ASSERT_TRUE(s->placement.gpu_memory_utilization);
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.3);
  EXPECT_EQ(s->placement.engine_sleep_level, 2);
  EXPECT_FALSE(s->placement.offload.params);
  EXPECT_FALSE(s->placement.offload.optimizer);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kNone);
  EXPECT_TRUE(s->placement.gradient_checkpointing);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kPerTensor);
  EXPECT_TRUE(s->algorithm.recompute_logprobs);
  EXPECT_FALSE(s->algorithm.reference_model);  // rlcost's own GRPO default keeps it
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"placement.engine", "engine.enforce_eager",
                                                 "placement.gpu_memory_utilization", "placement.engine_sleep_level",
                                                 "placement.offload", "placement.refit_offload",
                                                 "placement.gradient_checkpointing", "placement.weight_sync",
                                                 "algorithm.recompute_logprobs", "algorithm.reference_model"}));
  ExpectSourcesName(*s, "v1.9.0 (35def3ee0)");
  // The engine default says it holds only with use_vllm=True.
  EXPECT_NE(s->framework_defaults.front().source.find("use_vllm default=False"), std::string::npos);
}

TEST(FrameworkNemoRl, V030SplitsPipelineStagesEvenly) {
  // NeMo RL v0.3.0 (b1c86a816), the release of the v0.3 blog's runs:
  // grpo_math_1B_megatron.yaml:81-82 leaves num_layers_in_first/last_pipeline_stage
  // null (Megatron-Core's even split, the output layer on the last stage);
  // vLLM 0.9.0 in its plain engine, sleep level 1, the optimizer offloaded
  // through pageable memory before every refit, the engine's share 0.6, no
  // activation checkpointing; vLLM 0.9.0's own cap of 256 running sequences
  // (NeMo RL passes no max_num_seqs).
  auto s = Load(kBase + "framework: nemo-rl@0.3\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "nemo-rl@0.3");
  EXPECT_EQ(s->placement.train_pp_split, PipelineSplit::kEven);
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllm);
  EXPECT_FALSE(s->engine.enforce_eager);
  EXPECT_EQ(s->placement.engine_sleep_level, 1);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kPageable);
  ASSERT_TRUE(s->placement.gpu_memory_utilization.has_value());
  EXPECT_DOUBLE_EQ(*s->placement.gpu_memory_utilization, 0.6);
  EXPECT_FALSE(s->placement.gradient_checkpointing);
  EXPECT_EQ(s->engine.max_num_seqs, 256);
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"placement.engine", "engine.enforce_eager",
                                                 "placement.engine_sleep_level", "placement.refit_offload",
                                                 "placement.gpu_memory_utilization",
                                                 "placement.gradient_checkpointing", "placement.train_pp_split",
                                                 "run.checkpoint", "run.evaluation", "engine.max_num_seqs"}));
  ExpectSourcesName(*s, "v0.3.0 (b1c86a816)");
  // The newest release stays the default and keeps rlcost's balanced split
  // (its large recipes set the first/last-stage counts); a file's own split wins.
  auto newest = Load(kBase + "framework: nemo-rl\n");
  ASSERT_TRUE(newest) << newest.error().ToString();
  EXPECT_EQ(newest->framework, "nemo-rl@0.6");
  EXPECT_EQ(newest->placement.train_pp_split, PipelineSplit::kBalanced);
  auto own = Load(kBase + "framework: nemo-rl@0.3\nplacement: {train_pp_split: balanced}\n");
  ASSERT_TRUE(own) << own.error().ToString();
  EXPECT_EQ(own->placement.train_pp_split, PipelineSplit::kBalanced);
}

TEST(FrameworkNemoRl, BaseConfigCheckpointsAndValidatesEveryTenSteps) {
  // NeMo RL r0.6.0 (c339070fa), examples/configs/grpo_math_1B.yaml, the config
  // run_grpo_math.py loads: checkpointing.enabled true, save_period 10,
  // save_optimizer true; grpo.val_period 10 over max_val_samples 256 in batches
  // of val_batch_size 256, one response each. A whole run pays both.
  auto s = Load(kBase + "framework: nemo-rl\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "nemo-rl@0.6");
  ASSERT_TRUE(s->run.checkpoint.has_value());
  EXPECT_EQ(s->run.checkpoint->every_steps, 10);
  EXPECT_TRUE(s->run.checkpoint->optimizer_state);
  ASSERT_TRUE(s->run.evaluation.has_value());
  EXPECT_EQ(s->run.evaluation->every_steps, 10);
  EXPECT_EQ(s->run.evaluation->prompts, 256);
  EXPECT_EQ(s->run.evaluation->samples_per_prompt, 1);
  // The file's own choice wins: no checkpoints, evaluation every 50 steps.
  auto own = Load(kBase + "framework: nemo-rl\nrun: {checkpoint: false, evaluation: {every_steps: 50, prompts: 100}}\n");
  ASSERT_TRUE(own) << own.error().ToString();
  EXPECT_FALSE(own->run.checkpoint.has_value());
  ASSERT_TRUE(own->run.evaluation.has_value());
  EXPECT_EQ(own->run.evaluation->every_steps, 50);
  EXPECT_EQ(own->run.evaluation->prompts, 100);
  EXPECT_EQ(own->run.evaluation->samples_per_prompt, 1);  // filled from the framework's mapping
  // v0.3.0 (b1c86a816) had the same base config: save_period 10 (the optimizer
  // always saved), val_period 10 over 256 prompts.
  auto v03 = Load(kBase + "framework: nemo-rl@0.3\n");
  ASSERT_TRUE(v03) << v03.error().ToString();
  ASSERT_TRUE(v03->run.checkpoint.has_value() && v03->run.evaluation.has_value());
  EXPECT_EQ(v03->run.checkpoint->every_steps, 10);
  EXPECT_TRUE(v03->run.checkpoint->optimizer_state);
  EXPECT_EQ(v03->run.evaluation->prompts, 256);
}

TEST(FrameworkTrl, OlderReleaseHadNoCheckpointingAndNoRecompute) {
  // v0.21.0 (46d09bd24): gradient checkpointing off (on from a222aeb46),
  // old log-probs not recomputed when generation and optimizer steps align
  // (the default), no sleep mode, and no engine share: the default mode was
  // server, whose share is set on `trl vllm-serve`. The fields it does not
  // set keep rlcost's own defaults (sleep level 1, share unset).
  auto s = Load(kBase + "framework: trl@0.21\n");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->framework, "trl@0.21");
  EXPECT_EQ(s->placement.engine, InferenceEngine::kVllm);  // vLLM >= 0.10.0 of 2025-08: no async scheduling
  EXPECT_FALSE(s->placement.gradient_checkpointing);
  EXPECT_FALSE(s->algorithm.recompute_logprobs);
  EXPECT_FALSE(s->algorithm.reference_model);
  EXPECT_FALSE(s->placement.gpu_memory_utilization.has_value());
  EXPECT_EQ(s->placement.engine_sleep_level, 1);
  EXPECT_EQ(s->placement.refit_offload, RefitOffload::kNone);
  EXPECT_EQ(s->placement.weight_sync, WeightSyncMethod::kPerTensor);
  EXPECT_EQ(Paths(*s), (std::vector<std::string>{"placement.engine", "engine.enforce_eager", "placement.offload",
                                                 "placement.refit_offload", "placement.gradient_checkpointing",
                                                 "placement.weight_sync", "algorithm.recompute_logprobs",
                                                 "algorithm.reference_model"}));
  ExpectSourcesName(*s, "v0.21.0 (46d09bd24)");
  // --set and the file win over the framework.
  auto set = Load(kBase + "framework: trl@0.21\nalgorithm: {recompute_logprobs: true}\n",
                  {{"placement.gradient_checkpointing", "true"}});
  ASSERT_TRUE(set) << set.error().ToString();
  EXPECT_TRUE(set->placement.gradient_checkpointing);
  EXPECT_TRUE(set->algorithm.recompute_logprobs);
  for (const auto& d : set->framework_defaults) {
    EXPECT_NE(d.path, "placement.gradient_checkpointing");
    EXPECT_NE(d.path, "algorithm.recompute_logprobs");
  }
}

TEST(FrameworkOpenRlhfTrl, UnknownVersionNamesTheListedOnes) {
  std::string m = ErrorOf(kBase + "framework: openrlhf@0.9\n");
  EXPECT_NE(m.find("framework: 'openrlhf' has no version '0.9' in the catalog; expected one of 0.6, 0.11"),
            std::string::npos)
      << m;
  m = ErrorOf(kBase + "framework: trl@2.0\n");
  EXPECT_NE(m.find("'trl' has no version '2.0' in the catalog; expected one of 0.21, 1.9"), std::string::npos) << m;
  // Both are now among the known names an unknown one is told about.
  m = ErrorOf(kBase + "framework: trlx\n");
  EXPECT_NE(m.find("is not a known framework"), std::string::npos) << m;
  EXPECT_NE(m.find("openrlhf"), std::string::npos) << m;
  EXPECT_NE(m.find(", trl"), std::string::npos) << m;
}

TEST(FrameworkOpenRlhfTrl, AnEmptyVersionIsRefusedNotReadAsTheNewest) {
  // #40: `framework: verl@` read as the newest release.
  std::string m = ErrorOf(kBase + "framework: openrlhf@\n");
  EXPECT_NE(m.find("framework: 'openrlhf@' has an empty version after '@'; expected one of 0.6, 0.11 (or 'openrlhf' "
                   "alone: the newest)"),
            std::string::npos)
      << m;
  EXPECT_NE(ErrorOf(kBase + "framework: trl@\n").find("empty version"), std::string::npos);
  // Without the '@': the newest, as before.
  EXPECT_TRUE(Load(kBase + "framework: trl\n", {}));
}

TEST(FrameworkOpenRlhfTrl, EstimateJsonListsTheSuppliedDefaults) {
  // `rlcost estimate FILE --json` writes report::EstimateToJson: the name
  // with its resolved version and each supplied default with its value and
  // source.
  for (const char* fw : {"openrlhf@0.6", "trl@0.21"}) {
    auto s = Load(kBase + "framework: " + fw + "\n");
    ASSERT_TRUE(s) << s.error().ToString();
    auto e = EstimateAnalytic(*s);
    ASSERT_TRUE(e) << e.error().ToString();
    const nlohmann::json j = report::EstimateToJson(*s, *e);
    ASSERT_TRUE(j.contains("framework")) << fw;
    EXPECT_EQ(j["framework"]["name"], fw);
    const auto& d = j["framework"]["defaults_supplied"];
    ASSERT_EQ(d.size(), s->framework_defaults.size()) << fw;
    for (size_t i = 0; i < d.size(); ++i) {
      EXPECT_EQ(d[i]["field"], s->framework_defaults[i].path);
      EXPECT_FALSE(d[i]["source"].get<std::string>().empty());
    }
  }
  auto s = Load(kBase + "framework: openrlhf@0.6\n");
  ASSERT_TRUE(s);
  auto e = EstimateAnalytic(*s);
  ASSERT_TRUE(e);
  const nlohmann::json j = report::EstimateToJson(*s, *e);
  const auto& d = j["framework"]["defaults_supplied"];
  EXPECT_EQ(d[2]["field"], "placement.gpu_memory_utilization");
  EXPECT_EQ(d[2]["value"], "0.9");
  EXPECT_NE(d[2]["source"].get<std::string>().find("train_ppo_ray.py:247-249"), std::string::npos);
  EXPECT_EQ(d[4]["field"], "placement.offload");
  EXPECT_EQ(d[4]["value"], "{params: false, optimizer: false}");
}

TEST(FrameworkEngine, AsyncSchedulingFollowsTheVllmEachReleasePins) {
  // vLLM turns async scheduling on by default from v0.14.0 (PR #27614) unless
  // the executor lacks it (ray's compiled-graph executor at 0.17.1); rlcost
  // prices that engine as vllm-async (160 us per decode iteration, not 4 ms).
  // Each release's engine follows the vLLM it pins and how it starts it
  // (docs/model.md, "Frameworks", async scheduling table). A release flipped
  // to the wrong engine, or a source that stops saying why, fails here.
  struct Case {
    std::string framework;
    InferenceEngine engine;
  };
  const std::vector<Case> cases = {
      {"verl@0.4", InferenceEngine::kVllm},           {"verl@0.5", InferenceEngine::kVllm},
      {"verl@0.6", InferenceEngine::kVllm},           {"verl@0.7", InferenceEngine::kVllm},
      {"nemo-rl@0.6", InferenceEngine::kVllmAsync},   {"openrlhf@0.6", InferenceEngine::kVllm},
      {"openrlhf@0.11", InferenceEngine::kVllmAsync}, {"trl@0.21", InferenceEngine::kVllm},
      {"trl@1.9", InferenceEngine::kVllmAsync},       {"skyrl@train-0.4", InferenceEngine::kVllm},
      {"skyrl@0.3", InferenceEngine::kVllm},          {"prime-rl@0.6", InferenceEngine::kVllmAsync},
      {"prime-rl@0.8", InferenceEngine::kVllmAsync},
  };
  for (const auto& c : cases) {
    auto s = Load(kBase + "framework: " + c.framework + "\n");
    ASSERT_TRUE(s) << c.framework << ": " << s.error().ToString();
    EXPECT_EQ(s->placement.engine, c.engine) << c.framework;
    const auto* d = [&]() -> const FrameworkDefault* {
      for (const auto& x : s->framework_defaults)
        if (x.path == "placement.engine") return &x;
      return nullptr;
    }();
    ASSERT_NE(d, nullptr) << c.framework;
    // Every vLLM release says where async scheduling stands: on (the PR that
    // made it the default) or off / not determined (why).
    EXPECT_NE(d->source.find(c.engine == InferenceEngine::kVllmAsync ? "PR #27614" : "ync scheduling"),
              std::string::npos)
        << c.framework << ": " << d->source;
  }
  // The scenario's own engine still wins.
  auto own = Load(kBase + "framework: prime-rl\nplacement: {engine: vllm}\n");
  ASSERT_TRUE(own) << own.error().ToString();
  EXPECT_EQ(own->placement.engine, InferenceEngine::kVllm);
}

}  // namespace
}  // namespace rlcost
