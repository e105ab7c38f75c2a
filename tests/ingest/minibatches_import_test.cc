// Optimizer steps per RL step (algorithm.minibatches) carried from the
// configs: veRL data.train_batch_size / actor.ppo_mini_batch_size (both in
// prompts), NeMo RL num_prompts_per_step x num_generations_per_prompt /
// policy.train_global_batch_size (samples). docs/model.md, "Optimizer steps
// per RL step".
#include <gtest/gtest.h>

#include <fstream>

#include "ingest/import.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/" + rel; }

Scenario Load(const Result<ingest::ImportedScenario>& r) {
  EXPECT_TRUE(r) << (r ? "" : r.error().ToString());
  if (!r) return {};
  auto s = LoadScenarioText(r->yaml, test::Cat(), "imported", ".");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString()) << "\n" << r->yaml;
  return s ? *s : Scenario{};
}

TEST(ImportMinibatches, VerlBatchOverMiniBatchWithItsFileAndLine) {
  // one_step_off_4_12.yaml: data.train_batch_size 512 (line 20),
  // actor.ppo_mini_batch_size 32 (line 29): 512 / 32 = 16 optimizer steps.
  auto r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "h20"});
  EXPECT_EQ(Load(r).algorithm.minibatches, 16);
  ASSERT_TRUE(r);
  EXPECT_NE(r->yaml.find("minibatches: 16"), std::string::npos) << r->yaml;
  EXPECT_NE(r->yaml.find("512 prompts / ppo_mini_batch_size 32 (" + Data("verl/one_step_off_4_12.yaml") + ":29)"),
            std::string::npos)
      << r->yaml;
  // The fully async recipe's step is ppo_mini_batch_size 32 x require_batches 1
  // x trigger_parameter_sync_step 16 = 512 prompts: 16 optimizer steps.
  // (recipe/fully_async_policy/exp/qwen2-7B-math_32/fsdp2_fully-async_16-16/run.sh's overrides)
  std::vector<std::string> args;
  std::ifstream in(Data("verl/fully_async_16-16.args"));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') args.push_back(line);
  }
  auto a = ingest::ImportVerl(Data("verl/fully_async_ppo_trainer.yaml"), args, test::Cat(), {.gpu = "h20"});
  Scenario fa = Load(a);
  EXPECT_EQ(fa.algorithm.prompts_per_step, 512);
  EXPECT_EQ(fa.algorithm.minibatches, 16);
}

TEST(ImportMinibatches, VerlDefaultIsAnAssumptionAndOnlyWhereItFits) {
  // No ppo_mini_batch_size: veRL's default 256 prompts; 1,024 / 256 = 4,
  // written as an assumption.
  auto r = ingest::ImportVerl(Data("verl/composed/recipe.yaml"), {"data.train_batch_size=1024"}, test::Cat(),
                              {.gpu = "h100"});
  EXPECT_EQ(Load(r).algorithm.minibatches, 4);
  ASSERT_TRUE(r);
  EXPECT_NE(r->yaml.find("ASSUMED: 1024 prompts / veRL's default ppo_mini_batch_size 256"), std::string::npos)
      << r->yaml;
  // 32 prompts: veRL would refuse its own default (train_batch_size >=
  // ppo_mini_batch_size); the base that sets it was not read, so no line.
  auto small = ingest::ImportVerl(Data("verl/composed/recipe.yaml"), {}, test::Cat(), {.gpu = "h100"});
  EXPECT_EQ(Load(small).algorithm.minibatches, 1);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->yaml.find("minibatches"), std::string::npos) << small->yaml;
}

TEST(ImportMinibatches, VerlPpoEpochsAreCarried) {
  // Not in one_step_off_4_12.yaml: veRL's default 1, nothing written.
  auto dflt = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "h20"});
  ASSERT_TRUE(dflt);
  EXPECT_EQ(dflt->yaml.find("ppo_epochs"), std::string::npos);
  auto two = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"actor_rollout_ref.actor.ppo_epochs=2"},
                                test::Cat(), {.gpu = "h20"});
  EXPECT_EQ(Load(two).algorithm.ppo_epochs, 2);
  ASSERT_TRUE(two);
  EXPECT_NE(two->yaml.find("ppo_epochs: 2"), std::string::npos) << two->yaml;
  auto zero = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"actor_rollout_ref.actor.ppo_epochs=0"},
                                 test::Cat(), {.gpu = "h20"});
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().ToString().find("actor_rollout_ref.actor.ppo_epochs: ppo_epochs 0 is below 1"),
            std::string::npos)
      << zero.error().ToString();
}

