// The gradient noise scale from two batch sizes (api/noise_scale_op.h).
#include "api/noise_scale_op.h"

#include <fmt/format.h>

#include "signal/noise_scale.h"

namespace rlcost::ops {

Result<void> NoiseScaleInput::Validate() const {
  Error bad;
  if (batch.size() != 2) bad.problems.push_back({"batch", fmt::format("{} values; expected two: B1,B2", batch.size())});
  if (grad_norm_sq.empty() == gain_per_step.empty()) {
    bad.problems.push_back({"grad_norm_sq", "give exactly one of `grad_norm_sq` G1,G2 or `gain_per_step` D1,D2"});
  }
  const auto& v = grad_norm_sq.empty() ? gain_per_step : grad_norm_sq;
  const char* field = grad_norm_sq.empty() ? "gain_per_step" : "grad_norm_sq";
  if (!v.empty() && v.size() != 2) bad.problems.push_back({field, fmt::format("{} values; expected two", v.size())});
  if (!bad.problems.empty()) return Fail(std::move(bad));
  return {};
}

Result<View> NoiseScaleView(const NoiseScaleInput& in) {
  if (auto ok = in.Validate(); !ok) return Fail(ok.error());
  const bool norms = !in.grad_norm_sq.empty();
  const auto& v = norms ? in.grad_norm_sq : in.gain_per_step;
  auto b = norms ? signal::BNoiseFromGradientNorms(in.batch[0], v[0], in.batch[1], v[1])
                 : signal::BNoiseFromStepGains(in.batch[0], v[0], in.batch[1], v[1]);
  if (!b) return Fail(b.error());
  const char* method = norms ? "gradient norms at two batch sizes (McCandlish et al. 2018, appendix A.1)"
                             : "the metric's gain per step at two batch sizes";
  View out;
  out.json = {{"b_noise", *b}, {"method", method}, {"set", fmt::format("goal.b_noise={:.6g}", *b)}};
  out.text = fmt::format("B_noise = {:.4g} useful samples, from {}\n", *b, method);
  return out;
}

}  // namespace rlcost::ops
