// The event simulator: determinism, conservation of work, KV preemption,
// multi-turn tools and sandboxes, pipelines, agreement with the analytic path.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/sim_json.h"
#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "support.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"

namespace rlcost::sim {
namespace {

using test::Cat;
using test::Load;
using test::LoadFile;

SimResult RunSim(const Scenario& s, uint64_t seed = 1, int steps = 0, const std::string& trace = "") {
  auto sig = signal::Analyze(s);
  EXPECT_TRUE(sig.has_value());
  Options o;
  o.seed = seed;
  o.steps = steps;
  o.trace_path = trace;
  auto r = Simulate(s, *sig, o);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  return r ? *r : SimResult{};
}

// qwen3-8b on 8 x H100, colocated sync, fixed lengths: 32 prompts x 16 = 512
// rollouts, 64 per engine. KV per token 2*36*8*128*2 B = 147 kB; 64 x 1300
// tokens = 12.3 GB, far inside the KV budget: no contention.
const char* kFixed = R"(
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
environment:
  prompt_tokens: 300
  response_tokens: 1000
  pass_rate: {mean: 0.5, concentration: 2.0}
algorithm: {name: grpo, group_size: 16, prompts_per_step: 32, steps: 4}
)";

void ExpectSameTiming(const StepTiming& a, const StepTiming& b) {
  EXPECT_EQ(a.time_s, b.time_s);
  EXPECT_EQ(a.rollout_s, b.rollout_s);
  EXPECT_EQ(a.train_s, b.train_s);
  EXPECT_EQ(a.other_s, b.other_s);
  EXPECT_EQ(a.logprob_s, b.logprob_s);
  EXPECT_EQ(a.reference_s, b.reference_s);
  EXPECT_EQ(a.weight_sync_s, b.weight_sync_s);
  EXPECT_EQ(a.reward_s, b.reward_s);
  EXPECT_EQ(a.overhead_s, b.overhead_s);
  EXPECT_EQ(a.offload_s, b.offload_s);
  EXPECT_EQ(a.gpu_s_rollout, b.gpu_s_rollout);
  EXPECT_EQ(a.gpu_s_train, b.gpu_s_train);
  EXPECT_EQ(a.gpu_s_other, b.gpu_s_other);
  EXPECT_EQ(a.gpu_s_idle, b.gpu_s_idle);
  EXPECT_EQ(a.rollout_busy_s, b.rollout_busy_s);
  EXPECT_EQ(a.rollout_gpus, b.rollout_gpus);
  EXPECT_EQ(a.train_busy_s, b.train_busy_s);
  EXPECT_EQ(a.rollout_flops, b.rollout_flops);
  EXPECT_EQ(a.train_flops, b.train_flops);
  EXPECT_EQ(a.other_flops, b.other_flops);
  EXPECT_EQ(a.rollouts_generated, b.rollouts_generated);
  EXPECT_EQ(a.rollouts_trained, b.rollouts_trained);
  EXPECT_EQ(a.generated_tokens, b.generated_tokens);
  EXPECT_EQ(a.prefill_tokens, b.prefill_tokens);
  EXPECT_EQ(a.trained_tokens, b.trained_tokens);
  EXPECT_EQ(a.sandbox_cpu_s, b.sandbox_cpu_s);
  EXPECT_EQ(a.mean_batch, b.mean_batch);
  EXPECT_EQ(a.kv_capacity_sequences, b.kv_capacity_sequences);
  EXPECT_EQ(a.notes, b.notes);
}

void ExpectSame(const SimResult& a, const SimResult& b) {
  ExpectSameTiming(a.mean_step, b.mean_step);
  for (auto [x, y] : {std::pair{a.trajectory_time_s, b.trajectory_time_s}, {a.trajectory_tokens, b.trajectory_tokens}}) {
    EXPECT_EQ(x.p50, y.p50);
    EXPECT_EQ(x.p90, y.p90);
    EXPECT_EQ(x.p99, y.p99);
    EXPECT_EQ(x.max, y.max);
  }
  EXPECT_EQ(a.idle_length_tail_gpu_s, b.idle_length_tail_gpu_s);
  EXPECT_EQ(a.idle_waiting_trainer_gpu_s, b.idle_waiting_trainer_gpu_s);
  EXPECT_EQ(a.idle_tools_gpu_s, b.idle_tools_gpu_s);
  EXPECT_EQ(a.idle_weight_sync_gpu_s, b.idle_weight_sync_gpu_s);
  EXPECT_EQ(a.idle_waiting_rollout_gpu_s, b.idle_waiting_rollout_gpu_s);
  EXPECT_EQ(a.sandbox_wait_s, b.sandbox_wait_s);
  EXPECT_EQ(a.mean_batch_occupancy, b.mean_batch_occupancy);
  EXPECT_EQ(a.preemptions, b.preemptions);
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.steps_simulated, b.steps_simulated);
  EXPECT_EQ(a.seed, b.seed);
  EXPECT_EQ(a.engines, b.engines);
  EXPECT_EQ(a.kv_blocks_per_engine, b.kv_blocks_per_engine);
}

