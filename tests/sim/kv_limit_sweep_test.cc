// Analytic and simulated rollout across the KV-cache limit on default.yaml
// (qwen3-8b, 8 x H100, colocated, lognormal responses mean 2000 cv 0.8 max
// 8192, prompts mean 300; ~252k KV tokens per engine). Up to ~128 prompts
// (256 sequences per engine) the all-at-once drain fits; above it the analytic
// path follows the full cache with the admission-ordered fluid model
// (docs/model.md, "A full, preempting KV cache").
//
// Before that model the analytic path switched at the limit to a steady state
// at the equilibrium batch: analytic / simulated step.rollout_s went from
// 0.955 at 128 prompts to 1.114 at 136 (+11.7%, a jump of 0.16 between two
// adjacent points) and stayed above 1.08 up to 160 prompts.
//
// The simulated step waits for its slowest engine, the one whose random
// lengths add up to the most work; the analytic path priced the mean engine
// and read 0.946 at 128 prompts over 300 simulated steps (0.955 over 20).
// With the busiest engine (docs/model.md, "The busiest engine") the sweep
// reads 0.996..1.044 over 100 steps (32: 0.997, 64: 0.996, 128: 1.018,
// 256: 1.021, 512: 1.018).
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "sim_support.h"
#include "support.h"

namespace rlcost::sim {
namespace {

TEST(KvLimitSweep, AnalyticRolloutAgreesWithSimulatedWithinFivePercentWithoutAJump) {
  // Under the sanitizers (18 s for the whole sweep) the stated sample: the
  // points from 112 to 160 prompts, around the limit where the jump was. The
  // release suite runs all twenty.
  const std::vector<int> prompts =
      test::kUnderSanitizers ? std::vector<int>{112, 120, 128, 136, 144, 152, 160}
                             : std::vector<int>{32,  48,  64,  80,  96,  112, 120, 128, 136, 144,
                                                152, 160, 176, 192, 224, 256, 320, 384, 448, 512};
  std::vector<double> ratio;
  for (int p : prompts) {
    Scenario s = test::LoadFile(std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/default.yaml",
                                {{"algorithm.prompts_per_step", std::to_string(p)}});
    // seed 1; 20 steps left +-2% of sampling noise (152 prompts: 1.056 at 20 steps, 1.033 at 300)
    auto both = test::AnalyticAndSimulated(s, 100);
    ASSERT_TRUE(both.ok);
    const StepTiming& a = both.analytic;
    const StepTiming& r = both.simulated.mean_step;
    ratio.push_back(a.rollout_s / r.rollout_s);
    EXPECT_NEAR(ratio.back(), 1.0, 0.05) << p << " prompts: analytic " << a.rollout_s << " s, simulated "
                                         << r.rollout_s << " s";
  }
  // No jump: between adjacent points of the sweep (at most 12% more prompts
  // near the limit) the ratio moves by at most 3 points.
  for (size_t i = 1; i < ratio.size(); ++i) {
    EXPECT_LE(std::fabs(ratio[i] - ratio[i - 1]), 0.03)
        << prompts[i - 1] << " -> " << prompts[i] << " prompts: analytic / simulated " << ratio[i - 1] << " -> "
        << ratio[i];
  }
  std::string line;
  for (size_t i = 0; i < ratio.size(); ++i) line += std::to_string(prompts[i]) + ":" + std::to_string(ratio[i]) + " ";
  RecordProperty("ratios", line);
  std::printf("analytic / simulated rollout_s: %s\n", line.c_str());
}

}  // namespace
}  // namespace rlcost::sim
