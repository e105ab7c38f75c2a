// Model verifiers as engine work of the simulator (src/sim/judge.cc;
// docs/model.md, "Judges in the simulator"): the simulated judge agrees with
// the closed form, a judge on the policy's GPUs delays training by what its
// events take, and a dedicated pool too small for its calls is the bottleneck.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/estimate.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "sim/sim_support.h"
#include "support.h"

namespace rlcost::sim {
namespace {

const std::string kRepo = std::string(RLCOST_SOURCE_DIR) + "/scenarios/";

using test::RunSim;

Estimate Sim(const Scenario& s, int steps = 2) {
  Options o;
  o.steps = steps;
  auto e = EstimateSimulated(s, o);
  EXPECT_TRUE(e.has_value()) << (e ? "" : e.error().ToString());
  return e ? *e : Estimate{};
}

Estimate Analytic(const Scenario& s) {
  auto e = EstimateAnalytic(s);
  EXPECT_TRUE(e.has_value()) << (e ? "" : e.error().ToString());
  return e ? *e : Estimate{};
}

// The simulated judge (continuous batching of calls on judge engines) and the
// closed form (prefill of every call + decode in waves of the batch the KV
// cache holds) price the same work: within 10% on both shipped judge
// scenarios, in GPU-seconds, the step's wait and dollars.
TEST(Judges, SimulatedJudgeAgreesWithTheClosedForm) {
  for (const char* f : {"llm-judge.yaml", "llm-judge-rubric.yaml"}) {
    const Scenario s = test::LoadFile(kRepo + f);
    const Estimate a = Analytic(s);
    const Estimate m = Sim(s);
    ASSERT_TRUE(m.sim);
    EXPECT_TRUE(m.sim->judge_simulated) << f;
    EXPECT_GT(a.step.gpu_s_reward, 0) << f;
    EXPECT_NEAR(m.step.verifier_calls, a.step.verifier_calls, 1.0) << f;
    EXPECT_NEAR(m.step.gpu_s_reward / a.step.gpu_s_reward, 1.0, 0.10) << f << ": simulated " << m.step.gpu_s_reward
                                                                       << " GPU-s, closed form " << a.step.gpu_s_reward;
    EXPECT_NEAR(m.step.reward_s / a.step.reward_s, 1.0, 0.10) << f << ": simulated " << m.step.reward_s
                                                             << " s, closed form " << a.step.reward_s;
    EXPECT_NEAR(m.usd_verifier_per_step / a.usd_verifier_per_step, 1.0, 0.10)
        << f << ": simulated $" << m.usd_verifier_per_step << ", closed form $" << a.usd_verifier_per_step;
  }
}

// Sync, judge on the policy's GPUs: generation and training are the same
// events with or without the judge (same seed); the step is longer by exactly
// the judging phase the events ran (weights loaded, every call answered), and
// that phase is the step's reward time.
TEST(Judges, SharedJudgeDelaysTrainingByWhatItsEventsTake) {
  const Scenario judged = test::LoadFile(kRepo + "llm-judge.yaml");
  const Scenario plain = test::LoadFile(kRepo + "llm-judge.yaml", {{"environment.reward.verifier", "{kind: rule}"}});
  const SimResult j = RunSim(judged, 3), p = RunSim(plain, 3);
  ASSERT_TRUE(j.judge_simulated);
  EXPECT_FALSE(p.judge_simulated);
  // (Equal up to rounding: the judged steps start at later clock times.)
  EXPECT_NEAR(j.mean_step.rollout_s, p.mean_step.rollout_s, 1e-9 * p.mean_step.rollout_s);
  EXPECT_NEAR(j.mean_step.train_s, p.mean_step.train_s, 1e-9 * p.mean_step.train_s);
  EXPECT_GT(j.judge_phase_s, 1.0);
  EXPECT_NEAR(j.mean_step.time_s - p.mean_step.time_s, j.judge_phase_s, 1e-9 * j.mean_step.time_s);
  EXPECT_NEAR(j.mean_step.reward_s, j.judge_phase_s, 1e-9 * j.mean_step.time_s);
  // 16 rollouts x 64 prompts, one call each, all answered.
  EXPECT_DOUBLE_EQ(j.judge_calls, 1024);
  // Its GPU-seconds are work on the policy's GPUs, the rest of the phase idle:
  // the split still adds up to the step's GPU time.
  const StepTiming& t = j.mean_step;
  EXPECT_NEAR(t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle, t.time_s * judged.hardware.gpus,
              1e-6 * t.time_s * judged.hardware.gpus);
  EXPECT_NEAR(t.gpu_s_reward, j.judge_busy_gpu_s, 1e-9);
  EXPECT_LE(t.gpu_s_reward, j.judge_phase_s * judged.hardware.gpus * (1 + 1e-9));
  const double causes = j.idle_length_tail_gpu_s + j.idle_waiting_trainer_gpu_s + j.idle_tools_gpu_s +
                        j.idle_weight_sync_gpu_s + j.idle_waiting_rollout_gpu_s + j.idle_waiting_judge_gpu_s +
                        j.idle_judge_pool_gpu_s;
  EXPECT_NEAR(t.gpu_s_idle, causes, 1e-6 * t.time_s * judged.hardware.gpus);
}

// Dedicated judge GPUs work while the policy generates. Eight keep up: calls
// barely queue and the step waits little for its rewards. One is too few for
// 1,024 calls a step: calls queue for tens of seconds, the judge GPU is busy
// nearly the whole step, and the step waits for it.
TEST(Judges, DedicatedPoolOfTooFewGpusIsTheBottleneck) {
  const std::string f = kRepo + "llm-judge.yaml";
  const Scenario eight = test::LoadFile(f, {{"environment.reward.verifier.gpus", "8"}});
  const Scenario one = test::LoadFile(f, {{"environment.reward.verifier.gpus", "1"}});
  const Estimate e8 = Sim(eight), e1 = Sim(one);
  ASSERT_TRUE(e8.sim && e1.sim);
  const SimResult &r8 = *e8.sim, &r1 = *e1.sim;
  ASSERT_TRUE(r8.judge_simulated && r1.judge_simulated);
  EXPECT_EQ(e8.step.verifier_gpus, 8);
  EXPECT_EQ(e1.step.verifier_gpus, 1);
  EXPECT_GT(r1.judge_queue_wait_s, 10 * r8.judge_queue_wait_s);
  EXPECT_GT(r1.judge_max_queue, 100);
  EXPECT_GT(e1.step.reward_s, 3 * e8.step.reward_s);
  EXPECT_GT(e1.step.time_s, e8.step.time_s);
  // The single judge GPU is busy for most of the step.
  EXPECT_GT(r1.judge_busy_gpu_s / e1.step.time_s, 0.5);
  // Its GPU-seconds and the idle of the judge GPUs are the run's.
  for (const Estimate* e : {&e8, &e1}) {
    const StepTiming& t = e->step;
    EXPECT_NEAR(t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle,
                t.time_s * (eight.hardware.gpus + t.verifier_gpus), 1e-6 * t.time_s * 16);
  }
}

// A judge sharing the rollout GPUs of a disaggregated pipeline is not yet run
// as events there: the closed form prices it, and a note says so. Dedicated
// judge GPUs beside a disaggregated pipeline are simulated.
TEST(Judges, DisaggregatedSharedJudgeIsLeftToTheClosedForm) {
  const std::string f = kRepo + "llm-judge.yaml";
  const std::vector<Override> disagg = {{"placement", "{mode: disaggregated, rollout_gpus: 4, train_gpus: 4}"},
                                        {"pipeline", "{mode: async, max_staleness: 1}"}};
  const Scenario shared = test::LoadFile(f, disagg);
  const Estimate es = Sim(shared);
  ASSERT_TRUE(es.sim);
  EXPECT_FALSE(es.sim->judge_simulated);
  EXPECT_GT(es.step.gpu_s_reward, 0);
  bool noted = false;
  for (const auto& n : es.step.notes) noted |= n.find("not yet") != std::string::npos;
  EXPECT_TRUE(noted);

  auto dv = disagg;
  dv.push_back({"environment.reward.verifier.gpus", "2"});
  const Scenario dedicated = test::LoadFile(f, dv);
  const Estimate ed = Sim(dedicated, 4);
  ASSERT_TRUE(ed.sim);
  EXPECT_TRUE(ed.sim->judge_simulated);
  EXPECT_EQ(ed.step.verifier_gpus, 2);
  EXPECT_GT(ed.step.gpu_s_reward, 0);
  EXPECT_GT(ed.sim->judge_calls, 1000);
}

}  // namespace
}  // namespace rlcost::sim