void ExpectGpuSecondsAddUp(const Scenario& s, const StepTiming& t) {
  double sum = t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle;
  EXPECT_NEAR(sum, t.time_s * s.hardware.gpus, 1e-6 * sum)
      << s.name << ": rollout " << t.gpu_s_rollout << " train " << t.gpu_s_train << " other " << t.gpu_s_other
      << " idle " << t.gpu_s_idle << "; time " << t.time_s << " rollout_s " << t.rollout_s << " train_s "
      << t.train_s << " other_s " << t.other_s << " busy " << t.rollout_busy_s;
  EXPECT_NEAR(t.time_s, t.rollout_s + t.train_s + t.other_s, 1e-6 * t.time_s) << s.name;
}

std::string Shared(const std::string& rel) { return "/work/shared/" + rel; }

TEST(Simulate, SameSeedGivesIdenticalResult) {
  Scenario s = LoadFile(Shared("scenarios/default.yaml"));
  SimResult a = RunSim(s, 7, 5), b = RunSim(s, 7, 5);
  ExpectSame(a, b);
  nlohmann::json ja = report::SimExtrasToJson(a), jb = report::SimExtrasToJson(b);
  EXPECT_EQ(ja.dump(), jb.dump());
}

TEST(Simulate, DifferentSeedIsDifferentButClose) {
  Scenario s = LoadFile(Shared("scenarios/default.yaml"));
  SimResult a = RunSim(s, 1, 20), b = RunSim(s, 2, 20);
  EXPECT_NE(a.mean_step.time_s, b.mean_step.time_s);
  EXPECT_NE(a.mean_step.generated_tokens, b.mean_step.generated_tokens);
  // 20 steps x 1024 lognormal lengths (cv 0.8): the mean over 20k draws moves
  // by ~0.6%; the step time (set by the tail) by a few %.
  EXPECT_NEAR(a.mean_step.time_s / b.mean_step.time_s, 1.0, 0.03);
  EXPECT_NEAR(a.mean_step.generated_tokens / b.mean_step.generated_tokens, 1.0, 0.02);
}

TEST(Simulate, FixedLengthsConserveWork) {
  Scenario s = Load(kFixed);
  SimResult r = RunSim(s);
  const StepTiming& t = r.mean_step;
  // 512 rollouts: 512 x 1000 tokens decoded, 512 x 300 prefilled, no preemption.
  EXPECT_EQ(t.rollouts_generated, 512);
  EXPECT_DOUBLE_EQ(t.generated_tokens, 512.0 * 1000);
  EXPECT_DOUBLE_EQ(t.prefill_tokens, 512.0 * 300);
  EXPECT_DOUBLE_EQ(t.trained_tokens, 512.0 * 1300);
  EXPECT_EQ(r.preemptions, 0);
  EXPECT_EQ(r.engines, 8);
  // Every trajectory decodes exactly 1000 tokens.
  EXPECT_EQ(r.trajectory_tokens.p50, 1000);
  EXPECT_EQ(r.trajectory_tokens.max, 1000);
  // All 64 sequences of an engine run together: mean batch just under 64
  // (the prefill iterations decode the sequences prefilled before them).
  EXPECT_GT(t.mean_batch, 60);
  EXPECT_LE(t.mean_batch, 64);
  ExpectGpuSecondsAddUp(s, t);
}

