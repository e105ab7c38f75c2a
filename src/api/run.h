// api/run: a scenario loaded and its layout planned, with its notes — where
// every operation on one scenario starts, for every front end (the command
// line, the HTTP server, the Python module, the MPI sweep). One place, so
// that `estimate`, `compare`, `forecast --scenario`, the report and the lever
// views answer for the same run.
//
//   ops::ScenarioInput in;
//   in.file = "q32.yaml";
//   auto run = ops::LoadRun(in);                 // loaded, calibrated, planned
//   auto e = ops::EstimateRun(*run, in);         // priced, with the planner's notes
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plan/plan.h"
#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

namespace rlcost::ops {

struct ScenarioInput;

// The user's run: the catalog it was read against (the built-in one, or that
// plus the request's catalog files and prices), the scenario with the layout
// fields it leaves out planned (ScenarioInput::plan_for), and warnings to show
// beside the answer (a calibration fitted on another GPU).
struct Run {
  std::shared_ptr<const rlcost::Catalog> catalog;
  Scenario scenario;
  std::optional<PlanSummary> plan;
  std::vector<std::string> warnings;
};

// The catalog of a request: the built-in one, shared, unless it names catalog
// files or prices (then a copy with them; errors name "catalog" / "prices").
Result<std::shared_ptr<const rlcost::Catalog>> CatalogOf(const ScenarioInput& in);
// The scenario of `in` read against `cat` as written (sets, grid and
// calibration applied; no planning). `warnings` (when given) receives what to
// say beside the answer.
Result<Scenario> LoadScenarioOf(const ScenarioInput& in, const rlcost::Catalog& cat,
                                std::vector<std::string>* warnings = nullptr);
// Loaded and planned.
Result<Run> LoadRun(const ScenarioInput& in);
// `s` planned as `in` asks (plan_for; "" = as written).
Result<std::pair<Scenario, std::optional<PlanSummary>>> PlanOf(const ScenarioInput& in, Scenario s);
// The run priced in closed form as `estimate` prices it: its plan, the notes on
// a layout taken literally, and (scaling_notes) the note when one node fewer
// gives a shorter step.
Result<rlcost::Estimate> EstimateRun(const Run& run, const ScenarioInput& in, bool scaling_notes = true);
// The objective the alternatives of a lever view are re-planned with:
// nullopt when `in` reads layouts as written.
std::optional<plan::Objective> ReplanOf(const ScenarioInput& in);

// The exit code of an error for a command line: 2 invalid input or not found,
// 3 does not fit, 4 not implemented, 1 other.
int ExitCode(const Error& e);
// An error as JSON, as every front end prints it.
nlohmann::json ErrorJson(const Error& e);
// Prints an error for a program: JSON on stdout when `json`, and one
// "error: " line per problem on stderr; returns ExitCode(e). A front end
// names its own fields first (the command line's flags).
int PrintError(const Error& e, bool json);

}  // namespace rlcost::ops
