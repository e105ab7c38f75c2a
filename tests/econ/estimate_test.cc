// The analytic estimate end to end: every shared scenario, the issue's bounds
// for the default scenario, and properties that hold for every scenario.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "rlcost/estimate.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;
using test::SharedScenarioFiles;

namespace fs = std::filesystem;

TEST(Estimate, DefaultScenarioMeetsTheIssueBounds) {
  // Issue 2: decode is bandwidth-bound (mfu.rollout < 0.15), training runs at
  // 0.2-0.6 MFU and generation takes 35-95% of GPU time.
  auto s = DefaultScenario(Cat()).value();
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  EXPECT_LT(e->mfu_rollout, 0.15);
  EXPECT_GT(e->mfu_rollout, 0.0);
  EXPECT_GT(e->mfu_train, 0.2);
  EXPECT_LT(e->mfu_train, 0.6);
  EXPECT_GT(e->rollout_fraction, 0.35);
  EXPECT_LT(e->rollout_fraction, 0.95);
}

TEST(Estimate, EverySharedScenarioEstimatesWithSaneNumbers) {
  auto files = SharedScenarioFiles();
  if (files.empty()) GTEST_SKIP() << "../shared not present";
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    auto s = LoadScenarioFile(f, Cat());
    ASSERT_TRUE(s.has_value()) << s.error().ToString();
    auto e = EstimateAnalytic(*s);
    ASSERT_TRUE(e.has_value()) << e.error().ToString();
    const StepTiming& t = e->step;
    // The split adds up to the step.
    EXPECT_NEAR(t.rollout_s + t.train_s + t.other_s, t.time_s, 1e-6 * t.time_s);
    // GPU time accounted for equals wall time x GPUs.
    double accounted = t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle;
    EXPECT_NEAR(accounted, t.time_s * s->hardware.gpus, 1e-6 * accounted);
    // Nothing negative, MFU within 0..1.
    for (double v : {t.time_s, t.rollout_s, t.train_s, t.other_s, t.gpu_s_rollout, t.gpu_s_train,
                     t.gpu_s_other, t.gpu_s_idle, e->usd_per_step, e->usd, e->gpu_hours, e->cpu_hours}) {
      EXPECT_GE(v, 0.0);
    }
    EXPECT_GT(e->mfu_rollout, 0.0);
    EXPECT_LE(e->mfu_rollout, 1.0);
    EXPECT_GT(e->mfu_train, 0.0);
    EXPECT_LE(e->mfu_train, 1.0);
    EXPECT_GT(e->usd_per_step, 0.0);
    // Dollars are GPU-hours times the price (plus sandboxes).
    EXPECT_NEAR(e->usd, e->gpu_hours * s->hardware.price_per_gpu_hour + e->cpu_hours *
                            (s->environment.sandbox ? s->environment.sandbox->price_per_cpu_hour : 0.0),
                1e-6 * e->usd);
    // Dollars by phase add up to the run's dollars; the steps' GPU part is
    // split in the proportions of the step's GPU-seconds.
    const UsdByPhase& u = e->usd_by_phase;
    EXPECT_NEAR(u.total(), e->usd, 1e-9 * e->usd);
    for (double v : {u.rollout, u.train, u.other, u.idle, u.sandbox, u.startup, u.checkpoints, u.evaluation, u.restarts}) {
      EXPECT_GE(v, 0.0);
    }
    if (u.train > 0) EXPECT_NEAR(u.rollout / u.train, t.gpu_s_rollout / t.gpu_s_train, 1e-9 * u.rollout / u.train);
    EXPECT_NEAR(u.startup, e->run.startup_h * s->hardware.gpus * s->hardware.price_per_gpu_hour, 1e-9 * e->usd);
  }
}

TEST(Estimate, EveryMetricIsDeclaredOnceAndContractKeysArePresent) {
  const char* contract[] = {"step.time_s", "step.rollout_s", "step.train_s", "step.other_s", "rollout_fraction",
                            "mfu.rollout", "mfu.train", "throughput.tokens_per_s_per_gpu",
                            "rollout.output_tokens_per_s_per_gpu", "signal.rollouts_per_step",
                            "signal.informative_fraction", "signal.useful_samples_per_step",
                            "signal.reward_bits_per_rollout", "cost.usd_per_step", "cost.usd_per_useful_sample",
                            "cost.gpu_hours", "cost.cpu_hours", "run.wall_time_h", "run.usd"};
  for (const char* k : contract) {
    const MetricDef* m = FindMetric(k);
    ASSERT_NE(m, nullptr) << k;
    EXPECT_TRUE(m->contract) << k;
  }
  std::set<std::string_view> seen;
  for (const auto& m : Metrics()) EXPECT_TRUE(seen.insert(m.key).second) << "duplicate " << m.key;
}

