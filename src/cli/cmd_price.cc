// `rlcost price FILE --models a,b --gpus x,y [--stack async,fp8] [--json]`:
// post-training tokenomics, one row per model x GPU.
#include <iostream>
#include <memory>

#include "api/views.h"
#include "cli/common.h"
#include "cli/lever_args.h"

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
  AddRepeatable(sub, "--models", args->models, "catalog model ids (comma-separated; default: the scenario's)")->delimiter(',');
  AddRepeatable(sub, "--gpus", args->gpus, "catalog GPU ids (comma-separated; default: the scenario's)")->delimiter(',');
  sub->add_option("--stack", args->stack, "levers applied to every row: async,fp8,fp4,grpo2,batch,lora,speculative,spot,tail,resplit (default: none; speculative, spot, tail and resplit use the scenario's engine.speculative, hardware.spot, pipeline.tail and placement.resplit when it has them)");
  sub->add_option("--tenants", args->tenants, "LoRA tenants when the stack has lora (default: the scenario's, else 4)")
      ->check(CLI::Range(1, 10'000));
  AddDiscountOptions(sub, args->discounts);
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // The user's own run, its left-out layout fields planned (--no-plan: literally).
    const ops::PriceInput p{args->models, args->gpus, args->stack, args->tenants, args->discounts.staleness_discount,
                            args->discounts.fp8_discount, args->discounts.fp4_discount};
    auto v = ops::PriceView(Input(args->file, args->common), p);
    if (!v) { exit_code = PrintError(v.error(), args->common.json); return; }
    PrintWarnings(v->warnings);
    std::cout << (args->common.json ? Dump(v->json) + "\n" : AsFlags(v->text));
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
