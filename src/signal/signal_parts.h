// What the files of the signal stage share (rlcost/signal.h is the interface):
//   informative.cc       informative groups, reward bits, the noisy verifier
//   dynamic_sampling.cc  DAPO's generation rounds and what a step trains on
//   pilot.cc             pilot files fitted to a Beta; the effective pass rate
//   signal.cc            Analyze: the stage's figures and their notes
//   goal_steps.cc        steps to a target on the learning curve
// Every formula is derived in docs/model.md (signal section).
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "rlcost/signal.h"
#include "signal/beta_math.h"

namespace rlcost::signal {

namespace si = rlcost::signal_internal;

namespace detail {

// The verifier as a noisy channel on the true pass/fail outcome
// (environment.reward.noise; docs/model.md, "Noisy rewards"): a wrong rollout
// is rewarded with probability fp, a right one is not with probability fn.
struct Channel {
  double fp = 0, fn = 0;
  bool clean() const { return fp == 0 && fn == 0; }
  double scale() const { return 1 - fp - fn; }  // 1 - fp - fn > 0
  // Observed pass probability q = fp + (1 - fp - fn) p and 1 - q = fn + (1 - fp - fn)(1 - p):
  // sums of non-negative terms, so both stay accurate near 0 and 1.
  std::pair<double, double> Observed(double p, double pc) const {
    if (clean()) return {p, pc};
    return {fp + scale() * p, fn + scale() * pc};
  }
  // I(observed; true) per Bernoulli(p) outcome: H(q) - p H(fn) - (1-p) H(fp).
  double BitsAt(double p, double pc) const {
    const auto [q, qc] = Observed(p, pc);
    double h = 0;
    if (q > 0) h -= q * std::log2(q);
    if (qc > 0) h -= qc * std::log2(qc);
    if (clean()) return h;
    return std::max(0.0, h - p * si::BinaryEntropyBits(fn) - pc * si::BinaryEntropyBits(fp));
  }
};

Channel ChannelOf(const RewardSpec& r);

Error InvalidPassRate(const std::string& message);

inline bool IsBeta(const PassRateSpec& pr) { return pr.kind != PassRateSpec::Kind::kHistogram; }

// Expectation of f(p, 1-p) over an effective distribution (Beta or histogram).
template <typename F>
double Expect(const PassRateSpec& eff, const F& f) {
  if (IsBeta(eff)) return si::BetaExpectation(eff.a, eff.b, f);
  double e = 0;
  for (const auto& [p, w] : eff.histogram) e += w * f(p, 1 - p);
  return e;
}

// Over an effective pass-rate distribution (informative.cc): P(a group of g
// is informative) for an outcome reward and for a process reward over k
// credited steps, the reward bits of a rollout, the share of rollouts an
// ideal critic gives an advantage, E|r - p|, and P(p < x).
double OutcomeInformative(const PassRateSpec& eff, int g, const Channel& ch = {});
double ProcessInformative(const PassRateSpec& eff, int g, int k, const Channel& ch = {});
double RewardBits(const PassRateSpec& eff, int k, const Channel& ch = {});
double InteriorMass(const PassRateSpec& eff, const Channel& ch = {});
double MeanAbsAdvantage(const PassRateSpec& eff);
double MassBelow(const PassRateSpec& eff, double x);

// Dynamic sampling in rounds, as veRL's DAPO trainer loops
// (recipe/dapo/dapo_ray_trainer.py, RayDAPOTrainer.fit): generate a round of
// `per_round` groups, keep the informative ones, generate another round while
// fewer than `need` are kept (at most `max_rounds`, 0 = no limit), then train on
// the first `need`. docs/model.md, "Dynamic sampling (DAPO)".
struct RoundPlan {
  double need = 1;       // prompts_per_step
  double per_round = 1;  // gen_batch_prompts
  int max_rounds = 0;    // max_gen_batches
};

RoundPlan PlanOf(const AlgorithmSpec& alg);

// What one step trains on, given P(informative group) and the per-rollout share
// without dynamic sampling.
struct StepSignal {
  double informative_fraction = 0;  // of trained rollouts
  double oversampling = 1;
  double rounds = 1;                // generation rounds per step (expected)
  double fail_probability = 0;      // P(the batch is still short after max_gen_batches rounds)
  bool impractical = false;
};

StepSignal SignalOfStep(double p_group, double p_rollout_plain, bool dynamic_sampling, const RoundPlan& plan);

// A histogram as the Beta with the same mean and variance (used where the model
// needs a concentration: the learning curve).
PassRateSpec MomentMatchedBeta(const PassRateSpec& eff);

std::string Percent(double x);

}  // namespace detail
}  // namespace rlcost::signal