TEST(Simulate, AgreesWithAnalyticForFixedLengthsWithinOnePercent) {
  Scenario s = Load(kFixed);
  auto sig = signal::Analyze(s);
  ASSERT_TRUE(sig);
  auto a = AnalyticStep(s, *sig);
  ASSERT_TRUE(a) << a.error().ToString();
  SimResult r = RunSim(s);
  EXPECT_NEAR(r.mean_step.time_s / a->time_s, 1.0, 0.01)
      << "sim " << r.mean_step.time_s << " s, analytic " << a->time_s << " s";
  EXPECT_NEAR(r.mean_step.train_s / a->train_s, 1.0, 1e-9);
  EXPECT_NEAR(r.mean_step.generated_tokens / a->generated_tokens, 1.0, 1e-9);
}

TEST(Simulate, FullKvCachePreemptsAndRecomputes) {
  // 8192-token fixed responses, 128 per engine: 128 x 8492 = 1.09M tokens of
  // KV, 160 GB at 147 kB/token, more than one H100 holds: the cache fills and
  // sequences are preempted, recomputed, and still decode exactly 8192 tokens.
  Scenario s = Load(R"(
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
environment: {prompt_tokens: 300, response_tokens: 8192, pass_rate: {mean: 0.5, concentration: 2.0}}
algorithm: {name: grpo, group_size: 16, prompts_per_step: 64, steps: 2}
)");
  SimResult r = RunSim(s);
  EXPECT_GT(r.preemptions, 0);
  EXPECT_DOUBLE_EQ(r.mean_step.generated_tokens, 1024.0 * 8192);
  EXPECT_GT(r.mean_step.prefill_tokens, 1024.0 * 300);  // recomputed contexts
  EXPECT_EQ(r.trajectory_tokens.max, 8192);
  EXPECT_GT(r.mean_batch_occupancy, 0.8);  // the cache runs nearly full
  EXPECT_LE(r.mean_batch_occupancy, 1.0 + 1e-9);
}

// The analytic / simulated rollout sweep across the KV limit of default.yaml
// (32...512 prompts, within 5%, no jump): kv_limit_sweep_test.cc.

// gpu_time.idle_s and the idle-by-cause breakdown are one definition: the
// four-way split's idle is the sum of the causes, colocated (swe-agent: before,
// idle 0 against ~13,700 GPU-s of length tail and ~5,800 of tools per step)
// and disaggregated (one-step-off: before, the rollout GPUs' sync pauses were
// counted both as `other` and as weight-sync idle). Under-filled decode is busy
// time and is reported apart.
TEST(Simulate, IdleBreakdownSumsToTheGpuSplitsIdle) {
  for (const char* f : {"scenarios/swe-agent.yaml", "validation/nemo-llama8b-1stepoff.yaml"}) {
    Scenario s = LoadFile(Shared(f));
    SimResult r = RunSim(s, 1, 3);
    const StepTiming& t = r.mean_step;
    double causes = r.idle_length_tail_gpu_s + r.idle_waiting_trainer_gpu_s + r.idle_tools_gpu_s +
                    r.idle_weight_sync_gpu_s + r.idle_waiting_rollout_gpu_s + r.idle_waiting_judge_gpu_s +
                    r.idle_judge_pool_gpu_s;
    EXPECT_GT(causes, 0) << f;
    EXPECT_NEAR(t.gpu_s_idle, causes, 1e-6 * t.time_s * s.hardware.gpus) << f;
    EXPECT_GT(r.length_tail_underfill_gpu_s, 0) << f;
    ExpectGpuSecondsAddUp(s, t);
  }
}

TEST(Simulate, MultiTurnToolCallsWithoutSandbox) {
  // 3 turns, 2 tool calls of 5 s each, 100 tokens of tool output per call:
  // every trajectory takes at least 10 s of tools, prefills 300 + 2 x 100
  // tokens and decodes 3 x 200.
  Scenario s = Load(R"(
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
environment:
  turns: 3
  prompt_tokens: 300
  response_tokens: 200
  tool_output_tokens: 100
  tool_latency_s: 5
  pass_rate: {mean: 0.5, concentration: 2.0}
algorithm: {name: grpo, group_size: 8, prompts_per_step: 16, steps: 2}
)");
  SimResult r = RunSim(s);
  EXPECT_DOUBLE_EQ(r.mean_step.generated_tokens, 128.0 * 600);
  EXPECT_DOUBLE_EQ(r.mean_step.prefill_tokens, 128.0 * 500);
  EXPECT_DOUBLE_EQ(r.mean_step.trained_tokens, 128.0 * 1100);
  EXPECT_GE(r.trajectory_time_s.p50, 10.0);
  EXPECT_GT(r.idle_tools_gpu_s, 0);  // engines empty while every trajectory is at its tool
  EXPECT_EQ(r.sandbox_wait_s, 0);
}

