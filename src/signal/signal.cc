// The signal stage: informative groups, useful samples, reward bits,
// dynamic-sampling oversampling, exploration hardness, the pilot fit and the
// learning curve (signal/signal_parts.h lists the files). Analyze: the
// stage's figures for a scenario and their notes. Every formula is derived in
// docs/model.md (signal section).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "signal/signal_parts.h"
#include "core/count.h"

namespace rlcost::signal {

using namespace detail;

namespace {

// What the notes need besides the summary: the distribution, the verifier,
// the step's generation plan and signal.
struct Worked {
  PassRateSpec eff;
  Channel ch;
  RoundPlan plan;
  StepSignal step;
  int g = 1, k = 1, tasks = 0;
  bool process = false, ppo = false;
};

// The algorithm and reward fields the stage divides by or takes as rates.
Result<void> CheckInputs(const Scenario& s) {
  const AlgorithmSpec& alg = s.algorithm;
  const RewardSpec& reward = s.environment.reward;
  const bool process = reward.type == RewardType::kProcess;
  if (alg.group_size < 1)
    return Fail(Error::Invalid("algorithm.group_size", fmt::format("{}; expected >= 1", alg.group_size)));
  if (alg.prompts_per_step < 1)
    return Fail(Error::Invalid("algorithm.prompts_per_step", fmt::format("{}; expected >= 1", alg.prompts_per_step)));
  if (alg.steps < 0) return Fail(Error::Invalid("algorithm.steps", fmt::format("{}; expected >= 0", alg.steps)));
  if (process && reward.credited_steps < 1)
    return Fail(Error::Invalid("environment.reward.credited_steps",
                               fmt::format("{}; expected >= 1", reward.credited_steps)));
  for (auto [rate, key] : {std::pair{reward.noise.false_positive, "false_positive"},
                            std::pair{reward.noise.false_negative, "false_negative"}}) {
    if (!(rate >= 0 && rate < 1))
      return Fail(Error::Invalid(fmt::format("environment.reward.noise.{}", key),
                                 fmt::format("{}; expected a rate in [0, 1)", rate)));
  }
  if (!(reward.noise.false_positive + reward.noise.false_negative < 1))
    return Fail(Error::Invalid("environment.reward.noise",
                               fmt::format("false_positive + false_negative = {}; expected a sum below 1",
                                           reward.noise.false_positive + reward.noise.false_negative)));
  return {};
}

// The pilot fit, and which rollouts carry a gradient.
void AddPilotAndGroupNotes(const Scenario& s, const Worked& w, Summary& out) {
  const AlgorithmSpec& alg = s.algorithm;
  const auto& [eff, ch, plan, step, g, k, tasks, process, ppo] = w;
  const std::string algo(ToString(alg.name));
  if (out.pilot.present) {
    const PilotFit& f = out.pilot;
    out.notes.push_back(fmt::format(
        "pilot: {} of {} tasks never solved in {} samples (and {} always solved); the Beta-binomial fit "
        "(a = {:.3f}, b = {:.3f}, mean {:.3f} vs the file's {:.3f}) puts {} of tasks below p = 1/{} "
        "(about {:.0f} tasks) and expects {:.1f} tasks at 0/{}",
        f.never_solved, f.tasks, f.samples_per_task, f.always_solved, f.fit_a, f.fit_b, f.fit_mean,
        f.observed_mean, Percent(f.fit_mass_below_1_over_n), f.samples_per_task, f.expected_tasks_below_1_over_n,
        f.expected_never_solved, f.samples_per_task));
    if (s.environment.pass_rate.samples_per_task == 0)
      out.notes.push_back(fmt::format("pilot: {} samples per task inferred from the rates' granularity",
                                      f.samples_per_task));
    if (f.at_bound)
      out.notes.push_back(
          "pilot: the fit ran to a bound (a or b at 0.001 or 10^6): the file does not pin the spread of "
          "pass rates down; treat the fitted distribution with care");
  }
  if (ppo) {
    out.notes.push_back(fmt::format(
        "ppo: the critic's advantage is non-zero for every rollout whose reward differs from the critic's "
        "prediction; with a critic that has learned each task's pass rate p, that is every rollout of a task "
        "with 0 < p < 1 ({} of rollouts); the mean |advantage| per rollout is E[2p(1-p)] = {:.3f}",
        Percent(InteriorMass(eff)), out.mean_abs_advantage));
  } else {
    out.notes.push_back(fmt::format(
        "{} of groups of {} have mixed {} (mean pass rate {:.3f}); only those carry a gradient under {}",
        Percent(out.informative_group_probability), g,
        process ? "step rewards" : (ch.clean() ? "pass/fail outcomes" : "rewards (as the verifier gives them)"),
        out.mean_pass_rate, algo));
  }
}

// Dynamic sampling's rounds, when it is on.
void AddDynamicSamplingNotes(const Scenario& s, const Worked& w, Summary& out) {
  const AlgorithmSpec& alg = s.algorithm;
  const auto& [eff, ch, plan, step, g, k, tasks, process, ppo] = w;
  if (alg.dynamic_sampling) {
    if (step.impractical) {
      out.notes.push_back(fmt::format(
          "a full batch of informative groups is practically impossible: P = {:.3g} per group; costs assume "
          "regeneration stops at {:.0f} rollouts generated per rollout trained on, with {} of the batch "
          "informative",
          out.informative_group_probability, kMaxOversampling, Percent(step.informative_fraction)));
    } else {
      out.notes.push_back(fmt::format(
          "dynamic sampling: {:.2f} rollouts generated per rollout trained on: {:.2f} generation rounds of {:.0f} "
          "prompts per step on average, until {} groups with mixed rewards are kept (P = {:.4f} per group; "
          "1/P = {:.2f} if generation could stop at the last one needed), as veRL's DAPO trainer loops",
          step.oversampling, step.rounds, plan.per_round, alg.prompts_per_step, out.informative_group_probability,
          1 / out.informative_group_probability));
    }
    if (plan.max_rounds > 0 && step.fail_probability > 1e-3) {
      out.notes.push_back(fmt::format(
          "dynamic sampling: {} of steps are still short of {} informative groups after max_gen_batches = {} "
          "rounds; veRL's DAPO trainer stops the run with an error there (costs count {} rounds for such a step)",
          Percent(step.fail_probability), alg.prompts_per_step, plan.max_rounds, plan.max_rounds));
    }
  }
}

// What a reward says: its bits, its noise, the verifier ensemble.
void AddRewardNotes(const Scenario& s, const Worked& w, Summary& out) {
  const auto& [eff, ch, plan, step, g, k, tasks, process, ppo] = w;
  const auto& rubric = s.environment.reward.rubric;
  if (!rubric.empty()) {
    int stated = 0;
    for (const auto& it : rubric) stated += it.pass_rate ? 1 : 0;
    out.notes.push_back(fmt::format(
        "reward: {:.3f} bits per rollout, the entropy of the rubric's graded score (sum of weight x verdict over "
        "{} criteria, normalised by the weights' sum), ASSUMED: each criterion met independently of the others, "
        "{} at its stated pass rate{}; {:.3f} bits for one pass/fail outcome",
        out.reward_bits_per_rollout, rubric.size(), stated,
        stated == int(rubric.size()) ? std::string()
                                     : fmt::format(", the rest at the mean pass rate {:.3f}", out.mean_pass_rate),
        RewardBits(eff, k, ch)));
  } else if (process) {
    out.notes.push_back(fmt::format(
        "process reward: {:.2f} bits per rollout from {} credited steps (each step passes with p^(1/{}), "
        "independently; {} bits at most) vs {:.3f} for the outcome alone; {} of groups informative vs {} "
        "with the outcome alone",
        out.reward_bits_per_rollout, k, k, k, RewardBits(eff, 1),
        Percent(out.informative_group_probability), Percent(out.outcome_informative_group_probability)));
  } else if (!ch.clean()) {
    out.notes.push_back(fmt::format(
        "reward: {:.3f} bits per rollout about the true outcome (mutual information of the noisy reward and "
        "the outcome, E[H(q)] - E[p] H(fn) - E[1-p] H(fp); {:.3f} with a correct verifier)",
        out.reward_bits_per_rollout, RewardBits(eff, 1)));
  } else {
    out.notes.push_back(fmt::format(
        "reward: {:.3f} bits per rollout (expected binary entropy E[H(p)] of one pass/fail outcome; 1 at most)",
        out.reward_bits_per_rollout));
  }
  if (!ch.clean()) {
    out.notes.push_back(fmt::format(
        "noisy reward (assumed verifier error rates, as given): {} of wrong rollouts rewarded, {} of right ones "
        "not; the rewarded share is {:.3f} (true pass rate {:.3f}); groups count as informative on the rewards "
        "they show, and each useful sample carries {:.2f}x the expected gradient of a clean one (1 - {} - {})",
        Percent(ch.fp), Percent(ch.fn), out.observed_pass_rate, out.mean_pass_rate, ch.scale(), ch.fp, ch.fn));
  }
  if (const auto& v = s.environment.reward.verifier; v.kind == VerifierKind::kEnsemble) {
    out.notes.push_back(fmt::format(
        "ensemble of {} verifiers, {}: its error rates {} / {} follow from the members' as given, ASSUMED "
        "independent given whether the rollout is right (correlated judges err together and do worse)",
        v.members.size(),
        v.aggregation == RewardSpec::Aggregation::kWeighted
            ? fmt::format("weighted vote (rewarded when P(right | votes) > 1/2, prior {:.3f})",
                          s.environment.pass_rate.mean())
            : std::string("majority vote"),
        Percent(ch.fp), Percent(ch.fn)));
  }
}

// Environment failures and exploration hardness.
void AddRunNotes(const Scenario& s, const Worked& w, Summary& out) {
  const AlgorithmSpec& alg = s.algorithm;
  const auto& [eff, ch, plan, step, g, k, tasks, process, ppo] = w;
  if (out.env_failure_rate > 0) {
    out.notes.push_back(fmt::format(
        "environment failures: {} of trajectories fail (as given) and are {}: {:.0f} of the {:.0f} generated per step "
        "are wasted (ASSUMED: each fails after running its full length, as a timeout does)",
        Percent(out.env_failure_rate),
        s.environment.failures.retry ? "retried until the batch is full" : "dropped (the step trains on the rest)",
        out.wasted_rollouts_per_step, out.rollouts_per_step));
  }
  const std::string spend =
      tasks > 0 ? fmt::format("{} steps x {:.0f} rollouts over {} pilot tasks", alg.steps, out.rollouts_per_step, tasks)
                : fmt::format("every prompt assumed fresh, so {} rollouts per task", g);
  out.notes.push_back(fmt::format(
      "exploration: {} of tasks need more than {:.4g} rollouts on average for a first success (1/p > {:.4g}, "
      "the rollouts the run spends per task: {})",
      Percent(out.hard_task_fraction), out.rollouts_per_task, out.rollouts_per_task, spend));
}

}  // namespace

Result<Summary> Analyze(const Scenario& s, TextDetail detail) {
  const AlgorithmSpec& alg = s.algorithm;
  const RewardSpec& reward = s.environment.reward;
  if (auto ok = CheckInputs(s); !ok) return Fail(ok.error());
  const bool process = reward.type == RewardType::kProcess;
  const Channel ch = ChannelOf(reward);
  const int g = alg.group_size;
  const int k = process ? reward.credited_steps : 1;

  Summary out;
  PassRateSpec eff;
  if (s.environment.pass_rate.kind == PassRateSpec::Kind::kTasks) {
    auto fit = FitPilot(s.environment.pass_rate);
    if (!fit) return Fail(fit.error());
    out.pilot = *fit;
    eff.a = fit->fit_a;
    eff.b = fit->fit_b;
  } else {
    auto eff_or = EffectivePassRate(s.environment.pass_rate);
    if (!eff_or) return Fail(eff_or.error());
    eff = *eff_or;
  }
  out.mean_pass_rate = MeanPassRate(eff);
  out.outcome_informative_group_probability = OutcomeInformative(eff, g, ch);
  out.informative_group_probability =
      process ? ProcessInformative(eff, g, k, ch) : out.outcome_informative_group_probability;
  out.mean_abs_advantage = MeanAbsAdvantage(eff);
  out.reward_signal_factor = ch.scale();
  out.observed_pass_rate = ch.fp + ch.scale() * out.mean_pass_rate;

  const bool ppo = alg.critic;  // a value baseline, not the group's mean
  const double per_rollout = ppo ? InteriorMass(eff, ch) : out.informative_group_probability;
  const RoundPlan plan = PlanOf(alg);
  const StepSignal step = SignalOfStep(out.informative_group_probability, per_rollout, alg.dynamic_sampling, plan);

  out.rollouts_trained_per_step = static_cast<double>(alg.prompts_per_step) * g;
  out.oversampling = step.oversampling;
  out.rollouts_per_step = out.rollouts_trained_per_step * step.oversampling;
  out.gen_rounds_per_step = step.rounds;
  out.rollouts_per_round = alg.dynamic_sampling ? plan.per_round * g : out.rollouts_trained_per_step;
  out.gen_failure_probability = step.fail_probability;
  out.informative_fraction = step.informative_fraction;
  // A noisy reward's expected gradient is (1 - fp - fn) times the clean one
  // (docs/model.md, "Noisy rewards"): a useful sample counts for that much.
  out.useful_samples_per_step = out.rollouts_trained_per_step * step.informative_fraction * ch.scale();
  out.full_batch_impractical = step.impractical;
  out.reward_bits_per_rollout = RewardBits(eff, k, ch);
  // A rubric's graded score carries its own information (docs/model.md, "Rubrics").
  const auto& rubric = s.environment.reward.rubric;
  if (!rubric.empty()) out.reward_bits_per_rollout = RubricRewardBits(rubric, out.mean_pass_rate);
  // Environment failures (docs/model.md, "Environment failures"): a failed
  // trajectory is generated in full and thrown away. retry: generate until the
  // batch is full (1/(1 - f) as many); drop: train on the (1 - f) that finish.
  if (const EnvFailureSpec& fails = s.environment.failures; fails.rate > 0) {
    const double f = fails.rate;
    if (fails.retry) {
      out.rollouts_per_step /= 1 - f;
      out.rollouts_per_round /= 1 - f;
      out.oversampling /= 1 - f;
    } else {
      out.rollouts_trained_per_step *= 1 - f;
      out.useful_samples_per_step *= 1 - f;
      out.oversampling /= 1 - f;
    }
    out.env_failure_rate = f;
    out.wasted_rollouts_per_step = out.rollouts_per_step * f;
  }

  // Exploration hardness: tasks whose expected rollouts to a first success (1/p)
  // exceed the rollouts the run spends on each of them.
  const int tasks = out.pilot.present ? out.pilot.tasks : 0;
  out.rollouts_per_task = tasks > 0 ? alg.steps * out.rollouts_per_step / tasks : g;
  out.hard_task_fraction = out.rollouts_per_task > 1 ? MassBelow(eff, 1 / out.rollouts_per_task) : 1.0;

  if (detail == TextDetail::kNumbers) return out;
  const Worked w{eff, ch, plan, step, g, k, tasks, process, ppo};
  AddPilotAndGroupNotes(s, w, out);
  AddDynamicSamplingNotes(s, w, out);
  AddRewardNotes(s, w, out);
  AddRunNotes(s, w, out);
  return out;
}

}  // namespace rlcost::signal
