// Levers, waterfall, price card and comparison. Hand-worked numbers are in the
// comments; the end-to-end tests run on the built-in catalog and the shared
// scenarios and skip (saying so) only while the estimator reports "not yet".
#include "decide/levers.h"

#include <cmath>
#include <set>

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
  // fp4 is its own lever (it used to be fp8's alias): the fp4 gain shows apart
  // from the newer GPU that enables it.
  auto l = ParseLeverList("moe, fp4,async,quant,batch", "--order");
  ASSERT_TRUE(l.has_value());
  ASSERT_EQ(l->size(), 5u);
  EXPECT_EQ((*l)[0], Lever::kMoe);
  EXPECT_EQ((*l)[1], Lever::kFp4);
  EXPECT_EQ((*l)[2], Lever::kAsync);
  EXPECT_EQ((*l)[3], Lever::kQuantize);
  EXPECT_EQ((*l)[4], Lever::kBatch);
  EXPECT_EQ(AllLeversCsv(), "async,fp8,hardware,fp4,grpo2,batch,lora,moe");
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

TEST(Baseline, PairedMoeIsTheMoeWhoseDenseCounterpartIsTheModel) {
  // qwen3-30b-a3b's dense counterpart is qwen3-8b (test above), so the MoE
  // lever on a qwen3-8b run takes qwen3-30b-a3b; nothing pairs with qwen3-32b.
  Catalog c = HandCatalog();
  auto m = PairedMoe("qwen3-8b", c);
  ASSERT_TRUE(m.has_value()) << m.error().ToString();
  EXPECT_EQ(*m, "qwen3-30b-a3b");
  auto none = PairedMoe("qwen3-32b", c);
  ASSERT_FALSE(none.has_value());
  EXPECT_EQ(none.error().problems[0].path, "moe_model");
  EXPECT_NE(none.error().problems[0].message.find("qwen3-32b"), std::string::npos);
}

TEST(Baseline, WithMeanPassRateKeepsABetasConcentration) {
  PassRateSpec beta;
  beta.a = 0.7;
  beta.b = 1.3;  // mean 0.35, concentration 2
  auto moved = WithMeanPassRate(beta, 0.5);
  EXPECT_NEAR(moved.a, 1.0, 1e-12);
  EXPECT_NEAR(moved.b, 1.0, 1e-12);
  // Histogram {0.2: 0.5, 0.6: 0.5}: mean 0.4, variance 0.04, so the Beta of the
  // same variance has concentration 0.4 * 0.6 / 0.04 - 1 = 5; moved to 0.3: a = 1.5, b = 3.5.
  PassRateSpec h;
  h.kind = PassRateSpec::Kind::kHistogram;
  h.histogram = {{0.2, 0.5}, {0.6, 0.5}};
  auto mh = WithMeanPassRate(h, 0.3);
  EXPECT_EQ(mh.kind, PassRateSpec::Kind::kBeta);
  EXPECT_NEAR(mh.a, 1.5, 1e-9);
  EXPECT_NEAR(mh.b, 3.5, 1e-9);
}

TEST(Discounts, OutsideZeroToOneIsAnErrorNamingTheField) {
  EXPECT_TRUE(CheckDiscount(0, "--fp8-discount").has_value());
  EXPECT_TRUE(CheckDiscount(0.5, "--fp8-discount").has_value());
  for (double v : {-0.1, 1.0, 1.5, std::nan("")}) {
    auto r = CheckDiscount(v, "--fp8-discount");
    ASSERT_FALSE(r.has_value()) << v;
    EXPECT_EQ(r.error().problems[0].path, "--fp8-discount");
    EXPECT_NE(r.error().problems[0].message.find("[0, 1)"), std::string::npos);
  }
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
  // Eight levers since fp4 and the batch size have rows of their own.
  ASSERT_EQ(wf->stages.size(), 8u);
  ASSERT_EQ(wf->solo.size(), 8u);
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
  // The verdict is judged on $ per useful sample and $ to goal only, and it is
  // the one those two give (both agree, or "mixed").
  std::set<std::string> fair;
  for (const auto& v : wf->verdicts) {
    const bool expect = v.metric_id == "usd_per_useful_sample" || v.metric_id == "usd_to_goal";
    EXPECT_EQ(v.like_for_like, expect) << v.metric_id;
    if (v.like_for_like) fair.insert(v.verdict);
  }
  ASSERT_FALSE(fair.empty());
  EXPECT_EQ(wf->verdict, fair.size() == 1 ? *fair.begin() : std::string("mixed"));
  EXPECT_NE(wf->verdict_summary.find("$ per useful sample"), std::string::npos);
  EXPECT_NE(wf->verdict_summary.find("Not judged on $ per step"), std::string::npos);
}

