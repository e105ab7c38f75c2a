// `rlcost waterfall FILE [--order ...] [--gpu ID] [--tenants T] [--moe-model ID] [--baseline run|naive] [--json]`:
// the levers applied one at a time to the user's run (or the essay's naive baseline).
#include <iostream>
#include <memory>

#include "api/views.h"
#include "cli/common.h"
#include "cli/lever_args.h"

namespace rlcost::cli {
namespace {
struct WaterfallArgs {
  Common common;
  LeverArgs levers;
  std::string file;
};
}  // namespace

void RegisterWaterfall(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<WaterfallArgs>();
  auto* sub = app.add_subcommand("waterfall", "apply the cost levers (async, fp8, newer GPUs, 2-GRPO, LoRA, MoE) one at a time to your run (or, --baseline naive, to the essay's naive H100 + synchronous baseline), and check the often-quoted 20-50x claim");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  AddLeverOptions(sub, args->levers);
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // The user's own run, its left-out layout fields planned (--no-plan: literally).
    auto v = ops::WaterfallView(Input(args->file, args->common), args->levers);
    if (!v) { exit_code = PrintError(v.error(), args->common.json); return; }
    PrintWarnings(v->warnings);
    std::cout << (args->common.json ? Dump(v->json) + "\n" : AsFlags(v->text));
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
