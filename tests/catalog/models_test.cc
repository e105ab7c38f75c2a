// The models teams RL-train (issue #25): each built-in entry found by the
// names users write, with the numbers of its config.json, and params_b equal
// to the count those numbers give (docs/model.md, "Parameters from config.json").
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

// Names a user writes -> the entry, with numbers read by hand off each
// model's config.json (sources in catalog/models.yaml).
struct Expect {
  const char* name;
  const char* id;
  int layers, hidden, heads, kv_heads, head_dim, vocab;
};

TEST(CatalogModels, RlBasesResolveWithTheirConfigNumbers) {
  const Expect cases[] = {
      {"qwen2.5-0.5b", "qwen2.5-0.5b", 24, 896, 14, 2, 64, 151936},
      {"Qwen/Qwen2.5-0.5B-Instruct", "qwen2.5-0.5b", 24, 896, 14, 2, 64, 151936},
      {"Qwen/Qwen2.5-3B", "qwen2.5-3b", 36, 2048, 16, 2, 128, 151936},
      {"Qwen/Qwen2.5-14B-Instruct", "qwen2.5-14b", 48, 5120, 40, 8, 128, 152064},
      {"Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b", 80, 8192, 64, 8, 128, 152064},
      {"Qwen/Qwen3-0.6B", "qwen3-0.6b", 28, 1024, 16, 8, 128, 151936},
      {"Qwen/Qwen3-1.7B-Base", "qwen3-1.7b", 28, 2048, 16, 8, 128, 151936},
      {"qwen3-4b", "qwen3-4b", 36, 2560, 32, 8, 128, 151936},
      {"Qwen/Qwen3-14B", "qwen3-14b", 40, 5120, 40, 8, 128, 151936},
      {"meta-llama/Llama-3.2-1B-Instruct", "llama-3.2-1b", 16, 2048, 32, 8, 64, 128256},
      {"meta-llama/Llama-3.2-3B", "llama-3.2-3b", 28, 3072, 24, 8, 128, 128256},
      {"deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B", "r1-distill-qwen-1.5b", 28, 1536, 12, 2, 128, 151936},
      {"deepseek-r1-distill-qwen-1.5b", "r1-distill-qwen-1.5b", 28, 1536, 12, 2, 128, 151936},
      {"meta-llama/Llama-3.3-70B-Instruct", "llama-3.1-70b", 80, 8192, 64, 8, 128, 128256},
  };
  for (const Expect& c : cases) {
    const ModelSpec* m = Cat().FindModel(c.name);
    ASSERT_NE(m, nullptr) << c.name;
    EXPECT_EQ(m->id, c.id) << c.name;
    EXPECT_EQ(m->layers, c.layers) << c.name;
    EXPECT_EQ(m->hidden, c.hidden) << c.name;
    EXPECT_EQ(m->heads, c.heads) << c.name;
    EXPECT_EQ(m->kv_heads, c.kv_heads) << c.name;
    EXPECT_EQ(m->head_dim, c.head_dim) << c.name;
    EXPECT_EQ(m->vocab, c.vocab) << c.name;
    EXPECT_FALSE(m->is_moe()) << c.name;
  }
  // DeepSeek-R1's config.json has DeepSeek-V3's numbers (MLA, 256 routed + 1 shared).
  const ModelSpec* r1 = Cat().FindModel("deepseek-ai/DeepSeek-R1");
  ASSERT_NE(r1, nullptr);
  EXPECT_EQ(r1->id, "deepseek-v3");
  EXPECT_EQ(r1->layers, 61);
  EXPECT_EQ(r1->kv_lora_rank, 512);
  EXPECT_EQ(r1->experts, 256);
  EXPECT_EQ(r1->vocab, 129280);
  EXPECT_EQ(Cat().FindModel("deepseek-ai/DeepSeek-R1-0528"), nullptr);  // not checked: not in the catalog
}

