// report: text tables and JSON for the lever commands (waterfall, price,
// compare). Presentation only: every number comes from decide/levers.
//
//   auto wf = rlcost::levers::BuildWaterfall(s, cat, opt);
//   std::cout << rlcost::report::WaterfallToTable(*wf);
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "decide/levers.h"

namespace rlcost::report {

std::string WaterfallToTable(const levers::Waterfall& wf);
nlohmann::json WaterfallToJson(const levers::Waterfall& wf);

std::string PriceCardToTable(const levers::PriceCard& card);
nlohmann::json PriceCardToJson(const levers::PriceCard& card);

std::string ComparisonToTable(const levers::Comparison& cmp);
nlohmann::json ComparisonToJson(const levers::Comparison& cmp);

// "12.3x" / "n/a".
std::string FormatFactor(const std::optional<double>& f);
// "a rollout is worth 0.931 of an on-policy bf16 one: staleness 1 (async) -5% (ASSUMPTION), ...".
std::string WorthLine(const levers::Config& c);
// One line saying why a configuration has no numbers ("does not fit: ...").
std::string ConfigError(const levers::Config& c);

}  // namespace rlcost::report
