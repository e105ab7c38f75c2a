// Responses clipped at the maximum length (`clipped: s` on
// environment.response_tokens; docs/model.md, "Responses clipped at the
// maximum length"): the analytic step and the simulator see the same spike
// at max, and the synchronous batch's longest sequence runs to it.
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

const std::string kDefault = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/default.yaml";

// default.yaml (lognormal mean 2000, cv 0.8, max 8192) with a share s at
// 8192: analytic and simulated rollout agree within 5% (as the KV-limit
// sweep requires, tests/sim/kv_limit_sweep_test.cc), seed 1, 30 steps.
TEST(ClippedShare, AnalyticRolloutAgreesWithSimulatedWithinFivePercent) {
  for (const char* share : {"0.03", "0.1"}) {
    Scenario s = test::LoadFile(kDefault, {{"environment.response_tokens.clipped", share}});
    ASSERT_DOUBLE_EQ(s.environment.response_tokens.clipped(), std::stod(share));
    auto both = test::AnalyticAndSimulated(s, test::kUnderSanitizers ? 5 : 30);
    ASSERT_TRUE(both.ok);
    const StepTiming& a = both.analytic;
    const StepTiming& r = both.simulated.mean_step;
    std::printf("clipped %s: analytic %.2f s, simulated %.2f s, ratio %.4f\n", share, a.rollout_s,
                r.rollout_s, a.rollout_s / r.rollout_s);
    EXPECT_NEAR(a.rollout_s / r.rollout_s, 1.0, 0.05)
        << "clipped " << share << ": analytic " << a.rollout_s << " s, simulated " << r.rollout_s << " s";
  }
}

// The same mean with a share at max makes the synchronous step slower: the
// step prices the batch's longest response at the n / (n + 1) quantile of the
// lengths (sim/analytic.cc, LengthSlices). With 4 prompts x 16 = 64 responses
// that is the 64/65 = 0.98462 quantile. default.yaml's lognormal alone puts
// about 1 - Phi(z) = 0.0092 beyond 8192 (sigma^2 = ln 1.64, mu = ln 2000 - sigma^2 / 2,
// z = (ln 8192 - mu) / sigma = 2.356, before the clip at 8192 moves mu), so its 0.98462 quantile is below 8192;
// with 3% at 8192 (n s = 1.92 >= 1) it is 8192. The mean length is the same;
// the batch stays open longer.
TEST(ClippedShare, TheLongTailHoldsTheSynchronousBatchOpen) {
  const std::vector<Override> small = {{"algorithm.prompts_per_step", "4"}};
  std::vector<Override> with_clip = small;
  with_clip.push_back({"environment.response_tokens.clipped", "0.03"});
  Scenario plain = test::LoadFile(kDefault, small);
  Scenario clip = test::LoadFile(kDefault, with_clip);
  const double n = 64, top = n / (n + 1);
  EXPECT_GT(plain.environment.response_tokens.ShareAtMax(), 0.009);
  EXPECT_LT(plain.environment.response_tokens.ShareAtMax(), 1 - top);
  EXPECT_LT(plain.environment.response_tokens.Quantile(top), 8192);
  EXPECT_EQ(clip.environment.response_tokens.Quantile(top), 8192);
  auto sp = signal::Analyze(plain), sc = signal::Analyze(clip);
  ASSERT_TRUE(sp && sc);
  auto a = AnalyticStep(plain, *sp), b = AnalyticStep(clip, *sc);
  ASSERT_TRUE(a && b);
  EXPECT_GT(b->rollout_s, a->rollout_s) << a->rollout_s << " -> " << b->rollout_s;
  EXPECT_DOUBLE_EQ(clip.environment.response_tokens.mean(), plain.environment.response_tokens.mean());
}

}  // namespace
}  // namespace rlcost::sim