TEST(Simulate, SweAgentQueuesForSandboxesOnlyWhenTheyAreScarce) {
  std::string f = Shared("scenarios/swe-agent.yaml");
  SimResult few = RunSim(LoadFile(f, {{"environment.sandbox.max_concurrent", "64"}}), 1, 2);
  SimResult many = RunSim(LoadFile(f, {{"environment.sandbox.max_concurrent", "512"}}), 1, 2);
  // 512 trajectories per step; 512 slots: never a queue. 64 slots: each
  // trajectory holds one for its whole life (30 s start-up, 20 turns, 60 s
  // verification), so at most 64 are in flight and the others queue.
  EXPECT_GT(few.sandbox_wait_s, 0);
  EXPECT_EQ(many.sandbox_wait_s, 0);
  EXPECT_GT(few.mean_step.rollout_s, many.mean_step.rollout_s);
  EXPECT_GT(many.mean_step.sandbox_cpu_s, 0);
}

TEST(Simulate, LockstepDispatchIsNotFasterThanAsync) {
  std::string f = Shared("scenarios/swe-agent.yaml");
  SimResult async = RunSim(LoadFile(f), 1, 2);
  SimResult lock = RunSim(LoadFile(f, {{"pipeline.dispatch", "lockstep"}}), 1, 2);
  EXPECT_GT(lock.mean_step.rollout_s, async.mean_step.rollout_s);
}

TEST(Simulate, OneStepOffOverlapsRolloutAndTraining) {
  std::string f = Shared("validation/nemo-llama8b-1stepoff.yaml");
  SimResult off = RunSim(LoadFile(f), 1, 10);
  SimResult sync = RunSim(LoadFile(f, {{"pipeline.mode", "sync"}}), 1, 10);
  // Same GPUs and work; one-step-off hides the shorter side behind the longer.
  EXPECT_LT(off.mean_step.time_s, sync.mean_step.time_s);
  // Sync on disaggregated GPUs: each side waits for the other.
  EXPECT_GT(sync.idle_waiting_trainer_gpu_s, 0);
  EXPECT_GT(sync.idle_waiting_rollout_gpu_s, 0);
}

TEST(Simulate, PartialRolloutsDoNotWaitForTheDrain) {
  std::string f = Shared("validation/nemo-llama8b-1stepoff.yaml");
  SimResult whole = RunSim(LoadFile(f), 1, 10);
  SimResult partial = RunSim(LoadFile(f, {{"pipeline.partial_rollouts", "true"}}), 1, 10);
  EXPECT_LE(partial.mean_step.weight_sync_s, whole.mean_step.weight_sync_s);
}

TEST(Simulate, EveryShippedScenarioRuns) {
  for (const char* dir : {"scenarios", "validation"}) {
    for (const auto& entry : std::filesystem::directory_iterator(Shared(dir))) {
      if (entry.path().extension() != ".yaml") continue;
      SCOPED_TRACE(entry.path().string());
      Scenario s = LoadFile(entry.path().string());
      SimResult r = RunSim(s, 1, 2);
      EXPECT_GT(r.mean_step.time_s, 0);
      EXPECT_GT(r.events, 0);
      EXPECT_LE(r.trajectory_time_s.p50, r.trajectory_time_s.p90);
      EXPECT_LE(r.trajectory_time_s.p90, r.trajectory_time_s.p99);
      EXPECT_LE(r.trajectory_time_s.p99, r.trajectory_time_s.max);
      ExpectGpuSecondsAddUp(s, r.mean_step);
    }
  }
}

