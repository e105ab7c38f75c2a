// `rlcost noise-scale --batch B1,B2 (--grad-norm-sq G1,G2 | --gain-per-step D1,D2) [--json]`:
// the gradient noise scale B_noise (McCandlish et al. 2018, arXiv:1812.06162)
// from two batch sizes, for `goal.b_noise` (docs/model.md, sec. 7c).
#include <iostream>
#include <memory>
#include <vector>

#include "api/noise_scale_op.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {
struct NoiseScaleArgs {
  std::vector<double> batch, grad_norm_sq, gain_per_step;
  bool json = false;
};
}  // namespace

void RegisterNoiseScale(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<NoiseScaleArgs>();
  auto* sub = app.add_subcommand(
      "noise-scale",
      "the gradient noise scale B_noise (in useful samples) from two batch sizes, to set goal.b_noise: from the mean "
      "squared gradient norm at each (McCandlish et al. 2018) or from the metric's gain per step at each");
  AddRepeatable(sub, "--batch", args->batch, "two batch sizes in useful samples, smaller first: B1,B2")
      ->delimiter(',')
      ->required();
  AddRepeatable(sub, "--grad-norm-sq", args->grad_norm_sq, "mean squared gradient norm at each batch: G1,G2")
      ->delimiter(',');
  AddRepeatable(sub, "--gain-per-step", args->gain_per_step,
                  "the metric's gain per step at each batch, at the same point of the curve: D1,D2")
      ->delimiter(',');
  sub->add_flag("--json", args->json, "JSON output");
  sub->callback([args, &exit_code] {
    const auto& a = *args;
    ops::NoiseScaleInput in;
    in.batch = a.batch;
    in.grad_norm_sq = a.grad_norm_sq;
    in.gain_per_step = a.gain_per_step;
    auto v = ops::NoiseScaleView(in);
    if (!v) {
      exit_code = PrintError(v.error(), a.json);
      return;
    }
    if (a.json) {
      std::cout << Dump(v->json) << "\n";
    } else {
      std::cout << v->text << "  use it: --set " << v->json.at("set").get<std::string>() << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
