// A wandb CSV export: a header row of metric names with a step column, one
// row per logged step. Both exports are read: the run page's "Export CSV"
// (columns "Step" and "<run name> - <metric>", plus "__MIN"/"__MAX" band
// columns) and the API's run.history() written with to_csv ("_step" and the
// metric names). Empty cells are metrics not logged at that step.
#include <sstream>
#include <vector>

#include "ingest/log_common.h"

namespace rlcost::calib::log_internal {

bool SplitCsv(std::string_view line, std::vector<std::string>& out) {
  out.clear();
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cur += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return !quoted;
}

Result<TrainingLog> ParseWandbCsv(std::string_view text, const std::string& origin) {
  TrainingLog log;
  log.path = origin;
  log.format = "wandb-csv";
  std::istringstream in{std::string(text)};
  std::string raw;
  std::vector<std::string> header, cells;
  int line_no = 0;
  int step_col = -1;
  std::vector<std::string> names;  // metric per column; "" = not a metric
  while (std::getline(in, raw)) {
    ++line_no;
    if (!raw.empty() && raw.back() == '\r') raw.pop_back();
    if (Trim(raw).empty()) continue;
    if (header.empty()) {
      if (!SplitCsv(raw, header)) return Fail(LineError(origin, line_no, "unclosed quote in the header"));
      for (size_t c = 0; c < header.size(); ++c) {
        std::string name(Trim(header[c]));
        if (name == "_step" || name == "Step" || name == "step") {
          step_col = static_cast<int>(c);
          name.clear();
        } else if (size_t dash = name.find(" - "); dash != std::string::npos) {
          name = name.substr(dash + 3);  // "<run name> - timing_s/gen"
        }
        if (name.size() > 5 && (name.ends_with("__MIN") || name.ends_with("__MAX"))) name.clear();
        names.push_back(name);
      }
      if (step_col < 0) {
        return Fail(LineError(origin, line_no,
                              "no step column: expected one named _step (wandb API export) or Step (run page export)"));
      }
      continue;
    }
    if (!SplitCsv(raw, cells)) return Fail(LineError(origin, line_no, "unclosed quote"));
    if (cells.size() != header.size()) {
      return Fail(LineError(origin, line_no,
                            "expected " + std::to_string(header.size()) + " fields as in the header, got " +
                                std::to_string(cells.size())));
    }
    LogRecord rec;
    rec.line = line_no;
    auto step = ParseLogNumber(cells[step_col]);
    if (!step) {
      return Fail(LineError(origin, line_no, header[step_col] + ": \"" + cells[step_col] + "\" is not a step number"));
    }
    auto whole = StepNumber(*step);
    if (!whole) return Fail(LineError(origin, line_no, NotAStep(header[step_col], "\"" + cells[step_col] + "\"")));
    rec.step = *whole;
    for (size_t c = 0; c < cells.size(); ++c) {
      if (names[c].empty() || Trim(cells[c]).empty()) continue;
      auto v = ParseLogNumber(cells[c]);
      if (!v) {
        if (IsUsedKey(names[c])) {
          return Fail(LineError(origin, line_no, names[c] + ": \"" + cells[c] + "\" is not a number"));
        }
        continue;
      }
      rec.values[names[c]] = *v;
    }
    log.records.push_back(std::move(rec));
  }
  if (header.empty()) return Fail(LineError(origin, 0, "the CSV is empty"));
  return log;
}

}  // namespace rlcost::calib::log_internal
