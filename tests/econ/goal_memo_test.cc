// The goal's steps are kept per thread for the last few keys (src/econ/goal_steps.cc,
// GoalKeyOf, issue #41): a field the goal reads but the key misses would give
// a point the goal of another. Each point here differs from the one estimated
// just before it on the same thread in one field the goal reads; its goal must
// be the one a fresh thread (no goal kept) computes.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "explore/design.h"
#include "explore/sweep.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "scenario/document.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

// Every field of the goal, exactly.
void ExpectSameGoal(const GoalEstimate& a, const GoalEstimate& b) {
  EXPECT_EQ(a.requested, b.requested);
  EXPECT_EQ(a.reachable, b.reachable);
  EXPECT_EQ(a.reason, b.reason);
  EXPECT_EQ(a.target_pass_rate, b.target_pass_rate);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.gpu_hours, b.gpu_hours);
  EXPECT_EQ(a.usd, b.usd);
  EXPECT_EQ(a.curve_is_illustrative, b.curve_is_illustrative);
  EXPECT_EQ(a.curve, b.curve);
  EXPECT_EQ(a.steps_view, b.steps_view);
  EXPECT_EQ(a.steps_useful_samples, b.steps_useful_samples);
  EXPECT_EQ(a.useful_samples_per_step, b.useful_samples_per_step);
  EXPECT_EQ(a.steps_noise_scale, b.steps_noise_scale);
  EXPECT_EQ(a.noise_scale_reason, b.noise_scale_reason);
  EXPECT_EQ(a.learning_model, b.learning_model);
  EXPECT_EQ(a.learning_factor, b.learning_factor);
  EXPECT_EQ(a.learning_group_ref, b.learning_group_ref);
  EXPECT_EQ(a.learning_steps_ref, b.learning_steps_ref);
  EXPECT_EQ(a.learning_note, b.learning_note);
}

bool SameSteps(const GoalEstimate& a, const GoalEstimate& b) {
  return a.reachable == b.reachable && a.steps == b.steps && a.reason == b.reason &&
         a.learning_note == b.learning_note && a.noise_scale_reason == b.noise_scale_reason &&
         a.steps_useful_samples == b.steps_useful_samples;
}

// The estimate's goal on a thread of its own: nothing kept from another point.
GoalEstimate FreshGoal(const Scenario& s) {
  GoalEstimate g;
  std::thread([&] {
    auto e = EstimateAnalytic(s);
    ASSERT_TRUE(e.has_value()) << e.error().ToString();
    g = e->goal;
  }).join();
  return g;
}

