#include "report/intervals.h"

#include <fmt/format.h>

#include "fit/interval.h"
#include "report/report.h"

namespace rlcost::report {

nlohmann::json IntervalsToJson(const Estimate& e) {
  nlohmann::json j = nlohmann::json::object();
  for (const auto& [key, r] : interval::Intervals(e, interval::BandFor(e.method))) {
    j[key] = {{"low", r.low}, {"high", r.high}};
  }
  return j;
}

std::string IntervalText(const Estimate& e, std::string_view key) {
  auto all = interval::Intervals(e, interval::BandFor(e.method));
  auto it = all.find(std::string(key));
  const MetricDef* m = FindMetric(key);
  if (it == all.end() || !m) return "";
  return FormatValue(it->second.low, m->unit) + " .. " + FormatValue(it->second.high, m->unit) +
         (m->unit == "USD" ? "" : " " + std::string(m->unit));
}

std::string IntervalSource(const Estimate& e) {
  return interval::BandSentence(interval::BandFor(e.method), e.method);
}

std::string IntervalsToTable(const Estimate& e) {
  std::string out = "\n  likely range of the headline figures:\n";
  for (auto key : interval::HeadlineKeys()) {
    std::string t = IntervalText(e, key);
    if (!t.empty()) out += fmt::format("    {:<20} {}\n", key, t);
  }
  out += "    " + IntervalSource(e) + "\n";
  return out;
}

}  // namespace rlcost::report
