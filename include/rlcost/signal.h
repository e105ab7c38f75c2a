// signal: the learning-signal economics of a rollout — how many rollouts buy
// one useful gradient, given the pass-rate distribution, the group size and the
// reward. Formulas and derivations: docs/model.md, "Signal"
// (docs/model.md (signal section)).
//
//   auto sig = rlcost::signal::Analyze(scenario);
//   sig->informative_fraction;   // share of rollouts whose advantage is not zero
//   auto goal = rlcost::signal::StepsToTarget(scenario, LearningCurveSpec{}, 0.6);
//   goal->steps;                 // training steps until the mean pass rate reaches 0.6
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/scenario.h"
#include "rlcost/text_detail.h"

namespace rlcost::signal {

// E[1 - p^G - (1-p)^G] over the pass-rate distribution: the probability that a
// group of G pass/fail rollouts has mixed outcomes (non-zero group advantage).
// A pilot file (kTasks) is replaced by its Beta-binomial fit (FitPilot); NaN when
// that fit fails (Analyze reports the reason).
double InformativeGroupProbability(const PassRateSpec& pr, int group_size);

// 1 - p^G - (1-p)^G for one task of pass rate p.
double InformativeProbabilityAt(double p, int group_size);

// The same for a process reward with K credited steps: a group is informative
// when any credited step has mixed outcomes across the group. Each step passes
// independently with q = p^(1/K), so that all K pass with p (a model assumption):
// E[1 - (q^G + (1-q)^G)^K]. K = 1 is the outcome case.
double ProcessInformativeGroupProbability(const PassRateSpec& pr, int group_size, int credited_steps);

// Mean pass rate, cheap: a/(a+b), the histogram's mean, or for a pilot file the
// mean of the observed rates (no fit; the fit's mean differs by far less than 0.01).
double MeanPassRate(const PassRateSpec& pr);

// What the pilot file (pass_rate: {file: ...}) says after a Beta-binomial fit.
struct PilotFit {
  bool present = false;
  int tasks = 0;
  int samples_per_task = 0;     // n used for the fit (given or inferred)
  double observed_mean = 0;
  int never_solved = 0;         // tasks at 0/n
  int always_solved = 0;        // tasks at n/n
  double fit_a = 0, fit_b = 0;  // fitted Beta(a, b) of the true pass rates
  std::string method;           // e.g. "maximum likelihood"
  double fit_mass_below_1_over_n = 0;  // what the fit makes of 0/n tasks: P(p < 1/n)
  double fit_mean = 0;                   // a / (a + b)
  double fit_concentration = 0;          // a + b
  double expected_tasks_below_1_over_n = 0;  // tasks * fit_mass_below_1_over_n
  double expected_never_solved = 0;      // tasks * E[(1-p)^n] under the fit, to set against never_solved
  double log_likelihood = 0;             // at the optimum, without the binomial constant
  bool converged = false;
  int iterations = 0;                    // of the optimiser
  bool at_bound = false;                 // optimum on a bound (a or b at 1e-3 or 1e6): see notes
};

// Beta-binomial maximum-likelihood fit of a pilot file (kind kTasks). Fits are
// cached by content, so repeated calls cost a lookup.
Result<PilotFit> FitPilot(const PassRateSpec& pr);

// The pass-rate distribution the model computes with: a Beta or histogram as
// given, a pilot file as its fitted Beta.
Result<PassRateSpec> EffectivePassRate(const PassRateSpec& pr);

// Information in a rubric's graded reward (docs/model.md, "Rubrics"): the
// entropy, in bits, of S = sum_i w_i r_i / sum_i w_i with the criteria's
// verdicts r_i independent Bernoulli(pass_rate_i) (a criterion without one:
// `default_pass_rate`); rubric outcomes that give the same score are one value.
// Past 65,536 distinct scores the remaining criteria add their own entropy
// (exact when no two outcomes share a score, an upper bound otherwise).
double RubricRewardBits(const std::vector<RewardSpec::RubricItem>& rubric, double default_pass_rate);

struct Summary {
  double rollouts_per_step = 0;         // generated, dynamic-sampling extra included
  double rollouts_trained_per_step = 0; // prompts_per_step * group_size
  double informative_fraction = 0;      // of trained rollouts
  double informative_group_probability = 0;
  double useful_samples_per_step = 0;
  double reward_bits_per_rollout = 0;
  double oversampling = 1;              // rollouts generated per rollout trained on
  bool full_batch_impractical = false;  // P(informative group) < 1e-4 under dynamic sampling
  double hard_task_fraction = 0;        // tasks with 1/p > rollouts the run spends on them
  PilotFit pilot;
  std::vector<std::string> notes;       // plain-language statements for the report
  double mean_pass_rate = 0;            // of the distribution used (a pilot: the fitted Beta's)
  double rollouts_per_task = 0;         // what the run spends per task (hardness threshold)
  double outcome_informative_group_probability = 0;  // for a process reward: the outcome alone
  double mean_abs_advantage = 0;        // E[2p(1-p)]: mean |r - p| of one rollout (ideal critic)
  // Dynamic sampling in rounds (veRL's DAPO loop): generation rounds per step
  // (expected; 1 without dynamic sampling), rollouts generated per round, and
  // the probability a step is still short after algorithm.max_gen_batches rounds.
  double gen_rounds_per_step = 1;
  double rollouts_per_round = 0;
  double gen_failure_probability = 0;
  // Noisy reward (environment.reward.noise): 1 - fp - fn, the factor on the
  // expected gradient of each informative rollout (useful_samples_per_step
  // includes it), and the share of rollouts rewarded, fp + (1 - fp - fn) E[p].
  double reward_signal_factor = 1;
  double observed_pass_rate = 0;
  // environment.failures: the share of trajectories whose environment fails
  // and the failed trajectories per step (generated, paid for, not trained on).
  double env_failure_rate = 0;
  double wasted_rollouts_per_step = 0;
};

Result<Summary> Analyze(const Scenario& s, TextDetail detail = TextDetail::kFull);

// Largest oversampling used for costs under dynamic sampling: 1 / 1e-4, the
// P(informative group) below which a full batch is called impractical.
inline constexpr double kMaxOversampling = 1e4;

// Where the learning curve takes the run (LearningCurveSpec, scenario.h).
struct GoalProgress {
  bool reachable = false;
  std::string reason;                 // why not, in plain words, when !reachable
  double start_pass_rate = 0;         // R0, the base model's mean pass rate
  double target_pass_rate = 0;
  double steps = 0;                   // training steps until R(C) >= target (whole steps)
  double useful_samples = 0;          // C at the target: useful samples trained on
  double rollouts_generated = 0;      // summed over those steps (dynamic-sampling extra included)
  double rollouts_trained = 0;
  double final_informative_fraction = 0;  // at the target pass rate
  bool within_planned_steps = false;  // steps <= algorithm.steps
  std::vector<std::pair<double, double>> trajectory;  // (step, mean pass rate), <= ~64 points, for charts
};

// Moves the pass-rate distribution along R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B)
// (keeping its concentration; a histogram is first replaced by the Beta with the
// same mean and variance) and steps the run until the mean reaches the target.
// Each step trains on the useful samples of the current distribution.
Result<GoalProgress> StepsToTarget(const Scenario& s, const LearningCurveSpec& curve,
                                   double target_pass_rate);

}  // namespace rlcost::signal
