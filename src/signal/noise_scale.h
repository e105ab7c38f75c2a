// Steps to a target under the gradient noise scale (McCandlish, Kaplan, Amodei
// et al., "An Empirical Model of Large-Batch Training", 2018, arXiv:1812.06162,
// eqs. 2.11-2.12): with B samples a step, the steps S and samples E to reach a
// given loss trade off as
//   S = S_min (1 + B_noise / B),   E = E_min (1 + B / B_noise),   E_min = S_min B_noise,
// against rlcost's useful-sample counting (docs/model.md sec. 7), in which the
// useful samples to the target are the curve's whatever the batch (E fixed,
// S = E / B). The two agree where B << B_noise and part where B >~ B_noise;
// docs/model.md, sec. 7c.
//
//   auto v = rlcost::signal::NoiseScaleSteps(781.25, 1e5, 2048, 256);  // G = 2 vs a curve at G = 16
//   // v->steps_noise_scale == 130.2, v->useful_samples_noise_scale == 16,667
#pragma once

#include "rlcost/error.h"

namespace rlcost::signal {

struct NoiseScaleView {
  double batch = 0;                 // B: useful samples per step of this run (to the target, mean)
  double steps_useful_samples = 0;  // the count of sec. 7: useful samples needed / B
  double useful_samples = 0;        //   and its useful samples (the curve's, at any batch)
  double e_min = 0;                 // E_min = E(B_ref) / (1 + B_ref / B_noise)
  double s_min = 0;                 // S_min = E_min / B_noise
  double steps_noise_scale = 0;     // S(B) = S_min (1 + B_noise / B)
  double useful_samples_noise_scale = 0;  // E(B) = E_min (1 + B / B_noise)
};

// `steps` and `useful_samples`: the useful-sample count to the target at this
// run's batch (signal::StepsToTarget); `batch_ref`: useful samples per step of
// the run the curve was measured on (at which the two views coincide);
// `b_noise`: B_noise in useful samples.
Result<NoiseScaleView> NoiseScaleSteps(double steps, double useful_samples, double batch_ref, double b_noise);

// McCandlish et al. 2018, appendix A.1: the unbiased estimates of |G|^2 and
// tr(Sigma) from the mean squared norm of gradients averaged over b_small and
// over b_big samples,
//   |G|^2 = (b_big |G_big|^2 - b_small |G_small|^2) / (b_big - b_small)
//   S     = (|G_small|^2 - |G_big|^2) / (1/b_small - 1/b_big)
// and B_simple = S / |G|^2 (the paper's simple noise scale; B_noise = B_simple
// when the Hessian is a multiple of the identity, eq. 2.9).
Result<double> BNoiseFromGradientNorms(double b_small, double g2_small, double b_big, double g2_big);

// From the metric's gain per step at two batch sizes at the same point of the
// curve (two pilots, or one run that changed its batch): the gain per step is
// proportional to 1 / S(B) = 1 / (S_min (1 + B_noise / B)), so with
// r = gain_1 / gain_2,  B_noise = (1 - r) / (r / b_1 - 1 / b_2).
// Errors when the gains say no finite positive B_noise (the larger batch gained
// in proportion to its size or more: no noise limit seen; or gained no more).
Result<double> BNoiseFromStepGains(double b_1, double gain_1, double b_2, double gain_2);

}  // namespace rlcost::signal