TEST(Estimate, FixedLengthRolloutIsTheHandRoofline) {
  // Fixed lengths, everything fits: the rollout is one prefill of all prompts
  // and `response` decode iterations of the whole batch: nothing else.
  auto s = DefaultScenario(Cat(), {{"environment.response_tokens", "500"},
                                   {"environment.prompt_tokens", "200"}}).value();
  auto e = EstimateAnalytic(s).value();
  perf::EngineConfig ec{&s.model, &s.hardware.gpu, s.hardware.gpu.efficiency, 1, Precision::kBf16,
                        Precision::kBf16};
  double n = 64.0 * 16 / 8;  // rollouts per engine
  double expected = perf::Prefill(ec, n * 200, 0, n).time_s + perf::DecodeIterations(ec, n, n * 200, 500).time_s;
  EXPECT_NEAR(e.step.rollout_s, expected, 1e-9 * expected);
  EXPECT_NEAR(e.step.generated_tokens, 64 * 16 * 500, 1e-6);
}

TEST(Estimate, LengthTailCostsMoreThanTheMean) {
  // Same mean length, a long tail: the synchronous step waits for stragglers.
  auto fixed = DefaultScenario(Cat(), {{"environment.response_tokens", "2000"}}).value();
  auto tail = DefaultScenario(Cat()).value();  // mean 2000, cv 0.8, max 8192
  double t_fixed = EstimateAnalytic(fixed)->step.rollout_s;
  double t_tail = EstimateAnalytic(tail)->step.rollout_s;
  EXPECT_GT(t_tail, 1.5 * t_fixed);
  // And its rollout MFU is lower: the batch drains.
  EXPECT_LT(EstimateAnalytic(tail)->mfu_rollout, EstimateAnalytic(fixed)->mfu_rollout);
}

TEST(Estimate, AsyncOverlapsTheSlowerSide) {
  auto sync = DefaultScenario(Cat()).value();
  auto async = DefaultScenario(Cat(), {{"placement", "{mode: disaggregated, rollout_gpus: 6, train_gpus: 2}"},
                                       {"pipeline", "{mode: async, max_staleness: 1}"}});
  ASSERT_TRUE(async.has_value()) << async.error().ToString();
  auto e = EstimateAnalytic(*async).value();
  // The step is the slower side plus the weight sync, never the sum.
  double slow = std::max(e.step.rollout_busy_s, e.step.train_busy_s);
  EXPECT_NEAR(e.step.time_s, slow + e.step.weight_sync_s, 0.02 * e.step.time_s);
  EXPECT_GT(e.step.gpu_s_idle, 0.0);
}

TEST(Estimate, HigherPriceCostsMoreButTakesNoLonger) {
  auto a = DefaultScenario(Cat()).value();
  auto b = DefaultScenario(Cat(), {{"hardware.price_per_gpu_hour", "10"}}).value();
  auto ea = EstimateAnalytic(a).value(), eb = EstimateAnalytic(b).value();
  EXPECT_DOUBLE_EQ(ea.step.time_s, eb.step.time_s);
  EXPECT_NEAR(eb.usd / ea.usd, 10.0 / a.hardware.price_per_gpu_hour, 1e-9);
}

TEST(Estimate, NewerGpuIsFaster) {
  auto h100 = DefaultScenario(Cat()).value();
  auto b200 = DefaultScenario(Cat(), {{"hardware.gpu", "b200"}}).value();
  EXPECT_LT(EstimateAnalytic(b200)->step.time_s, EstimateAnalytic(h100)->step.time_s);
}

}  // namespace
}  // namespace rlcost

