// `rlcost memory [FILE] [--json] [--gpus N]`: GPU memory per GPU for each role
// of the run (planned layout unless --no-plan), the fewest GPUs on which it
// fits and the catalog's largest model that fits on N GPUs.
#include <iostream>
#include <memory>

#include "api/memory_op.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

struct MemoryArgs {
  Common common;
  std::string file;
  int gpus = 0;
};

}  // namespace

void RegisterMemory(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MemoryArgs>();
  auto* sub = app.add_subcommand(
      "memory", "GPU memory per GPU for each role (engine, trainer), the fewest GPUs that fit, the largest model");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--gpus", args->gpus, "GPU count for the largest model that fits (default: the scenario's)")
      ->check(CLI::Range(1, 1'000'000));
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    ops::MemoryInput m;
    m.gpus = args->gpus;
    auto r = ops::MemoryView(Input(args->file, args->common), m);
    if (!r) { exit_code = PrintError(r.error(), args->common.json); return; }
    PrintWarnings(r->view.warnings);
    std::cout << (args->common.json ? Dump(r->view.json) + "\n" : r->view.text);
    exit_code = r->fits ? 0 : 3;
  });
}

}  // namespace rlcost::cli
