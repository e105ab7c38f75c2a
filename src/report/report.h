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
// The same, as a readable table with units: every metric that applies (a 0
// that means "does not happen in this run" is left out; --json keeps it).
std::string EstimateToTable(const Scenario& s, const Estimate& e);
// The brief answer (`rlcost estimate` without --full), at most about 25
// lines: wall time, GPU-hours, dollars, $ per useful sample, the step's time
// and the run's dollars by phase, the signal, the layout, the GPU price and
// the assumptions, labelled; the likely range of the headline figures.
std::string EstimateBrief(const Scenario& s, const Estimate& e);
// An error as JSON: {"error": {"code": ..., "problems": [{"path":..., "message":...}]}}.
nlohmann::json ErrorToJson(const Error& e);
}  // namespace rlcost::report
