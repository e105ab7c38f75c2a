#include <cstdio>
#include <fstream>
#include <map>
#include <regex>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "catalog/efficiency_origin.h"
#include "catalog/format.h"
#include "catalog/parse.h"
#include "report/report.h"
#include "rlcost/calibration.h"
#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

namespace rlcost {
namespace {

Catalog Builtin() {
  auto cat = Catalog::Builtin();
  EXPECT_TRUE(cat.has_value()) << (cat ? "" : cat.error().ToString());
  return cat ? *cat : Catalog{};
}

// True when some problem names `path` (exactly) and, if line > 0, that line.
bool HasProblem(const Error& e, const std::string& path, int line = 0) {
  for (const auto& p : e.problems) {
    if (p.path == path && (line == 0 || p.line == line)) return true;
  }
  return false;
}

TEST(Catalog, BuiltinLoadsEveryRequiredId) {
  Catalog cat = Builtin();
  for (const char* id : {"a100-80g", "h100-sxm", "h200", "h20", "b200", "gb200", "mi300x", "l40s", "h800", "a800",
                         "l20"}) {
    EXPECT_NE(cat.FindGpu(id), nullptr) << id;
  }
  for (const char* id : {"qwen2.5-1.5b", "qwen2.5-7b", "qwen2.5-32b", "qwen3-8b", "qwen3-32b", "qwen3-30b-a3b",
                         "qwen3-235b-a22b", "llama-3.1-8b", "llama-3.1-70b", "deepseek-v3"}) {
    EXPECT_NE(cat.FindModel(id), nullptr) << id;
  }
}

// Every numeric field of every built-in entry, read from the embedded YAML,
// has a `sources` entry; so does every efficiency field on every GPU.
TEST(Catalog, EveryBuiltinNumberHasASource) {
  Catalog cat = Builtin();
  const char* gpu_fields[] = {"memory_gb", "hbm_tb_per_s", "tflops_bf16", "tflops_fp8", "tflops_fp4",
                              "intra_node_gb_per_s", "inter_node_gb_per_s", "price_per_hour", "nvlink_domain"};
  for (const auto& [id, g] : cat.gpus()) {
    for (const char* f : gpu_fields) {
      auto it = g.sources.find(f);
      EXPECT_TRUE(it != g.sources.end() && !it->second.empty()) << id << "." << f;
    }
    for (const auto& f : catalog_internal::EfficiencyFieldNames()) {
      EXPECT_TRUE(g.sources.count("efficiency." + f)) << id << ".efficiency." << f;
    }
  }
  // Models: every numeric field that the model sets (a dense model leaves the
  // MoE and MLA fields at 0, which needs no source).
  for (const auto& [id, m] : cat.models()) {
    const std::pair<const char*, double> fields[] = {
        {"params_b", m.params_b}, {"layers", m.layers}, {"hidden", m.hidden}, {"heads", m.heads},
        {"kv_heads", m.kv_heads}, {"head_dim", m.head_dim}, {"vocab", m.vocab}, {"experts", m.experts},
        {"experts_per_token", m.experts_per_token}, {"shared_experts", m.shared_experts},
        {"kv_lora_rank", m.kv_lora_rank}, {"rope_head_dim", m.rope_head_dim}, {"v_head_dim", m.v_head_dim}};
    for (const auto& [f, v] : fields) {
      if (v != 0) {
        EXPECT_TRUE(m.sources.count(f)) << id << "." << f;
      }
    }
    if (m.is_moe()) {
      EXPECT_TRUE(m.sources.count("active_params_b")) << id;
    }
    EXPECT_GT(m.vocab, 0) << id;  // every built-in model states its vocabulary
  }
}

// Every default price says what it is and when it was published: a dated
// market figure ("MARKET, 2026-05-20, ...") or an ASSUMPTION with its reason,
// never an undated list price; and a market figure is a price a user would
// recognise, not above the list price quoted beside it.
TEST(Catalog, EveryPriceIsADatedMarketFigureOrAnAssumption) {
  Catalog cat = Builtin();
  const std::regex market(R"(^MARKET, (20\d\d-\d\d(-\d\d)?), override it: \$([0-9.]+)/GPU-h, .+)");
  const std::regex assumption(R"(^ASSUMPTION, override it: .*(no .*found).*)");
  const std::regex list(R"(list price for comparison: .* -> \$([0-9.]+)/GPU-h)");
  int markets = 0;
  for (const auto& [id, g] : cat.gpus()) {
    const std::string& src = g.sources.at("price_per_hour");
    std::smatch m;
    if (std::regex_search(src, m, market)) {
      ++markets;
      EXPECT_NEAR(std::stod(m[3]), g.price_per_hour, 0.005) << id << ": the source states the price it sets";
      if (std::smatch l; std::regex_search(src, l, list)) EXPECT_LT(g.price_per_hour, std::stod(l[1])) << id;
    } else {
      EXPECT_TRUE(std::regex_search(src, assumption)) << id << ": " << src;
    }
    EXPECT_GT(g.price_per_hour, 0) << id;
  }
  EXPECT_GE(markets, 6);  // a100, h100, h200, b200, mi300x, l40s
}

TEST(Catalog, HandCheckedFacts) {
  Catalog cat = Builtin();
  // H100 SXM datasheet: 80 GB HBM3, 3.35 TB/s, BF16 1,979 TFLOP/s with sparsity
  // = 989 dense; FP8 3,958 sparse = 1,979 dense; NVLink 900 GB/s both ways = 450.
  const GpuSpec* h100 = cat.FindGpu("h100-sxm");
  ASSERT_NE(h100, nullptr);
  EXPECT_DOUBLE_EQ(h100->memory_gb, 80);
  EXPECT_DOUBLE_EQ(h100->hbm_tb_per_s, 3.35);
  EXPECT_DOUBLE_EQ(h100->tflops_bf16, 989);
  EXPECT_DOUBLE_EQ(h100->PeakFlops(Precision::kFp8), 1979e12);
  EXPECT_DOUBLE_EQ(h100->intra_node_gb_per_s, 450);
  EXPECT_FALSE(h100->Supports(Precision::kFp4));
  // fp4 falls back to fp8 on Hopper.
  EXPECT_DOUBLE_EQ(h100->PeakFlops(Precision::kFp4), 1979e12);

  // Llama-3.1-8B config.json: 32 layers, 32 heads, 8 KV heads, hidden 4096,
  // so head_dim = 4096 / 32 = 128; dense, so active = total.
  const ModelSpec* llama = cat.FindModel("llama-3.1-8b");
  ASSERT_NE(llama, nullptr);
  EXPECT_EQ(llama->layers, 32);
  EXPECT_EQ(llama->kv_heads, 8);
  EXPECT_EQ(llama->head_dim, 128);
  EXPECT_DOUBLE_EQ(llama->active_params_b, llama->params_b);
  EXPECT_FALSE(llama->is_moe());

  // DeepSeek-V3: total 671 B, active 37 B, 256 routed experts, 8 per token.
  //   routed = (671 - 37) / (1 - 8/256) = 634 / 0.96875 = 654.4516... B
  //   dense  = 671 - 654.4516 = 16.5484 B
  // Cross-check: 58 MoE layers * 256 experts * 3 * 7168 * 2048 = 653.9 B routed.
  const ModelSpec* ds = cat.FindModel("deepseek-v3");
  ASSERT_NE(ds, nullptr);
  EXPECT_EQ(ds->attention, Attention::kMla);
  EXPECT_EQ(ds->kv_lora_rank, 512);
  EXPECT_EQ(ds->rope_head_dim, 64);
  EXPECT_EQ(ds->experts, 256);
  EXPECT_EQ(ds->experts_per_token, 8);
  EXPECT_EQ(ds->shared_experts, 1);
  EXPECT_NEAR(ds->routed_expert_params_b(), 654.4516, 1e-3);
  EXPECT_NEAR(ds->dense_params_b(), 16.5484, 1e-3);
  // config.json v_head_dim 128; query/key heads are qk_nope 128 + qk_rope 64.
  EXPECT_EQ(ds->v_head_dim, 128);
  EXPECT_EQ(ds->head_dim, 128);

  // NVLink domains: 8 GPUs on an HGX/DGX H100 board; 72 in a GB200 NVL72 rack
  // (a node holds 4). A user GPU without the field gets 8.
  EXPECT_EQ(h100->nvlink_domain, 8);
  EXPECT_EQ(cat.FindGpu("gb200")->nvlink_domain, 72);
  ASSERT_TRUE(cat.AddText("gpus:\n  x:\n    memory_gb: 80\n    hbm_tb_per_s: 1\n    tflops_bf16: 1\n"
                          "    intra_node_gb_per_s: 1\n    inter_node_gb_per_s: 1\n    price_per_hour: 1\n",
                          "user.yaml"));
  EXPECT_EQ(cat.FindGpu("x")->nvlink_domain, 8);
  // AddText is all or nothing: it copies the entries, changes the copy and
  // assigns it back, so a pointer from FindGpu before it is stale after it.
  h100 = cat.FindGpu("h100-sxm");
  // Measured matmul rates: H100 794.5 of 989 bf16, 1402.6 of 1979 fp8; a GPU
  // without a measurement uses H100's bf16 fraction for both (assumed).
  EXPECT_NEAR(h100->MatmulFraction(Precision::kBf16), 794.5 / 989, 1e-12);
  EXPECT_NEAR(h100->MatmulFraction(Precision::kFp8), 1402.6 / 1979, 1e-12);
  EXPECT_TRUE(h100->MatmulFractionMeasured(Precision::kFp8));
  EXPECT_DOUBLE_EQ(cat.FindGpu("x")->MatmulFraction(Precision::kFp8), kAssumedMatmulFraction);
  EXPECT_FALSE(cat.FindGpu("x")->MatmulFractionMeasured(Precision::kBf16));
}

TEST(Catalog, EfficiencyDefaultsReachEveryGpu) {
  Catalog cat = Builtin();
  // catalog/efficiency.yaml default: decode_bw (0.60 + 0.85) / 2 = 0.725,
  // train_mfu (0.38 + 0.47) / 2 = 0.425. Blackwell carries measured overrides
  // (docs/model.md, "Blackwell"): decode_bw 0.725 x 0.711 = 0.516 (b200) and
  // 0.725 x 0.717 = 0.520 (gb200); train_mfu 0.425 x 0.963 = 0.409 and
  // 0.425 x 1.012 = 0.430. The A100's own train_mfu (docs/model.md, "A100"):
  // (0.302 + 0.496) / 2 = 0.399; its decode_bw is the default's. H800 and H200
  // (the H100's GH100 die and clocks, docs/model.md "H800 and H200") carry the
  // H100's compute figures as their own: train_mfu 0.425, prefill_mfu 0.615,
  // logprob_mfu 0.846 x 0.425 = 0.359; their decode_bw stays the default's.
  // MI300X (docs/model.md, "MI300X"): decode_bw 0.725 x 0.867 = 0.629 and
  // train_mfu 0.425 x 0.636 = 0.270, both derived; the H20's row leaves both
  // to the default, the L20's (derived, "L20") keeps the default's decode_bw
  // and has train_mfu 0.425 x 1.197 = 0.509; H20 and L40S (derived from one
  // crowd-sourced matmul table): 0.425 x 1.205 = 0.512 and 0.425 x 0.935 =
  // 0.397, both with the default's decode_bw.
  const std::map<std::string, std::pair<double, double>> blackwell = {
      {"b200", {0.516, 0.409}}, {"gb200", {0.520, 0.430}}, {"a100-80g", {0.725, 0.399}},
      {"a800", {0.725, 0.399}}, {"mi300x", {0.629, 0.270}}, {"l20", {0.725, 0.509}},
      {"h20", {0.725, 0.512}},  {"l40s", {0.725, 0.397}}};
  for (const auto& [id, g] : cat.gpus()) {
    auto it = blackwell.find(id);
    EXPECT_DOUBLE_EQ(g.efficiency.decode_bw, it == blackwell.end() ? 0.725 : it->second.first) << id;
    EXPECT_DOUBLE_EQ(g.efficiency.train_mfu, it == blackwell.end() ? 0.425 : it->second.second) << id;
  }
  for (const char* id : {"h800", "h200"}) {
    const GpuSpec* g = cat.FindGpu(id);
    ASSERT_NE(g, nullptr) << id;
    EXPECT_DOUBLE_EQ(g->efficiency.prefill_mfu, 0.615) << id;
    EXPECT_DOUBLE_EQ(g->efficiency.logprob_mfu, 0.359) << id;
    EXPECT_DOUBLE_EQ(g->efficiency.decode_compute, 0.55) << id;
    EXPECT_EQ(g->sources.at("efficiency.train_mfu").rfind("as h100-sxm (the same GH100 die and clocks", 0), 0u) << id;
  }
}

TEST(Catalog, UserTextAddsGpuReplacesModelAndOverridesEfficiency) {
  Catalog cat = Builtin();
  const std::string text = R"(
gpus:
  my-gpu:
    name: Test GPU
    memory_gb: 64
    hbm_tb_per_s: 2
    tflops_bf16: 500
    intra_node_gb_per_s: 100
    inter_node_gb_per_s: 25
    price_per_hour: 1.5
    efficiency: {train_mfu: 0.3}
models:
  qwen3-8b:
    params_b: 8
    layers: 10
    hidden: 1024
    heads: 8
efficiency:
  h100-sxm: {decode_bw: 0.8}
)";
  auto ok = cat.AddText(text, "user.yaml");
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  const GpuSpec* g = cat.FindGpu("my-gpu");
  ASSERT_NE(g, nullptr);
  EXPECT_DOUBLE_EQ(g->memory_gb, 64);
  EXPECT_DOUBLE_EQ(g->tflops_fp8, 0);  // optional, unsupported
  EXPECT_DOUBLE_EQ(g->efficiency.train_mfu, 0.3);
  EXPECT_DOUBLE_EQ(g->efficiency.decode_bw, 0.725);  // built-in default
  // The replaced model takes its defaults: kv_heads = heads = 8,
  // head_dim = 1024 / 8 = 128, active = total = 8.
  const ModelSpec* m = cat.FindModel("qwen3-8b");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->layers, 10);
  EXPECT_EQ(m->kv_heads, 8);
  EXPECT_EQ(m->head_dim, 128);
  EXPECT_DOUBLE_EQ(m->active_params_b, 8);
  EXPECT_EQ(m->vocab, 0);  // replaced, not merged
  EXPECT_DOUBLE_EQ(cat.FindGpu("h100-sxm")->efficiency.decode_bw, 0.8);
  EXPECT_DOUBLE_EQ(cat.FindGpu("h200")->efficiency.decode_bw, 0.725);
}

