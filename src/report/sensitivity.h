// report/sensitivity: the tornado of `rlcost sensitivity` as JSON and as a
// table; the HTML report draws the same rows (report/html.cc). One set of
// numbers for all three.
//
//   auto t = sensitivity::Build(scenario, load, opt);
//   std::cout << report::TornadoToTable(*t);
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "decide/sensitivity.h"

namespace rlcost::report {

// A list, largest swing first: {input, low_value, high_value, metric_low,
// metric_high} plus label, unit, base_value, metric, metric_base, range,
// clipped (when an end was clipped) and error_low / error_high (when the
// estimate failed at an end; the metric there is null).
nlohmann::json TornadoToJson(const sensitivity::Tornado& t);
std::string TornadoToTable(const sensitivity::Tornado& t);
// "6,000 tokens", "$3.08", "0.45": an input's value in its unit.
std::string InputValue(double v, const std::string& unit);

}  // namespace rlcost::report
