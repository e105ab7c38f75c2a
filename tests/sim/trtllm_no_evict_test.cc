// TensorRT-LLM's no-evict admission (docs/model.md, "TensorRT-LLM's no-evict
// admission"), worked by hand on one H100 engine.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "support.h"

namespace rlcost {
namespace {

// Llama-3.1-8B in fp8 with an fp8 KV cache on one H100 that only generates
// (the trainer on the other GPU), 1,000-token prompts and responses.
const std::string kOne = R"(name: one
model: llama-3.1-8b
hardware: {gpu: h100-sxm, gpus: 2, gpus_per_node: 2}
placement: {mode: disaggregated, rollout_gpus: 1, train_gpus: 1, rollout_tp: 1, engine: trtllm}
environment:
  prompt_tokens: 1000
  response_tokens: 1000
algorithm: {name: grpo, group_size: 8, prompts_per_step: 200, steps: 2}
precision: {rollout: fp8, kv_cache: fp8, train: bf16}
pipeline: {mode: sync}
)";

Scenario Load(const std::string& text) {
  auto s = LoadScenarioText(text, test::Cat(), "one.yaml");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  return s ? *s : Scenario{};
}

std::string With(const std::string& from, const std::string& to) {
  std::string t = kOne;
  t.replace(t.find(from), from.size(), to);
  return t;
}

TEST(TrtllmNoEvict, SeatsAreWholeReservations) {
  EXPECT_EQ(perf::NoEvictSeats(1000, 300), 3);  // floor(3.33)
  EXPECT_EQ(perf::NoEvictSeats(100, 300), 1);   // one request always runs
  EXPECT_EQ(perf::NoEvictSeats(1000, 0), 0);    // reservation unknown: no cap
  EXPECT_EQ(perf::NoEvictSeats(0, 300), 0);
}

TEST(TrtllmNoEvict, ARequestReservesItsContextAndItsLongestResponse) {
  // Fixed lengths: P + R = 1,000 + 1,000.
  EXPECT_DOUBLE_EQ(perf::NoEvictReserveTokens(Load(kOne)), 2000);
  // Lognormal responses of mean 500 up to 4,000: P + R_max = 5,000, not the
  // mean trajectory's 1,500.
  const Scenario capped =
      Load(With("response_tokens: 1000", "response_tokens: {dist: lognormal, mean: 500, cv: 1, max: 4000}"));
  EXPECT_NEAR(perf::NoEvictReserveTokens(capped), 5000, 1e-6);
  // No declared maximum: the reservation (max_new_tokens) is unknown.
  const Scenario open = Load(With("response_tokens: 1000", "response_tokens: {dist: lognormal, mean: 500, cv: 1}"));
  EXPECT_EQ(perf::NoEvictReserveTokens(open), 0);
  EXPECT_EQ(perf::TrtllmNoEvictSeats(open), 0);
}

TEST(TrtllmNoEvict, TheEngineSeatsWhatItsCacheHoldsAtFullLength) {
  // By hand: 80 GB less the fp8 weights (8.03 GB) and the 10% reserve (8 GB)
  // leaves 63.97 GB of KV cache; fp8 KV is 2 x 32 layers x 8 heads x 128 x 1
  // = 65,536 bytes per token, so 63.97e9 / 65,536 = 976,104 tokens, and
  // floor(976,104 / 2,000) = 488 requests at once.
  const Scenario s = Load(kOne);
  auto mem = perf::PlanMemory(s);
  ASSERT_TRUE(mem);
  EXPECT_NEAR(mem->kv_tokens_per_engine, (80.0 - 8.03 - 8.0) * 1e9 / 65536.0, 1e-6);
  EXPECT_EQ(perf::TrtllmNoEvictSeats(s), 488);
  EXPECT_EQ(perf::RolloutEngine(s).max_num_seqs, 488);
  // max_batch_size (engine.max_num_seqs) below it still caps; above it, the
  // reservations do.
  EXPECT_EQ(perf::RolloutEngine(Load(kOne + "engine: {max_num_seqs: 256}\n")).max_num_seqs, 256);
  EXPECT_EQ(perf::RolloutEngine(Load(kOne + "engine: {max_num_seqs: 2048}\n")).max_num_seqs, 488);
  // Other engines are untouched: vLLM keeps its max_num_seqs default,
  // SGLang no cap.
  EXPECT_EQ(perf::RolloutEngine(Load(With("engine: trtllm", "engine: vllm"))).max_num_seqs, 1024);
  EXPECT_EQ(perf::RolloutEngine(Load(With("engine: trtllm", "engine: sglang"))).max_num_seqs, 0);
}

TEST(TrtllmNoEvict, NoPreemptionMeansNoRecompute) {
  // 1,600 sequences whose peaks (3.2M tokens) overflow the 976k-token cache:
  // an engine that admits on demand and preempts (SGLang here, no cap)
  // recomputes what it evicts; TensorRT-LLM runs them in rounds of 488 that
  // never preempt. Both closed forms against the same engine with the cap
  // written by hand: the trtllm step is the capped one, bit for bit, and
  // costs no more than the preempting one (the same kernels, no recompute).
  const Scenario trt = Load(kOne);
  Scenario by_hand = Load(With("engine: trtllm", "engine: sglang") + "engine: {max_num_seqs: 488}\n");
  Scenario preempting = Load(With("engine: trtllm", "engine: sglang"));
  auto sig = signal::Analyze(trt);
  ASSERT_TRUE(sig);
  auto a = sim::AnalyticStep(trt, *sig);
  auto b = sim::AnalyticStep(by_hand, *sig);
  auto c = sim::AnalyticStep(preempting, *sig);
  ASSERT_TRUE(a && b && c);
  EXPECT_DOUBLE_EQ(a->rollout_s, b->rollout_s);
  EXPECT_LT(a->rollout_s, c->rollout_s);
}

}  // namespace
}  // namespace rlcost
