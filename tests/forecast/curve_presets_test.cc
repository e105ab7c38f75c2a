// Published learning curves (`goal.curve: NAME`, catalog/curves.yaml), the
// gradient-noise-scale view of the steps (`goal.b_noise`, docs/model.md sec.
// 7c) and the curve flags every answer carries (src/api/illustrative.h).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/ops.h"
#include "scenario/curve_presets.h"
#include "signal/noise_scale.h"
#include "support.h"

namespace {

using rlcost::scenario_internal::CurveFromPreset;
using rlcost::scenario_internal::FindCurvePreset;

// The four rows of arXiv:2510.13786v1 Table 1 (columns C_mid [GPU-h], B, A),
// as catalog/curves.yaml holds them.
TEST(CurvePresets, ValuesEqualScaleRLTable1) {
  struct Row {
    const char* name;
    double c_mid, b, a;
  };
  const Row rows[] = {{"scalerl-8b-math-14k", 2542, 1.92, 0.610},
                      {"scalerl-scout-math-14k", 4242, 1.65, 0.710},
                      {"scalerl-8b-math-32k", 11272, 1.89, 0.645},
                      {"scalerl-8b-math-bs2048", 10909, 1.70, 0.645}};
  for (const auto& r : rows) {
    auto p = FindCurvePreset(r.name);
    ASSERT_TRUE(p) << r.name;
    EXPECT_EQ(p->midpoint_gpu_hours, r.c_mid) << r.name;
    EXPECT_EQ(p->exponent, r.b) << r.name;
    EXPECT_EQ(p->asymptote, r.a) << r.name;
    EXPECT_NE(p->source.find("2510.13786"), std::string::npos) << r.name;
    EXPECT_NE(p->label.find("GPU-hours"), std::string::npos) << r.name;  // the compute unit is said
  }
}

// C_mid in useful samples at the run's own rate (Figure 1 caption, batch 768):
// 8B: 2542 GPU-h x 7,400 steps / 100,000 GPU-h = 188.108 steps x 768 = 144,466.9;
// Scout: 4242 x 7,100 / 50,000 = 602.364 steps x 768 = 462,615.6.
TEST(CurvePresets, MidpointIsConvertedAtTheRunsOwnRate) {
  auto p8 = CurveFromPreset("scalerl-8b-math-14k", "qwen3-8b", "goal.curve");
  ASSERT_TRUE(p8) << p8.error().ToString();
  EXPECT_NEAR(p8->midpoint_useful_samples, 144466.944, 1e-3);
  EXPECT_EQ(*p8->batch_useful_samples, 768);
  EXPECT_TRUE(p8->borrowed);  // the 8B model is not a catalog model: always borrowed
  auto scout = CurveFromPreset("scalerl-scout-math-14k", "qwen3-8b", "goal.curve");
  ASSERT_TRUE(scout);
  EXPECT_NEAR(scout->midpoint_useful_samples, 462615.552, 1e-3);
}

TEST(CurvePresets, APresetWithoutTheRunsRateIsNotYetUsableAndAnUnknownNameListsThem) {
  auto p = CurveFromPreset("scalerl-8b-math-32k", "qwen3-8b", "goal.curve");
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().problems.at(0).path, "goal.curve");
  EXPECT_NE(p.error().ToString().find("not yet"), std::string::npos);
  auto q = CurveFromPreset("scalerl-70b", "qwen3-8b", "goal.curve");
  ASSERT_FALSE(q);
  EXPECT_NE(q.error().ToString().find("scalerl-8b-math-14k"), std::string::npos);
}

// McCandlish et al. 2018, A.1, by hand: |G|^2 = 1, tr(Sigma) = 100, so the
// mean squared norm at batch B is 1 + 100/B: 11 at B = 10, 2 at B = 100.
// |G|^2 = (100*2 - 10*11)/90 = 1; S = (11 - 2)/(0.1 - 0.01) = 100; B = 100.
TEST(NoiseScale, SimpleEstimatorFromGradientNormsAtTwoBatches) {
  auto b = rlcost::signal::BNoiseFromGradientNorms(10, 11, 100, 2);
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_NEAR(*b, 100, 1e-9);
  EXPECT_FALSE(rlcost::signal::BNoiseFromGradientNorms(10, 2, 100, 11));  // larger batch noisier: no estimate
}