TEST(Catalog, AddFileReadsAndReportsMissingFile) {
  Catalog cat = Builtin();
  const std::string path = ::testing::TempDir() + "rlcost_catalog_test.yaml";
  {
    std::ofstream out(path);
    out << "models:\n  tiny:\n    params_b: 0.1\n    layers: 2\n    hidden: 64\n    heads: 4\n    kv_heads: 2\n";
  }
  auto ok = cat.AddFile(path);
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  EXPECT_EQ(cat.FindModel("tiny")->kv_heads, 2);
  std::remove(path.c_str());

  auto missing = cat.AddFile("/nonexistent/rlcost/cat.yaml");
  ASSERT_FALSE(missing.has_value());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);
  EXPECT_NE(missing.error().ToString().find("/nonexistent/rlcost/cat.yaml"), std::string::npos);
}

// Five malformed texts; each problem names the field path and the line.
TEST(Catalog, MalformedTextsNamePathAndLine) {
  struct Case {
    const char* text;
    const char* path;
    int line;
  };
  const Case cases[] = {
      // 1. unknown key with did-you-mean (line 4: "memroy_gb")
      {"gpus:\n  x:\n    name: X\n    memroy_gb: 80\n    hbm_tb_per_s: 1\n    tflops_bf16: 1\n"
       "    intra_node_gb_per_s: 1\n    inter_node_gb_per_s: 1\n    price_per_hour: 1\n",
       "gpus.x.memroy_gb", 4},
      // 2. wrong type (line 3)
      {"models:\n  m:\n    params_b: lots\n    layers: 2\n    hidden: 64\n    heads: 4\n", "models.m.params_b", 3},
      // 3. kv_heads does not divide heads (line 7)
      {"models:\n  m:\n    params_b: 1\n    layers: 2\n    hidden: 64\n    heads: 4\n    kv_heads: 3\n",
       "models.m.kv_heads", 7},
      // 4. active > total (line 4)
      {"models:\n  m:\n    params_b: 1\n    active_params_b: 2\n    layers: 2\n    hidden: 64\n    heads: 4\n",
       "models.m.active_params_b", 4},
      // 5. attention not gqa|mla (line 7)
      {"models:\n  m:\n    params_b: 1\n    layers: 2\n    hidden: 64\n    heads: 4\n    attention: mha\n",
       "models.m.attention", 7},
      // 6. an NVLink domain of no GPUs (line 10)
      {"gpus:\n  x:\n    name: X\n    memory_gb: 80\n    hbm_tb_per_s: 1\n    tflops_bf16: 1\n"
       "    intra_node_gb_per_s: 1\n    inter_node_gb_per_s: 1\n    price_per_hour: 1\n    nvlink_domain: 0\n",
       "gpus.x.nvlink_domain", 10},
      // 7. v_head_dim must not be negative (line 7)
      {"models:\n  m:\n    params_b: 1\n    layers: 2\n    hidden: 64\n    heads: 4\n    v_head_dim: -1\n",
       "models.m.v_head_dim", 7},
      // 8. a measured matmul above the dense peak it is a fraction of (line 10)
      {"gpus:\n  x:\n    name: X\n    memory_gb: 80\n    hbm_tb_per_s: 1\n    tflops_bf16: 100\n"
       "    intra_node_gb_per_s: 1\n    inter_node_gb_per_s: 1\n    price_per_hour: 1\n    matmul_tflops_bf16: 120\n",
       "gpus.x.matmul_tflops_bf16", 10},
  };
  for (const auto& c : cases) {
    Catalog cat = Builtin();
    const size_t gpus_before = cat.gpus().size();
    auto ok = cat.AddText(c.text, "bad.yaml");
    ASSERT_FALSE(ok.has_value()) << c.path;
    EXPECT_EQ(ok.error().code, ErrorCode::kInvalidInput);
    EXPECT_TRUE(HasProblem(ok.error(), c.path, c.line)) << c.path << " line " << c.line << ":\n"
                                                        << ok.error().ToString();
    EXPECT_EQ(ok.error().problems.front().file, "bad.yaml");
    EXPECT_EQ(cat.gpus().size(), gpus_before);  // all-or-nothing
  }
}

