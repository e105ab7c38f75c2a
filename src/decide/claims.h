// decide/claims: the quantitative claims of the post-training economics essay
// (Motivation: "Inference economics are solved. Post-training economics are
// not.") checked on one scenario. Each claim gets the essay's figure, rlcost's
// figure for this scenario — the real model run on variants of the scenario
// (`--set` overrides, reloaded and checked like the user's own file) and on
// the lever configurations of decide/levers — and a verdict: holds (inside
// the claimed figure), exceeds (better than claimed), falls short (worse than
// claimed) or depends (on what, in `why`). Rules and formulas: docs/model.md,
// "The essay's claims, checked".
//
//   auto load = [&](const std::vector<std::string>& sets) { return LoadScenario(file, cat, sets); };
//   auto r = claims::CheckClaims(scenario, catalog, load);
//   for (const auto& c : r->claims) c.verdict;   // "holds" | "exceeds" | "falls short" | "depends"
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "plan/plan.h"
#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost::claims {

// The scenario reloaded with extra `key=value` overrides (after the user's own
// --set): how a variant is made, so that it passes the same checks as a file.
using LoadVariant = std::function<Result<Scenario>(const std::vector<std::string>& sets)>;

struct Claim {
  std::string id;                  // "rollout_share", ... (stable, for tests and JSON)
  std::string claim;               // the essay's statement, in short
  std::string claimed;             // the essay's figure ("80-90%")
  std::string rlcost;              // rlcost's figure for this scenario, as shown
  std::optional<double> value;     // the figure the verdict is read from (nullopt: none)
  std::string verdict;             // "holds" | "exceeds" | "falls short" | "depends" (Verdicts())
  std::string why;                 // how it was computed and what the verdict rests on
  // The run the claim's variants start from: "run" (this scenario as
  // planned: the figures `estimate` gives) or "naive" (the essay's naive
  // H100 + synchronous baseline, which its lever claims are made against).
  std::string from = "run";
};

// The step time and dollars a step of a run the claims start from.
struct StartingRun {
  std::string label;               // "this run, as planned" or the naive baseline in words
  double step_s = 0;               // step.time_s
  double usd_per_step = 0;         // cost.usd_per_step
  bool ok = false;                 // false: it could not be estimated
};

struct Report {
  std::string scenario_name;
  std::string source;              // whose claims, where from
  std::vector<Claim> claims;       // in the essay's order
  StartingRun run;                 // Claim::from == "run"
  StartingRun naive;               // Claim::from == "naive"
};

// Every claim, in the essay's order. A claim whose variant cannot run (does
// not fit, ...) is reported with verdict "depends" and the reason; an error
// is returned only when the scenario itself cannot be estimated.
// `replan`: every variant and lever configuration gets its own best layout for
// the placement fields the scenario leaves out (levers::Options::replan);
// nullopt: as written (--no-plan).
Result<Report> CheckClaims(const Scenario& s, const Catalog& cat, const LoadVariant& load,
                           std::optional<plan::Objective> replan = std::nullopt);

// The ids in order (for tests and documentation).
const std::vector<std::string>& ClaimIds();

// The four verdicts, in the order a summary counts them.
const std::vector<std::string>& Verdicts();

}  // namespace rlcost::claims
