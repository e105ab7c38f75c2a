// `rlcost claims FILE [--json]`: the post-training economics essay's claims,
// each with the essay's figure, rlcost's figure for this scenario and a verdict.
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "api/illustrative.h"
#include "cli/variants.h"
#include "decide/claims.h"
#include "report/claims_table.h"

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
    Catalog cat;
    auto loaded = LoadAll(args->file, args->common, &cat);
    if (!loaded) { exit_code = PrintError(loaded.error(), args->common.json); return; }
    // The user's own run, its left-out layout fields planned (--no-plan: literally).
    auto planned = PlanIfAsked(std::move(*loaded), args->common);
    if (!planned) { exit_code = PrintError(planned.error(), args->common.json); return; }
    const Scenario* s = &planned->scenario;
    auto r = claims::CheckClaims(*s, cat, VariantLoader(args->file, cat, args->common),
                                 ReplanObjective(args->common));
    if (!r) { exit_code = PrintError(r.error(), args->common.json); return; }
    if (args->common.json) {
      // The JSON is the list of claims: each one whose figure counts dollars
      // to the goal says what curve that rests on (as ops::Claims does).
      auto j = report::ClaimsToJson(*r);
      api::FlagGoalRows(j, *s, api::ClaimUsesGoal);
      std::cout << Dump(j) << "\n";
    } else {
      std::cout << report::ClaimsToTable(*r);
      if (const std::string note = api::GoalCurveNote(*s); !note.empty()) std::cout << "  note: " << note << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