TEST(ImportMinibatches, VerlMiniBatchThatDoesNotDivideIsRefused) {
  auto r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"actor_rollout_ref.actor.ppo_mini_batch_size=48"},
                              test::Cat(), {.gpu = "h20"});
  ASSERT_FALSE(r);
  const std::string e = r.error().ToString();
  EXPECT_NE(e.find("actor_rollout_ref.actor.ppo_mini_batch_size: ppo_mini_batch_size 48 does not divide the 512 "
                   "prompts of a step (data.train_batch_size); expected a divisor of 512"),
            std::string::npos)
      << e;
  EXPECT_NE(e.find("command line"), std::string::npos) << e;
  auto zero = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"actor_rollout_ref.actor.ppo_mini_batch_size=0"},
                                 test::Cat(), {.gpu = "h20"});
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().ToString().find("ppo_mini_batch_size 0 does not divide"), std::string::npos);
}

TEST(ImportMinibatches, NemoSamplesOverTheGlobalBatch) {
  // grpo_math_1B.yaml: 32 prompts x 16 = 512 samples, train_global_batch_size
  // 512 (line 24): one optimizer step.
  // (Its max_total_sequence_length 512 is below the assumed mean response,
  // so the imports of it are read as text, not loaded.)
  auto one = ingest::ImportNemoRl(Data("nemo-rl/grpo_math_1B.yaml"), {}, test::Cat(), {.gpu = "h100"});
  ASSERT_TRUE(one) << one.error().ToString();
  EXPECT_NE(one->yaml.find("minibatches: 1 "), std::string::npos) << one->yaml;
  EXPECT_NE(one->yaml.find("32 x 16 samples / train_global_batch_size 512 (" + Data("nemo-rl/grpo_math_1B.yaml") +
                           ":24)"),
            std::string::npos)
      << one->yaml;
  // The Llama-8B performance recipe: 64 x 32 = 2,048 samples over the base's
  // 512: 4 optimizer steps (the validation files' "T-GBS 512 < 2048").
  auto perf = ingest::ImportNemoRl(Data("nemo-rl/recipes/llm/performance/grpo-llama3.1-8b-instruct-2n8g.yaml"), {},
                                   test::Cat(), {.gpu = "h100"});
  EXPECT_EQ(Load(perf).algorithm.minibatches, 4);
  auto gbs128 = ingest::ImportNemoRl(Data("nemo-rl/grpo_math_1B.yaml"), {"policy.train_global_batch_size=128"},
                                     test::Cat(), {.gpu = "h100"});
  ASSERT_TRUE(gbs128) << gbs128.error().ToString();
  EXPECT_NE(gbs128->yaml.find("minibatches: 4 "), std::string::npos) << gbs128->yaml;
  EXPECT_NE(gbs128->yaml.find("train_global_batch_size 128 (command line)"), std::string::npos) << gbs128->yaml;
}

TEST(ImportMinibatches, NemoGlobalBatchThatDoesNotDivideIsRefused) {
  for (const char* bad : {"policy.train_global_batch_size=100", "policy.train_global_batch_size=1024",
                          "policy.train_global_batch_size=0"}) {
    auto r = ingest::ImportNemoRl(Data("nemo-rl/grpo_math_1B.yaml"), {bad}, test::Cat(), {.gpu = "h100"});
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().ToString().find("policy.train_global_batch_size: train_global_batch_size"), std::string::npos)
        << r.error().ToString();
    EXPECT_NE(r.error().ToString().find("does not divide the 512 samples of a step (num_prompts_per_step 32 x "
                                        "num_generations_per_prompt 16); expected a divisor of 512"),
              std::string::npos)
        << r.error().ToString();
  }
}

}  // namespace
}  // namespace rlcost
