// `rlcost price FILE --models a,b --gpus x,y [--stack async,fp8] [--json]`:
// post-training tokenomics, one row per model x GPU.
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "api/illustrative.h"
#include "cli/lever_args.h"
#include "report/levers_table.h"

namespace rlcost::cli {
namespace {
struct PriceArgs {
  Common common;
  std::string file;
  std::vector<std::string> models;
  std::vector<std::string> gpus;
  std::string stack;
  int tenants = 0;
  LeverArgs discounts;  // only its quality discounts are read
};
}  // namespace

void RegisterPrice(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<PriceArgs>();
  auto* sub = app.add_subcommand("price", "price card: $/M trained tokens, $/useful sample, $/reward bit, $ to goal per model x GPU");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--models", args->models, "catalog model ids (comma-separated; default: the scenario's)")->delimiter(',');
  sub->add_option("--gpus", args->gpus, "catalog GPU ids (comma-separated; default: the scenario's)")->delimiter(',');
  sub->add_option("--stack", args->stack, "levers applied to every row: async,fp8,fp4,grpo2,batch,lora,speculative,spot,tail,resplit (default: none; speculative, spot, tail and resplit use the scenario's engine.speculative, hardware.spot, pipeline.tail and placement.resplit when it has them)");
  sub->add_option("--tenants", args->tenants, "LoRA tenants when the stack has lora (default: the scenario's, else 4)")
      ->check(CLI::Range(1, 10'000));
  AddDiscountOptions(sub, args->discounts);
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
    std::vector<levers::Lever> stack;
    if (!args->stack.empty()) {
      auto st = levers::ParseLeverList(args->stack, "--stack");
      if (!st) { exit_code = PrintError(st.error(), args->common.json); return; }
      stack = *st;
    }
    auto checked = ToOptions(args->discounts);
    if (!checked) { exit_code = PrintError(checked.error(), args->common.json); return; }
    levers::Options opt;
    opt.tenants = args->tenants;
    opt.discounts = checked->discounts;
    opt.replan = ReplanObjective(args->common);
    auto card = levers::BuildPriceCard(*s, cat, args->models, args->gpus, stack, opt);
    if (!card) { exit_code = PrintError(card.error(), args->common.json); return; }
    if (args->common.json) {
      auto j = report::PriceCardToJson(*card);
      api::FlagGoalCurve(j, *s);
      std::cout << Dump(j) << "\n";
    } else {
      std::cout << report::PriceCardToTable(*card);
      if (const std::string note = api::GoalCurveNote(*s); !note.empty()) std::cout << "  note: " << note << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
