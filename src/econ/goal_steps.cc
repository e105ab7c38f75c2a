// econ: the goal's steps of an estimate (docs/model.md, sec. 7, 7c, 7d) and
// the thread's memo of them (issue #41): BuildEstimate (estimate.cc) prices them.
#include "econ/goal_steps.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "signal/goal.h"
#include "signal/learning_model.h"
#include "signal/noise_scale.h"

namespace rlcost::econ_internal {
namespace {

// The goal's steps under the learning model (docs/model.md, sec. 7d): the
// useful-sample count at the curve's own group size, times the noise-scale
// factor F(G) = (1 + rho / ((G - 1) V)) / (1 + rho / ((G_ref - 1) V)).
// Where the model does not apply, the count stands and `learning_note` says why.
void LearningModelSteps(const Scenario& s, const LearningCurveSpec& curve, const signal::GoalProgress& counted,
                        GoalEstimate& g) {
  const AlgorithmSpec& alg = s.algorithm;
  if (alg.critic) {
    g.learning_note = "a critic's advantage is not a group's: the noise-scale model (derived for a group baseline) "
                      "does not apply, so the steps count useful samples";
    return;
  }
  if (s.environment.reward.type == RewardType::kProcess) {
    g.learning_note = "a process reward: the noise-scale model is derived for one pass/fail reward a rollout, so the "
                      "steps count useful samples";
    return;
  }
  // The curve's run is taken at G = 16 (the essay's naive baseline, ScaleRL's runs): an ASSUMPTION, said in the note.
  const int g_ref = signal::kCurveGroupSize;
  g.learning_group_ref = g_ref;
  g.learning_steps_ref = counted.steps;
  g.learning_factor = 1;
  if (alg.group_size != g_ref && counted.steps > 0) {
    Scenario r = s;
    r.algorithm.group_size = g_ref;
    auto sig = signal::Analyze(r, TextDetail::kNumbers);
    if (!sig) {
      g.learning_note = "the curve's group size could not be analysed (" + sig.error().ToString() + "): useful samples counted";
      return;
    }
    auto p = signal::StepsToTarget(r, curve, g.target_pass_rate, *sig, signal::GoalDetail::kStepsOnly);
    const double f = signal::GroupSizeStepsFactor(s.environment.pass_rate, alg.group_size, g_ref, signal::kLearningRho);
    if (!p || !p->reachable || !std::isfinite(f)) {
      g.learning_note = fmt::format("the target is not reachable at the curve's G = {} or G = {} carries no signal: "
                                    "useful samples counted", g_ref, alg.group_size);
      return;
    }
    g.learning_steps_ref = p->steps;
    g.learning_factor = f;
    g.steps = std::ceil(p->steps * f);
  }
  g.learning_model = "noise_scale";
}

// The goal's steps (signal::StepsToTarget, LearningModelSteps and the
// noise-scale view below) are a function of the fields this key holds and of
// nothing else: the goal (target, curve, b_noise); environment.pass_rate
// (EffectivePassRate, FitPilot, whose messages name its file); environment.reward's type, credited steps and
// noise (ChannelOf, CheckInputs); environment.failures; the algorithm's group
// size, prompts, steps, critic and dynamic-sampling plan (PlanOf); and the
// summary's useful samples a step and informative fraction (the only fields of
// `sig` StepsToTarget reads; LearningModelSteps analyses its own scenario, at
// the curve's group size, from the same fields). A sweep's points that differ
// in none of them (the layout, the lengths, the hardware) share the goal's
// steps, so they are kept for the last few keys of this thread (issue #41).
// Doubles compare as bits: equal bits give the same result, bit for bit.
// tests/econ/goal_memo_test.cc sweeps each field and checks every point
// against a fresh computation.
struct GoalKey {
  std::vector<uint64_t> bits;  // every number of the key, as bits, in one order
  std::string preset, preset_label, pilot_file;  // the curve's names; the pilot's path (FitPilot's messages)
  bool operator==(const GoalKey&) const = default;
};

uint64_t Bits(double x) { return std::bit_cast<uint64_t>(x); }

GoalKey GoalKeyOf(const Scenario& s, const LearningCurveSpec& curve, const signal::Summary& sig) {
  GoalKey k;
  auto& b = k.bits;
  const auto& pr = s.environment.pass_rate;
  const auto& reward = s.environment.reward;
  const auto& alg = s.algorithm;
  b.reserve(40 + 2 * pr.histogram.size() + pr.task_pass_rates.size());
  // The goal.
  b.push_back(Bits(s.goal.target_pass_rate.value_or(0)));
  b.push_back(s.goal.target_pass_rate.has_value());
  b.push_back(s.goal.curve.has_value());
  b.push_back(Bits(curve.asymptote));
  b.push_back(Bits(curve.exponent));
  b.push_back(Bits(curve.midpoint_useful_samples));
  b.push_back(curve.batch_useful_samples.has_value());
  b.push_back(Bits(curve.batch_useful_samples.value_or(0)));
  b.push_back(curve.borrowed);
  k.preset = curve.preset;
  k.preset_label = curve.preset_label;
  k.pilot_file = s.environment.pass_rate.file;
  b.push_back(s.goal.b_noise.has_value());
  b.push_back(Bits(s.goal.b_noise.value_or(0)));
  // The base model's pass rates.
  b.push_back(static_cast<uint64_t>(pr.kind));
  b.push_back(Bits(pr.a));
  b.push_back(Bits(pr.b));
  b.push_back(static_cast<uint64_t>(static_cast<int64_t>(pr.samples_per_task)));
  b.push_back(pr.histogram.size());
  for (const auto& [p, w] : pr.histogram) {
    b.push_back(Bits(p));
    b.push_back(Bits(w));
  }
  b.push_back(pr.task_pass_rates.size());
  for (double p : pr.task_pass_rates) b.push_back(Bits(p));
  // The reward and the environment's failures.
  b.push_back(static_cast<uint64_t>(reward.type));
  b.push_back(static_cast<uint64_t>(static_cast<int64_t>(reward.credited_steps)));
  b.push_back(Bits(reward.noise.false_positive));
  b.push_back(Bits(reward.noise.false_negative));
  b.push_back(Bits(s.environment.failures.rate));
  b.push_back(s.environment.failures.retry);
  // The algorithm.
  for (int v : {alg.group_size, alg.prompts_per_step, alg.steps, alg.gen_batch_prompts, alg.max_gen_batches}) {
    b.push_back(static_cast<uint64_t>(static_cast<int64_t>(v)));
  }
  b.push_back(alg.critic);
  b.push_back(alg.dynamic_sampling);
  // The summary's figures StepsToTarget reads.
  b.push_back(Bits(sig.useful_samples_per_step));
  b.push_back(Bits(sig.informative_fraction));
  return k;
}

// The goal's steps and their views into `g` (BuildEstimate, below): what a
// GoalEstimate holds but its GPU-hours and dollars, which the step prices.
void ComputeGoalSteps(const Scenario& s, const LearningCurveSpec& curve, const signal::Summary& sig, GoalEstimate& g) {
  auto progress = signal::StepsToTarget(s, curve, g.target_pass_rate, sig, signal::GoalDetail::kStepsOnly);
  if (!progress) {
    g.reachable = false;
    g.reason = progress.error().ToString();
  } else if (!progress->reachable) {
    g.reachable = false;
    g.reason = progress->reason;
  } else {
    // Each step costs what this step costs; the signal per step follows the
    // curve (signal::StepsToTarget).
    g.reachable = true;
    g.steps = progress->steps;
    g.steps_useful_samples = progress->steps;
    if (progress->steps > 0) g.useful_samples_per_step = progress->useful_samples / progress->steps;
    if (!s.goal.b_noise) LearningModelSteps(s, curve, *progress, g);  // docs/model.md, sec. 7d
    if (s.goal.b_noise) {  // the noise-scale view (docs/model.md, sec. 7c)
      if (!curve.batch_useful_samples) {
        g.noise_scale_reason =
            "goal.b_noise is set but not the batch the curve was measured at (goal.curve.batch_useful_samples)";
      } else if (auto v = signal::NoiseScaleSteps(progress->steps, progress->useful_samples,
                                                  *curve.batch_useful_samples, *s.goal.b_noise)) {
        g.steps_noise_scale = std::ceil(v->steps_noise_scale);
        g.steps = g.steps_noise_scale;
        g.steps_view = "noise_scale";
        g.learning_model = "noise_scale_given";  // B_noise stated (goal.b_noise), sec. 7c
      } else {
        g.noise_scale_reason = v.error().ToString();
      }
    }
  }
}

#ifndef NDEBUG
bool SameBits(double a, double b) { return Bits(a) == Bits(b); }

// Every field ComputeGoalSteps writes (GPU-hours and dollars are priced
// after it, from the point's own step).
bool SameGoalSteps(const GoalEstimate& a, const GoalEstimate& b) {
  return a.requested == b.requested && a.reachable == b.reachable && a.reason == b.reason &&
         SameBits(a.target_pass_rate, b.target_pass_rate) && SameBits(a.steps, b.steps) &&
         a.curve_is_illustrative == b.curve_is_illustrative && a.curve == b.curve && a.steps_view == b.steps_view &&
         SameBits(a.steps_useful_samples, b.steps_useful_samples) &&
         SameBits(a.useful_samples_per_step, b.useful_samples_per_step) &&
         SameBits(a.steps_noise_scale, b.steps_noise_scale) && a.noise_scale_reason == b.noise_scale_reason &&
         a.learning_model == b.learning_model && SameBits(a.learning_factor, b.learning_factor) &&
         a.learning_group_ref == b.learning_group_ref && SameBits(a.learning_steps_ref, b.learning_steps_ref) &&
         a.learning_note == b.learning_note;
}
#endif

// The last kGoalMemo goals of this thread, with their keys.
constexpr int kGoalMemo = 16;
struct GoalMemo {
  std::array<std::pair<GoalKey, GoalEstimate>, kGoalMemo> entries;
  int used = 0, next = 0;
};

const GoalEstimate* FindGoal(const GoalMemo& memo, const GoalKey& key) {
  for (int i = 0; i < memo.used; ++i) {
    if (memo.entries[i].first == key) return &memo.entries[i].second;
  }
  return nullptr;
}

void KeepGoal(GoalMemo& memo, GoalKey key, const GoalEstimate& g) {
  memo.entries[memo.next] = {std::move(key), g};
  memo.next = (memo.next + 1) % kGoalMemo;
  memo.used = std::min(memo.used + 1, kGoalMemo);
}

}  // namespace

void GoalSteps(const Scenario& s, const LearningCurveSpec& curve, const signal::Summary& sig, GoalEstimate& g) {
  thread_local GoalMemo goal_memo;
  GoalKey key = GoalKeyOf(s, curve, sig);
  if (const GoalEstimate* kept = FindGoal(goal_memo, key)) {
#ifndef NDEBUG
    // A key that misses a field the goal reads would answer another point's
    // goal. Builds with asserts (debug, the sanitizer build every test runs
    // under in CI) recompute each hit and compare it, so a field added to the
    // goal's inputs without adding it to GoalKeyOf fails a test, not a user.
    GoalEstimate fresh = g;
    ComputeGoalSteps(s, curve, sig, fresh);
    assert(SameGoalSteps(fresh, *kept) && "GoalKeyOf misses a field the goal's steps read");
#endif
    g = *kept;
    return;
  }
  ComputeGoalSteps(s, curve, sig, g);
  KeepGoal(goal_memo, std::move(key), g);
}

}  // namespace rlcost::econ_internal
