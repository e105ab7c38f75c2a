// The signal stage on scenario files loaded by the spec stage (copies of
// shared/scenarios/pilot-eval.yaml and process-reward.yaml in tests/data/signal).
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"

namespace rlcost::signal {
namespace {

Result<Scenario> Load(const std::string& name) {
  auto cat = Catalog::Builtin();
  if (!cat) return Fail(cat.error());
  return LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/tests/data/signal/" + name, *cat);
}

TEST(SignalScenarioFiles, PilotEval) {
  auto s = Load("pilot-eval.yaml");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  auto r = Analyze(*s);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r->pilot.present);
  EXPECT_EQ(r->pilot.tasks, 400);
  EXPECT_EQ(r->pilot.samples_per_task, 16);
  EXPECT_EQ(r->pilot.never_solved, 76);
  EXPECT_NEAR(r->pilot.fit_mean, r->pilot.observed_mean, 0.01);
  // DAPO with dynamic sampling: everything trained on is informative. veRL
  // generates whole rounds of 128 prompts (gen_batch_size = train_batch_size):
  // oversampling = E[rounds] and never below 1/P (by Wald's identity the groups
  // drawn until the 128th informative one average 128/P; rounds draw at least those).
  EXPECT_DOUBLE_EQ(r->informative_fraction, 1);
  EXPECT_NEAR(r->oversampling, r->gen_rounds_per_step, 1e-12);
  EXPECT_GE(r->oversampling * r->informative_group_probability, 1);
  EXPECT_DOUBLE_EQ(r->rollouts_trained_per_step, 128 * 16);
}

TEST(SignalScenarioFiles, ProcessReward) {
  auto s = Load("process-reward.yaml");
  ASSERT_TRUE(s.has_value()) << s.error().ToString();
  auto r = Analyze(*s);
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  // Beta(mean 0.1, concentration 1) = Beta(0.1, 0.9); 8 credited steps; G = 16, 64 prompts.
  EXPECT_NEAR(r->mean_pass_rate, 0.1, 1e-12);
  EXPECT_NEAR(r->informative_group_probability, ProcessInformativeGroupProbability(s->environment.pass_rate, 16, 8),
              1e-12);
  EXPECT_GT(r->informative_group_probability, r->outcome_informative_group_probability);
  EXPECT_DOUBLE_EQ(r->rollouts_trained_per_step, 64 * 16);
}

}  // namespace
}  // namespace rlcost::signal
