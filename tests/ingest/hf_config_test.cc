// Hugging Face config.json -> architecture and parameter counts. Fixtures in
// tests/data/ingest/hf/ are written in the public shape of each model's
// config.json; the counts are checked against the published totals.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "ingest/hf_config.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Hf(const std::string& name) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/hf/" + name; }

ingest::HfArchitecture Read(const std::string& name) {
  auto a = ingest::ReadHfConfig(Hf(name));
  EXPECT_TRUE(a) << (a ? "" : a.error().ToString());
  return a ? *a : ingest::HfArchitecture{};
}

// Llama-3.1-8B, worked by hand: embeddings 128256 x 4096 x 2 (untied)
// = 1,050,673,152; per layer q,o 2 x 4096^2 + k,v 2 x 4096 x 1024 = 41,943,040,
// MLP 3 x 4096 x 14336 = 176,160,768, two norms 8,192 -> 218,112,000 x 32
// = 6,979,584,000; final norm 4,096. Total 8,030,261,248 — the parameter
// count of the published safetensors checkpoint, to the parameter.
TEST(HfConfig, Llama31_8BExact) {
  auto a = Read("Llama-3.1-8B");
  EXPECT_EQ(a.layers, 32);
  EXPECT_EQ(a.kv_heads, 8);
  EXPECT_EQ(a.head_dim, 128);  // hidden / heads: the file has no head_dim
  auto c = ingest::CountParams(a);
  EXPECT_DOUBLE_EQ(c.total, 8030261248.0);
  EXPECT_DOUBLE_EQ(c.active, c.total);
}

struct Published {
  const char* dir;
  double total_b, active_b;  // published, billions
  double tolerance;          // relative; the published figures are rounded
};

// Model cards: Qwen3-8B "Number of Parameters: 8.2B"; Qwen3-32B 32.8B;
// Qwen3-30B-A3B "30.5B in total and 3.3B activated"; Qwen3-235B-A22B "235B in
// total and 22B activated"; DeepSeek-V3 technical report (arXiv 2412.19437):
// "671B total parameters with 37B activated for each token" (without the
// 14B multi-token-prediction module). A figure rounded to 2-3 digits is
// good to about half its last digit: 2% covers 3.3B and 37B.
TEST(HfConfig, ParameterCountsMatchPublishedTotals) {
  const Published cases[] = {
      {"Qwen3-8B", 8.2, 8.2, 0.01},           {"Qwen3-32B", 32.8, 32.8, 0.01},
      {"Qwen3-30B-A3B", 30.5, 3.3, 0.02},     {"Qwen3-235B-A22B", 235, 22, 0.03},
      {"DeepSeek-V3", 671, 37, 0.02},
  };
  for (const auto& p : cases) {
    auto c = ingest::CountParams(Read(p.dir));
    EXPECT_NEAR(c.total / 1e9 / p.total_b, 1.0, p.tolerance) << p.dir << " total " << c.total / 1e9;
    EXPECT_NEAR(c.active / 1e9 / p.active_b, 1.0, p.tolerance) << p.dir << " active " << c.active / 1e9;
  }
}

TEST(HfConfig, MoeAndMlaFields) {
  auto q = Read("Qwen3-30B-A3B");
  EXPECT_EQ(q.experts, 128);
  EXPECT_EQ(q.experts_per_token, 8);
  EXPECT_EQ(q.moe_intermediate, 768);
  EXPECT_EQ(q.moe_layers, 48);
  EXPECT_EQ(q.shared_experts, 0);
  auto d = Read("DeepSeek-V3");
  EXPECT_TRUE(d.mla);
  EXPECT_EQ(d.moe_layers, 58);  // first_k_dense_replace 3 of 61
  EXPECT_EQ(d.shared_experts, 1);
  EXPECT_EQ(d.q_lora_rank, 1536);
  EXPECT_EQ(d.kv_lora_rank, 512);
  EXPECT_EQ(d.mtp_layers, 1);
  ModelSpec m = ingest::ToModelSpec(d, "dsv3");
  EXPECT_EQ(m.attention, Attention::kMla);
  EXPECT_EQ(m.head_dim, 128);
  EXPECT_EQ(m.rope_head_dim, 64);
  EXPECT_EQ(m.v_head_dim, 128);
}

