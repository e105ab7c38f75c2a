// report: the text table and JSON of `rlcost claims` (decide/claims).
// Presentation only: every figure and verdict comes from claims::CheckClaims.
//
//   auto r = rlcost::claims::CheckClaims(s, cat, load);
//   std::cout << rlcost::report::ClaimsToTable(*r);
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "decide/claims.h"

namespace rlcost::report {

std::string ClaimsToTable(const claims::Report& r);
// A list of {id, claim, claimed, rlcost, value, verdict, why}, in the essay's order.
nlohmann::json ClaimsToJson(const claims::Report& r);

}  // namespace rlcost::report