TEST(Simulate, WritesAChromeTrace) {
  std::string path = (std::filesystem::temp_directory_path() / "rlcost_sim_trace_test.json").string();
  Scenario s = LoadFile(Shared("scenarios/process-reward.yaml"));
  RunSim(s, 1, 2, path);
  std::ifstream in(path);
  nlohmann::json j = nlohmann::json::parse(in);  // throws (fails) if malformed
  ASSERT_TRUE(j.contains("traceEvents"));
  int names = 0, spans = 0;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "M" && e["name"] == "thread_name") ++names;
    if (e["ph"] == "X") ++spans;
  }
  EXPECT_EQ(names, 8 + 2);  // 8 engines, the trainer, the sandbox pool
  EXPECT_GT(spans, 0);
  std::filesystem::remove(path);
}

TEST(Simulate, BadTracePathIsAnError) {
  Scenario s = Load(kFixed);
  auto sig = signal::Analyze(s);
  Options o;
  o.trace_path = "/nonexistent-dir/trace.json";
  auto r = Simulate(s, *sig, o);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().code, ErrorCode::kInvalidInput);
}

TEST(SimJson, HasTheDocumentedKeys) {
  SimResult r = RunSim(Load(kFixed), 3, 1);
  nlohmann::json j = report::SimExtrasToJson(r);
  for (const char* k : {"p50", "p90", "p99", "max"}) {
    EXPECT_TRUE(j["trajectory_time_s"].contains(k));
    EXPECT_TRUE(j["trajectory_tokens"].contains(k));
  }
  for (const char* k : {"length_tail", "trainer", "tools", "weight_sync"}) EXPECT_TRUE(j["idle_gpu_s"].contains(k));
  EXPECT_TRUE(j.contains("length_tail_underfill_gpu_s"));
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["steps"], 1);
  EXPECT_TRUE(j.contains("sandbox_wait_s"));
  EXPECT_TRUE(j.contains("mean_batch_occupancy"));
  EXPECT_TRUE(j.contains("events"));
}

}  // namespace
}  // namespace rlcost::sim

namespace rlcost::sim {
namespace {
// Not a check: prints simulated vs analytic for docs/model.md (sim section).
// Run with --gtest_also_run_disabled_tests --gtest_filter='*PrintGap*'.
TEST(Simulate, DISABLED_PrintGap) {
  auto show = [](const std::string& name, const Scenario& s, int steps) {
    auto sig = signal::Analyze(s);
    auto a = AnalyticStep(s, *sig);
    SimResult r = RunSim(s, 1, steps);
    const StepTiming& t = r.mean_step;
    std::printf("%s: sim time %.2f rollout %.2f train %.2f other %.2f batch %.1f | analytic time %.2f rollout %.2f "
                "train %.2f other %.2f batch %.1f | ratio %.4f | tail %.1f tools %.1f trainer %.1f sync %.1f "
                "sbx %.1f occ %.3f preempt %.2f traj p50 %.1f p99 %.1f max %.1f events %lld\n",
                name.c_str(), t.time_s, t.rollout_s, t.train_s, t.other_s, t.mean_batch, a->time_s, a->rollout_s,
                a->train_s, a->other_s, a->mean_batch, t.time_s / a->time_s, r.idle_length_tail_gpu_s,
                r.idle_tools_gpu_s, r.idle_waiting_trainer_gpu_s, r.idle_weight_sync_gpu_s, r.sandbox_wait_s,
                r.mean_batch_occupancy, r.preemptions, r.trajectory_time_s.p50, r.trajectory_time_s.p99,
                r.trajectory_time_s.max, r.events);
  };
  show("fixed", Load(kFixed), 4);
  show("default", LoadFile(Shared("scenarios/default.yaml")), 300);
  show("default-fixed-lengths", LoadFile(Shared("scenarios/default.yaml"), {{"environment.prompt_tokens", "300"}, {"environment.response_tokens", "2000"}}), 5);
  for (const char* f : {"scenarios/swe-agent.yaml", "scenarios/process-reward.yaml", "scenarios/full-stack.yaml",
                        "validation/nemo-llama8b-1stepoff.yaml", "validation/nemo-llama8b-onpolicy.yaml"})
    show(f, LoadFile(Shared(f)), 10);
}
}  // namespace
}  // namespace rlcost::sim
