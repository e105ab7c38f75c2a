// environment.max_trajectory_tokens and tool_timeout_s (docs/model.md,
// "Trajectory bounds"): the bounded run worked by hand, the analytic and the
// simulated paths pricing it as the same trajectories written out, and the
// errors.
#include <gtest/gtest.h>

#include <string>

#include "rlcost/estimate.h"
#include "scenario/trajectory_bounds.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Agent(const std::string& env_extra, const std::string& turns, const std::string& latency) {
  return R"(
name: t
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
placement: {mode: colocated, rollout_tp: 1}
environment:
  turns: )" + turns + R"(
  prompt_tokens: 400
  response_tokens: 1000
  tool_output_tokens: 500
  tool_latency_s: )" + latency + R"(
)" + env_extra + R"(
algorithm: {name: grpo, group_size: 8, prompts_per_step: 32, steps: 10}
)";
}

TEST(TrajectoryBounds, TheRuleWorkedByHand) {
  using namespace scenario_internal;
  // 4 turns of 1,000 tokens, 500-token tool outputs, B = 3,000: 1,000 (u = 1,000),
  // its tool output (1,500), 1,000 (2,500), then 500 more would reach 3,000: the
  // trajectory ends with 2 turns and 1 call.
  EXPECT_EQ(BoundedResponse(1000, 0, 3000), 1000);
  EXPECT_FALSE(ToolOutputEnds(1000, 500, 3000));
  EXPECT_EQ(BoundedResponse(1000, 1500, 3000), 1000);
  EXPECT_TRUE(ToolOutputEnds(2500, 500, 3000));
  // A turn gets at most the room left, and at least one token; no budget: as drawn.
  EXPECT_EQ(BoundedResponse(1000, 2600, 3000), 400);
  EXPECT_EQ(BoundedResponse(1000, 3000, 3000), 1);
  EXPECT_EQ(BoundedResponse(1000, 5000, 0), 1000);
  EXPECT_EQ(BoundedLatency(60, 30), 30);
  EXPECT_EQ(BoundedLatency(12, 30), 12);
  EXPECT_EQ(BoundedLatency(60, 0), 60);
}

TEST(TrajectoryBounds, TheScenarioHoldsWhatTheBoundedRunGenerates) {
  const Scenario s = test::Load(Agent("  max_trajectory_tokens: 3000\n  tool_timeout_s: 30\n", "4", "60"));
  const auto& e = s.environment;
  ASSERT_TRUE(e.unbounded.has_value());
  EXPECT_DOUBLE_EQ(e.turns.mean(), 2);
  EXPECT_DOUBLE_EQ(e.response_tokens.mean(), 1000);
  EXPECT_DOUBLE_EQ(e.tool_output_tokens.mean(), 500);
  EXPECT_DOUBLE_EQ(e.tool_latency_s.mean(), 30);
  EXPECT_DOUBLE_EQ(e.unbounded->turns.mean(), 4);  // the task's own, for the simulator
  EXPECT_DOUBLE_EQ(e.unbounded->tool_latency_s.mean(), 60);
  // No bound: nothing changes.
  const Scenario free = test::Load(Agent("", "4", "60"));
  EXPECT_FALSE(free.environment.unbounded.has_value());
  EXPECT_DOUBLE_EQ(free.environment.turns.mean(), 4);
}

// The bounded run and the same trajectories written out (2 turns, 30 s calls)
// are the same run: both paths price them alike.
TEST(TrajectoryBounds, BothPathsPriceTheBoundedRunAsTheTrajectoriesItLeaves) {
  const Scenario bounded = test::Load(Agent("  max_trajectory_tokens: 3000\n  tool_timeout_s: 30\n", "4", "60"));
  const Scenario written = test::Load(Agent("", "2", "30"));
  auto a = EstimateAnalytic(bounded), b = EstimateAnalytic(written);
  ASSERT_TRUE(a && b) << (a ? b.error().ToString() : a.error().ToString());
  EXPECT_NEAR(a->step.generated_tokens, b->step.generated_tokens, 1e-6);
  EXPECT_NEAR(a->step.time_s, b->step.time_s, 1e-6 * b->step.time_s);
  const Scenario unbounded = test::Load(Agent("", "4", "60"));
  auto c = EstimateAnalytic(unbounded);
  ASSERT_TRUE(c);
  EXPECT_LT(a->step.time_s, c->step.time_s);  // the bounds cut the run
  sim::Options so;
  so.steps = 2;
  auto sa = EstimateSimulated(bounded, so), sb = EstimateSimulated(written, so);
  ASSERT_TRUE(sa && sb) << (sa ? sb.error().ToString() : sa.error().ToString());
  EXPECT_NEAR(sa->step.generated_tokens, sb->step.generated_tokens, 1e-6);
  EXPECT_NEAR(sa->step.time_s, sb->step.time_s, 1e-6 * sb->step.time_s);
}

TEST(TrajectoryBounds, BadValuesNameTheirField) {
  auto zero = LoadScenarioText(Agent("  max_trajectory_tokens: 0\n", "4", "60"), test::Cat());
  ASSERT_FALSE(zero);
  EXPECT_NE(zero.error().ToString().find("environment.max_trajectory_tokens"), std::string::npos)
      << zero.error().ToString();
  auto neg = LoadScenarioText(Agent("  tool_timeout_s: -1\n", "4", "60"), test::Cat());
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().ToString().find("environment.tool_timeout_s"), std::string::npos) << neg.error().ToString();
  auto sched = LoadScenarioText(
      Agent("  max_trajectory_tokens: 3000\n  response_tokens_schedule: {start_mean: 800, end_mean: 1200}\n", "4", "60"),
      test::Cat());
  ASSERT_FALSE(sched);
  EXPECT_NE(sched.error().ToString().find("not yet"), std::string::npos) << sched.error().ToString();
}

}  // namespace
}  // namespace rlcost
