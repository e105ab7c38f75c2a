// engine.max_num_seqs: the engine's cap on running sequences (docs/model.md,
// "The engine's cap on running sequences"), worked by hand on one engine.
#include <string>

#include <gtest/gtest.h>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "sim_support.h"
#include "support.h"

namespace rlcost {
namespace {

// One H100 engine, 8 sequences of a fixed 100-token prompt and a fixed
// 100-token response; the cache holds all of them many times over.
const std::string kEight = R"(name: eight
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 1, gpus_per_node: 1}
placement: {mode: colocated, rollout_tp: 1, engine: vllm}
environment:
  prompt_tokens: 100
  response_tokens: 100
algorithm: {name: grpo, group_size: 8, prompts_per_step: 1, steps: 2}
pipeline: {mode: sync}
)";

Scenario Load(const std::string& extra) {
  auto s = LoadScenarioText(kEight + extra, test::Cat(), "eight.yaml");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  return s ? *s : Scenario{};
}

TEST(MaxNumSeqs, DefaultsFollowVllmByGpu) {
  // vllm/engine/arg_utils.py get_batch_defaults @ 99d7eb5d: 1024 on >= 70 GiB
  // unless the name says A100; 256 elsewhere. Other engines: no cap.
  EXPECT_EQ(MaxNumSeqs(Load("")), 1024);
  Scenario a100 = Load("");
  a100.hardware.gpu.id = "a100-80g";
  EXPECT_EQ(MaxNumSeqs(a100), 256);
  Scenario small = Load("");
  small.hardware.gpu.memory_gb = 48;  // 44.7 GiB, an L40S
  EXPECT_EQ(MaxNumSeqs(small), 256);
  Scenario sglang = Load("");
  sglang.placement.engine = InferenceEngine::kSglang;
  EXPECT_EQ(MaxNumSeqs(sglang), 0);
  EXPECT_EQ(MaxNumSeqs(Load("engine: {max_num_seqs: 4}\n")), 4);
  auto bad = LoadScenarioText(kEight + "engine: {max_num_seqs: -2}\n", test::Cat(), "eight.yaml");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("engine.max_num_seqs"), std::string::npos) << bad.error().ToString();
}

TEST(MaxNumSeqs, AFrameworkReleaseSuppliesWhatItsRolloutPasses) {
  // veRL 0.4 prints rollout.max_num_seqs 1024 but never passes it to vLLM
  // <= 0.8.5, which runs at 256; veRL 0.6 passes 1024.
  EXPECT_EQ(Load("framework: verl@0.4\n").engine.max_num_seqs, 256);
  EXPECT_EQ(Load("framework: verl@0.6\n").engine.max_num_seqs, 1024);
  EXPECT_EQ(Load("framework: verl@0.4\nengine: {max_num_seqs: 64}\n").engine.max_num_seqs, 64);
}

TEST(MaxNumSeqs, FourSeatsDecodeEightSequencesInTwoRounds) {
  // By hand: with 4 seats the 8 sequences run as two rounds of 4, each 100
  // iterations at batch 4 with contexts 100..199 (prompt + age), after the
  // one prefill of 8 x 100 prompt tokens: 2 x DecodeIterations(4, 4 x 100,
  // 100) + Prefill(800). Uncapped: one round of 8, 100 iterations at batch 8.
  Scenario capped = Load("engine: {max_num_seqs: 4}\n");
  Scenario free = Load("engine: {max_num_seqs: 0}\n");
  const perf::EngineConfig e = perf::RolloutEngine(capped);
  EXPECT_EQ(e.max_num_seqs, 4);
  const double round4 = perf::DecodeIterations(e, 4, 4 * 100.0, 100).time_s;
  const double round8 = perf::DecodeIterations(e, 8, 8 * 100.0, 100).time_s;
  const double prefill = perf::Prefill(e, 800, 0, 8).time_s;

  auto sig = signal::Analyze(capped);
  ASSERT_TRUE(sig);
  auto a = sim::AnalyticStep(capped, *sig);
  auto b = sim::AnalyticStep(free, *sig);
  ASSERT_TRUE(a && b);
  // The cohort model admits the second round at age 0: nothing to recompute.
  EXPECT_NEAR(a->rollout_s, 2 * round4 + prefill + perf::Prefill(e, 0, 0, 1).time_s, 1e-9 * a->rollout_s);
  EXPECT_NEAR(b->rollout_s, round8 + prefill, 1e-9 * b->rollout_s);
  // Memory-bound decode: a batch of 4 costs nearly what a batch of 8 does, so
  // two rounds take nearly twice as long.
  EXPECT_GT(a->rollout_s, 1.8 * b->rollout_s);

  // The simulator's scheduler holds the same cap: within 2% of the closed
  // form (it prefills each round as it is admitted), and its own capped run
  // takes more than 1.8x its uncapped one.
  auto sa = test::RunSim(capped, 2);
  auto sb = test::RunSim(free, 2);
  EXPECT_NEAR(sa.mean_step.rollout_s, a->rollout_s, 0.02 * a->rollout_s);
  EXPECT_GT(sa.mean_step.rollout_s, 1.8 * sb.mean_step.rollout_s);
}

}  // namespace
}  // namespace rlcost
