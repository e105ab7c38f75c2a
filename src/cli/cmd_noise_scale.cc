// `rlcost noise-scale --batch B1,B2 (--grad-norm-sq G1,G2 | --gain-per-step D1,D2) [--json]`:
// the gradient noise scale B_noise (McCandlish et al. 2018, arXiv:1812.06162)
// from two batch sizes, for `goal.b_noise` (docs/model.md, sec. 7c).
#include <iostream>
#include <memory>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/common.h"
#include "signal/noise_scale.h"

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
  sub->add_option("--batch", args->batch, "two batch sizes in useful samples, smaller first: B1,B2")
      ->delimiter(',')
      ->required();
  sub->add_option("--grad-norm-sq", args->grad_norm_sq, "mean squared gradient norm at each batch: G1,G2")
      ->delimiter(',');
  sub->add_option("--gain-per-step", args->gain_per_step,
                  "the metric's gain per step at each batch, at the same point of the curve: D1,D2")
      ->delimiter(',');
  sub->add_flag("--json", args->json, "JSON output");
  sub->callback([args, &exit_code] {
    const auto& a = *args;
    Error bad;
    if (a.batch.size() != 2) bad.problems.push_back({"--batch", fmt::format("{} values; expected two: B1,B2", a.batch.size())});
    if (a.grad_norm_sq.empty() == a.gain_per_step.empty()) {
      bad.problems.push_back({"--grad-norm-sq", "give exactly one of --grad-norm-sq G1,G2 or --gain-per-step D1,D2"});
    }
    const auto& v = a.grad_norm_sq.empty() ? a.gain_per_step : a.grad_norm_sq;
    const char* flag = a.grad_norm_sq.empty() ? "--gain-per-step" : "--grad-norm-sq";
    if (!v.empty() && v.size() != 2) bad.problems.push_back({flag, fmt::format("{} values; expected two", v.size())});
    if (!bad.problems.empty()) {
      exit_code = PrintError(bad, a.json);
      return;
    }
    const bool norms = !a.grad_norm_sq.empty();
    auto b = norms ? signal::BNoiseFromGradientNorms(a.batch[0], v[0], a.batch[1], v[1])
                   : signal::BNoiseFromStepGains(a.batch[0], v[0], a.batch[1], v[1]);
    if (!b) {
      exit_code = PrintError(b.error(), a.json);
      return;
    }
    const char* method = norms ? "gradient norms at two batch sizes (McCandlish et al. 2018, appendix A.1)"
                               : "the metric's gain per step at two batch sizes";
    if (a.json) {
      std::cout << Dump(nlohmann::json{{"b_noise", *b}, {"method", method}, {"set", fmt::format("goal.b_noise={:.6g}", *b)}})
                << "\n";
    } else {
      std::cout << fmt::format("B_noise = {:.4g} useful samples, from {}\n  use it: --set goal.b_noise={:.6g}\n", *b,
                               method, *b);
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