TEST(Catalog, MessagesCarryDidYouMeanAndAcceptedNames) {
  Catalog cat;
  auto ok = cat.AddText("models:\n  m:\n    params_b: 1\n    layers: 2\n    hidden: 64\n    heads: 4\n"
                        "    attention: mha\n    kv_head: 2\n",
                        "bad.yaml");
  ASSERT_FALSE(ok.has_value());
  const std::string all = ok.error().ToString();
  EXPECT_NE(all.find("did you mean 'kv_heads'"), std::string::npos) << all;
  EXPECT_NE(all.find("gqa | mla"), std::string::npos) << all;
  EXPECT_NE(all.find("bad.yaml:8: models.m.kv_head"), std::string::npos) << all;
}

TEST(Catalog, CollectsEveryProblem) {
  Catalog cat;
  // MoE with experts_per_token > experts, MLA without kv_lora_rank, and a GPU
  // with zero memory and negative bandwidth: four problems in one pass.
  auto ok = cat.AddText(R"(
models:
  m:
    params_b: 10
    active_params_b: 2
    layers: 2
    hidden: 64
    heads: 4
    experts: 4
    experts_per_token: 8
    attention: mla
gpus:
  g:
    memory_gb: 0
    hbm_tb_per_s: -1
    tflops_bf16: 10
    intra_node_gb_per_s: 1
    inter_node_gb_per_s: 1
    price_per_hour: 1
)",
                        "bad.yaml");
  ASSERT_FALSE(ok.has_value());
  const Error& e = ok.error();
  EXPECT_TRUE(HasProblem(e, "models.m.experts_per_token", 10)) << e.ToString();
  EXPECT_TRUE(HasProblem(e, "models.m.kv_lora_rank")) << e.ToString();
  EXPECT_TRUE(HasProblem(e, "gpus.g.memory_gb", 14)) << e.ToString();
  EXPECT_TRUE(HasProblem(e, "gpus.g.hbm_tb_per_s", 15)) << e.ToString();
}

