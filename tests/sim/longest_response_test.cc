// A synchronous step waits for its longest response (docs/model.md,
// "Generation on the development logs", item 1): at the same
// mean, a response spread whose longest of N draws reaches the cap adds the
// extra iterations of that tail, decoded at a small batch, each costing what
// one iteration of the weight stream costs. Worked on the layout of the
// NeMo RL v0.3 Llama-3.1-70B runs (64 H100, vLLM at tp 4: 16 engines of 128).
#include <string>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "scenario/longest_draw.h"
#include "support.h"

namespace rlcost {
namespace {

Scenario Load(double cv, const std::string& pipeline = "sync") {
  const std::string text = R"(name: tail70
model: llama-3.1-70b
hardware: {gpu: h100-sxm, gpus: 64, gpus_per_node: 8}
placement: {mode: colocated, rollout_tp: 4, engine: vllm, gpu_memory_utilization: 0.6}
environment:
  prompt_tokens: 120
  response_tokens: {mean: 395, cv: )" + std::to_string(cv) + R"(, max: 3976}
algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 2}
pipeline: {mode: )" + pipeline + R"(}
)";
  auto s = LoadScenarioText(text, test::Cat(), "tail70.yaml");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  return s ? *s : Scenario{};
}

TEST(LongestResponse, ATailThatReachesTheCapAddsItsIterationsAtASmallBatch) {
  const Scenario a = Load(0.7), b = Load(1.3);
  // The expected longest of the step's 2,048 draws (lognormal, mean 395):
  // about 2,800 tokens at cv 0.7; at cv 1.3 it is clipped at the cap.
  const double la = scenario_internal::ExpectedLongestDraw(a.environment.response_tokens, 2048);
  const double lb = scenario_internal::ExpectedLongestDraw(b.environment.response_tokens, 2048);
  EXPECT_GT(la, 2500);
  EXPECT_LT(la, 3200);
  EXPECT_GT(lb, 3900);
  EXPECT_LE(lb, 3976);

  auto sig_a = signal::Analyze(a);
  auto sig_b = signal::Analyze(b);
  ASSERT_TRUE(sig_a && sig_b);
  auto ra = sim::AnalyticStep(a, *sig_a);
  auto rb = sim::AnalyticStep(b, *sig_b);
  ASSERT_TRUE(ra && rb);
  // By hand: the extra lb - la iterations run with a handful of sequences
  // left, each near one iteration at batch 1 (weights 35.3 GB per GPU at
  // 0.725 of 3.35 TB/s = 14.5 ms, 4 ms of engine overhead, 160 all-reduces
  // of ~8 us = 1.3 ms; 19.96 ms), so the step grows by about (lb - la) x
  // that: (3976 - 2866) x 19.96 ms = 22.1 s; the analytic step gives
  // 60.1 -> 82.7 s, +22.6 s (the NeMo RL blog measured 82 and 84 s).
  const perf::EngineConfig e = perf::RolloutEngine(a);
  const double t1 = perf::DecodeIteration(e, 1, 120 + 0.5 * (la + lb)).time_s;
  EXPECT_GT(t1, 0.018);
  EXPECT_LT(t1, 0.022);
  const double extra = rb->rollout_s - ra->rollout_s;
  EXPECT_GT(extra, 0.95 * (lb - la) * t1) << ra->rollout_s << " -> " << rb->rollout_s;
  EXPECT_LT(extra, 1.15 * (lb - la) * t1) << ra->rollout_s << " -> " << rb->rollout_s;
}

// Where generation rests on the spread's tail the estimate says so, in its
// text and JSON (its assumptions), with what the cap would cost: the same
// (R_max - L) x t(batch 1) as above, 22.1 s here, over a tenth of the 60.1 s.
TEST(LongestResponse, TheEstimateSaysWhenTheTailDecidesGeneration) {
  auto said = [](const Scenario& s) -> std::string {
    auto e = EstimateAnalytic(s);
    EXPECT_TRUE(e.has_value()) << (e ? "" : e.error().ToString());
    if (!e) return "";
    for (const auto& a : e->assumptions) {
      if (a.find("longest response, decoded nearly alone") != std::string::npos) return a;
    }
    return "";
  };
  const std::string a = said(Load(0.7));
  EXPECT_NE(a.find("2866 tokens, the expected longest of 2048 draws"), std::string::npos) << a;
  EXPECT_NE(a.find("about 22.1 s more (1110 iterations near batch 1 at 20.0 ms each)"), std::string::npos) << a;
  // The longest already at the cap: nothing to say.
  EXPECT_EQ(said(Load(1.3)), "");
  // An asynchronous pipeline does not wait for it within the step.
  EXPECT_EQ(said(Load(0.7, "async")), "");
}

}  // namespace
}  // namespace rlcost
