// Speculative decoding in rollout (src/perf/speculative.cc, docs/model.md
// "Speculative decoding in rollout"): numbers worked out by hand in the comments.
#include <cmath>

#include <gtest/gtest.h>

#include "decide/levers.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "support.h"

namespace rlcost::perf {
namespace {

using test::Cat;

Scenario With(const std::vector<Override>& ov) { return DefaultScenario(Cat(), ov).value(); }

EngineConfig Engine(const Scenario& s) {
  EngineConfig e{&s.model, &s.hardware.gpu, s.hardware.gpu.efficiency, s.placement.rollout_tp,
                 s.precision.rollout, s.precision.kv_cache};
  e.speculative = s.engine.speculative;
  return e;
}

TEST(Speculative, ExpectedTokensPerStepIsLeviathansFormula) {
  SpeculativeSpec sp;
  // a = 0.85, k = 1: (1 - 0.85^2) / 0.15 = (1 - 0.7225) / 0.15 = 1.85.
  sp.acceptance = 0.85;
  sp.draft_tokens = 1;
  EXPECT_NEAR(sp.ExpectedTokensPerStep(), 1.85, 1e-12);
  // a = 0.8, k = 3: (1 - 0.8^4) / 0.2 = (1 - 0.4096) / 0.2 = 2.952.
  sp.acceptance = 0.8;
  sp.draft_tokens = 3;
  EXPECT_NEAR(sp.ExpectedTokensPerStep(), 2.952, 1e-12);
  // a = 1: every draft accepted, k + 1 = 4.
  sp.acceptance = 1.0;
  EXPECT_DOUBLE_EQ(sp.ExpectedTokensPerStep(), 4.0);
}

TEST(Speculative, PaysAtBatchOneByTheRooflineWorkedByHand) {
  // Llama-3.1-8B bf16 on one H100 (vllm engine), one sequence of 1000 tokens.
  // bw = 3.35e12 x 0.725 = 2.42875e12 B/s; peak = 989e12 x 0.55 = 5.4395e14.
  // Plain iteration: weights 16.06e9 B / bw = 6.61246 ms (GEMM 1.606e10 FLOP
  // / peak = 0.030 ms, memory-bound); KV 1000 x 131072 B / bw = 0.05397 ms;
  // engine overhead 4 ms; tp 1, no all-reduce: 10.66643 ms.
  // MTP-style draft, k = 1, a = 0.85, one layer of 32: verification at 2 tokens
  // = the same 10.66643 ms (weights still memory-bound); draft = (16.06e9 / 32
  // + output projection 128256 x 4096 x 2 = 1.050673e9 B) / bw = 0.63923 ms
  // + 1/32 of the KV read 0.00169 ms. Per token (10.66643 + 0.64092) / 1.85
  // = 6.11218 ms: speed-up 10.66643 / 6.11218 = 1.7451.
  auto s = With({{"model", "llama-3.1-8b"}, {"hardware.gpus", "1"}, {"placement.rollout_tp", "1"},
                 {"engine.speculative", "{method: mtp, draft_tokens: 1, acceptance: 0.85}"}});
  EXPECT_NEAR(SpeculativeSpeedup(Engine(s), 1, 1000), 1.7451, 2e-3);
}

TEST(Speculative, GainShrinksAsTheBatchGrowsAndLosesWhenComputeBound) {
  // Same engine. At batch 512 the linear layers are compute-bound: plain
  // 512 x 1.606e10 / 5.4395e14 = 15.12 ms > weights 6.61 ms; verification of
  // 2 tokens each doubles it to 30.23 ms; + KV 512 x 1000 x 131072 / bw =
  // 27.63 ms both ways, + 4 ms. Plain 15.12 + 27.63 + 4 = 46.75 ms; speculative
  // (30.23 + 27.63 + 4 + draft (15.12/32 = 0.47 + head 2 x 128256 x 4096 x 512
  // / peak = 0.99 ms, > its 0.43 ms of bytes; + KV 0.86 ms)) / 1.85 =
  // 64.19 / 1.85 = 34.70 ms: still 1.35x, the KV read is shared by the 2
  // queries. At batch 512 with a 100-token context the KV share is small:
  // plain 15.12 + 2.76 + 4 = 21.88 ms, speculative (30.23 + 2.76 + 4 + 0.47 +
  // 0.99 + 0.09) / 1.85 = 38.54 / 1.85 = 20.83 ms: 1.05x; a = 0.6 (E = 1.6):
  // 38.54 / 1.6 = 24.09 ms: 0.91x, speculation loses.
  auto s = With({{"model", "llama-3.1-8b"}, {"hardware.gpus", "1"}, {"placement.rollout_tp", "1"},
                 {"engine.speculative", "{method: mtp, draft_tokens: 1, acceptance: 0.85}"}});
  // Below batch ~100 the weights stay memory-bound and the gain barely moves
  // (the shared KV read even lifts it a little: 1.7449 at 1, 1.7464 at 64);
  // from there the verification's GEMMs turn compute-bound and it falls.
  double last = 1e9;
  for (double b : {64.0, 128.0, 256.0, 384.0, 512.0}) {
    double x = SpeculativeSpeedup(Engine(s), b, 100);
    EXPECT_LT(x, last) << "batch " << b;
    last = x;
  }
  EXPECT_LT(SpeculativeSpeedup(Engine(s), 512, 100), SpeculativeSpeedup(Engine(s), 1, 100));
  EXPECT_NEAR(SpeculativeSpeedup(Engine(s), 512, 1000), 1.347, 0.01);
  EXPECT_NEAR(SpeculativeSpeedup(Engine(s), 512, 100), 1.050, 0.01);
  s.engine.speculative->acceptance = 0.6;
  EXPECT_NEAR(SpeculativeSpeedup(Engine(s), 512, 100), 0.908, 0.01);
  EXPECT_LT(SpeculativeSpeedup(Engine(s), 512, 100), 1.0);
}

TEST(Speculative, DraftWeightsAndKvShrinkTheKvBudget) {
  // DeepSeek-V3's MTP layer: (671e9 - 2 x 129280 x 7168) / 61 = 10.96962e9
  // parameters, 2 bytes each in bf16 = 21.93924e9 B. Its KV cache: 1/61 of the
  // model's per token.
  auto plain = test::LoadFile(std::string(RLCOST_SOURCE_DIR) + "/validation/levers/nemo-v06-dsv3-256xh100-nomtp-pr2779.yaml");
  auto spec = test::LoadFile(std::string(RLCOST_SOURCE_DIR) + "/validation/levers/nemo-v06-dsv3-256xh100-mtp-pr2779.yaml");
  EXPECT_DOUBLE_EQ(DraftWeightBytes(plain), 0.0);
  EXPECT_NEAR(DraftWeightBytes(spec), 21.93924e9, 1e4);
  EXPECT_NEAR(DraftKvShare(spec), 1.0 / 61.0, 1e-15);
  auto m0 = PlanMemory(plain).value();
  auto m1 = PlanMemory(spec).value();
  // Over rollout_tp 32: 21.93924e9 / 32 = 0.68560 GB more weights per GPU.
  EXPECT_NEAR(m1.rollout_weights_gb - m0.rollout_weights_gb, 21.93924 / 32, 1e-6);
  // Tokens = budget x shards / (kv per token x (1 + 1/61)).
  EXPECT_NEAR(m1.kv_tokens_per_engine / m0.kv_tokens_per_engine,
              (m1.kv_budget_gb / m0.kv_budget_gb) * 61.0 / 62.0, 1e-9);
  EXPECT_LT(m1.kv_tokens_per_engine, m0.kv_tokens_per_engine);
}

TEST(Speculative, ReproducesNemoRlPr2779StepTimeWithinTwentyPercent) {
  // NVIDIA-NeMo/RL PR #2779: DeepSeek-V3, 256 colocated H100s, MTP with one
  // speculative token: step 121.2 -> 100.5 s. The acceptance is the DeepSeek-V3
  // report's 0.85, not fitted.
  auto plain = test::LoadFile(std::string(RLCOST_SOURCE_DIR) + "/validation/levers/nemo-v06-dsv3-256xh100-nomtp-pr2779.yaml");
  auto spec = test::LoadFile(std::string(RLCOST_SOURCE_DIR) + "/validation/levers/nemo-v06-dsv3-256xh100-mtp-pr2779.yaml");
  auto e0 = EstimateAnalytic(plain).value();
  auto e1 = EstimateAnalytic(spec).value();
  EXPECT_LT(std::abs(e1.step.time_s / 100.5 - 1), 0.2) << e1.step.time_s;
  EXPECT_LT(std::abs(e0.step.time_s / 121.2 - 1), 0.2) << e0.step.time_s;
  EXPECT_LT(e1.step.rollout_s, e0.step.rollout_s);
  // The train and other parts do not move.
  EXPECT_NEAR(e1.step.train_s, e0.step.train_s, 1e-9 * e0.step.train_s);
}

TEST(Speculative, SimulatorAndClosedFormBothSpeedUpASmallBatchRun) {
  // The simulator decodes through the same per-token arms: both paths gain.
  std::vector<Override> ov = {{"model", "llama-3.1-8b"}, {"hardware.gpus", "8"}, {"placement.rollout_tp", "1"},
                              {"algorithm.prompts_per_step", "8"}, {"algorithm.group_size", "4"},
                              {"algorithm.steps", "20"}};
  auto plain = With(ov);
  ov.push_back({"engine.speculative", "{method: eagle, draft_tokens: 3, acceptance: 0.7}"});
  auto spec = With(ov);
  sim::Options opt;
  opt.steps = 3;
  auto a0 = EstimateAnalytic(plain).value(), a1 = EstimateAnalytic(spec).value();
  auto s0 = EstimateSimulated(plain, opt).value(), s1 = EstimateSimulated(spec, opt).value();
  // Batch 4 per engine: E = (1 - 0.7^4) / 0.3 = 2.533 tokens per step for a
  // verification that costs about one plain iteration: rollout well under 0.7x.
  EXPECT_LT(a1.step.rollout_s, 0.7 * a0.step.rollout_s);
  EXPECT_LT(s1.step.rollout_s, 0.7 * s0.step.rollout_s);
}

TEST(Speculative, WaterfallLeverPaysOnDeepSeekAndTheBaselineDecodesPlainly) {
  // The PR #2779 run: the naive baseline (dense, H100) decodes plainly; the
  // MoE stage brings DeepSeek-V3 back (119 s, as the case without speculation);
  // the speculative stage applies the scenario's own MTP settings: 104 s.
  auto spec = test::LoadFile(std::string(RLCOST_SOURCE_DIR) + "/validation/levers/nemo-v06-dsv3-256xh100-mtp-pr2779.yaml");
  levers::Options opt;
  opt.order = {levers::Lever::kMoe, levers::Lever::kSpeculative};
  auto wf = levers::BuildWaterfall(spec, Cat(), opt);
  ASSERT_TRUE(wf.has_value()) << wf.error().ToString();
  EXPECT_FALSE(wf->baseline.scenario.engine.speculative.has_value());
  ASSERT_EQ(wf->stages.size(), 2u);
  ASSERT_TRUE(wf->stages[0].ok && wf->stages[1].ok);
  EXPECT_FALSE(wf->stages[0].scenario.engine.speculative.has_value());
  ASSERT_TRUE(wf->stages[1].scenario.engine.speculative.has_value());
  EXPECT_EQ(wf->stages[1].scenario.engine.speculative->method, SpeculativeMethod::kMtp);
  const double moe_s = *wf->stages[0].values[levers::kStepTime], spec_s = *wf->stages[1].values[levers::kStepTime];
  EXPECT_LT(spec_s, moe_s);
  EXPECT_NEAR(spec_s, EstimateAnalytic(spec).value().step.time_s, 5e-3 * spec_s);
  EXPECT_NE(wf->stages[1].detail.find("1.85 tokens per verification"), std::string::npos) << wf->stages[1].detail;
  EXPECT_EQ(levers::LeverFromString("speculative"), levers::Lever::kSpeculative);
}

TEST(Speculative, MethodNoneIsPlainDecoding) {
  auto none = With({{"engine.speculative.method", "none"}});
  EXPECT_FALSE(none.engine.speculative.has_value());
  EXPECT_DOUBLE_EQ(EstimateAnalytic(none).value().step.time_s, EstimateAnalytic(With({})).value().step.time_s);
}

TEST(Speculative, BadFieldsAreErrorsNamingThePath) {
  auto bad = [](const std::string& v) {
    auto s = DefaultScenario(Cat(), {{"engine.speculative", v}});
    EXPECT_FALSE(s.has_value()) << v;
    return s ? std::string() : s.error().ToString();
  };
  EXPECT_NE(bad("{method: eagle}").find("engine.speculative.acceptance"), std::string::npos);
  EXPECT_NE(bad("{method: medusa}").find("engine.speculative.method"), std::string::npos);
  EXPECT_NE(bad("{method: mtp, draft_tokens: 0}").find("engine.speculative.draft_tokens"), std::string::npos);
  EXPECT_NE(bad("{method: mtp, acceptance: 1.5}").find("engine.speculative.acceptance"), std::string::npos);
  EXPECT_NE(bad("{draft_tokens: 2}").find("engine.speculative.method"), std::string::npos);
}

}  // namespace
}  // namespace rlcost::perf
