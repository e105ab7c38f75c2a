// The environment priced whole: a noisy verifier in the signal model
// (docs/model.md, "Noisy rewards"), checked against an independent quadrature;
// model verifiers as GPU work (docs/model.md, "Verifiers"); the example
// scenarios of scenarios/ load, estimate and simulate.
#include <cmath>
#include <functional>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/signal.h"
#include "support.h"

namespace rlcost {
namespace {

const std::string kShared = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/";

std::vector<Override> Noise(double fp, double fn) {
  return {{"environment.reward.noise.false_positive", std::to_string(fp)},
          {"environment.reward.noise.false_negative", std::to_string(fn)}};
}

// E[f(p)] under Beta(a, b) by the composite Simpson rule after p = u^(1/a),
// which turns p^(a-1) dp into du / a (a < 1 makes the density singular at 0):
//   E[f] = 1 / (a B(a, b)) * int_0^1 f(u^(1/a)) (1 - u^(1/a))^(b-1) du.
// Independent of the library's Gauss-Kronrod code and of its moment expansion.
double SimpsonBeta(double a, double b, const std::function<double(double)>& f) {
  const int n = 200000;  // even
  const double h = 1.0 / n;
  auto g = [&](double u) {
    const double p = std::pow(u, 1 / a);
    return f(p) * std::pow(1 - p, b - 1);
  };
  double sum = g(0) + g(1);
  for (int i = 1; i < n; ++i) sum += (i % 2 ? 4 : 2) * g(i * h);
  const double beta = std::exp(std::lgamma(a) + std::lgamma(b) - std::lgamma(a + b));
  return sum * h / 3 / (a * beta);
}

TEST(RewardNoise, InformativeFractionIsTheExpectationOverObservedPassRate) {
  // default.yaml: pass rate Beta(mean 0.35, concentration 2) = Beta(0.7, 1.3); G = 16.
  const Scenario clean = test::LoadFile(kShared + "default.yaml");
  const Scenario noisy = test::LoadFile(kShared + "default.yaml", Noise(0.05, 0.10));
  ASSERT_DOUBLE_EQ(noisy.environment.reward.noise.false_positive, 0.05);
  ASSERT_DOUBLE_EQ(noisy.environment.reward.noise.false_negative, 0.10);
  auto c = signal::Analyze(clean);
  auto n = signal::Analyze(noisy);
  ASSERT_TRUE(c && n);

  const int g = 16;
  const double expected = SimpsonBeta(0.7, 1.3, [&](double p) {
    const double q = 0.9 * p + 0.05 * (1 - p);
    return 1 - std::pow(q, g) - std::pow(1 - q, g);
  });
  EXPECT_NEAR(n->informative_fraction, expected, 2e-6);
  // Sanity of the quadrature: the clean case against the closed form the library uses.
  const double clean_expected = SimpsonBeta(0.7, 1.3, [&](double p) { return 1 - std::pow(p, g) - std::pow(1 - p, g); });
  EXPECT_NEAR(c->informative_fraction, clean_expected, 2e-6);
  // Noise mixes groups that were all-pass or all-fail: more groups look informative.
  EXPECT_GT(n->informative_fraction, c->informative_fraction + 0.05);

  // Useful samples: trained rollouts x informative fraction x (1 - fp - fn) = 0.85.
  EXPECT_DOUBLE_EQ(n->reward_signal_factor, 0.85);
  EXPECT_NEAR(n->useful_samples_per_step, 64 * 16 * expected * 0.85, 64 * 16 * 2e-6);
  EXPECT_NEAR(n->useful_samples_per_step / c->useful_samples_per_step,
              0.85 * n->informative_fraction / c->informative_fraction, 1e-12);
  EXPECT_NEAR(n->observed_pass_rate, 0.05 + 0.85 * 0.35, 1e-12);

  // Reward bits: the mutual information between the reward and the true outcome,
  // E[H(q)] - E[p] H(fn) - E[1-p] H(fp).
  auto h = [](double x) { return x <= 0 || x >= 1 ? 0.0 : -x * std::log2(x) - (1 - x) * std::log2(1 - x); };
  const double bits = SimpsonBeta(0.7, 1.3, [&](double p) { return h(0.05 + 0.85 * p); }) - 0.35 * h(0.10) -
                      0.65 * h(0.05);
  EXPECT_NEAR(n->reward_bits_per_rollout, bits, 2e-6);
  EXPECT_LT(n->reward_bits_per_rollout, c->reward_bits_per_rollout);
}

TEST(RewardNoise, HistogramByHand) {
  // One task at p = 0: clean, every group fails together; with fp = 0.1 a group of 4
  // is mixed unless all four are rejected or all four accepted: 1 - 0.9^4 - 0.1^4.
  Scenario s = test::Load(R"(
name: t
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
environment:
  pass_rate: 0.0
  reward: {noise: {false_positive: 0.1}}
algorithm: {name: grpo, group_size: 4, prompts_per_step: 8, steps: 10}
)");
  auto r = signal::Analyze(s);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_NEAR(r->informative_fraction, 1 - std::pow(0.9, 4) - std::pow(0.1, 4), 1e-12);
  EXPECT_NEAR(r->useful_samples_per_step, 32 * (1 - std::pow(0.9, 4) - 1e-4) * 0.9, 1e-9);
}

TEST(RewardNoise, EstimateAndGoalCarryTheFactor) {
  auto c = EstimateAnalytic(test::LoadFile(kShared + "default.yaml"));
  auto n = EstimateAnalytic(test::LoadFile(kShared + "default.yaml", Noise(0.05, 0.10)));
  ASSERT_TRUE(c && n);
  EXPECT_NEAR(n->usd_per_useful_sample / c->usd_per_useful_sample,
              c->signal.useful_samples_per_step / n->signal.useful_samples_per_step, 1e-9);
  // Learning in useful samples: a noisy reward needs more steps to the same target.
  ASSERT_TRUE(c->goal.reachable && n->goal.reachable);
  EXPECT_GT(n->goal.steps, c->goal.steps);
}

std::string ErrorOf(const std::vector<Override>& ov) {
  auto s = LoadScenarioFile(kShared + "default.yaml", test::Cat(), ov);
  return s ? std::string() : s.error().ToString();
}

TEST(RewardNoise, BadRatesNameTheField) {
  std::string e = ErrorOf({{"environment.reward.noise.false_positive", "1"}});
  EXPECT_NE(e.find("environment.reward.noise.false_positive"), std::string::npos) << e;
  e = ErrorOf({{"environment.reward.noise.false_negative", "-0.1"}});
  EXPECT_NE(e.find("environment.reward.noise.false_negative"), std::string::npos) << e;
  e = ErrorOf(Noise(0.6, 0.4));
  EXPECT_NE(e.find("environment.reward.noise"), std::string::npos) << e;
  EXPECT_NE(e.find("below 1"), std::string::npos) << e;
  e = ErrorOf({{"environment.reward.noise", "{false_positive: 0.1, flase_negative: 0.2}"}});
  EXPECT_NE(e.find("flase_negative"), std::string::npos) << e;
  // Built in code, past the parser: Analyze checks too.
  Scenario s = test::LoadFile(kShared + "default.yaml");
  s.environment.reward.noise.false_positive = 0.5;
  s.environment.reward.noise.false_negative = 0.5;
  auto r = signal::Analyze(s);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("environment.reward.noise"), std::string::npos);
}

const std::string kRepo = std::string(RLCOST_SOURCE_DIR) + "/scenarios/";

TEST(Verifier, SharedJudgeAddsItsPhaseToTheStep) {
  const Scenario s = test::LoadFile(kRepo + "llm-judge.yaml");
  ASSERT_EQ(s.environment.reward.verifier.kind, VerifierKind::kLlmJudge);
  ASSERT_EQ(s.environment.reward.verifier.model_id, "qwen3-8b");
  auto w = perf::VerifierCost(s, 1024);
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_TRUE(w->shared);
  EXPECT_EQ(w->gpus, 8);
  EXPECT_DOUBLE_EQ(w->calls, 1024);
  EXPECT_NEAR(w->time_s, w->prefill_s + w->decode_s + w->weight_load_s, 1e-12);
  // Weights of qwen3-8b in bf16 over tp 1, in from host memory at 25 GB/s.
  EXPECT_NEAR(w->weight_load_s, perf::WeightBytes(s.environment.reward.verifier.model, Precision::kBf16) / 1e9 / 25.0,
              1e-9);
  // Prefill, by the same roofline the policy's rollouts use: 1024 / 8 calls of 1500 tokens per engine.
  perf::EngineConfig e{&s.environment.reward.verifier.model, &s.hardware.gpu, s.hardware.gpu.efficiency, w->tp,
                       Precision::kBf16, Precision::kBf16};
  EXPECT_NEAR(w->prefill_s, perf::Prefill(e, 128 * 1500.0, 0, 128).time_s, 1e-12);

  Scenario none = s;
  none.environment.reward.verifier = {};
  auto base = EstimateAnalytic(none);
  auto judged = EstimateAnalytic(s);
  ASSERT_TRUE(base && judged);
  EXPECT_NEAR(judged->step.reward_s - base->step.reward_s, w->time_s, 1e-9);
  EXPECT_NEAR(judged->step.time_s - base->step.time_s, w->time_s, 1e-9);
  EXPECT_NEAR(judged->step.gpu_s_reward, w->time_s * 8, 1e-9);
  EXPECT_NEAR(judged->usd_verifier_per_step, w->time_s * 8 / 3600.0 * s.hardware.price_per_gpu_hour, 1e-12);
  EXPECT_NEAR(judged->usd_per_step - base->usd_per_step, judged->usd_verifier_per_step, 1e-9);
  // The four GPU-time parts still add up to the step's GPU-seconds.
  const auto& t = judged->step;
  EXPECT_NEAR(t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle, t.time_s * 8, 1e-6);
}

TEST(Verifier, DedicatedJudgeGpusOverlapGenerationAndAreBilled) {
  const Scenario shared = test::LoadFile(kRepo + "llm-judge.yaml");
  const Scenario own = test::LoadFile(kRepo + "llm-judge.yaml", {{"environment.reward.verifier.gpus", "8"}});
  auto a = EstimateAnalytic(shared);
  auto b = EstimateAnalytic(own);
  ASSERT_TRUE(a && b);
  auto w = perf::VerifierCost(own, 1024);
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->shared);
  EXPECT_EQ(b->step.verifier_gpus, 8);
  // The judge's 9.9 s of work fits inside generation: the step waits for one call alone.
  ASSERT_LT(w->time_s, b->step.rollout_busy_s);
  EXPECT_NEAR(b->step.reward_s, w->last_call_s, 1e-9);
  EXPECT_LT(b->step.time_s, a->step.time_s);
  // 16 GPUs held all step.
  EXPECT_NEAR(b->usd_gpu_per_step, b->step.time_s * 16 / 3600.0 * own.hardware.price_per_gpu_hour, 1e-9);
  EXPECT_NEAR(b->usd_verifier_per_step, b->step.time_s * 8 / 3600.0 * own.hardware.price_per_gpu_hour, 1e-9);
  EXPECT_NEAR(b->gpu_hours, b->wall_time_h * 16, 1e-9);
  const auto& t = b->step;
  EXPECT_NEAR(t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle, t.time_s * 16, 1e-6);
}

