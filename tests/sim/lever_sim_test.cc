// The 2026 levers in the event simulator, on the scenarios of
// scenarios/levers/ where each pays and where it does not: the simulated run
// with the lever is cheaper, or dearer, than the same simulated run without
// it, as in the closed form (docs/model.md, "Speculative decoding in rollout",
// "Spot GPUs", "Tail handling"; elastic pools are closed form only and say so,
// tests/econ/resplit_test.cc).
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/sim.h"
#include "support.h"

namespace rlcost {
namespace {

struct Case {
  const char* file;
  Override off, on;
  bool pays;  // the lever makes the run cheaper
};

double Usd(const Case& c, const Override& o, bool simulated) {
  auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/" + c.file, test::Cat(), {o});
  EXPECT_TRUE(s.has_value()) << c.file << (s ? "" : s.error().ToString());
  if (!s) return 0;
  sim::Options opt;
  opt.steps = 20;
  auto e = simulated ? EstimateSimulated(*s, opt) : EstimateAnalytic(*s);
  EXPECT_TRUE(e.has_value()) << c.file << " " << o.path << "=" << o.value << ": " << (e ? "" : e.error().ToString());
  return e ? e->usd : 0;
}

TEST(LeverSimulated, EachLeverPaysOrCostsInTheSimulatorAsInTheClosedForm) {
  const std::vector<Case> cases = {
      {"spot-rollout-helps.yaml", {"hardware.spot.rollout.enabled", "false"}, {"hardware.spot.rollout.enabled", "true"}, true},
      {"spot-rollout-frequent-preemptions.yaml", {"hardware.spot.rollout.enabled", "false"},
       {"hardware.spot.rollout.enabled", "true"}, false},
      {"speculative-helps.yaml", {"engine.speculative.method", "none"}, {"engine.speculative.method", "mtp"}, true},
      {"speculative-large-batch.yaml", {"engine.speculative.method", "none"}, {"engine.speculative.method", "eagle"}, false},
      {"tail-partial-rollout-helps.yaml", {"pipeline.tail", "none"}, {"pipeline.tail", "partial_rollout"}, true},
      {"tail-batching-helps.yaml", {"pipeline.tail", "none"}, {"pipeline.tail", "{mode: tail_batching, over_launch: 0.25}"}, true},
      {"tail-narrow-lengths.yaml", {"pipeline.tail", "none"}, {"pipeline.tail", "{mode: over_provision, over_launch: 0.25}"}, false},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.file);
    for (bool simulated : {false, true}) {
      const double off = Usd(c, c.off, simulated), on = Usd(c, c.on, simulated);
      ASSERT_GT(off, 0);
      ASSERT_GT(on, 0);
      if (c.pays) {
        EXPECT_LT(on, off) << (simulated ? "simulated" : "closed form");
      } else {
        EXPECT_GT(on, off) << (simulated ? "simulated" : "closed form");
      }
    }
  }
}

}  // namespace
}  // namespace rlcost