TEST(GoalMemo, EachFieldTheGoalReadsGivesThePointItsOwnGoal) {
  Scenario base = DefaultScenario(Cat()).value();
  base.goal.target_pass_rate = 0.6;
  base.algorithm.group_size = 8;  // not the curve's 16: the learning model analyses its own point
  using Change = std::function<void(Scenario&)>;
  // Each change is one field (or one group that only makes sense together);
  // `moves`: the goal's steps or words must differ from the base's.
  const std::vector<std::tuple<std::string, Change, bool>> changes = {
      {"goal.target_pass_rate", [](Scenario& s) { s.goal.target_pass_rate = 0.65; }, true},
      {"goal.curve.asymptote", [](Scenario& s) { s.goal.curve = LearningCurveSpec{}; s.goal.curve->asymptote = 0.9; }, true},
      {"goal.curve (given, the defaults)", [](Scenario& s) { s.goal.curve = LearningCurveSpec{}; }, false},
      {"goal.curve.exponent", [](Scenario& s) { s.goal.curve = LearningCurveSpec{}; s.goal.curve->exponent = 0.7; }, true},
      {"goal.curve.midpoint_useful_samples",
       [](Scenario& s) { s.goal.curve = LearningCurveSpec{}; s.goal.curve->midpoint_useful_samples = 3e5; }, true},
      {"goal.b_noise without the curve's batch", [](Scenario& s) { s.goal.b_noise = 2e3; }, true},
      {"goal.b_noise with the curve's batch",
       [](Scenario& s) {
         s.goal.curve = LearningCurveSpec{};
         s.goal.curve->batch_useful_samples = 500;
         s.goal.b_noise = 2e3;
       },
       true},
      {"goal.curve.batch_useful_samples",
       [](Scenario& s) {
         s.goal.curve = LearningCurveSpec{};
         s.goal.curve->batch_useful_samples = 800;
         s.goal.b_noise = 2e3;
       },
       true},
      {"goal.curve.preset", [](Scenario& s) { s.goal.curve = LearningCurveSpec{}; s.goal.curve->preset = "x"; }, false},
      {"environment.pass_rate (Beta)", [](Scenario& s) { s.environment.pass_rate.a = 0.9; }, true},
      {"environment.pass_rate.b", [](Scenario& s) { s.environment.pass_rate.b = 1.5; }, true},
      {"environment.pass_rate (histogram)",
       [](Scenario& s) {
         s.environment.pass_rate.kind = PassRateSpec::Kind::kHistogram;
         s.environment.pass_rate.histogram = {{0.1, 0.5}, {0.5, 0.5}};
       },
       true},
      {"environment.pass_rate (histogram, other weights)",
       [](Scenario& s) {
         s.environment.pass_rate.kind = PassRateSpec::Kind::kHistogram;
         s.environment.pass_rate.histogram = {{0.1, 0.25}, {0.5, 0.75}};
       },
       true},
      {"environment.pass_rate (pilot tasks)",
       [](Scenario& s) {
         s.environment.pass_rate.kind = PassRateSpec::Kind::kTasks;
         s.environment.pass_rate.samples_per_task = 4;
         s.environment.pass_rate.task_pass_rates = {0, 0.25, 0.5, 0.25, 0.75, 0.5, 0, 1, 0.25, 0.5};
       },
       true},
      {"environment.pass_rate (pilot tasks, one rate other)",
       [](Scenario& s) {
         s.environment.pass_rate.kind = PassRateSpec::Kind::kTasks;
         s.environment.pass_rate.samples_per_task = 4;
         s.environment.pass_rate.task_pass_rates = {0, 0.25, 0.5, 0.25, 0.75, 0.5, 0, 1, 0.25, 0.75};
       },
       true},
      {"environment.reward.type (process)",
       [](Scenario& s) {
         s.environment.reward.type = RewardType::kProcess;
         s.environment.reward.credited_steps = 3;
       },
       true},
      {"environment.reward.credited_steps",
       [](Scenario& s) {
         s.environment.reward.type = RewardType::kProcess;
         s.environment.reward.credited_steps = 5;
       },
       true},
      {"environment.reward.noise.false_positive", [](Scenario& s) { s.environment.reward.noise.false_positive = 0.1; }, true},
      {"environment.reward.noise.false_negative", [](Scenario& s) { s.environment.reward.noise.false_negative = 0.1; }, true},
      {"environment.failures.rate (retried: more generated, the same steps)",
       [](Scenario& s) { s.environment.failures.rate = 0.2; }, false},
      {"environment.failures.retry",
       [](Scenario& s) {
         s.environment.failures.rate = 0.2;
         s.environment.failures.retry = false;
       },
       true},
      {"algorithm.group_size", [](Scenario& s) { s.algorithm.group_size = 4; }, true},
      {"algorithm.group_size (the curve's)", [](Scenario& s) { s.algorithm.group_size = 16; }, true},
      {"algorithm.prompts_per_step", [](Scenario& s) { s.algorithm.prompts_per_step = 32; }, true},
      {"algorithm.steps", [](Scenario& s) { s.algorithm.steps = 7; }, false},
      {"algorithm.critic", [](Scenario& s) { s.algorithm.critic = true; }, true},
      {"algorithm.dynamic_sampling", [](Scenario& s) { s.algorithm.dynamic_sampling = true; }, true},
      {"algorithm.gen_batch_prompts",
       [](Scenario& s) {
         s.algorithm.dynamic_sampling = true;
         s.algorithm.gen_batch_prompts = 3 * s.algorithm.prompts_per_step;
       },
       true},
      {"algorithm.max_gen_batches",
       [](Scenario& s) {
         s.environment.pass_rate.a = 0.05;  // few informative groups: the rounds' cap matters
         s.algorithm.dynamic_sampling = true;
         s.algorithm.max_gen_batches = 2;
       },
       true},
      {"algorithm.max_gen_batches (other)",
       [](Scenario& s) {
         s.environment.pass_rate.a = 0.05;
         s.algorithm.dynamic_sampling = true;
         s.algorithm.max_gen_batches = 3;
       },
       true},
  };
  const GoalEstimate base_goal = FreshGoal(base);
  ASSERT_TRUE(base_goal.reachable) << base_goal.reason;
  std::vector<Scenario> points;
  for (const auto& [name, change, moves] : changes) {
    Scenario s = base;
    change(s);
    points.push_back(s);
  }
  // Each change right after the base, and each right after the one before it
  // (the memo holds the last 16 goals of this thread: both orders hit it).
  for (size_t i = 0; i < points.size(); ++i) {
    const auto& [name, change, moves] = changes[i];
    SCOPED_TRACE(name);
    auto before = EstimateAnalytic(i == 0 ? base : points[i - 1]);
    ASSERT_TRUE(before.has_value()) << before.error().ToString();
    auto b = EstimateAnalytic(base);
    ASSERT_TRUE(b.has_value());
    auto e = EstimateAnalytic(points[i]);
    ASSERT_TRUE(e.has_value()) << e.error().ToString();
    const GoalEstimate fresh = FreshGoal(points[i]);
    ExpectSameGoal(e->goal, fresh);
    if (moves) EXPECT_FALSE(SameSteps(fresh, base_goal)) << "the change moves nothing: the check has no teeth";
    // Twice on this thread (the second from the memo): the same goal.
    auto again = EstimateAnalytic(points[i]);
    ASSERT_TRUE(again.has_value());
    ExpectSameGoal(again->goal, fresh);
  }
}