TEST_F(Engine, BatchSizeAndTenancyAreSeparateRows) {
  // LoRA tenancy at 4x prompts was one row; now the batch (4x prompts, one
  // fully fine-tuned model) and the tenancy (4 LoRA tenants sharing that batch)
  // are two, and their product is the old bundle.
  Options o;
  o.order = {Lever::kBatch, Lever::kLora};
  o.tenants = 4;
  auto wf = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  const auto& batch = wf->stages[0];
  const auto& lora = wf->stages[1];
  ASSERT_TRUE(batch.ok) << batch.error.ToString();
  ASSERT_TRUE(lora.ok) << lora.error.ToString();
  const int p0 = wf->baseline.scenario.algorithm.prompts_per_step;
  EXPECT_EQ(batch.scenario.algorithm.prompts_per_step, 4 * p0);
  EXPECT_FALSE(batch.scenario.algorithm.lora.has_value());
  EXPECT_EQ(batch.tenants, 1);
  EXPECT_EQ(lora.scenario.algorithm.prompts_per_step, 4 * p0);
  ASSERT_TRUE(lora.scenario.algorithm.lora.has_value());
  EXPECT_EQ(lora.scenario.algorithm.lora->tenants, 4);
  EXPECT_EQ(lora.tenants, 4);
  ASSERT_TRUE(lora.values[kUsdPerStep].has_value());
  EXPECT_NEAR(*lora.values[kUsdPerStep], lora.estimate.usd_per_step / 4, 1e-9 * lora.estimate.usd_per_step);
  // Tenancy alone keeps the batch: the step's prompts are shared out.
  const auto& solo_lora = wf->solo[1];
  ASSERT_TRUE(solo_lora.ok) << solo_lora.error.ToString();
  EXPECT_EQ(solo_lora.scenario.algorithm.prompts_per_step, p0);
  EXPECT_EQ(solo_lora.tenants, 4);
}

TEST_F(Engine, Fp4IsItsOwnRowAfterTheNewerGpu) {
  auto wf = BuildWaterfall(s_, cat_, Options{});
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  const Config* hw = nullptr;
  const Config* fp4 = nullptr;
  for (const auto& st : wf->stages) {
    if (st.id == "hardware") hw = &st;
    if (st.id == "fp4") fp4 = &st;
  }
  ASSERT_TRUE(hw && hw->ok && fp4 && fp4->ok);
  EXPECT_EQ(hw->scenario.hardware.gpu.id, "b200");
  EXPECT_EQ(hw->scenario.precision.rollout, Precision::kFp8);  // the GPU change keeps fp8
  EXPECT_EQ(fp4->scenario.precision.rollout, Precision::kFp4);
  // fp4 alone on the H100 baseline: no FP4 tensor cores, so no change at all.
  for (const auto& so : wf->solo) {
    if (so.id != "solo:fp4") continue;
    ASSERT_TRUE(so.ok);
    EXPECT_EQ(so.scenario.precision.rollout, Precision::kBf16);
    EXPECT_NE(so.detail.find("no FP4 tensor cores"), std::string::npos) << so.detail;
    ASSERT_TRUE(so.factor_base[kUsdPerUsefulSample].has_value());
    EXPECT_NEAR(*so.factor_base[kUsdPerUsefulSample], 1.0, 1e-12);
  }
}

