// Catalog lookups by the names users type: any case, aliases, Hugging Face ids.
#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

TEST(CatalogLookup, GpuAliasesAndCase) {
  for (const char* name : {"h100-sxm", "H100-SXM", "h100", "H100", "h100-80gb", "H100-80GB", "h100-sxm5"}) {
    const GpuSpec* g = Cat().FindGpu(name);
    ASSERT_NE(g, nullptr) << name;
    EXPECT_EQ(g->id, "h100-sxm") << name;
  }
  ASSERT_NE(Cat().FindGpu("A100"), nullptr);
  EXPECT_EQ(Cat().FindGpu("A100")->id, "a100-80g");
  EXPECT_EQ(Cat().FindGpu("h300"), nullptr);
  // A GPU name is not an org/name id: no tail matching for GPUs.
  EXPECT_EQ(Cat().FindGpu("nvidia/h100"), nullptr);
}

TEST(CatalogLookup, ModelHuggingFaceIdsAndCase) {
  const std::pair<const char*, const char*> cases[] = {
      {"Qwen/Qwen3-32B", "qwen3-32b"},
      {"QWEN3-32B", "qwen3-32b"},
      {"meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b"},
      {"meta-llama/Llama-3.1-8B", "llama-3.1-8b"},  // the tail after the organisation
      {"Qwen/Qwen2.5-Math-7B", "qwen2.5-7b"},        // alias: same config.json shape
      {"Qwen2.5-Math-7B", "qwen2.5-7b"},             // the alias without its organisation
      {"deepseek-ai/DeepSeek-V3", "deepseek-v3"},
  };
  for (const auto& [name, id] : cases) {
    const ModelSpec* m = Cat().FindModel(name);
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->id, id) << name;
  }
  EXPECT_EQ(Cat().FindModel("Qwen/Qwen3-33B"), nullptr);
}

TEST(CatalogLookup, ScenarioResolvesToTheCatalogId) {
  auto s = LoadScenarioText("model: Qwen/Qwen3-32B\nhardware: {gpu: H100, gpus: 8}\n", Cat());
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->model_id, "qwen3-32b");
  EXPECT_EQ(s->hardware.gpu.id, "h100-sxm");
}

TEST(CatalogLookup, AliasClashIsAProblemNamingTheFile) {
  Catalog cat = Cat();
  auto ok = cat.AddText(
      "gpus:\n  my-gpu:\n    aliases: [H100]\n    memory_gb: 80\n    hbm_tb_per_s: 3\n    tflops_bf16: 900\n"
      "    intra_node_gb_per_s: 400\n    inter_node_gb_per_s: 50\n    price_per_hour: 2\n",
      "mine.yaml");
  ASSERT_FALSE(ok);
  const std::string msg = ok.error().ToString();
  EXPECT_NE(msg.find("mine.yaml"), std::string::npos) << msg;
  EXPECT_NE(msg.find("'H100' already names 'h100-sxm'"), std::string::npos) << msg;
  EXPECT_EQ(cat.FindGpu("my-gpu"), nullptr);  // all-or-nothing
}

TEST(CatalogLookup, AliasesMustBeAListOfNames) {
  Catalog cat = Cat();
  auto ok = cat.AddText("models:\n  m:\n    aliases: Qwen/X\n    params_b: 1\n    layers: 2\n    hidden: 64\n"
                        "    heads: 4\n",
                        "m.yaml");
  ASSERT_FALSE(ok);
  EXPECT_NE(ok.error().ToString().find("models.m.aliases: expected a list of names"), std::string::npos)
      << ok.error().ToString();
}

// A veRL key given to --set names the scenario field, and the blame is --set's.
TEST(ForeignKeys, SetWithAVerlKeySuggestsTheScenarioField) {
  auto s = LoadScenarioText("model: qwen3-8b\nhardware: {gpu: h100, gpus: 8}\n", Cat(), "run.yaml", ".",
                            {Override{"actor_rollout_ref.rollout.n", "16"}});
  ASSERT_FALSE(s);
  ASSERT_EQ(s.error().problems.size(), 1u) << s.error().ToString();
  const Problem& p = s.error().problems[0];
  EXPECT_EQ(p.file, "set");  // the request field; the command line names it --set
  EXPECT_EQ(p.path, "actor_rollout_ref.rollout.n");
  EXPECT_NE(p.message.find("did you mean algorithm.group_size (veRL's actor_rollout_ref.rollout.n)?"),
            std::string::npos)
      << p.message;
  // NeMo RL too.
  s = LoadScenarioText("model: qwen3-8b\nhardware: {gpu: h100, gpus: 8}\n", Cat(), "run.yaml", ".",
                       {Override{"grpo.num_prompts_per_step", "64"}});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().ToString().find("algorithm.prompts_per_step (NeMo RL's grpo.num_prompts_per_step)"),
            std::string::npos)
      << s.error().ToString();
}

// An unknown key that only --set brought in is blamed on --set, not the file.
TEST(ForeignKeys, UnknownKeyFromSetIsBlamedOnSet) {
  auto s = LoadScenarioText("model: qwen3-8b\nhardware: {gpu: h100, gpus: 8}\n", Cat(), "run.yaml", ".",
                            {Override{"trainer.foo", "1"}});
  ASSERT_FALSE(s);
  ASSERT_EQ(s.error().problems.size(), 1u) << s.error().ToString();
  EXPECT_EQ(s.error().problems[0].file, "set") << s.error().ToString();
  EXPECT_EQ(s.error().problems[0].path, "trainer");
  // The same key written in the file is the file's.
  s = LoadScenarioText("model: qwen3-8b\nhardware: {gpu: h100, gpus: 8}\ntrainer: {foo: 1}\n", Cat(), "run.yaml");
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().problems[0].file, "run.yaml");
  EXPECT_EQ(s.error().problems[0].line, 3);
}

}  // namespace
}  // namespace rlcost