TEST(Catalog, SyntaxErrorsAndOddShapesNeverThrow) {
  for (const char* text : {"gpus: [1, 2", "gpus:\n  x: 3\n", "- a\n- b\n", "", "models: 5\n", "efficiency:\n  nope: {}\n",
                           "gpus:\n  x:\n    efficiency: 0.5\n"}) {
    Catalog cat;
    auto ok = cat.AddText(text, "odd.yaml");
    EXPECT_FALSE(ok.has_value()) << text;
    if (!ok) {
      EXPECT_FALSE(ok.error().problems.empty());
    }
  }
  Catalog cat;
  auto ok = cat.AddText("gpus: {a: [1, 2", "odd.yaml");
  ASSERT_FALSE(ok.has_value());
  EXPECT_GT(ok.error().problems.front().line, 0);
}

TEST(Catalog, JsonTextLoadsAndRoundTrips) {
  Catalog cat;
  auto ok = cat.AddText(R"({"models": {"j": {"params_b": 1.5, "layers": 4, "hidden": 256, "heads": 8, "kv_heads": 2}}})",
                        "cat.json");
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  EXPECT_EQ(cat.FindModel("j")->head_dim, 32);  // 256 / 8

  // `rlcost catalog --json` output reads back to the same numbers.
  Catalog builtin = Builtin();
  Catalog again;
  auto back = again.AddText(FormatCatalogJson(builtin), "catalog.json");
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  ASSERT_EQ(again.gpus().size(), builtin.gpus().size());
  for (const auto& [id, g] : builtin.gpus()) {
    const GpuSpec* h = again.FindGpu(id);
    ASSERT_NE(h, nullptr) << id;
    EXPECT_DOUBLE_EQ(h->tflops_bf16, g.tflops_bf16) << id;
    EXPECT_DOUBLE_EQ(h->efficiency.prefill_mfu, g.efficiency.prefill_mfu) << id;
    EXPECT_EQ(h->sources, g.sources) << id;
  }
  for (const auto& [id, m] : builtin.models()) {
    const ModelSpec* n = again.FindModel(id);
    ASSERT_NE(n, nullptr) << id;
    EXPECT_EQ(n->head_dim, m.head_dim) << id;
    EXPECT_EQ(n->attention, m.attention) << id;
    EXPECT_DOUBLE_EQ(n->active_params_b, m.active_params_b) << id;
  }
}

TEST(Catalog, InlineModelForScenarios) {
  // The scenario loader's inline `model:` mapping (SCENARIO.md "Models").
  YAML::Node node = YAML::Load(R"(
name: my-moe
params_b: 30.5
active_params_b: 3.3
layers: 48
hidden: 2048
heads: 32
kv_heads: 4
head_dim: 128
experts: 128
experts_per_token: 8
attention: gqa
)");
  std::vector<Problem> problems;
  ModelSpec m = catalog_internal::ParseModel(node, "", "model", problems);
  EXPECT_TRUE(problems.empty());
  EXPECT_EQ(m.name, "my-moe");
  EXPECT_TRUE(m.is_moe());
  // routed = (30.5 - 3.3) / (1 - 8/128) = 27.2 / 0.9375 = 29.0133 B
  EXPECT_NEAR(m.routed_expert_params_b(), 29.0133, 1e-3);

  // A missing node (scenario without `model:`) is a problem, not a throw.
  YAML::Node none = YAML::Load("a: 1");
  catalog_internal::ParseModel(none["model"], "", "model", problems);
  EXPECT_FALSE(problems.empty());
  EXPECT_EQ(problems.back().path, "model");
}

TEST(Catalog, TableAndJsonShowEveryEntry) {
  Catalog cat = Builtin();
  const std::string table = FormatCatalogTable(cat);
  const std::string json = FormatCatalogJson(cat);
  for (const auto& id : cat.GpuIds()) {
    EXPECT_NE(table.find(id), std::string::npos) << id;
    EXPECT_NE(json.find("\"" + id + "\""), std::string::npos) << id;
  }
  for (const auto& id : cat.ModelIds()) EXPECT_NE(table.find(id), std::string::npos) << id;
  // H100 row: 80 GB, 3.35 TB/s, 989 / 1979 bf16/fp8, no fp4, its price.
  EXPECT_NE(table.find("3.35"), std::string::npos);
  EXPECT_NE(table.find(fmt::format("{:.2f}", cat.FindGpu("h100-sxm")->price_per_hour)), std::string::npos);
  EXPECT_NE(table.find("8/256+1"), std::string::npos);  // deepseek-v3 experts
}

