// optimize over each 2026 lever switched off and on (docs/model.md, sections
// "Speculative decoding in rollout", "Spot GPUs", "Tail handling", "Elastic
// pools"), on a scenario of scenarios/levers/ where it pays and one where it
// does not: the search keeps the lever where it is cheaper and rejects it
// where it costs more. Each answer is checked against the two estimates
// themselves, not a stored figure.
#include <gtest/gtest.h>

#include <string>

#include "explore/optimize.h"
#include "rlcost/estimate.h"
#include "scenario/document.h"
#include "support.h"

namespace rlcost::explore {
namespace {

struct Case {
  const char* file;
  const char* axis;       // --over
  const char* expected;   // the value optimize ranks first
  bool strictly = true;   // false: the two cost the same (a tie keeps the axis order)
};

OptimizeResult Run(const Case& c) {
  auto doc = scenario_internal::ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/" +
                                                           c.file);
  EXPECT_TRUE(doc) << c.file;
  auto axis = ParseAxis(c.axis);
  EXPECT_TRUE(axis) << c.axis;
  auto design = Design::Grid({*axis});
  EXPECT_TRUE(design);
  OptimizeOptions opt;
  opt.objective = FindMetric("run.usd");
  opt.top = 4;
  auto r = Optimize(*doc, test::Cat(), *design, opt);
  EXPECT_TRUE(r) << (r ? "" : r.error().ToString());
  return r ? *r : OptimizeResult{};
}

void Check(const Case& c) {
  SCOPED_TRACE(std::string(c.file) + " --over " + c.axis);
  OptimizeResult r = Run(c);
  ASSERT_GE(r.best.size(), 2u) << "both configurations must run and be listed";
  ASSERT_EQ(r.best[0].row.values.size(), 1u);
  EXPECT_EQ(r.best[0].row.values[0], c.expected);
  if (c.strictly) {
    EXPECT_LT(r.best[0].objective, r.best[1].objective * 0.99);
  } else {
    EXPECT_NEAR(r.best[0].objective, r.best[1].objective, 1e-9 * r.best[1].objective);
  }
}

TEST(LeverOptimize, SpotIsKeptWherePreemptionsAreRareAndRejectedWhereFrequent) {
  Check({"spot-rollout-helps.yaml", "hardware.spot.rollout.enabled=false,true", "true"});
  Check({"spot-rollout-frequent-preemptions.yaml", "hardware.spot.rollout.enabled=false,true", "false"});
}

TEST(LeverOptimize, SpeculationIsKeptAtASmallBatchAndRejectedAtALargeOne) {
  Check({"speculative-helps.yaml", "engine.speculative.method=none,mtp", "mtp"});
  Check({"speculative-large-batch.yaml", "engine.speculative.method=none,eagle", "none"});
}

TEST(LeverOptimize, TailHandlingIsKeptOnALongTailAndOverProvisionRejectedOnNarrowLengths) {
  Check({"tail-partial-rollout-helps.yaml", "pipeline.tail=none,partial_rollout", "partial_rollout"});
  Check({"tail-batching-helps.yaml", "pipeline.tail=none,{mode: tail_batching, over_launch: 0.25}",
         "{mode: tail_batching, over_launch: 0.25}"});
  Check({"tail-narrow-lengths.yaml", "pipeline.tail=none,{mode: over_provision, over_launch: 0.25}", "none"});
}

TEST(LeverOptimize, ElasticPoolsAreKeptWhenLengthsGrowAndChangeNothingWhenFlat) {
  Check({"resplit-lengths-grow.yaml", "placement.resplit=none,{phases: 4}", "{phases: 4}"});
  // Flat lengths: no phase wants another split, the two runs are one price
  // (listed apart: the re-split run is a configuration of its own).
  Check({"resplit-lengths-flat.yaml", "placement.resplit=none,{phases: 4}", "none", false});
  // A stop longer than any phase saves: the run never re-splits.
  Check({"resplit-lengths-grow.yaml", "placement.resplit=none,{phases: 4, restart_s: 86400}", "none", false});
}

}  // namespace
}  // namespace rlcost::explore