// A sweep on one thread, as `rlcost sweep --jobs 1` runs it: its points differ
// in fields the goal reads (group size, prompts, target, base pass rate,
// verifier noise, the curve's exponent) and in one it does not (the GPUs,
// whose points then share a goal). Every row's goal figures are those of the
// point's estimate on a fresh thread.
TEST(GoalMemo, ASweepsRowsHoldTheirOwnGoals) {
  const std::string yaml = std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml";
  auto doc = scenario_internal::ScenarioDocument::FromFile(yaml);
  ASSERT_TRUE(doc) << doc.error().ToString();
  std::vector<explore::Axis> axes;
  for (const char* a : {"hardware.gpus=8,16", "algorithm.group_size=4,16", "algorithm.prompts_per_step=32,64",
                        "goal.target_pass_rate=0.55,0.65", "environment.pass_rate.mean=0.3,0.4",
                        "environment.reward.noise.false_positive=0,0.05", "goal.curve.exponent=1,1.3"}) {
    auto axis = explore::ParseAxis(a);
    ASSERT_TRUE(axis) << a;
    axes.push_back(*axis);
  }
  auto design = explore::Design::Grid(axes);
  ASSERT_TRUE(design);
  explore::SweepOptions opt;
  for (const char* k : {"goal.steps", "goal.steps_useful_samples", "goal.useful_samples_per_step", "goal.gpu_hours",
                        "goal.usd"}) {
    opt.metrics.push_back(FindMetric(k));
    ASSERT_NE(opt.metrics.back(), nullptr) << k;
  }
  const explore::PointRunner runner(*doc, Cat(), *design, opt);
  int reachable = 0;
  std::vector<double> seen;  // goal.steps of every row: the points must not all agree
  for (uint64_t i = 0; i < design->size(); ++i) {
    const explore::PointRow row = runner.Run(i);
    ASSERT_EQ(row.status, explore::PointStatus::kOk) << row.reason;
    std::vector<Override> point;
    for (size_t a = 0; a < axes.size(); ++a) point.push_back({axes[a].key, row.values[a]});
    auto s = LoadScenarioFile(yaml, Cat(), point);
    ASSERT_TRUE(s) << s.error().ToString();
    const GoalEstimate fresh = FreshGoal(*s);
    SCOPED_TRACE(testing::Message() << "point " << i);
    auto expect = [&](size_t m, bool has, double v) {
      ASSERT_EQ(row.metrics[m].has_value(), has);
      if (has) EXPECT_EQ(*row.metrics[m], v);
    };
    const bool has = fresh.requested && fresh.reachable;
    reachable += has;
    expect(0, has, fresh.steps);
    expect(1, has, fresh.steps_useful_samples);
    expect(2, has, fresh.useful_samples_per_step);
    expect(3, has, fresh.gpu_hours);
    expect(4, has, fresh.usd);
    if (has) seen.push_back(fresh.steps);
  }
  EXPECT_GT(reachable, 100);
  std::sort(seen.begin(), seen.end());
  EXPECT_GT(std::unique(seen.begin(), seen.end()) - seen.begin(), 20);  // the fields move the goal
}

}  // namespace
}  // namespace rlcost