// Gains per step at B_noise = 256: 1/(1 + 256/128) = 1/3 at B = 128 and
// 1/(1 + 256/2048) = 8/9 at B = 2048; r = 0.375;
// B_noise = (1 - 0.375)/(0.375/128 - 1/2048) = 0.625/0.00244140625 = 256.
TEST(NoiseScale, EstimateFromRewardGainPerStepAtTwoBatches) {
  auto b = rlcost::signal::BNoiseFromStepGains(128, 1.0 / 3, 2048, 8.0 / 9);
  ASSERT_TRUE(b) << b.error().ToString();
  EXPECT_NEAR(*b, 256, 1e-9);
  // 16x the batch, 16x the gain: no noise limit seen; the same gain: none either.
  EXPECT_FALSE(rlcost::signal::BNoiseFromStepGains(128, 1, 2048, 16));
  EXPECT_FALSE(rlcost::signal::BNoiseFromStepGains(128, 1, 2048, 1));
}

// 2-GRPO (arXiv:2510.00977) against 16-GRPO, 128 prompts at pass rate 0.5,
// the curve measured at G = 16: useful samples a step 128*16*(1 - 2*0.5^16)
// ~= 2048 (taken as 2048) and 128*2*(2*0.5*0.5) = 128; C* = 1e5 useful samples.
// Counting useful samples: G = 16 needs 1e5/2048 = 48.83 steps, G = 2
// 1e5/128 = 781.25 (16x). Noise scale, B_noise = 256: G = 2 needs
// 781.25 (1 + 128/256)/(1 + 2048/256) = 781.25/6 = 130.21 steps and
// 1e5/6 = 16,667 useful samples; G = 16 is where the curve was measured, 48.83.
// G = 2 then takes 2.67x the steps on 1/8 of the rollouts a step: 130.21*256 =
// 33,333 rollouts against 48.83*2048 = 100,000.
TEST(NoiseScale, TwoGrpoAgainstSixteenWorkedByHand) {
  using rlcost::signal::NoiseScaleSteps;
  auto g2 = NoiseScaleSteps(781.25, 1e5, 2048, 256);
  auto g16 = NoiseScaleSteps(1e5 / 2048, 1e5, 2048, 256);
  ASSERT_TRUE(g2 && g16);
  EXPECT_DOUBLE_EQ(g2->batch, 128);
  EXPECT_NEAR(g2->steps_noise_scale, 130.2083333, 1e-6);
  EXPECT_NEAR(g2->useful_samples_noise_scale, 16666.66667, 1e-4);
  EXPECT_NEAR(g16->steps_noise_scale, 48.828125, 1e-9);  // the two views agree at the curve's batch
  EXPECT_NEAR(g2->steps_noise_scale * 256, 33333.33, 0.01);
  EXPECT_NEAR(g16->steps_noise_scale * 2048, 100000, 1e-6);
  // Where they agree: B_noise far above both batches (1e9), G = 2 needs 16x the steps, as counted
  // (factor (1 + 128e-9)/(1 + 2048e-9) = 1 - 1.92e-6: 781.2485).
  EXPECT_NEAR(NoiseScaleSteps(781.25, 1e5, 2048, 1e9)->steps_noise_scale, 781.25, 0.002);
  // Where they part most: B_noise far below both (1): equal steps, 2-GRPO's claim.
  // E_min = 1e5/(1 + 2048) , S_min = E_min/1; G = 2: S_min (1 + 1/128) = 1e5*129/(2049*128).
  const double s2 = NoiseScaleSteps(781.25, 1e5, 2048, 1)->steps_noise_scale;  // 1e5*129/(2049*128) = 49.185
  EXPECT_NEAR(s2, 1e5 * 129 / (2049.0 * 128), 1e-9);
  EXPECT_NEAR(s2 / g16->steps_noise_scale, 1.0073, 1e-4);
}

// Through the estimate: the noise-scale steps are the count's steps times
// (1 + B/B_noise)/(1 + B_ref/B_noise), B the run's own useful samples a step,
// B_ref the preset's 768; goal.steps is that figure and goal.steps_view says so.
TEST(NoiseScale, EstimateStatesWhichViewItsStepsRestOn) {
  rlcost::ops::ScenarioInput in;
  in.sets = {"goal.target_pass_rate=0.5", "goal.curve=scalerl-8b-math-14k"};
  auto plain = rlcost::ops::Estimate(in);
  ASSERT_TRUE(plain) << plain.error().ToString();
  const auto& g = (*plain)["goal"];
  EXPECT_EQ(g["steps_view"], "useful_samples");
  EXPECT_EQ(g["steps"], g["steps_useful_samples"]);
  EXPECT_FALSE(g.contains("steps_noise_scale"));
  EXPECT_EQ(g["curve"], "published:scalerl-8b-math-14k");
  in.sets.push_back("goal.b_noise=256");
  auto noisy = rlcost::ops::Estimate(in);
  ASSERT_TRUE(noisy);
  const auto& n = (*noisy)["goal"];
  const double b = n["useful_samples_per_step"].get<double>();
  const double counted = n["steps_useful_samples"].get<double>();
  EXPECT_EQ(n["steps_view"], "noise_scale");
  // The count's useful samples are whole steps of about B each; the factor by hand.
  const double expected = counted * (1 + b / 256) / (1 + 768.0 / 256);
  EXPECT_NEAR(n["steps_noise_scale"].get<double>(), std::ceil(expected), 1.0);
  EXPECT_EQ(n["steps"], n["steps_noise_scale"]);
  // b_noise with a numeric curve that does not say its batch: the count stands, and says why.
  rlcost::ops::ScenarioInput bare;
  bare.sets = {"goal.target_pass_rate=0.5", "goal.b_noise=256"};
  auto j = rlcost::ops::Estimate(bare);
  ASSERT_TRUE(j);
  EXPECT_EQ((*j)["goal"]["steps_view"], "useful_samples");
  EXPECT_NE((*j)["goal"]["noise_scale_reason"].get<std::string>().find("batch_useful_samples"), std::string::npos);
}