// A scenario naming the model by its Hugging Face id gets the entry.
TEST(CatalogModels, ScenarioByHuggingFaceIdGetsTheEntry) {
  auto s = LoadScenarioText("model: deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B\nhardware: {gpu: h100, gpus: 8}\n", Cat());
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->model_id, "r1-distill-qwen-1.5b");
  EXPECT_DOUBLE_EQ(s->model.params_b, 1.78);
  auto q = LoadScenarioText("model: Qwen/Qwen3-4B-Base\nhardware: {gpu: h100, gpus: 8}\n", Cat());
  ASSERT_TRUE(q) << q.error().ToString();
  EXPECT_EQ(q->model_id, "qwen3-4b");
  EXPECT_EQ(q->model.layers, 36);
}

// Parameter count of a dense decoder from config.json: embedding (twice when
// the LM head is untied) + per layer (q/o: hidden x heads x head_dim each,
// k/v: hidden x kv_heads x head_dim each, Qwen2 q/k/v biases, Qwen3 q/k
// RMSNorm weights, SwiGLU MLP 3 x hidden x intermediate_size, two RMSNorms)
// + final norm. Hand check: Llama-3.2-1B gives 1,235,814,400, the Hub's
// safetensors total for meta-llama/Llama-3.2-1B.
double ConfigParams(const ModelSpec& m, int intermediate, bool tied, bool qkv_bias, bool qk_norm) {
  const double h = m.hidden, q = double(m.heads) * m.head_dim, kv = double(m.kv_heads) * m.head_dim;
  double attn = h * q + 2 * h * kv + q * h;
  if (qkv_bias) attn += q + 2 * kv;
  if (qk_norm) attn += 2.0 * m.head_dim;
  const double layer = attn + 3 * h * intermediate + 2 * h;
  return double(m.vocab) * h * (tied ? 1 : 2) + m.layers * layer + h;
}

TEST(CatalogModels, ParamsEqualTheCountFromConfigJson) {
  EXPECT_EQ(ConfigParams(*Cat().FindModel("llama-3.2-1b"), 8192, true, false, false), 1235814400.0);
  // intermediate_size, tie_word_embeddings and the family's bias / q-k norm,
  // from the same config.json files as the catalog's numbers.
  struct Row {
    const char* id;
    int intermediate;
    bool tied, qkv_bias, qk_norm;
  };
  const Row rows[] = {
      {"qwen2.5-0.5b", 4864, true, true, false},   {"qwen2.5-3b", 11008, true, true, false},
      {"qwen2.5-14b", 13824, false, true, false},  {"qwen2.5-72b", 29568, false, true, false},
      {"qwen3-0.6b", 3072, true, false, true},     {"qwen3-1.7b", 6144, true, false, true},
      {"qwen3-4b", 9728, true, false, true},       {"qwen3-14b", 17408, false, false, true},
      {"llama-3.2-1b", 8192, true, false, false},  {"llama-3.2-3b", 8192, true, false, false},
      {"r1-distill-qwen-1.5b", 8960, false, true, false},
  };
  for (const Row& r : rows) {
    const ModelSpec* m = Cat().FindModel(r.id);
    ASSERT_NE(m, nullptr) << r.id;
    const double count_b = ConfigParams(*m, r.intermediate, r.tied, r.qkv_bias, r.qk_norm) / 1e9;
    // params_b is the count to three significant figures.
    EXPECT_NEAR(m->params_b, count_b, 0.5 * std::pow(10.0, std::floor(std::log10(count_b)) - 2)) << r.id;
  }
  // The R1 distill of Qwen2.5-1.5B unties the LM head: vocab x hidden more.
  const ModelSpec* base = Cat().FindModel("qwen2.5-1.5b");
  const ModelSpec* distill = Cat().FindModel("r1-distill-qwen-1.5b");
  EXPECT_NEAR(distill->params_b - base->params_b, 151936.0 * 1536 / 1e9, 0.01);
}

}  // namespace
}  // namespace rlcost
