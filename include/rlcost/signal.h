// signal: the learning-signal economics of a rollout — how many rollouts buy
// one useful gradient, given the pass-rate distribution, the group size and the
// reward. Formulas and derivations: docs/model.md, "Signal".
//
//   auto sig = rlcost::signal::Analyze(scenario);
//   sig->informative_fraction;   // share of rollouts whose advantage is not zero
#pragma once

#include <string>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost::signal {

// E[1 - p^G - (1-p)^G] over the pass-rate distribution: the probability that a
// group of G pass/fail rollouts has mixed outcomes (non-zero group advantage).
double InformativeGroupProbability(const PassRateSpec& pr, int group_size);

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
};

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
};

Result<Summary> Analyze(const Scenario& s);

}  // namespace rlcost::signal