// Blackwell's efficiencies are read off measurements of Blackwell, not copied
// from H100 (docs/model.md, "Blackwell"). TensorRT-LLM perf-overview.md, Llama
// 3.3 70B, 1000 in / 1000 out at maximum load: B200 TP1 NVFP4 7,007 tok/s,
// GB200 TP1 NVFP4 7,326, H100 TP2 FP8 4,205 (2,102.5 per GPU). Measured /
// predicted on Blackwell over the same ratio on H100, with the full,
// preempting KV cache model the factors were read off with: 1.026 (B200) and
// 0.948 (GB200) with the overrides; 0.808 and 0.797 with H100's fractions
// copied.
TEST(Catalog, BlackwellEfficienciesMatchMeasuredThroughput) {
  Catalog cat = Builtin();
  auto ratio = [&](const std::string& gpu, int tp, const std::string& precision, double measured_per_gpu) {
    const std::string text = "model: llama-3.1-70b\nhardware: {gpu: " + gpu + ", gpus: " + std::to_string(16 + tp) +
                             "}\nplacement: {engine: trtllm, mode: disaggregated, rollout_gpus: " +
                             std::to_string(tp) + ", train_gpus: 16, rollout_tp: " + std::to_string(tp) +
                             "}\nenvironment: {prompt_tokens: 1000, response_tokens: 1000}\n"
                             "algorithm: {name: ppo, group_size: 1, prompts_per_step: 3000, steps: 1}\n"
                             "precision: {rollout: " + precision + ", kv_cache: fp8}\n";
    auto s = LoadScenarioText(text, cat);
    EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
    auto e = EstimateAnalytic(*s);
    EXPECT_TRUE(e.has_value()) << (e ? "" : e.error().ToString());
    return measured_per_gpu / e->output_tokens_per_s_per_gpu;
  };
  const double h100 = ratio("h100-sxm", 2, "fp8", 4205.0 / 2);
  EXPECT_NEAR(ratio("b200", 1, "fp4", 7007.0) / h100, 1.0, 0.15);
  EXPECT_NEAR(ratio("gb200", 1, "fp4", 7326.0) / h100, 1.0, 0.15);
  const Efficiency& d = cat.FindGpu("h100-sxm")->efficiency;
  EXPECT_LT(cat.FindGpu("b200")->efficiency.decode_bw, d.decode_bw);
  EXPECT_LT(cat.FindGpu("gb200")->efficiency.decode_bw, d.decode_bw);
}

}  // namespace
}  // namespace rlcost

