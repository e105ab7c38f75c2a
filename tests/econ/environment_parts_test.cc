// The parts of an environment beyond one verifier (docs/model.md, "Rubrics",
// "Ensembles of verifiers", "Environment failures"): a rubric's judge calls
// scale with its judged criteria; an ensemble's error rates follow from its
// members' (checked against closed forms) and its cost is its members'; failed
// trajectories are paid for and shown as wasted. The shipped scenarios load,
// estimate and simulate.
#include <cmath>
#include <optional>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "report/report.h"
#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/signal.h"
#include "support.h"

namespace rlcost {
namespace {

const std::string kRepo = std::string(RLCOST_SOURCE_DIR) + "/scenarios/";
const std::string kShared = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/";

std::string LoadError(const std::string& file, const std::vector<Override>& ov) {
  auto s = LoadScenarioFile(file, test::Cat(), ov);
  return s ? std::string() : s.error().ToString();
}

// --- Rubrics ---------------------------------------------------------------

TEST(Rubric, JudgeCallsScaleWithJudgedCriteria) {
  const Scenario s = test::LoadFile(kRepo + "llm-judge-rubric.yaml");
  ASSERT_EQ(s.environment.reward.rubric.size(), 4u);
  EXPECT_EQ(s.environment.reward.rubric[0].name, "correctness");
  EXPECT_DOUBLE_EQ(s.environment.reward.rubric[0].weight, 0.6);
  EXPECT_FALSE(s.environment.reward.rubric[3].judged);
  const double rollouts = 1024;
  auto w = perf::VerifierCost(s, rollouts);
  ASSERT_TRUE(w) << w.error().ToString();
  EXPECT_DOUBLE_EQ(w->calls, 3 * rollouts);                          // three llm-judge criteria
  EXPECT_DOUBLE_EQ(w->output_tokens, (200.0 + 150.0 + 100.0) / 3);  // completeness takes the verifier's 150

  // Three criteria with the verifier's verdict length cost exactly what three
  // calls per rollout of the plain judge cost.
  Scenario same = s;
  for (auto& it : same.environment.reward.rubric) it.output_tokens = 0;
  Scenario plain = s;
  plain.environment.reward.rubric.clear();
  plain.environment.reward.verifier.calls_per_rollout = 3;
  auto a = perf::VerifierCost(same, rollouts), b = perf::VerifierCost(plain, rollouts);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(a->time_s, b->time_s);
  EXPECT_DOUBLE_EQ(a->flops, b->flops);
  // One judged criterion instead of three: a third of the calls, less judge time.
  Scenario one = s;
  one.environment.reward.rubric[1].judged = one.environment.reward.rubric[2].judged = false;
  auto c = perf::VerifierCost(one, rollouts);
  ASSERT_TRUE(c);
  EXPECT_DOUBLE_EQ(c->calls, rollouts);
  EXPECT_LT(c->time_s, w->time_s);
  auto e3 = EstimateAnalytic(s), e1 = EstimateAnalytic(one);
  ASSERT_TRUE(e3 && e1);
  EXPECT_GT(e3->usd_verifier_per_step, e1->usd_verifier_per_step);
  EXPECT_GT(e3->step.gpu_s_reward, e1->step.gpu_s_reward);
}

TEST(Rubric, RuleCriteriaAloneCostNoJudge) {
  const Scenario s = test::LoadFile(
      kRepo + "llm-judge-rubric.yaml",
      {{"environment.reward.rubric", "[{name: format, weight: 1, kind: rule}, {name: length, weight: 0.5, kind: rule}]"}});
  auto w = perf::VerifierCost(s, 1024);
  ASSERT_TRUE(w);
  EXPECT_FALSE(w->on_gpu);
  EXPECT_DOUBLE_EQ(w->calls, 0);
}

TEST(Rubric, BadInputNamesTheField) {
  const std::string f = kRepo + "llm-judge-rubric.yaml";
  std::string m = LoadError(f, {{"environment.reward.rubric", "[{name: a, weight: 0.5}, {name: b, weight: -0.5}]"}});
  EXPECT_NE(m.find("environment.reward.rubric"), std::string::npos) << m;
  EXPECT_NE(m.find("0.5 + -0.5 = 0"), std::string::npos) << m;
  EXPECT_NE(m.find("positive"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.rubric", "[{name: a, weight: -1}]"}});
  EXPECT_NE(m.find("environment.reward.rubric"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.rubric", "[{name: a}]"}});
  EXPECT_NE(m.find("environment.reward.rubric[0].weight"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.rubric", "[{name: a, weight: 1, kind: oracle}]"}});
  EXPECT_NE(m.find("environment.reward.rubric[0].kind"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.rubric", "[]"}});
  EXPECT_NE(m.find("environment.reward.rubric"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.rubric", "[{name: a, weight: 1, kind: rule, output_tokens: 10}]"}});
  EXPECT_NE(m.find("environment.reward.rubric[0].output_tokens"), std::string::npos) << m;
  // An llm-judge criterion needs a judge.
  m = LoadError(kShared + "default.yaml", {{"environment.reward.rubric", "[{name: a, weight: 1, kind: llm-judge}]"}});
  EXPECT_NE(m.find("environment.reward.rubric[0].kind"), std::string::npos) << m;
}

// Reward bits of a graded rubric score, by hand: two criteria met half the
// time each, equal weights: scores 0, 1/2, 1 with probability 1/4, 1/2, 1/4,
// 1.5 bits; distinct weights: four distinct scores, equally likely, 2 bits.
TEST(Rubric, RewardBitsAreTheEntropyOfTheGradedScore) {
  using Item = RewardSpec::RubricItem;
  auto item = [](double w, std::optional<double> p) {
    Item it;
    it.weight = w;
    it.pass_rate = p;
    return it;
  };
  EXPECT_NEAR(signal::RubricRewardBits({item(1, 0.5), item(1, 0.5)}, 0.3), 1.5, 1e-12);
  EXPECT_NEAR(signal::RubricRewardBits({item(0.7, 0.5), item(0.3, 0.5)}, 0.3), 2.0, 1e-12);
  // Without a pass rate a criterion takes the default: one criterion of p = 0.3 is H(0.3).
  const double h03 = -(0.3 * std::log2(0.3) + 0.7 * std::log2(0.7));
  EXPECT_NEAR(signal::RubricRewardBits({item(1, std::nullopt)}, 0.3), h03, 1e-12);
  // A criterion always met carries nothing.
  EXPECT_NEAR(signal::RubricRewardBits({item(1, 1.0), item(2, 0.3)}, 0.5), h03, 1e-12);
  // Weights 1, 1, 2: outcomes (1,1,0) and (0,0,1) share the score 1/2 (merged).
  // P = 1/8 each of 8 outcomes; scores 0, 1/4 (x2), 1/2 (x2), 3/4 (x2), 1.
  const double merged = -(2 * 0.125 * std::log2(0.125) + 3 * 0.25 * std::log2(0.25));
  EXPECT_NEAR(signal::RubricRewardBits({item(1, 0.5), item(1, 0.5), item(2, 0.5)}, 0.3), merged, 1e-12);

  // The scenario: its reward bits and dollars per bit follow.
  Scenario s = test::LoadFile(kRepo + "llm-judge-rubric.yaml");
  for (auto& it : s.environment.reward.rubric) it.pass_rate = 0.5;
  s.environment.reward.rubric[3].weight = 0.6;  // correctness and format now share a weight
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_NEAR(e->signal.reward_bits_per_rollout, signal::RubricRewardBits(s.environment.reward.rubric, 0.5), 1e-12);
  EXPECT_NEAR(e->usd_per_reward_bit, e->usd_per_step / (e->signal.rollouts_per_step * e->signal.reward_bits_per_rollout),
              1e-12 * e->usd_per_reward_bit);
  const Scenario loaded = test::LoadFile(kRepo + "llm-judge-rubric.yaml",
                                         {{"environment.reward.rubric",
                                           "[{name: a, weight: 1, kind: rule, pass_rate: 0.5}, "
                                           "{name: b, weight: 1, kind: rule, pass_rate: 0.5}]"}});
  auto e2 = EstimateAnalytic(loaded);
  ASSERT_TRUE(e2) << e2.error().ToString();
  EXPECT_NEAR(e2->signal.reward_bits_per_rollout, 1.5, 1e-12);
}

TEST(Rubric, CriterionPassRateOutsideTheUnitIntervalIsRefused) {
  const std::string f = kRepo + "llm-judge-rubric.yaml";
  for (const char* bad : {"1.2", "-0.1"}) {
    std::string m = LoadError(
        f, {{"environment.reward.rubric",
             fmt::format("[{{name: a, weight: 1, kind: rule}}, {{name: b, weight: 1, kind: rule, pass_rate: {}}}]", bad)}});
    EXPECT_NE(m.find("environment.reward.rubric[1].pass_rate"), std::string::npos) << m;
    EXPECT_NE(m.find(bad), std::string::npos) << m;
  }
}

// --- Ensembles ---------------------------------------------------------------

RewardSpec::Verifier Ensemble(std::vector<std::pair<double, double>> rates, RewardSpec::Aggregation agg) {
  RewardSpec::Verifier v;
  v.kind = VerifierKind::kEnsemble;
  v.aggregation = agg;
  for (auto [fp, fn] : rates) {
    RewardSpec::Verifier m;
    m.noise = {fp, fn};
    v.members.push_back(m);
  }
  return v;
}

TEST(Ensemble, MajorityOfThreeByHand) {
  // P(at least 2 of 3 independent events) = ab + ac + bc - 2abc.
  auto two_of_three = [](double a, double b, double c) { return a * b + a * c + b * c - 2 * a * b * c; };
  const auto v = Ensemble({{0.02, 0.15}, {0.10, 0.08}, {0.15, 0.15}}, RewardSpec::Aggregation::kMajority);
  const auto n = EnsembleNoise(v, 0.35);
  EXPECT_NEAR(n.false_positive, two_of_three(0.02, 0.10, 0.15), 1e-15);
  EXPECT_NEAR(n.false_negative, two_of_three(0.15, 0.08, 0.15), 1e-15);
}

TEST(Ensemble, WeightedVoteFollowsTheAccurateMember) {
  // One accurate member (likelihood ratio 99) outweighs two weak ones together
  // ((0.7/0.3)^2 = 5.4) at prior 1/2: the weighted vote is the accurate one's,
  // while a majority vote lets the weak pair outvote it (Weaver's point that
  // weighted ensembles beat unweighted ones when accuracies differ).
  const auto w = Ensemble({{0.01, 0.01}, {0.3, 0.3}, {0.3, 0.3}}, RewardSpec::Aggregation::kWeighted);
  const auto nw = EnsembleNoise(w, 0.5);
  EXPECT_NEAR(nw.false_positive, 0.01, 1e-15);
  EXPECT_NEAR(nw.false_negative, 0.01, 1e-15);
  auto m = w;
  m.aggregation = RewardSpec::Aggregation::kMajority;
  const auto nm = EnsembleNoise(m, 0.5);
  EXPECT_NEAR(nm.false_positive, 0.01 * 0.3 * 2 + 0.09 - 2 * 0.01 * 0.09, 1e-15);
  // Three equal members at prior 1/2: the weighted vote is the majority vote.
  const auto eq = Ensemble({{0.1, 0.2}, {0.1, 0.2}, {0.1, 0.2}}, RewardSpec::Aggregation::kWeighted);
  auto eqm = eq;
  eqm.aggregation = RewardSpec::Aggregation::kMajority;
  EXPECT_NEAR(EnsembleNoise(eq, 0.5).false_positive, EnsembleNoise(eqm, 0.5).false_positive, 1e-15);
}

TEST(Ensemble, ScenarioCombinesNoiseAndAddsMembersCosts) {
  const Scenario s = test::LoadFile(kRepo + "weaver-ensemble.yaml");
  const auto& v = s.environment.reward.verifier;
  ASSERT_EQ(v.kind, VerifierKind::kEnsemble);
  ASSERT_EQ(v.members.size(), 3u);
  const auto n = EnsembleNoise(v, s.environment.pass_rate.mean());
  EXPECT_DOUBLE_EQ(s.environment.reward.noise.false_positive, n.false_positive);
  EXPECT_DOUBLE_EQ(s.environment.reward.noise.false_negative, n.false_negative);
  // Better than its best member on the sum of error rates.
  EXPECT_LT(n.false_positive + n.false_negative, 0.17);
  auto sig = signal::Analyze(s);
  ASSERT_TRUE(sig);
  EXPECT_NEAR(sig->reward_signal_factor, 1 - n.false_positive - n.false_negative, 1e-12);

  // Cost: the two model members, each priced as the reward's only verifier.
  const double rollouts = 1024;
  auto w = perf::VerifierCost(s, rollouts);
  ASSERT_TRUE(w) << w.error().ToString();
  ASSERT_EQ(w->members.size(), 2u);
  double time = 0;
  for (int i : {1, 2}) {
    Scenario alone = s;
    alone.environment.reward.verifier = v.members[i];
    auto wi = perf::VerifierCost(alone, rollouts);
    ASSERT_TRUE(wi);
    EXPECT_DOUBLE_EQ(wi->time_s, w->members[i - 1].time_s);
    time += wi->time_s;
  }
  EXPECT_DOUBLE_EQ(w->calls, 2 * rollouts);
  // Both share the policy's GPUs: they run one after the other.
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e) << e.error().ToString();
  Scenario none = s;
  none.environment.reward.verifier = {};
  auto base = EstimateAnalytic(none);
  ASSERT_TRUE(base);
  EXPECT_NEAR(e->step.time_s - base->step.time_s, time, 1e-9);
  EXPECT_NEAR(e->usd_verifier_per_step, time * 8 / 3600.0 * s.hardware.price_per_gpu_hour, 1e-12);

  // One member on GPUs of its own: it joins the run's GPUs and is billed all step.
  Scenario mixed = s;
  mixed.environment.reward.verifier.members[2].gpus = 2;
  auto em = EstimateAnalytic(mixed);
  ASSERT_TRUE(em) << em.error().ToString();
  EXPECT_EQ(em->step.verifier_gpus, 2);
}

TEST(Ensemble, BadInputNamesTheField) {
  const std::string f = kRepo + "weaver-ensemble.yaml";
  const std::string judge = "{kind: llm-judge, model: qwen3-8b, output_tokens: 200, noise: {false_positive: 0.1}}";
  auto members = [&](const std::string& second) {
    return std::vector<Override>{{"environment.reward.verifier.members", "[{kind: rule}, " + second + "]"}};
  };
  ASSERT_EQ(LoadError(f, members(judge)), "");
  std::string m = LoadError(f, members("{kind: rule, noise: {false_positive: 1.2}}"));
  EXPECT_NE(m.find("environment.reward.verifier.members[1].noise.false_positive"), std::string::npos) << m;
  m = LoadError(f, members("{kind: rule, noise: {false_positive: 0.6, false_negative: 0.5}}"));
  EXPECT_NE(m.find("environment.reward.verifier.members[1].noise"), std::string::npos) << m;
  m = LoadError(f, members("{kind: ensemble}"));
  EXPECT_NE(m.find("environment.reward.verifier.members[1].kind"), std::string::npos) << m;
  m = LoadError(f, members("{kind: llm-judge, model: gpt-9, output_tokens: 10}"));
  EXPECT_NE(m.find("environment.reward.verifier.members[1].model"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.noise", "{false_positive: 0.1}"}});
  EXPECT_NE(m.find("environment.reward.noise"), std::string::npos) << m;
  EXPECT_NE(m.find("members"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.verifier.aggregation", "mean"}});
  EXPECT_NE(m.find("environment.reward.verifier.aggregation"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.verifier.members", "[{kind: rule}]"}});
  EXPECT_NE(m.find("environment.reward.verifier.members"), std::string::npos) << m;
  m = LoadError(f, {{"environment.reward.verifier", "ensemble"}});
  EXPECT_NE(m.find("environment.reward.verifier"), std::string::npos) << m;
  // A member judge that does not fit its GPUs is named by its index.
  Scenario big = test::LoadFile(f, members("{kind: llm-judge, model: deepseek-v3, output_tokens: 10}"));
  auto e = EstimateAnalytic(big);
  ASSERT_FALSE(e);
  EXPECT_NE(e.error().ToString().find("environment.reward.verifier.members[1].model"), std::string::npos)
      << e.error().ToString();
}

// --- Environment failures ------------------------------------------------------

TEST(EnvFailures, RetriedTrajectoriesAreGeneratedAndWasted) {
  const Scenario clean = test::LoadFile(kRepo + "harbor-swe-tests.yaml");
  const Scenario failing = test::LoadFile(kRepo + "harbor-swe-tests.yaml", {{"environment.failures.rate", "0.1"}});
  ASSERT_DOUBLE_EQ(failing.environment.failures.rate, 0.1);
  ASSERT_TRUE(failing.environment.failures.retry);
  auto a = EstimateAnalytic(clean), b = EstimateAnalytic(failing);
  ASSERT_TRUE(a && b) << (a ? b.error().ToString() : a.error().ToString());
  EXPECT_NEAR(b->signal.rollouts_per_step, a->signal.rollouts_per_step / 0.9, 1e-9);
  EXPECT_NEAR(b->signal.wasted_rollouts_per_step, b->signal.rollouts_per_step * 0.1, 1e-9);
  EXPECT_DOUBLE_EQ(b->signal.useful_samples_per_step, a->signal.useful_samples_per_step);
  EXPECT_DOUBLE_EQ(b->step.rollouts_trained, a->step.rollouts_trained);
  EXPECT_GT(b->step.time_s, a->step.time_s);
  EXPECT_GT(b->usd_per_useful_sample, a->usd_per_useful_sample);
  // Wasted: their share of generation GPU time and of sandbox dollars.
  EXPECT_NEAR(b->wasted_gpu_s, b->step.gpu_s_rollout * 0.1, 1e-9);
  EXPECT_NEAR(b->usd_wasted_per_step,
              b->wasted_gpu_s / 3600 * failing.hardware.price_per_gpu_hour + b->usd_sandbox_per_step * 0.1, 1e-12);
  EXPECT_EQ(a->usd_wasted_per_step, 0);
  // Shown in the table and the JSON.
  const std::string table = report::EstimateToTable(failing, *b);
  EXPECT_NE(table.find("wasted:"), std::string::npos);
  EXPECT_NE(table.find("cost.usd_wasted_per_step"), std::string::npos);
  EXPECT_EQ(report::EstimateToTable(clean, *a).find("wasted"), std::string::npos);
  const auto j = report::EstimateToJson(failing, *b);
  EXPECT_NEAR(j["cost"]["usd_wasted_per_step"].get<double>(), b->usd_wasted_per_step, 1e-12);
  EXPECT_NEAR(j["signal"]["wasted_rollouts_per_step"].get<double>(), b->signal.wasted_rollouts_per_step, 1e-9);
  EXPECT_NEAR(j["gpu_time"]["wasted_s"].get<double>(), b->wasted_gpu_s, 1e-9);
}

TEST(EnvFailures, DroppedTrajectoriesLeaveFewerToTrainOn) {
  const Scenario clean = test::LoadFile(kShared + "default.yaml");
  const Scenario drop =
      test::LoadFile(kShared + "default.yaml", {{"environment.failures", "{rate: 0.2, handling: drop}"}});
  auto a = EstimateAnalytic(clean), b = EstimateAnalytic(drop);
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(b->signal.rollouts_per_step, a->signal.rollouts_per_step);
  EXPECT_NEAR(b->signal.rollouts_trained_per_step, a->signal.rollouts_trained_per_step * 0.8, 1e-9);
  EXPECT_NEAR(b->signal.useful_samples_per_step, a->signal.useful_samples_per_step * 0.8, 1e-9);
  EXPECT_NEAR(b->signal.wasted_rollouts_per_step, a->signal.rollouts_per_step * 0.2, 1e-9);
  EXPECT_LT(b->step.train_s, a->step.train_s);
  // The simulator sees the same counts.
  sim::Options opt;
  opt.steps = 1;
  auto r = EstimateSimulated(drop, opt);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_NEAR(r->step.rollouts_trained, b->step.rollouts_trained, 1.0);
}

TEST(EnvFailures, BadInputNamesTheField) {
  const std::string f = kShared + "default.yaml";
  std::string m = LoadError(f, {{"environment.failures.rate", "1"}});
  EXPECT_NE(m.find("environment.failures.rate"), std::string::npos) << m;
  m = LoadError(f, {{"environment.failures", "{rate: 0.1, handling: ignore}"}});
  EXPECT_NE(m.find("environment.failures.handling"), std::string::npos) << m;
  m = LoadError(f, {{"environment.failures", "{handling: drop}"}});
  EXPECT_NE(m.find("environment.failures.rate"), std::string::npos) << m;
}

// --- The shipped examples ---------------------------------------------------------

TEST(EnvironmentScenarios, LoadEstimateAndSimulate) {
  for (const char* f : {"weaver-ensemble.yaml", "llm-judge-rubric.yaml"}) {
    SCOPED_TRACE(f);
    const Scenario s = test::LoadFile(kRepo + f);
    auto a = EstimateAnalytic(s);
    ASSERT_TRUE(a) << a.error().ToString();
    EXPECT_GT(a->usd_verifier_per_step, 0);
    EXPECT_GT(a->usd_per_useful_sample, 0);
    sim::Options opt;
    opt.steps = 1;
    auto r = EstimateSimulated(s, opt);
    ASSERT_TRUE(r) << r.error().ToString();
    EXPECT_GT(r->step.time_s, 0);
    EXPECT_GT(r->usd_verifier_per_step, 0);
  }
}

}  // namespace
}  // namespace rlcost
