// `noise-scale`: the gradient noise scale B_noise (McCandlish et al. 2018,
// arXiv:1812.06162) from two batch sizes, for a scenario's `goal.b_noise`
// (docs/model.md, sec. 7c). Fields are named by their own names in errors
// ("batch", "grad_norm_sq"); a front end says them its way.
//
//   ops::NoiseScaleInput in;
//   in.batch = {64, 256};
//   in.grad_norm_sq = {2.1, 0.9};
//   auto v = ops::NoiseScaleView(in);   // v->json["b_noise"], v->json["set"]
#pragma once

#include <vector>

#include "api/views.h"

namespace rlcost::ops {

struct NoiseScaleInput {
  std::vector<double> batch;          // two batch sizes in useful samples, smaller first
  std::vector<double> grad_norm_sq;   // the mean squared gradient norm at each, or
  std::vector<double> gain_per_step;  // the metric's gain per step at each (exactly one of the two)

  // Every problem at once: two batch sizes, exactly one of the two measures, two values of it.
  Result<void> Validate() const;
};

// json: {"b_noise", "method", "set": "goal.b_noise=..."}; text: the figure and
// its method, one line (how to use it is the front end's to say).
Result<View> NoiseScaleView(const NoiseScaleInput& in);

}  // namespace rlcost::ops