TEST_F(Engine, QualityDiscountsAreLabelledAndDivideWhatTheMoneyBuys) {
  Options o;
  o.order = {Lever::kAsync, Lever::kQuantize};
  auto wf = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  EXPECT_TRUE(wf->baseline.discounts.empty());
  EXPECT_DOUBLE_EQ(wf->baseline.worth, 1.0);
  const auto& async = wf->stages[0];
  ASSERT_TRUE(async.ok);
  ASSERT_EQ(async.discounts.size(), 1u);
  EXPECT_EQ(async.discounts[0].id, "staleness");
  EXPECT_TRUE(async.discounts[0].assumed);
  EXPECT_NE(async.discounts[0].source.find("ASSUMPTION"), std::string::npos);
  // Staleness 1: d = 1 - (1 - 0.05)^1.
  EXPECT_NEAR(async.worth, 1 - kDefaultStalenessDiscount, 1e-12);
  const auto& both = wf->stages[1];
  ASSERT_TRUE(both.ok);
  ASSERT_EQ(both.discounts.size(), 2u);
  EXPECT_EQ(both.discounts[1].id, "fp8_mismatch");
  EXPECT_NEAR(both.worth, (1 - kDefaultStalenessDiscount) * (1 - kDefaultFp8Discount), 1e-12);
  ASSERT_TRUE(both.values[kUsdPerUsefulSample] && both.values[kUsdPerStep]);
  EXPECT_NEAR(*both.values[kUsdPerUsefulSample], both.estimate.usd_per_useful_sample / both.worth,
              1e-9 * both.estimate.usd_per_useful_sample);
  EXPECT_NEAR(*both.values[kUsdPerStep], both.estimate.usd_per_step, 1e-9 * both.estimate.usd_per_step);  // not per step
  // A user's value replaces the default and says so; 0 is allowed when given.
  o.discounts.staleness = 0.0;
  o.discounts.fp8 = 0.1;
  auto mine = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(mine.has_value());
  const auto& m = mine->stages[1];
  ASSERT_EQ(m.discounts.size(), 2u);
  EXPECT_TRUE(m.discounts[0].user_set);
  EXPECT_FALSE(m.discounts[0].assumed);
  EXPECT_NEAR(m.worth, 0.9, 1e-12);
  // Out of [0, 1): an error naming the field.
  o.discounts.fp8 = -0.1;
  auto bad = BuildWaterfall(s_, cat_, o);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().problems[0].path, "fp8_discount");
  o.discounts.fp8.reset();
  o.discounts.staleness = 1.0;
  auto bad2 = BuildWaterfall(s_, cat_, o);
  ASSERT_FALSE(bad2.has_value());
  EXPECT_EQ(bad2.error().problems[0].path, "staleness_discount");
}

