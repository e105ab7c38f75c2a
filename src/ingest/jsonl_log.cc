// JSON lines: veRL's file logger ({"step": N, "data": {...}}, verl/utils/tracking.py
// FileLogger), NeMo RL's and other flat {"step": N, "metric": value} lines.
#include <cctype>
#include <sstream>

#include "core/nesting.h"
#include "ingest/log_common.h"

namespace rlcost::calib::log_internal {

Result<TrainingLog> ParseJsonl(std::string_view text, const std::string& origin) {
  std::istringstream in{std::string(text)};
  return ParseJsonlStream(in, origin, KeyFilter{});
}

Result<TrainingLog> ParseJsonlStream(std::istream& in, const std::string& origin, const KeyFilter& filter) {
  TrainingLog log;
  log.path = origin;
  log.format = "jsonl";
  int line_no = 0;
  int order = 0;
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = Trim(raw);
    if (filter.drop_comment_lines && !line.empty() && line.front() == '#') continue;
    if (line.empty()) continue;
    // Refused before parsing: nlohmann::json's copy and dump recurse, and a
    // line nested 70,000 deep overflowed the stack.
    if (int d = NestingDepth(line); d > kMaxFileNesting) {
      return Fail(LineError(origin, line_no, "nested " + std::to_string(d) + " deep; a log line nests a few levels (at most " +
                                                 std::to_string(kMaxFileNesting) + " accepted)"));
    }
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Fail(LineError(origin, line_no, "not valid JSON"));
    if (!j.is_object()) return Fail(LineError(origin, line_no, "expected one JSON object per line"));
    LogRecord rec;
    rec.line = line_no;
    rec.step = ++order;
    // veRL's file logger nests the metrics: {"step": N, "data": {...}}.
    if (j.contains("data") && j["data"].is_object()) {
      nlohmann::json flat = j["data"];
      if (j.contains("step")) flat["step"] = j["step"];
      j = std::move(flat);
      log.format = "verl-file-logger";
    } else if (j.contains("data")) {
      return Fail(LineError(origin, line_no, "data: expected an object of metrics (veRL's file logger writes "
                                             "{\"step\": N, \"data\": {...}}), got " + j["data"].dump()));
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      std::optional<double> v;
      if (it->is_number()) v = it->get<double>();
      else if (it->is_string()) v = ParseLogNumber(it->get<std::string>());
      if (!v) {
        if (IsUsedKey(key) || key == "_step") {
          return Fail(LineError(origin, line_no, key + ": " + it->dump() + " is not a number"));
        }
        continue;
      }
      if (key == "step" || key == "_step") {
        auto step = StepNumber(*v);
        if (!step) return Fail(LineError(origin, line_no, NotAStep(key, it->dump())));
        rec.step = *step;
      } else {
        if (filter.counts) ++(*filter.counts)[key];
        if (!filter.keep || filter.keep(key)) rec.values[key] = *v;
      }
    }
    log.records.push_back(std::move(rec));
  }
  return log;
}

}  // namespace rlcost::calib::log_internal