// The model read from config.json agrees with the hand-written catalog entry
// in every architecture field, and in parameters to the published rounding.
TEST(HfConfig, AgreesWithTheCatalog) {
  const std::pair<const char*, const char*> pairs[] = {
      {"Llama-3.1-8B", "llama-3.1-8b"}, {"Qwen3-8B", "qwen3-8b"},         {"Qwen3-32B", "qwen3-32b"},
      {"Qwen3-30B-A3B", "qwen3-30b-a3b"}, {"Qwen3-235B-A22B", "qwen3-235b-a22b"}, {"DeepSeek-V3", "deepseek-v3"}};
  for (const auto& [dir, id] : pairs) {
    ModelSpec m = ingest::ToModelSpec(Read(dir), dir);
    const ModelSpec* c = test::Cat().FindModel(id);
    ASSERT_NE(c, nullptr) << id;
    EXPECT_EQ(m.layers, c->layers) << dir;
    EXPECT_EQ(m.hidden, c->hidden) << dir;
    EXPECT_EQ(m.heads, c->heads) << dir;
    EXPECT_EQ(m.kv_heads, c->kv_heads) << dir;
    EXPECT_EQ(m.head_dim, c->head_dim) << dir;
    EXPECT_EQ(m.vocab, c->vocab) << dir;
    EXPECT_EQ(m.experts, c->experts) << dir;
    EXPECT_EQ(m.experts_per_token, c->experts_per_token) << dir;
    EXPECT_EQ(m.shared_experts, c->shared_experts) << dir;
    EXPECT_EQ(m.attention, c->attention) << dir;
    EXPECT_EQ(m.kv_lora_rank, c->kv_lora_rank) << dir;
    EXPECT_NEAR(m.params_b / c->params_b, 1.0, 0.02) << dir;
    EXPECT_NEAR(m.active_params_b / c->active_params_b, 1.0, 0.03) << dir;
  }
}

TEST(HfConfig, ScenarioModelFromConfig) {
  auto s = LoadScenarioText("model: {hf_config: tests/data/ingest/hf/Qwen3-30B-A3B}\nhardware: {gpu: h100, gpus: 8}\n",
                            test::Cat(), "run.yaml", RLCOST_SOURCE_DIR);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->model_id, "Qwen3-30B-A3B");  // the folder's name
  EXPECT_EQ(s->model.experts, 128);
  EXPECT_NEAR(s->model.params_b, 30.5, 0.3);
  s = LoadScenarioText(
      "model: {hf_config: tests/data/ingest/hf/Qwen3-8B/config.json, name: my-qwen}\nhardware: {gpu: h100, gpus: 8}\n",
      test::Cat(), "run.yaml", RLCOST_SOURCE_DIR);
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->model_id, "my-qwen");
}

TEST(HfConfig, BadInputNamesFileAndField) {
  // A required field missing: the file and the field.
  auto a = ingest::ParseHfConfig(R"({"hidden_size": 4096, "num_attention_heads": 32, "vocab_size": 1000,
      "intermediate_size": 100})",
                                 "cfg/config.json");
  ASSERT_FALSE(a);
  const std::string msg = a.error().ToString();
  EXPECT_NE(msg.find("cfg/config.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("num_hidden_layers: missing"), std::string::npos) << msg;
  // A bad value: its line.
  a = ingest::ParseHfConfig("{\n\"num_hidden_layers\": 32,\n\"hidden_size\": \"big\",\n\"num_attention_heads\": 32,\n"
                            "\"vocab_size\": 10, \"intermediate_size\": 10}",
                            "c.json");
  ASSERT_FALSE(a);
  EXPECT_EQ(a.error().problems[0].line, 3);
  EXPECT_EQ(a.error().problems[0].path, "hidden_size");
  // MoE without its expert width.
  a = ingest::ParseHfConfig(R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
      "vocab_size": 10, "num_experts": 8, "num_experts_per_tok": 2})",
                            "moe.json");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().ToString().find("moe_intermediate_size: missing"), std::string::npos) << a.error().ToString();
  // A layer number no int holds (its cast was undefined behaviour).
  a = ingest::ParseHfConfig(R"({"num_hidden_layers": 2, "hidden_size": 64, "num_attention_heads": 4,
      "vocab_size": 10, "num_experts": 8, "num_experts_per_tok": 2, "moe_intermediate_size": 32,
      "mlp_only_layers": [0, 1e300]})",
                            "big.json");
  ASSERT_FALSE(a);
  EXPECT_NE(a.error().ToString().find("mlp_only_layers[1]: expected a layer number >= 0"), std::string::npos)
      << a.error().ToString();
  // Not JSON; no file.
  EXPECT_FALSE(ingest::ParseHfConfig("{", "x.json"));
  auto missing = ingest::ReadHfConfig(Hf("no-such-model"));
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("no-such-model: Hugging Face config not found"), std::string::npos)
      << missing.error().ToString();
  // Through a scenario: the config file's problem, by its file.
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("rlcost_hf_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << R"({"hidden_size": 64, "num_attention_heads": 4, "vocab_size": 10,
      "intermediate_size": 128})";
  auto s = LoadScenarioText("model: {hf_config: " + dir.string() + "}\nhardware: {gpu: h100, gpus: 8}\n", test::Cat(),
                            "run.yaml");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().ToString().find((dir / "config.json").string() + ": num_hidden_layers: missing"),
            std::string::npos)
      << s.error().ToString();
  s = LoadScenarioText("model: {hf_config: nowhere/config.json}\nhardware: {gpu: h100, gpus: 8}\n", test::Cat(),
                       "run.yaml");
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().ToString().find("run.yaml:1: model.hf_config: file 'nowhere/config.json' not found"),
            std::string::npos)
      << s.error().ToString();
  fs::remove_all(dir);
}

}  // namespace
}  // namespace rlcost