TEST_F(Engine, MoeLeverTakesThePairedModelAndItsOwnPassRate) {
  Options o;
  o.order = {Lever::kMoe};
  auto wf = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  const auto& moe = wf->stages[0];
  ASSERT_TRUE(moe.ok) << moe.error.ToString();
  EXPECT_TRUE(moe.scenario.model.is_moe());
  auto paired = PairedMoe(s_.model_id, cat_);
  ASSERT_TRUE(paired.has_value());
  EXPECT_EQ(moe.scenario.model_id, *paired);
  EXPECT_NEAR(moe.scenario.environment.pass_rate.mean(), s_.environment.pass_rate.mean(), 1e-9);
  bool labelled = false;  // the same pass rates for both models is said to be an assumption
  for (const auto& r : wf->rules) labelled = labelled || r.find("ASSUMPTION that matching quality") != std::string::npos;
  EXPECT_TRUE(labelled);
  EXPECT_NE(moe.detail.find("MoE MFU"), std::string::npos) << moe.detail;
  // Its own pass rate: a more capable model has more informative groups at this mean.
  o.moe_pass_rate = 0.5;
  auto own = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(own.has_value()) << own.error().ToString();
  ASSERT_TRUE(own->stages[0].ok);
  EXPECT_NEAR(own->stages[0].scenario.environment.pass_rate.mean(), 0.5, 1e-9);
  EXPECT_NEAR(wf->baseline.scenario.environment.pass_rate.mean(), own->baseline.scenario.environment.pass_rate.mean(),
              1e-12);  // the dense baseline keeps the scenario's
  // --dense-pass-rate belongs to an MoE scenario.
  Options d;
  d.dense_pass_rate = 0.4;
  auto bad = BuildWaterfall(s_, cat_, d);
  ASSERT_FALSE(bad.has_value());
  EXPECT_EQ(bad.error().problems[0].path, "dense_pass_rate");
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
  // LoRA alone is the tenancy at the same batch: the step's prompts are shared
  // out over the tenants (the bigger batch is the `batch` lever's row).
  Options o;
  o.order = {Lever::kLora};
  o.tenants = 4;
  auto wf = BuildWaterfall(s_, cat_, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  const auto& st = wf->stages[0];
  ASSERT_TRUE(st.ok) << st.error.ToString();
  EXPECT_EQ(st.tenants, 4);
  EXPECT_EQ(st.scenario.algorithm.prompts_per_step, wf->baseline.scenario.algorithm.prompts_per_step);
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

namespace rlcost::levers {
namespace {

// docs/model.md, "Spot GPUs": the spot lever applies the scenario's spot roles
// to the layout the levers before it chose. After async (disaggregated), 18
// rollout GPUs at 0.4 x the list price: the step barely moves at 0.05
// preemptions per node-hour and the dollars per step fall by about
// (18 x 0.6) / 32 = 34% (x1.5); at 6 per node-hour with 5-minute
// replacements the lost rollouts outweigh the discount.
Waterfall SpotWaterfall(const std::string& file) {
  auto cat = Catalog::Builtin();
  EXPECT_TRUE(cat.has_value());
  auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/" + file, *cat);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  Options o;
  o.order = {Lever::kAsync, Lever::kSpot};
  auto wf = BuildWaterfall(*s, *cat, o);
  EXPECT_TRUE(wf.has_value()) << wf.error().ToString();
  return *wf;
}

TEST(SpotLever, CheapensTheAsyncRunWherePreemptionsAreRare) {
  auto wf = SpotWaterfall("spot-rollout-helps.yaml");
  ASSERT_EQ(wf.stages.size(), 2u);
  const Config& spot = wf.stages[1];
  ASSERT_TRUE(spot.ok) << spot.error.ToString();
  const Config& async = wf.stages[0];
  const int r = spot.scenario.placement.rollout_gpus, g = spot.scenario.hardware.gpus;
  // $ per step ratio = step ratio x (g) / (r x 0.4 + (g - r)).
  const double price_ratio = double(g) / (r * 0.4 + (g - r));
  const double step_ratio = *async.values[kStepTime] / *spot.values[kStepTime];
  EXPECT_NEAR(*spot.factor_prev[kUsdPerStep], step_ratio * price_ratio, 1e-9);
  EXPECT_GT(*spot.factor_prev[kUsdPerUsefulSample], 1.3);
  // Alone on the colocated baseline the rollout role has no GPUs of its own.
  ASSERT_EQ(wf.solo.size(), 2u);
  EXPECT_NEAR(*wf.solo[1].factor_base[kUsdPerUsefulSample], 1.0, 1e-9);
  EXPECT_NE(wf.solo[1].detail.find("not used, colocated"), std::string::npos) << wf.solo[1].detail;
}

TEST(SpotLever, CostsMoreWherePreemptionsAreFrequent) {
  auto wf = SpotWaterfall("spot-rollout-frequent-preemptions.yaml");
  ASSERT_EQ(wf.stages.size(), 2u);
  ASSERT_TRUE(wf.stages[1].ok) << wf.stages[1].error.ToString();
  EXPECT_LT(*wf.stages[1].factor_prev[kUsdPerUsefulSample], 1.0);
}

TEST(SpotLever, WithoutTheScenariosSpotPricesTheRowSaysWhatIsMissing) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  auto s = DefaultScenario(*cat);
  ASSERT_TRUE(s.has_value());
  Options o;
  o.order = {Lever::kSpot};
  auto c = Evaluate(*s, {Lever::kSpot}, *cat, o);
  ASSERT_FALSE(c.has_value());
  EXPECT_NE(c.error().ToString().find("hardware.spot"), std::string::npos);
}

}  // namespace
}  // namespace rlcost::levers

namespace rlcost::levers {
namespace {

// docs/model.md, "Tail handling": the tail lever applies the scenario's
// pipeline.tail to the synchronous baseline. Its row's step-time factor is
// the baseline's step over the same step with the tail handled: the
// generation saved (tail.rollout_saved_s) is the whole difference, nothing
// else in the step moves.
Waterfall TailWaterfall(const std::string& file) {
  auto cat = Catalog::Builtin();
  EXPECT_TRUE(cat.has_value());
  auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/" + file, *cat);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  Options o;
  o.order = {Lever::kTail};
  auto wf = BuildWaterfall(*s, *cat, o);
  EXPECT_TRUE(wf.has_value()) << wf.error().ToString();
  return *wf;
}

TEST(TailLever, PartialRolloutsShortenALongTailedSyncStep) {
  auto wf = TailWaterfall("tail-partial-rollout-helps.yaml");
  ASSERT_EQ(wf.stages.size(), 1u);
  const Config& tail = wf.stages[0];
  ASSERT_TRUE(tail.ok) << tail.error.ToString();
  EXPECT_EQ(tail.scenario.pipeline.tail.mode, TailMode::kPartialRollout);
  const double base_t = *wf.baseline.values[kStepTime], tail_t = *tail.values[kStepTime];
  EXPECT_NEAR(base_t - tail_t, tail.estimate.step.tail_rollout_saved_s, 1e-6 * base_t);
  EXPECT_GT(*tail.factor_prev[kUsdPerUsefulSample], 1.0);
  EXPECT_NE(tail.detail.find("partial_rollout"), std::string::npos) << tail.detail;
}

TEST(TailLever, DroppingTheSlowestOfNarrowLengthsCostsMore) {
  auto wf = TailWaterfall("tail-narrow-lengths.yaml");
  ASSERT_EQ(wf.stages.size(), 1u);
  ASSERT_TRUE(wf.stages[0].ok) << wf.stages[0].error.ToString();
  EXPECT_LT(*wf.stages[0].factor_prev[kUsdPerUsefulSample], 1.0);
  EXPECT_LT(wf.stages[0].estimate.step.tail_rollout_saved_s, 0);
}

TEST(TailLever, WithoutTheScenariosTailItUsesAprilsPartialRollouts) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  auto s = DefaultScenario(*cat);
  ASSERT_TRUE(s.has_value());
  Options o;
  o.order = {Lever::kTail};
  auto c = Evaluate(*s, {Lever::kTail}, *cat, o);
  ASSERT_TRUE(c.has_value()) << c.error().ToString();
  EXPECT_EQ(c->scenario.pipeline.tail.mode, TailMode::kPartialRollout);
  EXPECT_DOUBLE_EQ(c->scenario.pipeline.tail.over_launch, 1.0);
  // After async the tail is overlapped already: the lever says so and changes nothing.
  auto both = Evaluate(*s, {Lever::kAsync, Lever::kTail}, *cat, o);
  ASSERT_TRUE(both.has_value()) << both.error().ToString();
  EXPECT_FALSE(both->scenario.pipeline.tail.Active());
  EXPECT_NE(both->detail.find("already overlaps the tail"), std::string::npos) << both->detail;
}


// docs/model.md, "Speculative decoding in rollout": at 512 prompts x 16 on 8
// GPUs the decode batch is KV-bound and compute-heavy, and an EAGLE draft of 3
// tokens at acceptance 0.3 advances (1 - 0.3^4) / 0.7 = 1.417 tokens per
// verification of 4: the row is dearer than the plain baseline (measured 0.91x).
TEST(SpeculativeLever, AtALargeBatchWithLowAcceptanceTheRowIsDearer) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/speculative-large-batch.yaml", *cat);
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  Options o;
  o.order = {Lever::kSpeculative};
  auto wf = BuildWaterfall(*s, *cat, o);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  const Config& spec = wf->stages[0];
  ASSERT_TRUE(spec.ok) << spec.error.ToString();
  EXPECT_NEAR(spec.scenario.engine.speculative->ExpectedTokensPerStep(), (1 - std::pow(0.3, 4)) / 0.7, 1e-12);
  EXPECT_LT(*spec.factor_prev[kUsdPerUsefulSample], 1.0);
  EXPECT_LT(*spec.factor_prev[kStepTime], 1.0);
}

// docs/model.md, "Elastic pools": the lever re-splits a disaggregated
// configuration along the scenario's response-length schedule; the row before
// it is the same run at the split the planner chose for the whole run, so the
// row's factor is the re-splitting alone. Lengths growing 500 -> 16000 tokens:
// cheaper; flat lengths: every phase keeps the split, the row is the run before it.
Waterfall ResplitWaterfall(const std::string& file) {
  auto cat = Catalog::Builtin();
  EXPECT_TRUE(cat.has_value());
  auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/" + file, *cat);
  EXPECT_TRUE(s.has_value()) << s.error().ToString();
  Options o;
  o.order = {Lever::kAsync, Lever::kResplit};
  o.replan.reset();  // the async split as BestAsyncSplit picks it, the layout otherwise as written
  auto wf = BuildWaterfall(*s, *cat, o);
  EXPECT_TRUE(wf.has_value()) << wf.error().ToString();
  return *wf;
}

TEST(ResplitLever, GrowingLengthsMakeTheReSplitRunCheaperThanTheFixedSplitBeforeIt) {
  auto wf = ResplitWaterfall("resplit-lengths-grow.yaml");
  ASSERT_EQ(wf.stages.size(), 2u);
  const Config& async = wf.stages[0];
  const Config& rs = wf.stages[1];
  ASSERT_TRUE(async.ok && rs.ok) << rs.error.ToString();
  ASSERT_TRUE(rs.estimate.resplit.has_value());
  // The row before is the same run with its split kept: the re-split
  // estimate's own "as written" figure.
  EXPECT_NEAR(rs.estimate.resplit->fixed_steps_h, async.estimate.run.steps_h, 1e-9 * async.estimate.run.steps_h);
  EXPECT_GT(rs.estimate.resplit->resplits, 0);
  EXPECT_GT(*rs.factor_prev[kUsdRun], 1.0);
  EXPECT_NEAR(*rs.factor_prev[kUsdRun], async.estimate.usd / rs.estimate.usd, 1e-9);
  // Alone on the colocated baseline there is no split to change: the row says so.
  ASSERT_FALSE(wf.solo[1].ok);
  EXPECT_NE(wf.solo[1].error.ToString().find("colocated"), std::string::npos) << wf.solo[1].error.ToString();
  EXPECT_EQ(LeverFromString("resplit"), Lever::kResplit);
}

TEST(ResplitLever, FlatLengthsLeaveTheRunAsItWas) {
  auto wf = ResplitWaterfall("resplit-lengths-flat.yaml");
  ASSERT_EQ(wf.stages.size(), 2u);
  const Config& rs = wf.stages[1];
  ASSERT_TRUE(rs.ok) << rs.error.ToString();
  EXPECT_EQ(rs.estimate.resplit->resplits, 0);
  EXPECT_NEAR(*rs.factor_prev[kUsdRun], 1.0, 1e-9);
  EXPECT_NEAR(*rs.factor_prev[kUsdPerUsefulSample], 1.0, 1e-9);
}


// The price card prices each lever as the scenario states it, and the resplit
// lever of its stack re-splits a fixed-split row: with the stack, the row is
// the re-split run; without, the run at its split.
TEST(ResplitLever, PriceCardRowsAreTheFixedAndTheReSplitRun) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  const std::string dir = std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/";
  auto fixed = LoadScenarioFile(dir + "resplit-lengths-grow.yaml", *cat, {{"placement.resplit", "none"}});
  auto resplit = LoadScenarioFile(dir + "resplit-lengths-grow.yaml", *cat);
  ASSERT_TRUE(fixed && resplit);
  Options o;
  auto plain = BuildPriceCard(*fixed, *cat, {"qwen3-8b"}, {"h100-sxm"}, {}, o);
  auto stacked = BuildPriceCard(*fixed, *cat, {"qwen3-8b"}, {"h100-sxm"}, {Lever::kResplit}, o);
  ASSERT_TRUE(plain && stacked);
  ASSERT_TRUE(plain->rows[0].config.ok && stacked->rows[0].config.ok) << stacked->rows[0].config.error.ToString();
  auto e_fixed = EstimateAnalytic(*fixed);
  auto e_resplit = EstimateAnalytic(*resplit);
  ASSERT_TRUE(e_fixed && e_resplit);
  EXPECT_NEAR(plain->rows[0].config.estimate.usd, e_fixed->usd, 1e-9 * e_fixed->usd);
  EXPECT_NEAR(stacked->rows[0].config.estimate.usd, e_resplit->usd, 1e-9 * e_resplit->usd);
  EXPECT_LT(stacked->rows[0].config.estimate.usd, plain->rows[0].config.estimate.usd);
  // Every lever scenario's own row is its estimate (the lever priced as stated).
  for (const char* f : {"spot-rollout-helps.yaml", "spot-rollout-frequent-preemptions.yaml", "speculative-helps.yaml",
                        "speculative-large-batch.yaml", "tail-batching-helps.yaml", "tail-narrow-lengths.yaml",
                        "tail-partial-rollout-helps.yaml", "resplit-lengths-flat.yaml"}) {
    auto s = LoadScenarioFile(dir + f, *cat);
    ASSERT_TRUE(s.has_value()) << f;
    auto card = BuildPriceCard(*s, *cat, {s->model_id}, {s->hardware.gpu.id}, {}, o);
    auto e = EstimateAnalytic(*s);
    ASSERT_TRUE(card && e) << f;
    ASSERT_TRUE(card->rows[0].config.ok) << f;
    EXPECT_NEAR(card->rows[0].config.estimate.usd, e->usd, 1e-9 * e->usd) << f;
  }
}

}  // namespace
}  // namespace rlcost::levers
