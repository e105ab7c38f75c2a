// veRL's console logger: "step:1 - timing_s/gen:42.9 - ..." lines among other output.
#include <cctype>
#include <istream>
#include <sstream>

#include "ingest/log_common.h"

namespace rlcost::calib::log_internal {
namespace {

// The position of a "step:<digits>" field that starts a veRL metrics line
// (at the start or after a space / ')' of a "(main_task pid=..)" prefix).
size_t FindStepField(std::string_view line) {
  size_t pos = 0;
  while ((pos = line.find("step:", pos)) != std::string_view::npos) {
    bool starts = pos == 0 || line[pos - 1] == ' ' || line[pos - 1] == ')' || line[pos - 1] == '\t';
    size_t d = pos + 5;
    if (starts && d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) return pos;
    pos += 5;
  }
  return std::string_view::npos;
}

}  // namespace

Result<TrainingLog> ParseConsole(std::string_view text, const std::string& origin) {
  std::istringstream in{std::string(text)};
  return ParseConsoleStream(in, origin, KeyFilter{});
}

Result<TrainingLog> ParseConsoleStream(std::istream& in, const std::string& origin, const KeyFilter& filter) {
  TrainingLog log;
  log.path = origin;
  log.format = "verl-console";
  int line_no = 0;
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = Trim(raw);
    if (filter.drop_comment_lines && !line.empty() && line.front() == '#') continue;
    size_t at = FindStepField(line);
    if (at == std::string_view::npos) continue;  // not a metrics line
    line.remove_prefix(at);
    LogRecord rec;
    rec.line = line_no;
    bool have_step = false;
    size_t start = 0;
    while (start <= line.size()) {
      size_t sep = line.find(" - ", start);
      std::string_view field = Trim(line.substr(start, sep == std::string_view::npos ? std::string_view::npos : sep - start));
      start = sep == std::string_view::npos ? line.size() + 1 : sep + 3;
      if (field.empty()) continue;
      // The key may itself hold ':' only in odd loggers; split at the last ':'
      // so "val-core/math:acc/mean@1:0.5" still reads.
      size_t colon = field.rfind(':');
      if (colon == std::string_view::npos) {
        return Fail(LineError(origin, line_no, "expected key:value separated by \" - \", got \"" + std::string(field) + "\""));
      }
      std::string key(Trim(field.substr(0, colon)));
      std::string_view val = Trim(field.substr(colon + 1));
      auto v = ParseLogNumber(val);
      if (!v) {
        if (IsUsedKey(key)) {
          return Fail(LineError(origin, line_no, key + ": \"" + std::string(val) + "\" is not a number"));
        }
        continue;
      }
      if (key == "step") {
        auto step = StepNumber(*v);
        if (!step) return Fail(LineError(origin, line_no, NotAStep(key, "\"" + std::string(val) + "\"")));
        rec.step = *step;
        have_step = true;
      } else {
        if (filter.counts) ++(*filter.counts)[key];
        if (!filter.keep || filter.keep(key)) rec.values[key] = *v;
      }
    }
    if (!have_step) return Fail(LineError(origin, line_no, "step: missing"));
    log.records.push_back(std::move(rec));
  }
  if (log.records.empty()) {
    return Fail(LineError(origin, 0, "no metrics lines found (expected veRL console lines \"step:N - key:value - ...\", JSONL, or a NeMo RL metrics JSON)"));
  }
  return log;
}

}  // namespace rlcost::calib::log_internal
