// `rlcost estimate [FILE] [--json]` and `rlcost simulate FILE [--json] [--seed N]`.
#include <iostream>
#include <memory>

#include "api/views.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

struct EstimateArgs {
  Common common;
  std::string file;
  bool full = false;
};

struct SimulateArgs {
  Common common;
  std::string file;
  ops::SimulateInput sim;
};

// Brief by default (the answer, where it goes, the assumptions); --full: every metric.
int Print(const Result<ops::View>& v, bool json) {
  if (!v) return PrintError(v.error(), json);
  PrintWarnings(v->warnings);
  if (json) {
    std::cout << Dump(v->json) << "\n";
  } else {
    std::cout << AsFlags(v->text);  // the operations name their fields; here they are flags
  }
  return 0;
}

}  // namespace

void RegisterEstimate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<EstimateArgs>();
  auto* sub = app.add_subcommand("estimate", "closed-form (analytic) cost estimate of a scenario (default: the built-in one)");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default (scenarios/default.yaml)");
  sub->add_flag("--full", args->full, "every metric with its unit and meaning (default: the brief answer)");
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    exit_code = Print(ops::EstimateView(Input(args->file, args->common), args->full), args->common.json);
  });
}

void RegisterSimulate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SimulateArgs>();
  auto* sub = app.add_subcommand("simulate", "discrete-event simulation of the RL loop");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--seed", args->sim.seed, "random seed (same seed, same result)")->check(SeedValidator());
  sub->add_option("--steps", args->sim.steps, "steps to simulate (default: the scenario's algorithm.steps)")
      ->check(CLI::Range(1, 1'000'000'000));
  sub->add_option("--trace", args->sim.trace, "write a Chrome trace-event JSON (Perfetto, chrome://tracing)");
  sub->add_flag("--full", args->sim.full, "every metric with its unit and meaning (default: the brief answer)");
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // The layout is planned with the closed form, then simulated.
    exit_code = Print(ops::SimulateView(Input(args->file, args->common), args->sim), args->common.json);
  });
}

}  // namespace rlcost::cli