namespace rlcost {
namespace {

TEST(Estimate, OverlapSchedulingEnginesHideTheIterationOverhead) {
  // vllm keeps the catalog's measured per-iteration CPU gap; sglang and
  // trtllm overlap it (0), vllm-async leaves 160 us. With the default
  // scenario's long tail (thousands of small-batch iterations) that is seconds.
  auto vllm = DefaultScenario(Cat()).value();
  auto sglang = DefaultScenario(Cat(), {{"placement.engine", "sglang"}}).value();
  auto async = DefaultScenario(Cat(), {{"placement.engine", "vllm-async"}}).value();
  EXPECT_EQ(vllm.placement.engine, InferenceEngine::kVllm);
  EXPECT_DOUBLE_EQ(vllm.hardware.gpu.efficiency.decode_iter_overhead_s,
                   Cat().FindGpu("h100-sxm")->efficiency.decode_iter_overhead_s);
  // The engine's figure is derived where the rollout engine is built
  // (perf::RolloutEfficiency), not written into the GPU at load.
  EXPECT_DOUBLE_EQ(perf::RolloutEfficiency(vllm).decode_iter_overhead_s,
                   Cat().FindGpu("h100-sxm")->efficiency.decode_iter_overhead_s);
  EXPECT_DOUBLE_EQ(perf::RolloutEfficiency(sglang).decode_iter_overhead_s, 0.0);
  EXPECT_DOUBLE_EQ(perf::RolloutEfficiency(async).decode_iter_overhead_s, 160e-6);
  double t_vllm = EstimateAnalytic(vllm)->step.rollout_s;
  double t_async = EstimateAnalytic(async)->step.rollout_s;
  double t_sglang = EstimateAnalytic(sglang)->step.rollout_s;
  EXPECT_LT(t_sglang, t_async);
  EXPECT_LT(t_async, t_vllm);
  // Nothing but generation changes.
  EXPECT_DOUBLE_EQ(EstimateAnalytic(vllm)->step.train_s, EstimateAnalytic(sglang)->step.train_s);
}

TEST(Estimate, PpoCriticTrainsASecondModelOfThePolicysSize) {
  // ppo defaults to a critic; critic: false (AReaL's disable_value) drops the
  // value forward and the critic update, so the update is the policy's alone.
  auto grpo = DefaultScenario(Cat()).value();
  auto ppo = DefaultScenario(Cat(), {{"algorithm.name", "ppo"}}).value();
  auto ppo_nc = DefaultScenario(Cat(), {{"algorithm.name", "ppo"}, {"algorithm.critic", "false"}}).value();
  EXPECT_TRUE(ppo.algorithm.critic);
  EXPECT_FALSE(ppo_nc.algorithm.critic);
  auto e_grpo = EstimateAnalytic(grpo).value();
  auto e_ppo = EstimateAnalytic(ppo).value();
  auto e_nc = EstimateAnalytic(ppo_nc).value();
  EXPECT_DOUBLE_EQ(e_nc.step.train_s, e_grpo.step.train_s);
  // Critic update = policy update; plus a value forward, which costs what a
  // log-prob pass costs (same tokens, same model size).
  EXPECT_NEAR(e_ppo.step.train_s, 2 * e_grpo.step.train_s + e_grpo.step.logprob_s, 1e-9 * e_ppo.step.train_s);
  // Without a critic the advantage is the group's: GRPO's informative fraction.
  EXPECT_DOUBLE_EQ(e_nc.signal.informative_fraction, e_grpo.signal.informative_fraction);
  EXPECT_GT(e_ppo.signal.informative_fraction, e_grpo.signal.informative_fraction);
}

TEST(Estimate, AssumptionsSayWhereTensorParallelismRuns) {
  // DeepSeek-V3 on 256 x H100 at rollout_tp 32 (the NeMo RL v0.6 case):
  // 32 GPUs span 4 NVLink domains of 8, and the MLA latent is held whole by
  // each of the 32 ranks. The default scenario (tp 1) says neither. (The
  // default as rlcost's own stand: veRL's engine share of 0.5 cannot hold
  // DeepSeek-V3's 41.9 GB per GPU at tp 32 beside the 8 GB reserve.)
  auto s = test::DefaultWithoutFramework(Cat(), {{"model", "deepseek-v3"}, {"hardware.gpus", "256"},
                                   {"placement.rollout_tp", "32"}}).value();
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e.has_value()) << e.error().ToString();
  auto has = [&](const Estimate& est, const std::string& words) {
    for (const auto& a : est.assumptions)
      if (a.find(words) != std::string::npos) return true;
    return false;
  };
  EXPECT_TRUE(has(*e, "rollout_tp 32 spans 4 NVLink domains of 8 GPUs (h100-sxm)"));
  EXPECT_TRUE(has(*e, "the MLA latent is held whole by each of the 32 ranks"));
  auto plain = EstimateAnalytic(DefaultScenario(Cat()).value()).value();
  EXPECT_FALSE(has(plain, "NVLink domains"));
  EXPECT_FALSE(has(plain, "KV cache:"));
  EXPECT_FALSE(has(plain, "memory plan:"));
  // Llama-3.1-70B bf16 on 16 rollout H100s: rollout_tp 8 holds 17.65 GB of
  // weights per GPU (70.6e9 * 2 / 8) and leaves 80 - 17.65 - 8 = 54.35 GB,
  // 54.35e9 / 327,680 B (2*80*8*128*2) = 166k tokens per GPU; rollout_tp 4:
  // 35.3 GB of weights, 36.7 GB left, 112k tokens. The note says why tp 8 can
  // be faster per GPU than tp 4.
  auto big = test::DefaultWithoutFramework(Cat(), {{"model", "llama-3.1-70b"}, {"hardware.gpus", "64"},
                                     {"placement.mode", "disaggregated"}, {"placement.rollout_gpus", "16"},
                                     {"placement.rollout_tp", "8"}}).value();
  auto b = EstimateAnalytic(big).value();
  EXPECT_TRUE(has(b, "memory plan: rollout_tp 8 leaves 166k tokens of KV cache per GPU"));
  EXPECT_TRUE(has(b, "rollout_tp 4 would leave 112k (35.3 GB)"));
}

TEST(Estimate, UnknownEngineNamesThePathAndTheChoices) {
  auto s = DefaultScenario(Cat(), {{"placement.engine", "tgi"}});
  ASSERT_FALSE(s.has_value());
  std::string msg = s.error().ToString();
  EXPECT_NE(msg.find("placement.engine"), std::string::npos) << msg;
  EXPECT_NE(msg.find("vllm | vllm-async | sglang | trtllm"), std::string::npos) << msg;
}

}  // namespace
}  // namespace rlcost
