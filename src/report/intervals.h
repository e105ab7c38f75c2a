// report/intervals: the likely range of each headline figure (econ/interval.h)
// as JSON, table lines and one sentence. Presentation only.
//
//   j["interval"] = report::IntervalsToJson(est);   // {"run.usd": {"low": .., "high": ..}, ...}
//   out += report::IntervalsToTable(est);
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "rlcost/estimate.h"

namespace rlcost::report {

// {"run.usd": {"low": .., "high": ..}, ...} for the estimate's path.
nlohmann::json IntervalsToJson(const Estimate& e);
// Lines "  likely range  run.usd  $a .. $b" and the sentence saying where the band comes from.
std::string IntervalsToTable(const Estimate& e);
// "a .. b" for one metric key ("" when the estimate has no such figure).
std::string IntervalText(const Estimate& e, std::string_view key);
// Where the band comes from, in one sentence.
std::string IntervalSource(const Estimate& e);

}  // namespace rlcost::report
