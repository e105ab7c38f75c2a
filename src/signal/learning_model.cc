#include "signal/learning_model.h"

#include <cmath>
#include <limits>

#include "rlcost/signal.h"

namespace rlcost::signal {

std::string_view ToString(LearningModel m) {
  return m == LearningModel::kUsefulSamples ? "useful_samples" : "noise_scale";
}

double PassRateVariance(const PassRateSpec& pr) { return InformativeGroupProbability(pr, 2) / 2; }

double PromptNoiseFactor(double v, int group_size, double rho) {
  if (group_size < 2 || !(v > 0)) return std::numeric_limits<double>::infinity();
  return 1 + rho / ((group_size - 1) * v);
}

double GroupSizeStepsFactor(const PassRateSpec& pr, int group_size, int g_ref, double rho) {
  const double v = PassRateVariance(pr);
  return PromptNoiseFactor(v, group_size, rho) / PromptNoiseFactor(v, g_ref, rho);
}

double StepsRatio(LearningModel m, const RunShape& a, const RunShape& b, double rho) {
  if (m == LearningModel::kUsefulSamples) {
    // Steps = useful samples to the target / useful samples a step.
    const double ua = a.prompts_per_step * a.group_size * InformativeGroupProbability(a.pass_rate, a.group_size);
    const double ub = b.prompts_per_step * b.group_size * InformativeGroupProbability(b.pass_rate, b.group_size);
    return ua / ub;
  }
  // Small-batch limit of the noise scale: steps proportional to B_noise / P.
  const double na = PromptNoiseFactor(PassRateVariance(a.pass_rate), a.group_size, rho) / a.prompts_per_step;
  const double nb = PromptNoiseFactor(PassRateVariance(b.pass_rate), b.group_size, rho) / b.prompts_per_step;
  return nb / na;
}

}  // namespace rlcost::signal
