// report: presentation only — JSON, terminal tables, HTML. Computes nothing.
#pragma once
#include <string>
#include <nlohmann/json.hpp>
#include "rlcost/estimate.h"
namespace rlcost::report {
// The estimate as the JSON object of SCENARIO.md (dotted metric keys nested).
nlohmann::json EstimateToJson(const Scenario& s, const Estimate& e);
// A number for people: digits that suit its size, dollars with $.
std::string FormatValue(double v, std::string_view unit);
// The same, as a readable table with units.
std::string EstimateToTable(const Scenario& s, const Estimate& e);
// An error as JSON: {"error": {"code": ..., "problems": [{"path":..., "message":...}]}}.
nlohmann::json ErrorToJson(const Error& e);
}  // namespace rlcost::report