TEST(Verifier, RewardModelIsOnePrefill) {
  const Scenario s = test::LoadFile(
      kRepo + "llm-judge.yaml",
      {{"environment.reward.verifier", "{kind: reward-model, model: qwen3-8b, input_tokens: 1300, gpus: 2}"}});
  auto w = perf::VerifierCost(s, 1024);
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_EQ(w->decode_s, 0);
  EXPECT_EQ(w->weight_load_s, 0);
  perf::EngineConfig e{&s.environment.reward.verifier.model, &s.hardware.gpu, s.hardware.gpu.efficiency, 1,
                       Precision::kBf16, Precision::kBf16};
  EXPECT_NEAR(w->time_s, perf::Prefill(e, 512 * 1300.0, 0, 512).time_s, 1e-12);
}

TEST(Verifier, SimulatorRunsTheSamePhase) {
  const Scenario s = test::LoadFile(kRepo + "llm-judge.yaml");
  sim::Options opt;
  opt.steps = 2;
  auto r = EstimateSimulated(s, opt);
  ASSERT_TRUE(r) << r.error().ToString();
  auto w = perf::VerifierCost(s, r->sim->mean_step.rollouts_generated);
  ASSERT_TRUE(w);
  // The simulator ran the judge's calls as engine events (src/sim/judge.cc):
  // its reward phase is the step's, nothing is added on top, and it is the
  // closed form's judge time within 10% (tests/sim/judge_test.cc has more).
  EXPECT_TRUE(r->sim->judge_simulated);
  EXPECT_EQ(r->step.reward_s, r->sim->mean_step.reward_s);
  EXPECT_NEAR(r->step.reward_s / w->time_s, 1.0, 0.10);
  EXPECT_GT(r->usd_verifier_per_step, 0);
}

