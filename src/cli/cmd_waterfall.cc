// `rlcost waterfall FILE [--order ...] [--gpu ID] [--tenants T] [--moe-model ID] [--json]`:
// the seed's levers applied one at a time to its baseline.
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "cli/lever_args.h"
#include "api/illustrative.h"
#include "report/levers_table.h"

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
  auto* sub = app.add_subcommand("waterfall", "apply the cost levers (async, fp8, newer GPUs, 2-GRPO, LoRA, MoE) one at a time to a naive H100 + synchronous baseline, and check the often-quoted 20-50x claim");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  AddLeverOptions(sub, args->levers);
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    Catalog cat;
    auto loaded = LoadAll(args->file, args->common, &cat);
    if (!loaded) { exit_code = PrintError(loaded.error(), args->common.json); return; }
    // The user's own run, its left-out layout fields planned (--no-plan: literally).
    auto planned = PlanIfAsked(std::move(*loaded), args->common);
    if (!planned) { exit_code = PrintError(planned.error(), args->common.json); return; }
    const Scenario* s = &planned->scenario;
    auto opt = ToOptions(args->levers);
    if (!opt) { exit_code = PrintError(opt.error(), args->common.json); return; }
    opt->replan = ReplanObjective(args->common);
    auto wf = levers::BuildWaterfall(*s, cat, *opt);
    if (!wf) { exit_code = PrintError(wf.error(), args->common.json); return; }
    if (args->common.json) {
      auto j = report::WaterfallToJson(*wf);
      if (s->goal.target_pass_rate) api::FlagGoalCurve(j, *s);  // $ to goal (as ops::Waterfall)
      std::cout << Dump(j) << "\n";
    } else {
      std::cout << report::WaterfallToTable(*wf);
      if (const std::string note = api::GoalCurveNote(*s); !note.empty()) std::cout << "  note: " << note << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
