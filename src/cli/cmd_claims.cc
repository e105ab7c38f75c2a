// `rlcost claims FILE [--json]`: the post-training economics essay's claims,
// each with the essay's figure, rlcost's figure for this scenario and a verdict.
#include <iostream>
#include <memory>

#include "api/views.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {
struct ClaimsArgs {
  Common common;
  std::string file;
};
}  // namespace

void RegisterClaims(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ClaimsArgs>();
  auto* sub = app.add_subcommand(
      "claims",
      "check the post-training economics essay's figures (rollout share of GPU time, decode MFU, pass-rate and "
      "capability multipliers, tool-use tokens, async, FP8/FP4, B200, 2-GRPO, LoRA, MoE, 20-50x combined) on a "
      "scenario: the essay's figure, rlcost's, and whether it holds");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // The user's own run, its left-out layout fields planned (--no-plan: literally).
    auto v = ops::ClaimsView(Input(args->file, args->common));
    if (!v) { exit_code = PrintError(v.error(), args->common.json); return; }
    PrintWarnings(v->warnings);
    std::cout << (args->common.json ? Dump(v->json) + "\n" : AsFlags(v->text));
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
