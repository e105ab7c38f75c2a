// Levers, waterfall, price card and comparison. Hand-worked numbers are in the
// comments; the end-to-end tests run on the built-in catalog and the shared
// scenarios and skip (saying so) only while the estimator reports "not yet".
#include "econ/levers.h"

#include <cmath>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/signal.h"

namespace rlcost::levers {
namespace {

PassRateSpec PointPassRate(double p) {
  PassRateSpec pr;
  pr.kind = PassRateSpec::Kind::kHistogram;
  pr.histogram = {{p, 1.0}};
  return pr;
}

// --- 2-GRPO exactly ------------------------------------------------------------

TEST(Grpo2, InformativeProbabilitiesAtP035ByHand) {
  // G = 2:  2 p (1 - p) = 2 * 0.35 * 0.65 = 0.455.
  // G = 16: 1 - 0.35^16 - 0.65^16 = 1 - 5.07e-8 - 1.01502e-3 = 0.9989846.
  PassRateSpec pr = PointPassRate(0.35);
  EXPECT_NEAR(signal::InformativeGroupProbability(pr, 2), 0.455, 1e-9);
  EXPECT_NEAR(signal::InformativeGroupProbability(pr, 16), 0.9989846, 1e-6);
}

TEST(Grpo2, InformativeProbabilitiesOverBetaByHand) {
  // Beta(0.7, 1.3) (mean 0.35, concentration 2): E[p] = 0.35,
  // E[p^2] = a (a+1) / ((a+b)(a+b+1)) = 0.7 * 1.7 / (2 * 3) = 0.198333,
  // so E[2p(1-p)] = 2 (0.35 - 0.198333) = 0.303333.
  PassRateSpec pr;
  pr.kind = PassRateSpec::Kind::kBeta;
  pr.a = 0.7;
  pr.b = 1.3;
  EXPECT_NEAR(signal::InformativeGroupProbability(pr, 2), 0.303333, 1e-5);
}

// --- Names ----------------------------------------------------------------------

TEST(Levers, ParseListKeepsOrderAndRejectsUnknownAndRepeats) {
  auto l = ParseLeverList("moe, fp4,async", "--order");
  ASSERT_TRUE(l.has_value());
  ASSERT_EQ(l->size(), 3u);
  EXPECT_EQ((*l)[0], Lever::kMoe);
  EXPECT_EQ((*l)[1], Lever::kQuantize);
  EXPECT_EQ((*l)[2], Lever::kAsync);
  auto bad = ParseLeverList("async,warp,async", "--order");
  ASSERT_FALSE(bad.has_value());
  ASSERT_EQ(bad.error().problems.size(), 2u);  // one unknown, one repeated
  EXPECT_EQ(bad.error().problems[0].path, "--order");
  EXPECT_NE(bad.error().problems[0].message.find("warp"), std::string::npos);
}

// --- Baseline, by hand-built catalog --------------------------------------------

ModelSpec Model(std::string id, double params, double active, int experts) {
  ModelSpec m;
  m.id = id;
  m.name = id;
  m.params_b = params;
  m.active_params_b = active;
  m.experts = experts;
  m.experts_per_token = experts ? 8 : 0;
  return m;
}

GpuSpec Gpu(std::string id, double price, double fp8, double fp4) {
  GpuSpec g;
  g.id = id;
  g.name = id;
  g.memory_gb = 80;
  g.tflops_bf16 = 1000;
  g.tflops_fp8 = fp8;
  g.tflops_fp4 = fp4;
  g.price_per_hour = price;
  return g;
}

Catalog HandCatalog() {
  Catalog c;
  c.AddModel(Model("qwen3-8b", 8.2, 8.2, 0));
  c.AddModel(Model("qwen3-32b", 32.8, 32.8, 0));
  c.AddModel(Model("llama-3.1-8b", 8.0, 8.0, 0));
  c.AddModel(Model("qwen3-30b-a3b", 30.5, 3.3, 128));
  c.AddGpu(Gpu("h100-sxm", 3.0, 2000, 0));
  c.AddGpu(Gpu("b200", 6.0, 4500, 9000));
  return c;
}

TEST(Baseline, DenseCounterpartOfMoeBySqrtRule) {
  // sqrt(30.5 * 3.3) = 10.03B; |ln(8.2/10.03)| = 0.20 < |ln(32.8/10.03)| = 1.18,
  // and qwen3-8b is of the same family as qwen3-30b-a3b (llama-3.1-8b is nearer
  // than qwen3-32b too, but of another family).
  Catalog c = HandCatalog();
  auto d = DenseCounterpart(*c.FindModel("qwen3-30b-a3b"), c);
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(*d, "qwen3-8b");
}

TEST(Baseline, IsTheSeedsNaiveH100SyncRun) {
  Catalog c = HandCatalog();
  Scenario s;
  s.model = *c.FindModel("qwen3-30b-a3b");
  s.model_id = "qwen3-30b-a3b";
  s.hardware.gpu = *c.FindGpu("b200");
  s.hardware.gpus = 8;
  s.hardware.price_per_gpu_hour = 6.0;
  s.placement.mode = PlacementMode::kDisaggregated;
  s.placement.rollout_gpus = 6;
  s.placement.train_gpus = 2;
  s.pipeline.mode = PipelineMode::kAsync;
  s.precision.rollout = Precision::kFp8;
  s.precision.kv_cache = Precision::kFp8;
  s.algorithm.group_size = 2;
  s.algorithm.prompts_per_step = 512;
  s.algorithm.lora = LoraSpec{32, 4};
  std::string rule;
  auto b = MakeBaseline(s, c, Options{}, &rule);
  ASSERT_TRUE(b.has_value());
  EXPECT_EQ(b->model_id, "qwen3-8b");
  EXPECT_EQ(b->hardware.gpu.id, "h100-sxm");
  EXPECT_EQ(b->hardware.gpus, 8);
  EXPECT_DOUBLE_EQ(b->hardware.price_per_gpu_hour, 3.0);
  EXPECT_EQ(b->placement.mode, PlacementMode::kColocated);
  EXPECT_EQ(b->pipeline.mode, PipelineMode::kSync);
  EXPECT_EQ(b->precision.rollout, Precision::kBf16);
  EXPECT_EQ(b->precision.kv_cache, Precision::kBf16);
  EXPECT_FALSE(b->algorithm.lora.has_value());
  EXPECT_EQ(b->algorithm.group_size, 16);
  EXPECT_EQ(b->algorithm.prompts_per_step, 128);  // 512 prompts over 4 tenants: one tenant's batch
  EXPECT_NE(rule.find("qwen3-8b"), std::string::npos);
  // --dense-model wins over the rule.
  Options o;
  o.dense_model = "qwen3-32b";
  auto b2 = MakeBaseline(s, c, o);
  ASSERT_TRUE(b2.has_value());
  EXPECT_EQ(b2->model_id, "qwen3-32b");
}

// --- Comparison decomposition, by hand-built estimates -----------------------------

CompareEntry Entry(std::string label, double usd_step, double time_s, double rollouts, double inf_frac,
                   double bits) {
  CompareEntry ce;
  ce.label = label;
  ce.config.ok = true;
  Estimate& e = ce.config.estimate;
  e.step.time_s = time_s;
  e.usd_per_step = usd_step;
  e.signal.rollouts_per_step = rollouts;
  e.signal.rollouts_trained_per_step = rollouts;
  e.signal.informative_fraction = inf_frac;
  e.signal.useful_samples_per_step = rollouts * inf_frac;
  e.signal.reward_bits_per_rollout = bits;
  e.usd_per_useful_sample = usd_step / (rollouts * inf_frac);
  e.usd_per_reward_bit = usd_step / (rollouts * bits);
  return ce;
}

TEST(Compare, DecomposesCostPerUsefulSampleExactly) {
  // A: $10/step, 100 s, 1000 rollouts, half informative -> $0.02 per useful sample.
  // B: $5/step, 50 s, 500 rollouts, a fifth informative -> 5 / 100 = $0.05 per useful sample.
  // B/A = 2.5 = ($/step 0.5) x (1/rollouts 2) x (1/informative fraction 0.5/0.2 = 2.5); no residual.
  auto cmp = BuildComparison({Entry("A", 10, 100, 1000, 0.5, 0.9), Entry("B", 5, 50, 500, 0.2, 0.9)});
  ASSERT_EQ(cmp.diffs.size(), 2u);
  const auto& f = cmp.diffs[1].per_useful_sample;
  ASSERT_EQ(f.size(), 3u);
  EXPECT_NEAR(f[0].ratio, 0.5, 1e-12);
  EXPECT_NEAR(f[1].ratio, 2.0, 1e-12);
  EXPECT_NEAR(f[2].ratio, 2.5, 1e-12);
  // $/step = step time 0.5 x $ per second 1.0.
  const auto& s = cmp.diffs[1].per_step;
  ASSERT_EQ(s.size(), 2u);
  EXPECT_NEAR(s[0].ratio, 0.5, 1e-12);
  EXPECT_NEAR(s[1].ratio, 1.0, 1e-12);
  // The largest |log| factor (step time 0.5, $/s 1, rollouts 2, informative 2.5) is the informative fraction.
  EXPECT_NE(cmp.diffs[1].explains.find("informative fraction (2.50x)"), std::string::npos) << cmp.diffs[1].explains;
  EXPECT_NE(cmp.diffs[1].explains.find("2.50x per useful sample"), std::string::npos);
}

TEST(Compare, ResidualClosesTheProduct) {
  // If the figures do not multiply out (say sandbox costs enter $/useful but not
  // $/step), a residual factor appears so the product still equals the ratio.
  auto a = Entry("A", 10, 100, 1000, 0.5, 0.9);
  auto b = Entry("B", 10, 100, 1000, 0.5, 0.9);
  b.config.estimate.usd_per_useful_sample *= 1.5;
  auto cmp = BuildComparison({a, b});
  const auto& f = cmp.diffs[1].per_useful_sample;
  ASSERT_FALSE(f.empty());
  EXPECT_EQ(f.back().name, "other (residual)");
  EXPECT_NEAR(f.back().ratio, 1.5, 1e-12);
}

// --- End to end on the built-in catalog --------------------------------------------

class Engine : public ::testing::Test {
 protected:
  void SetUp() override {
    auto c = Catalog::Builtin();
    ASSERT_TRUE(c.has_value()) << c.error().ToString();
    cat_ = *c;
    auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/default.yaml", cat_);
    if (!s) s = DefaultScenario(cat_);
    ASSERT_TRUE(s.has_value()) << s.error().ToString();
    s_ = *s;
    auto e = EstimateAnalytic(s_);
    if (!e && e.error().code == ErrorCode::kNotImplemented) GTEST_SKIP() << "estimator not built yet: " << e.error().ToString();
    ASSERT_TRUE(e.has_value()) << e.error().ToString();
  }
  Catalog cat_;
  Scenario s_;
};

TEST_F(Engine, WaterfallFactorsChainAndSoloProductMultiplies) {
  auto wf = BuildWaterfall(s_, cat_, Options{});
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  ASSERT_EQ(wf->stages.size(), 6u);
  ASSERT_EQ(wf->solo.size(), 6u);
  for (int i = 0; i < kHeadlineCount; ++i) {
    // baseline / last = product over stages of previous / this (telescoping).
    double chain = 1;
    bool all = true;
    for (const auto& st : wf->stages) {
      if (!st.ok) continue;
      if (!st.factor_prev[i]) { all = false; break; }
      chain *= *st.factor_prev[i];
    }
    const Config* last = nullptr;
    for (const auto& st : wf->stages) {
      if (st.ok) last = &st;
    }
    if (all && last && last->factor_base[i]) {
      EXPECT_NEAR(chain / *last->factor_base[i], 1.0, 1e-9) << i;
    }
    double prod = 1;
    bool any = true;
    for (const auto& so : wf->solo) {
      if (!so.ok) continue;
      if (!so.factor_base[i]) { any = false; break; }
      prod *= *so.factor_base[i];
    }
    if (any && wf->solo_product[i]) {
      EXPECT_NEAR(prod / *wf->solo_product[i], 1.0, 1e-9) << i;
    }
  }
  EXPECT_NE(wf->verdict_summary.find("20-50x"), std::string::npos);
  EXPECT_FALSE(wf->verdicts.empty());
}

TEST_F(Engine, Grpo2KeepsPromptsAndCutsRolloutsEightfold) {
  Options o;
  o.order = {Lever::kGrpo2};
  auto wf = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  ASSERT_TRUE(wf->stages[0].ok) << wf->stages[0].error.ToString();
  const auto& b = wf->baseline.scenario.algorithm;
  const auto& g = wf->stages[0].scenario.algorithm;
  EXPECT_EQ(b.group_size, 16);
  EXPECT_EQ(g.group_size, 2);
  EXPECT_EQ(g.prompts_per_step, b.prompts_per_step);
  EXPECT_NEAR(wf->baseline.estimate.signal.rollouts_trained_per_step /
                  wf->stages[0].estimate.signal.rollouts_trained_per_step, 8.0, 1e-9);
  // The waterfall's 2-GRPO detail is the signal module's formula over the scenario's distribution.
  EXPECT_NEAR(wf->grpo2.p_informative_small, signal::InformativeGroupProbability(s_.environment.pass_rate, 2), 1e-12);
  EXPECT_LT(wf->grpo2.p_informative_small, wf->grpo2.p_informative_large);
}

TEST_F(Engine, LoraSplitsStepCostOverTenants) {
  Options o;
  o.order = {Lever::kLora};
  o.tenants = 4;
  auto wf = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  const auto& st = wf->stages[0];
  ASSERT_TRUE(st.ok) << st.error.ToString();
  EXPECT_EQ(st.tenants, 4);
  EXPECT_EQ(st.scenario.algorithm.prompts_per_step, 4 * wf->baseline.scenario.algorithm.prompts_per_step);
  ASSERT_TRUE(st.scenario.algorithm.lora.has_value());
  EXPECT_EQ(st.scenario.algorithm.lora->tenants, 4);
  ASSERT_TRUE(st.values[kUsdPerStep].has_value());
  EXPECT_NEAR(*st.values[kUsdPerStep], st.estimate.usd_per_step / 4, 1e-9 * st.estimate.usd_per_step);
}

TEST_F(Engine, AsyncSplitIsTheFastestOfAll) {
  Scenario s = s_;
  s.pipeline.mode = PipelineMode::kAsync;
  std::string detail;
  auto best = BestAsyncSplit(s, &detail);
  ASSERT_TRUE(best.has_value()) << best.error().ToString();
  auto tb = EstimateAnalytic(*best);
  ASSERT_TRUE(tb.has_value());
  for (int r = 1; r < s.hardware.gpus; ++r) {
    Scenario c = s;
    c.placement.mode = PlacementMode::kDisaggregated;
    c.placement.rollout_gpus = r;
    c.placement.train_gpus = s.hardware.gpus - r;
    auto e = EstimateAnalytic(c);
    if (e) {
      EXPECT_LE(tb->step.time_s, e->step.time_s + 1e-12) << "split " << r;
    }
  }
  EXPECT_NE(detail.find("rollout"), std::string::npos);
}

TEST_F(Engine, PriceCardShowsDoesNotFitRowInsteadOfCrashing) {
  // deepseek-v3 (671B) in bf16 cannot fit on 8 x 48 GB L40S with rollout TP 1.
  auto card = BuildPriceCard(s_, cat_, {"qwen3-8b", "deepseek-v3"}, {"l40s"}, {}, Options{});
  ASSERT_TRUE(card.has_value()) << card.error().ToString();
  ASSERT_EQ(card->rows.size(), 2u);
  EXPECT_FALSE(card->rows[1].config.ok);
  EXPECT_EQ(card->rows[1].config.error.code, ErrorCode::kDoesNotFit);
  auto bad = BuildPriceCard(s_, cat_, {"no-such-model"}, {"h100-sxm"}, {}, Options{});
  EXPECT_FALSE(bad.has_value());
  auto bad_stack = BuildPriceCard(s_, cat_, {}, {}, {Lever::kHardware}, Options{});
  EXPECT_FALSE(bad_stack.has_value());
}

}  // namespace
}  // namespace rlcost::levers