namespace rlcost {
namespace {

// A user catalog may change one field of a known GPU (its price) without
// copying the rest; the changed field is sourced to the file that set it, and
// a partial entry for a GPU the catalog does not have stays an error naming it.
TEST(Catalog, PartialEntryChangesOnlyTheFieldsItGives) {
  Catalog cat = Catalog::Builtin().value();
  const GpuSpec before = *cat.FindGpu("h100-sxm");
  auto ok = cat.AddText("gpus:\n  h100-sxm:\n    price_per_hour: 2.95\n", "my-prices.yaml");
  ASSERT_TRUE(ok.has_value()) << ok.error().ToString();
  const GpuSpec* after = cat.FindGpu("h100-sxm");
  ASSERT_NE(after, nullptr);
  EXPECT_DOUBLE_EQ(after->price_per_hour, 2.95);
  EXPECT_DOUBLE_EQ(after->hbm_tb_per_s, before.hbm_tb_per_s);
  EXPECT_DOUBLE_EQ(after->tflops_fp8, before.tflops_fp8);
  EXPECT_DOUBLE_EQ(after->efficiency.decode_bw, before.efficiency.decode_bw);
  EXPECT_EQ(after->aliases, before.aliases);
  EXPECT_EQ(after->sources.at("price_per_hour"), "set in my-prices.yaml");
  EXPECT_EQ(after->sources.at("hbm_tb_per_s"), before.sources.at("hbm_tb_per_s"));
  // Found by alias as before.
  EXPECT_EQ(cat.FindGpu("h100")->price_per_hour, 2.95);
  // One efficiency field, with its own source.
  ASSERT_TRUE(cat.AddText("gpus:\n  h100-sxm:\n    efficiency: {train_mfu: 0.3}\n    sources: {efficiency.train_mfu: my log}\n",
                          "eff.yaml")
                  .has_value());
  EXPECT_DOUBLE_EQ(cat.FindGpu("h100-sxm")->efficiency.train_mfu, 0.3);
  EXPECT_DOUBLE_EQ(cat.FindGpu("h100-sxm")->efficiency.decode_bw, before.efficiency.decode_bw);
  EXPECT_EQ(cat.FindGpu("h100-sxm")->sources.at("efficiency.train_mfu"), "my log");
  // A bad value in a partial entry is still checked.
  auto bad = cat.AddText("gpus:\n  h100-sxm:\n    price_per_hour: -1\n", "bad.yaml");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("gpus.h100-sxm.price_per_hour"), std::string::npos) << bad.error().ToString();
  // An unknown GPU in a partial entry: one clear line naming it, with the near miss.
  auto unknown = cat.AddText("gpus:\n  h100-sxn:\n    price_per_hour: 2.5\n", "typo.yaml");
  ASSERT_FALSE(unknown.has_value());
  const std::string msg = unknown.error().problems.front().ToString();
  EXPECT_NE(msg.find("no GPU 'h100-sxn' in the catalog to change"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean 'h100-sxm'"), std::string::npos) << msg;
  EXPECT_EQ(cat.FindGpu("h100-sxn"), nullptr);
}

}  // namespace
}  // namespace rlcost

namespace rlcost {
namespace {

// A small GRPO run of Qwen2.5-7B on 8 of `gpu`: the scenario, its estimate,
// and whether one of the estimate's assumptions starts with `said`.
struct SmallRun {
  Scenario s;
  Estimate e;
  bool Says(const std::string& said, const std::string& also = "") const {
    for (const auto& a : e.assumptions) {
      if (a.find(said) == 0 && (also.empty() || a.find(also) != std::string::npos)) return true;
    }
    return false;
  }
};
SmallRun SmallRunOn(const Catalog& cat, const std::string& gpu) {
  auto s = LoadScenarioText("model: qwen2.5-7b\nhardware: {gpu: " + gpu +
                                ", gpus: 8}\n"
                                "environment: {prompt_tokens: 100, response_tokens: 200}\n"
                                "algorithm: {name: grpo, group_size: 4, prompts_per_step: 64, steps: 1}\n",
                            cat);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  auto e = EstimateAnalytic(*s);
  EXPECT_TRUE(e.has_value()) << e.error().ToString();
  return SmallRun{*s, *e};
}

// Every GPU without an efficiency row of its own prices with the default's
// figures, which were measured on H100s (efficiency.yaml default:
// measured_on h100-sxm): the estimate's text and JSON say it borrows them and
// from which GPU (a GPU a user's catalog file adds without a row does), and a
// GPU with its own row (h100-sxm through the default, every other built-in
// GPU through its own) does not borrow the whole row.
TEST(Catalog, BorrowedEfficienciesSayFromWhichGpu) {
  Catalog cat = Catalog::Builtin().value();
  auto from = [&](const std::string& id) {
    const auto& src = cat.FindGpu(id)->sources;
    auto it = src.find("efficiency.measured_on");
    return it == src.end() ? std::string() : it->second;
  };
  // Every built-in GPU now has a row of its own; a GPU added by a user's
  // catalog file without an `efficiency:` mapping still borrows the whole row.
  for (const auto& [id, g] : cat.gpus()) EXPECT_EQ(from(id), "") << id;
  ASSERT_TRUE(cat.AddText("gpus:\n  my-gpu:\n    name: My GPU\n    memory_gb: 80\n    hbm_tb_per_s: 3.35\n"
                          "    tflops_bf16: 989\n    intra_node_gb_per_s: 450\n    inter_node_gb_per_s: 50\n"
                          "    price_per_hour: 2\n",
                          "mine.yaml")
                  .has_value());
  EXPECT_EQ(from("my-gpu"), "h100-sxm");

  const SmallRun run = SmallRunOn(cat, "my-gpu");
  EXPECT_TRUE(run.Says("efficiency (my-gpu: BORROWED from h100-sxm"));
  const auto j = report::EstimateToJson(run.s, run.e);
  EXPECT_EQ(j["efficiency"]["gpu"], "my-gpu");
  EXPECT_EQ(j["efficiency"]["borrowed"], true);
  EXPECT_EQ(j["efficiency"]["borrowed_from"], "h100-sxm");
  EXPECT_TRUE(j["efficiency"]["sources"].contains("train_mfu"));

  const SmallRun h100 = SmallRunOn(cat, "h100-sxm");
  const auto jh = report::EstimateToJson(h100.s, h100.e);
  EXPECT_EQ(jh["efficiency"]["borrowed"], false);
  EXPECT_FALSE(jh["efficiency"].contains("borrowed_from"));
}

// A GPU row of its own sets some fields; the rest are still the default's
// H100 figures, and the estimate names them (docs/model.md, "Efficiency
// defaults"). The A100 row sets prefill_mfu, train_mfu and logprob_mfu, so the
// other eight fields are borrowed; a user's row that sets decode_bw and a
// calibration that fits train_mfu_moe each take their field off the list.
TEST(Catalog, ARowOfItsOwnNamesTheFieldsItStillBorrows) {
  Catalog cat = Catalog::Builtin().value();
  const std::vector<std::string> eight = {"decode_bw",          "decode_compute",    "decode_iter_overhead_s",
                                          "moe_layer_decode_s", "moe_layer_train_s", "train_mfu_moe",
                                          "step_overhead_s",    "weight_sync_eff"};
  {
    const EfficiencyOrigin o = OriginOfEfficiency(*cat.FindGpu("a100-80g"));
    EXPECT_FALSE(o.whole_row);
    EXPECT_EQ(o.borrowed_from, "h100-sxm");
    EXPECT_EQ(o.borrowed_fields, eight);
    EXPECT_DOUBLE_EQ(cat.FindGpu("a100-80g")->efficiency.train_mfu, 0.399);
  }
  {
    // The H100 itself borrows nothing; b200 borrows the six fields its row leaves out.
    EXPECT_TRUE(OriginOfEfficiency(*cat.FindGpu("h100-sxm")).borrowed_from.empty());
    const EfficiencyOrigin b = OriginOfEfficiency(*cat.FindGpu("b200"));
    EXPECT_EQ(b.borrowed_fields,
              (std::vector<std::string>{"decode_iter_overhead_s", "moe_layer_decode_s", "moe_layer_train_s",
                                        "train_mfu_moe", "step_overhead_s", "weight_sync_eff"}));
  }
  {
    // H800 and H200 take the H100's compute fields as their own (same GH100
    // die and clocks); the memory- and link-side ones stay borrowed. The H200
    // also owns moe_layer_decode_s, whose source was measured on 8 x H200.
    const EfficiencyOrigin h800 = OriginOfEfficiency(*cat.FindGpu("h800"));
    EXPECT_FALSE(h800.whole_row);
    EXPECT_EQ(h800.borrowed_from, "h100-sxm");
    EXPECT_EQ(h800.borrowed_fields,
              (std::vector<std::string>{"decode_bw", "decode_iter_overhead_s", "moe_layer_decode_s", "moe_layer_train_s",
                                        "train_mfu_moe", "step_overhead_s", "weight_sync_eff"}));
    const EfficiencyOrigin h200 = OriginOfEfficiency(*cat.FindGpu("h200"));
    EXPECT_EQ(h200.borrowed_from, "h100-sxm");
    EXPECT_EQ(h200.borrowed_fields,
              (std::vector<std::string>{"decode_bw", "decode_iter_overhead_s", "moe_layer_train_s", "train_mfu_moe",
                                        "step_overhead_s", "weight_sync_eff"}));
  }
  ASSERT_TRUE(cat.AddText("efficiency:\n  a100-80g:\n    decode_bw: 0.6\n", "mine.yaml").has_value());
  std::vector<std::string> seven(eight.begin() + 1, eight.end());
  EXPECT_EQ(OriginOfEfficiency(*cat.FindGpu("a100-80g")).borrowed_fields, seven);

  const SmallRun run = SmallRunOn(cat, "a100-80g");
  EXPECT_TRUE(run.Says("efficiency (a100-80g: its own figures in catalog/efficiency.yaml but decode compute share, ",
                       "weight-sync link share BORROWED from h100-sxm)"));
  Scenario s = run.s;
  const auto j = report::EstimateToJson(run.s, run.e);
  EXPECT_EQ(j["efficiency"]["borrowed"], false);
  EXPECT_EQ(j["efficiency"]["borrowed_from"], "h100-sxm");
  EXPECT_EQ(j["efficiency"]["borrowed_fields"].size(), 7u);
  EXPECT_FALSE(j["efficiency"]["sources"].contains("borrowed_fields"));

  Calibration cal;
  cal.efficiency = s.hardware.gpu.efficiency;
  cal.efficiency.train_mfu_moe = 0.2;
  cal.fitted = {"train_mfu_moe"};
  cal.source = "my.log";
  ApplyCalibration(cal, s);
  std::vector<std::string> six = seven;
  std::erase(six, std::string("train_mfu_moe"));
  EXPECT_EQ(OriginOfEfficiency(s.hardware.gpu).borrowed_fields, six);
  cal.fitted.clear();
  ApplyCalibration(cal, s);
  EXPECT_TRUE(OriginOfEfficiency(s.hardware.gpu).borrowed_from.empty());
}

// MI300X, H20, L20 and L40S rows (docs/model.md, "Efficiency defaults"),
// worked by hand from the published figures their sources cite:
//  - MI300X, derived: matmul ceilings over dense peaks 668.4 / 1307.4 =
//    0.5112 and (H100) 794.5 / 989 = 0.8033, ratio 0.636; train_mfu
//    0.425 x 0.636 = 0.270, prefill_mfu 0.615 x 0.636 = 0.391,
//    decode_compute 0.55 x 0.636 = 0.350, logprob_mfu 0.846 x 0.270 = 0.228;
//    STREAM shares (4.11 + 4.26 + 4.14 + 4.09 + 3.87) / 5 / 5.3 = 0.7725 and
//    (2.90 + 2.90 + 2.97 + 2.97 + 3.18) / 5 / 3.35 = 0.8907, decode_bw
//    0.725 x 0.867 = 0.629.
//  - H20, measured: FA2 83.7 and FA3 126.2 TFLOP/s of 148 (head dim 128,
//    sequence 2,048), decode_compute (0.566 + 0.853) / 2 = 0.709; FA3 forward
//    100.3-126.2, prefill_mfu (0.678 + 0.853) / 2 = 0.765; train_mfu derived
//    from one torch.matmul table: (141.86 / 148) / ((789.24 + 783.66) / 2 /
//    989) = 1.205, 0.425 x 1.205 = 0.512.
//  - L40S, derived from the same table: (269.15 / 362.05) / 0.7952 = 0.935;
//    train_mfu 0.397, prefill_mfu 0.575, decode_compute 0.514.
//  - L20, derived: torch.matmul 114.87 of 119.5 TFLOP/s = 0.9613, ratio to
//    the H100's 0.8033 = 1.197; train_mfu 0.509, prefill_mfu 0.736,
//    decode_compute 0.658, logprob_mfu 0.846 x 0.509 = 0.431.
// An MI300X estimate names its own sources (each a derivation, and says so)
// and lists exactly the six fields it still borrows.
TEST(Catalog, Mi300xH20L20AndL40sRowsNameTheirSourcesAndWhatTheyBorrow) {
  Catalog cat = Catalog::Builtin().value();
  const GpuSpec& mi = *cat.FindGpu("mi300x");
  const GpuSpec& h100 = *cat.FindGpu("h100-sxm");
  // The ceiling ratio is the one gpus.yaml's own measured matmul fields give.
  const double ceiling = mi.MatmulFraction(Precision::kBf16) / h100.MatmulFraction(Precision::kBf16);
  EXPECT_NEAR(ceiling, (668.4 / 1307.4) / (794.5 / 989), 1e-12);
  EXPECT_NEAR(mi.efficiency.train_mfu, 0.425 * ceiling, 5e-4);
  EXPECT_NEAR(mi.efficiency.prefill_mfu, 0.615 * ceiling, 5e-4);
  EXPECT_NEAR(mi.efficiency.decode_compute, 0.55 * ceiling, 5e-4);
  EXPECT_NEAR(mi.efficiency.logprob_mfu, 0.846 * mi.efficiency.train_mfu, 5e-4);
  const double stream = ((4.11 + 4.26 + 4.14 + 4.09 + 3.87) / 5 / mi.hbm_tb_per_s) /
                        ((2.90 + 2.90 + 2.97 + 2.97 + 3.18) / 5 / h100.hbm_tb_per_s);
  EXPECT_NEAR(mi.efficiency.decode_bw, 0.725 * stream, 5e-4);
  // What the row leaves to the H100 default keeps the H100's value.
  EXPECT_DOUBLE_EQ(mi.efficiency.decode_iter_overhead_s, h100.efficiency.decode_iter_overhead_s);
  EXPECT_DOUBLE_EQ(mi.efficiency.weight_sync_eff, h100.efficiency.weight_sync_eff);

  const SmallRun run = SmallRunOn(cat, "mi300x");
  EXPECT_TRUE(run.Says("efficiency (mi300x: its own figures in catalog/efficiency.yaml but fixed cost per decode iteration, ",
                       "BORROWED from h100-sxm; "));
  EXPECT_FALSE(run.Says("efficiency (mi300x: BORROWED"));
  const auto j = report::EstimateToJson(run.s, run.e);
  EXPECT_EQ(j["efficiency"]["borrowed"], false);
  // The two named fits are the runs', not a GPU's: never borrowed, always
  // named as fits (docs/model.md, "Named fits"), in the text and the JSON.
  EXPECT_EQ(j["efficiency"]["fitted_fields"], nlohmann::json({"typical_update_share", "pageable_copy_s_per_gb"}));
  EXPECT_EQ(j["efficiency"]["tuning"], "typical");
  EXPECT_TRUE(run.Says("efficiency (mi300x", "the update runs at 0.84 of the train MFU, 22.7% here (FITTED"));
  EXPECT_EQ(j["efficiency"]["borrowed_from"], "h100-sxm");
  EXPECT_EQ(j["efficiency"]["borrowed_fields"],
            nlohmann::json({"decode_iter_overhead_s", "moe_layer_decode_s", "moe_layer_train_s", "train_mfu_moe",
                            "step_overhead_s", "weight_sync_eff"}));
  for (const char* f : {"decode_bw", "decode_compute", "prefill_mfu", "train_mfu"}) {
    const std::string src = j["efficiency"]["sources"][f].get<std::string>();
    EXPECT_EQ(src.rfind("DERIVED", 0), 0u) << f << ": " << src;
  }
  EXPECT_NE(j["efficiency"]["sources"]["train_mfu"].get<std::string>().find("668.4"), std::string::npos);
  EXPECT_NE(j["efficiency"]["sources"]["decode_bw"].get<std::string>().find("ND MI300X v5"), std::string::npos);
  // The derived figures are named as such in the text and in the JSON, from
  // one list: every own field whose source says DERIVED, none borrowed.
  const auto derived = j["efficiency"]["derived_fields"].get<std::vector<std::string>>();
  for (const char* f : {"decode_bw", "decode_compute", "prefill_mfu", "train_mfu"}) {
    EXPECT_NE(std::find(derived.begin(), derived.end(), f), derived.end()) << f;
  }
  for (const auto& f : derived) {
    EXPECT_EQ(mi.sources.at("efficiency." + f).rfind("DERIVED", 0), 0u) << f;
    EXPECT_EQ(std::count(j["efficiency"]["borrowed_fields"].begin(), j["efficiency"]["borrowed_fields"].end(), f), 0)
        << f;
  }
  EXPECT_TRUE(run.Says("efficiency (mi300x: ", "; decode bandwidth, decode compute share, prefill MFU and train MFU DERIVED"));
  EXPECT_TRUE(run.Says("efficiency (mi300x: ", " DERIVED, not measured on this GPU (each source says from what)"));
  // A GPU measured itself says nothing of the kind.
  const SmallRun h100_run = SmallRunOn(cat, "h100-sxm");
  EXPECT_FALSE(h100_run.Says("efficiency (", "DERIVED"));
  EXPECT_TRUE(report::EstimateToJson(h100_run.s, h100_run.e)["efficiency"]["derived_fields"].empty());

  const GpuSpec& h20 = *cat.FindGpu("h20");
  EXPECT_NEAR(h20.efficiency.decode_compute, (83.7 / 148 + 126.2 / 148) / 2, 5e-4);
  EXPECT_NEAR(h20.efficiency.prefill_mfu, (100.3 / 148 + 126.2 / 148) / 2, 5e-4);
  // The H20's and L40S's matmul ceilings come from one torch.matmul table
  // whose H100 entries (789.24, 783.66) give the H100's share: 0.7952.
  const double table_h100 = (789.24 + 783.66) / 2 / h100.tflops_bf16;
  EXPECT_NEAR(h20.efficiency.train_mfu, 0.425 * (141.86 / h20.tflops_bf16) / table_h100, 5e-4);
  EXPECT_NEAR(h20.efficiency.logprob_mfu, 0.846 * h20.efficiency.train_mfu, 5e-4);
  EXPECT_DOUBLE_EQ(h20.efficiency.decode_bw, 0.725);
  const EfficiencyOrigin o = OriginOfEfficiency(h20);
  EXPECT_FALSE(o.whole_row);
  EXPECT_EQ(o.borrowed_from, "h100-sxm");
  EXPECT_EQ(o.borrowed_fields,
            (std::vector<std::string>{"decode_bw", "decode_iter_overhead_s", "moe_layer_decode_s", "moe_layer_train_s",
                                      "train_mfu_moe", "step_overhead_s", "weight_sync_eff"}));
  // L40S and L20 scale the H100's compute fields by their matmul ceiling's
  // ratio to the H100's and borrow the rest; each row says DERIVED.
  const auto expect_scaled_row = [&](const GpuSpec& g, double ceiling) {
    SCOPED_TRACE(g.id);
    EXPECT_NEAR(g.efficiency.train_mfu, 0.425 * ceiling, 5e-4);
    EXPECT_NEAR(g.efficiency.prefill_mfu, 0.615 * ceiling, 5e-4);
    EXPECT_NEAR(g.efficiency.decode_compute, 0.55 * ceiling, 5e-4);
    EXPECT_NEAR(g.efficiency.logprob_mfu, 0.846 * g.efficiency.train_mfu, 5e-4);
    EXPECT_EQ(OriginOfEfficiency(g).borrowed_fields,
              (std::vector<std::string>{"decode_bw", "decode_iter_overhead_s", "moe_layer_decode_s",
                                        "moe_layer_train_s", "train_mfu_moe", "step_overhead_s", "weight_sync_eff"}));
    EXPECT_EQ(g.sources.at("efficiency.train_mfu").rfind("DERIVED", 0), 0u);
  };
  const GpuSpec& l40s = *cat.FindGpu("l40s");
  const double l40s_ceiling = (269.15 / l40s.tflops_bf16) / table_h100;
  EXPECT_NEAR(l40s_ceiling, 0.935, 5e-4);
  expect_scaled_row(l40s, l40s_ceiling);
  EXPECT_EQ(h20.sources.at("efficiency.decode_compute").rfind("measured on H20", 0), 0u);

  // L20, derived from its own measured matmul ceiling (docs/model.md, "L20"):
  // 114.87 / 119.5 = 0.9613 against the H100's 0.8033, ratio 1.197.
  const GpuSpec& l20 = *cat.FindGpu("l20");
  const double l20_ceiling = (114.87 / l20.tflops_bf16) / h100.MatmulFraction(Precision::kBf16);
  EXPECT_NEAR(l20_ceiling, 1.197, 5e-4);
  expect_scaled_row(l20, l20_ceiling);
}

// A GPU written inline in a scenario starts from the same default figures as a
// catalog GPU, fixed costs included: 4 ms per decode iteration
// (decode_iter_overhead_s, efficiency.yaml default), where it used to get 0.
TEST(Catalog, InlineGpuTakesTheDefaultFixedCosts) {
  Catalog cat = Catalog::Builtin().value();
  const std::string text =
      "model: qwen2.5-7b\n"
      "hardware: {gpu: {name: my-gpu, memory_gb: 80, hbm_tb_per_s: 3.35, tflops_bf16: 989, intra_node_gb_per_s: 450, "
      "inter_node_gb_per_s: 50, price_per_hour: 2}, gpus: 8}\n"
      "environment: {prompt_tokens: 100, response_tokens: 200}\n"
      "algorithm: {name: grpo, group_size: 4, prompts_per_step: 64, steps: 1}\n";
  auto s = LoadScenarioText(text, cat);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  const Efficiency& inline_eff = s->hardware.gpu.efficiency;
  const Efficiency& h100 = cat.FindGpu("h100-sxm")->efficiency;
  EXPECT_DOUBLE_EQ(inline_eff.decode_iter_overhead_s, 0.004);
  EXPECT_DOUBLE_EQ(inline_eff.moe_layer_decode_s, h100.moe_layer_decode_s);
  EXPECT_DOUBLE_EQ(inline_eff.train_mfu, 0.425);
  EXPECT_EQ(s->hardware.gpu.sources.at("efficiency.measured_on"), "h100-sxm");
}

}  // namespace
}  // namespace rlcost