std::string LoadError(const std::string& file, const std::vector<Override>& ov) {
  auto s = LoadScenarioFile(file, test::Cat(), ov);
  return s ? std::string() : s.error().ToString();
}

TEST(Verifier, BadInputNamesTheField) {
  const std::string judge = kRepo + "llm-judge.yaml";
  // A judge that does not fit: DeepSeek-V3 (~1.3 TB of bf16 weights) on the policy's 8 H100s.
  Scenario big = test::LoadFile(judge, {{"environment.reward.verifier.model", "deepseek-v3"}});
  auto e = EstimateAnalytic(big);
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().code, ErrorCode::kDoesNotFit);
  EXPECT_NE(e.error().ToString().find("environment.reward.verifier.model"), std::string::npos) << e.error().ToString();
  std::string m = LoadError(judge, {{"environment.reward.verifier.kind", "oracle"}});
  EXPECT_NE(m.find("environment.reward.verifier.kind"), std::string::npos) << m;
  m = LoadError(judge, {{"environment.reward.verifier.model", "gpt-9"}});
  EXPECT_NE(m.find("environment.reward.verifier.model"), std::string::npos) << m;
  m = LoadError(judge, {{"environment.reward.verifier.gpus", "0"}});
  EXPECT_NE(m.find("environment.reward.verifier.gpus"), std::string::npos) << m;
  m = LoadError(judge, {{"environment.reward.verifier", "{kind: llm-judge, model: qwen3-8b}"}});
  EXPECT_NE(m.find("environment.reward.verifier.output_tokens"), std::string::npos) << m;
  m = LoadError(kShared + "default.yaml", {{"environment.reward.verifier", "{kind: tests}"}});
  EXPECT_NE(m.find("environment.reward.verifier.kind"), std::string::npos) << m;
  EXPECT_NE(m.find("sandbox"), std::string::npos) << m;
}

TEST(ExampleScenarios, LoadEstimateAndSimulate) {
  for (const char* f : {"harbor-swe-tests.yaml", "llm-judge.yaml"}) {
    SCOPED_TRACE(f);
    const Scenario s = test::LoadFile(kRepo + f);
    auto a = EstimateAnalytic(s);
    ASSERT_TRUE(a) << a.error().ToString();
    EXPECT_GT(a->usd_per_useful_sample, 0);
    sim::Options opt;
    opt.steps = 1;
    auto r = EstimateSimulated(s, opt);
    ASSERT_TRUE(r) << r.error().ToString();
    EXPECT_GT(r->step.time_s, 0);
  }
}

}  // namespace
}  // namespace rlcost