// No answer of the shared operations (command line, server, Python) rests on
// the illustrative curve without saying so, and a borrowed published curve
// says it is borrowed.
TEST(IllustrativeCurve, OpsAnswersCarryTheCurveTheGoalRestsOn) {
  auto with = [](std::vector<std::string> sets) {
    rlcost::ops::ScenarioInput in;
    in.sets = std::move(sets);
    return in;
  };
  const auto illus = with({"goal.target_pass_rate=0.6"});
  const auto published = with({"goal.target_pass_rate=0.6", "goal.curve=scalerl-8b-math-14k"});
  const auto given = with({"goal.target_pass_rate=0.6",
                           "goal.curve={asymptote: 0.7, exponent: 1.2, midpoint_useful_samples: 150000}"});
  rlcost::ops::PriceInput pi;
  auto p = rlcost::ops::Price(illus, pi);
  ASSERT_TRUE(p);
  EXPECT_EQ((*p)["goal_curve_is_illustrative"], true);
  EXPECT_EQ((*p)["goal_curve"], "illustrative");
  auto pp = rlcost::ops::Price(published, pi);
  ASSERT_TRUE(pp);
  EXPECT_EQ((*pp)["goal_curve_is_illustrative"], false);
  EXPECT_NE((*pp)["notes"].back().get<std::string>().find("BORROWED"), std::string::npos);
  auto pg = rlcost::ops::Price(given, pi);
  ASSERT_TRUE(pg);
  EXPECT_EQ((*pg)["goal_curve"], "given");

  auto c = rlcost::ops::Claims(illus);
  ASSERT_TRUE(c) << c.error().ToString();
  int flagged = 0;
  for (const auto& claim : *c) flagged += claim.value("goal_curve_is_illustrative", false);
  EXPECT_GT(flagged, 0);
  auto cg = rlcost::ops::Claims(given);
  ASSERT_TRUE(cg);
  for (const auto& claim : *cg) EXPECT_FALSE(claim.value("goal_curve_is_illustrative", false));

  rlcost::ops::SensitivityInput si;
  si.metric = "goal.usd";
  auto t = rlcost::ops::Sensitivity(illus, si);
  ASSERT_TRUE(t) << t.error().ToString();
  ASSERT_FALSE(t->empty());
  for (const auto& row : *t) EXPECT_EQ(row["goal_curve_is_illustrative"], true);

  auto w = rlcost::ops::Waterfall(illus, rlcost::ops::LeverInput{});
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_EQ((*w)["goal_curve_is_illustrative"], true);
  auto wg = rlcost::ops::Waterfall(given, rlcost::ops::LeverInput{});
  ASSERT_TRUE(wg);
  EXPECT_EQ((*wg)["goal_curve_is_illustrative"], false);
  EXPECT_EQ((*wg)["goal_curve"], "given");
  EXPECT_FALSE(wg->contains("notes"));  // the user's own numbers need no note
}

// `rlcost noise-scale` prints what goal.b_noise to set (the hand cases above),
// and a pair that shows no noise limit is an error naming the flag.
TEST(NoiseScale, CommandPrintsTheFieldToSet) {
  const auto r = rlcost::test::Rlcost("noise-scale --batch 10,100 --grad-norm-sq 11,2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["b_noise"].get<double>(), 100, 1e-9);
  EXPECT_EQ(j["set"], "goal.b_noise=100");
  const auto bad = rlcost::test::Rlcost("noise-scale --batch 128,2048 --gain-per-step 1,16");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.err.find("--gain-per-step"), std::string::npos) << bad.err;
  const auto none = rlcost::test::Rlcost("noise-scale --batch 128,2048");
  EXPECT_NE(none.code, 0);
  EXPECT_NE(none.err.find("--grad-norm-sq"), std::string::npos) << none.err;
}

}  // namespace
