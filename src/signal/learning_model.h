// What a rollout buys: the learning model behind "steps to the goal"
// (docs/model.md, sec. 7d). Two models:
//
//  - useful_samples: progress counts useful samples (rollouts with a non-zero
//    advantage), whatever the group they came from (sec. 7).
//  - noise_scale (the default): progress per step follows the gradient noise
//    scale of McCandlish et al. 2018 (arXiv:1812.06162) in its small-batch
//    limit, S = S_min B_noise / P, with B_noise counted in prompts and split
//    into the noise between prompts (beta) and the noise of the group's own
//    rollouts, which an unbiased leave-one-out baseline gives exactly:
//      Var[(1/G) sum_i (r_i - mean_{-i} r) g_i | p] = p(1-p) s^2 / (G - 1)
//    so that  B_noise(G) = beta (1 + rho / ((G - 1) V)),  V = E[p(1-p)]
//    over the scenario's pass-rate distribution and rho the ratio of the two
//    noises (a named fit to the published ablations, kLearningRho).
//    The steps of a run at group size G relative to the same run at the
//    curve's group size G_ref are then
//      F(G) = (1 + rho / ((G - 1) V)) / (1 + rho / ((G_ref - 1) V)).
//
//   double f = rlcost::signal::GroupSizeStepsFactor(pr, 2, 16, kLearningRho);
#pragma once

#include <string_view>

#include "rlcost/scenario.h"

namespace rlcost::signal {

// rho, the within-group to between-prompt noise ratio of the noise-scale
// learning model, fitted to validation/learning/ (docs/model.md, sec. 7d:
// the largest rho that keeps every published ablation of the set within its
// tolerance; its leave-one-out error is in docs/validation.md). A test
// (LearningModel.RhoIsTheFitOfTheLearningSet) holds this constant to the fit.
inline constexpr double kLearningRho = 0.04751;

// The group size a learning curve is taken to be measured at: 16, the essay's
// naive baseline and ScaleRL's runs (an ASSUMPTION for a curve of another run).
inline constexpr int kCurveGroupSize = 16;

enum class LearningModel { kUsefulSamples, kNoiseScale };
std::string_view ToString(LearningModel m);  // "useful_samples" | "noise_scale"

// V = E[p(1-p)] over the pass-rate distribution (= P_inf(G = 2) / 2).
double PassRateVariance(const PassRateSpec& pr);

// 1 + rho / ((G - 1) V): the noise of one prompt's gradient estimate over the
// noise between prompts, relative (so the steps are proportional to it at a
// fixed number of prompts). +inf for G < 2 or V = 0 (no signal).
double PromptNoiseFactor(double v, int group_size, double rho);

// F(G) above: steps at group size G over steps at g_ref, same prompts a step.
double GroupSizeStepsFactor(const PassRateSpec& pr, int group_size, int g_ref, double rho);

// The steps ratio B / A of two runs to the same quality under each model, from
// what a case states: group size, prompts a step and the pass-rate
// distribution of each run (validation/learning/).
struct RunShape {
  int group_size = 16;
  double prompts_per_step = 1;
  PassRateSpec pass_rate;
};
double StepsRatio(LearningModel m, const RunShape& a, const RunShape& b, double rho);

}  // namespace rlcost::signal
