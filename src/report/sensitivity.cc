#include "report/sensitivity.h"

#include <cmath>

#include <fmt/format.h>

#include "report/report.h"

namespace rlcost::report {

std::string InputValue(double v, const std::string& unit) {
  if (unit == "USD") return FormatValue(v, "USD");
  std::string s = std::fabs(v) >= 100 && v == std::floor(v) ? fmt::format("{:.0f}", v) : fmt::format("{:.4g}", v);
  if (unit == "tokens") return s + " tokens";
  if (unit == "s") return s + " s";
  return s;
}

nlohmann::json TornadoToJson(const sensitivity::Tornado& t) {
  using nlohmann::json;
  json out = json::array();
  for (const auto& r : t.rows) {
    json j = {{"input", r.input},
              {"low_value", r.low_value},
              {"high_value", r.high_value},
              {"metric_low", r.metric_low ? json(*r.metric_low) : json(nullptr)},
              {"metric_high", r.metric_high ? json(*r.metric_high) : json(nullptr)},
              {"label", r.label},
              {"unit", r.unit},
              {"base_value", r.base_value},
              {"metric", t.metric},
              {"metric_base", t.base},
              {"path", t.path},
              {"range", r.range}};
    if (r.Swing() >= 0) j["swing"] = r.Swing();
    if (!r.clipped.empty()) j["clipped"] = r.clipped;
    if (!r.flat.empty()) j["flat"] = r.flat;
    if (!r.error_low.empty()) j["error_low"] = r.error_low;
    if (!r.error_high.empty()) j["error_high"] = r.error_high;
    out.push_back(std::move(j));
  }
  return out;
}

std::string TornadoToTable(const sensitivity::Tornado& t) {
  const std::string mu(t.metric_unit);
  std::string out = fmt::format("rlcost sensitivity — {} ({}), {} estimate: {} at the scenario's values\n", t.metric,
                                t.metric_description, t.path, FormatValue(t.base, mu));
  out += "Inputs sorted by how far they swing it (largest first):\n\n";
  out += fmt::format("  {:<66} {:>26}  {:>12} {:>12} {:>12}  {}\n", "input", "low .. high", "at low", "at high", "swing",
                     "range");
  for (const auto& r : t.rows) {
    auto m = [&](const std::optional<double>& v) { return v ? FormatValue(*v, mu) : std::string("failed"); };
    const std::string name = r.label + " (" + r.input + ")";
    out += fmt::format("  {:<66} {:>26}  {:>12} {:>12} {:>12}  {}\n", name,
                       InputValue(r.low_value, r.unit) + " .. " + InputValue(r.high_value, r.unit), m(r.metric_low),
                       m(r.metric_high), r.Swing() >= 0 ? FormatValue(r.Swing(), mu) : std::string("-"), r.range);
    if (!r.clipped.empty()) out += "      " + r.clipped + "\n";
    if (!r.flat.empty()) out += "      " + r.flat + "\n";
    if (!r.error_low.empty()) out += "      at low: " + r.error_low + "\n";
    if (!r.error_high.empty()) out += "      at high: " + r.error_high + "\n";
  }
  out += "\n" + t.range_note + "\n";
  if (!t.skipped.empty()) {
    out += "\nNot moved:\n";
    for (const auto& s : t.skipped) out += fmt::format("  {} ({}): {}\n", s.label, s.input, s.why);
  }
  return out;
}

}  // namespace rlcost::report
