#include "signal/noise_scale.h"

#include <cmath>

#include <fmt/format.h>

namespace rlcost::signal {

namespace {
bool Positive(double x) { return x > 0 && std::isfinite(x); }
}  // namespace

Result<NoiseScaleView> NoiseScaleSteps(double steps, double useful_samples, double batch_ref, double b_noise) {
  if (!Positive(batch_ref)) {
    return Fail(Error::Invalid("goal.curve.batch_useful_samples", fmt::format("{}; expected > 0", batch_ref)));
  }
  if (!Positive(b_noise)) return Fail(Error::Invalid("goal.b_noise", fmt::format("{}; expected > 0", b_noise)));
  NoiseScaleView v;
  v.steps_useful_samples = steps;
  v.useful_samples = useful_samples;
  if (!(steps > 0) || !(useful_samples > 0)) return v;  // the target is already met: 0 steps either way
  v.batch = useful_samples / steps;
  // The curve's useful samples to the target were counted at the curve's own batch.
  v.e_min = useful_samples / (1 + batch_ref / b_noise);
  v.s_min = v.e_min / b_noise;
  v.useful_samples_noise_scale = v.e_min * (1 + v.batch / b_noise);
  v.steps_noise_scale = v.s_min * (1 + b_noise / v.batch);
  return v;
}

Result<double> BNoiseFromGradientNorms(double b_small, double g2_small, double b_big, double g2_big) {
  if (!Positive(b_small) || !Positive(b_big) || !(b_big > b_small)) {
    return Fail(Error::Invalid("batch", fmt::format("{} and {}; expected two batch sizes, the second larger", b_small,
                                                    b_big)));
  }
  if (!Positive(g2_small) || !Positive(g2_big)) {
    return Fail(Error::Invalid("gradient_norm_sq", "expected positive mean squared gradient norms"));
  }
  const double g2 = (b_big * g2_big - b_small * g2_small) / (b_big - b_small);
  const double trace = (g2_small - g2_big) / (1 / b_small - 1 / b_big);
  if (!(g2 > 0) || !(trace > 0)) {
    return Fail(Error::Invalid(
        "gradient_norm_sq",
        fmt::format("|G|^2 estimate {:.4g}, tr(Sigma) estimate {:.4g}: both must be > 0; the squared norm at the "
                    "larger batch must be smaller, and by less than the batch ratio (average more steps)",
                    g2, trace)));
  }
  return trace / g2;
}

Result<double> BNoiseFromStepGains(double b_1, double gain_1, double b_2, double gain_2) {
  if (!Positive(b_1) || !Positive(b_2) || !(b_2 > b_1)) {
    return Fail(Error::Invalid("batch", fmt::format("{} and {}; expected two batch sizes, the second larger", b_1, b_2)));
  }
  if (!Positive(gain_1) || !Positive(gain_2)) {
    return Fail(Error::Invalid("gain_per_step", "expected positive gains of the metric per step at both batches"));
  }
  const double r = gain_1 / gain_2;
  if (r >= 1) {
    return Fail(Error::Invalid("gain_per_step",
                               fmt::format("the larger batch gained no more per step ({:.4g} vs {:.4g}): B_noise is "
                                           "far below both batches; steps do not depend on the batch there",
                                           gain_2, gain_1)));
  }
  if (r <= b_1 / b_2) {
    return Fail(Error::Invalid(
        "gain_per_step",
        fmt::format("the larger batch gained {:.3g}x per step for {:.3g}x the samples: in proportion or more, so no "
                    "noise limit is seen (B_noise far above both batches; counting useful samples holds)",
                    1 / r, b_2 / b_1)));
  }
  return (1 - r) / (r / b_1 - 1 / b_2);
}

}  // namespace rlcost::signal
