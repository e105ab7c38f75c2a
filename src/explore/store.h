// explore/store: where sweep rows go — an SQLite database (the default), CSV
// or JSON Lines. Each writer opens its file before any point runs (so an
// unwritable path fails first), writes to a temporary file beside it and
// renames it into place when closed, so the named file is never half written.
// The database commits as it goes; a sweep stopped early (Ctrl-C) closes it
// normally and it holds the points finished so far, marked incomplete.
//
// Database layout:
//   points(point INTEGER PRIMARY KEY, "<varied key>"..., status, reason, "<metric>"...[, goal_curve], note)
//   (note: PointRow::note, NULL when nothing to say)
//   sweep(key TEXT PRIMARY KEY, value TEXT)   -- scenario text and file, rlcost version,
//                                             -- command line, points planned/written, complete,
//                                             -- goal_curve_is_illustrative (1: a row's goal figures
//                                             -- rest on rlcost's illustrative learning curve)
// When the columns hold a goal figure (goal.steps, goal.usd, ...), every
// format ends each row with `goal_curve`: what those figures rest on
// ("illustrative", "published:NAME", "given"; empty/null when the point sets
// no target), so no figure of the illustrative curve leaves without its label.
//   metrics(name TEXT PRIMARY KEY, unit TEXT, description TEXT)
// Column names are the dotted keys; SQL quotes them: SELECT "run.usd" FROM points.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "explore/sweep.h"

namespace rlcost::explore {

enum class StoreFormat { kSqlite, kCsv, kJsonl };

struct StoreHeader {
  std::vector<std::string> keys;                 // varied keys, in --vary order
  std::vector<const MetricDef*> metrics;
  std::string scenario_text;
  std::string scenario_file;                     // "" = built-in default
  std::string rlcost_version;
  std::string command_line;
  std::string engine;                            // "analytic" | "simulator"
  uint64_t points_planned = 0;
};

class RowWriter {
 public:
  virtual ~RowWriter() = default;
  virtual Result<void> Write(const PointRow& row) = 0;
  // Flushes, records how many points were written and whether the sweep ran
  // to the end, and moves the file into place.
  virtual Result<void> Close(bool complete) = 0;
};

// One row as `--jsonl` writes it: {"point", "<varied key>"... (numbers typed),
// "status", "reason", "<metric>"... (null = not applicable)[, "goal_curve"], "note" (null = none)}. The HTTP API's
// /v1/sweep and the Python module's sweep() return the same rows.
nlohmann::ordered_json RowToJson(const std::vector<std::string>& keys, const std::vector<const MetricDef*>& metrics,
                                 const PointRow& row);

// Creates the temporary file and writes the header / schema. Errors name the
// path and `flag` (-o, --csv, --jsonl).
Result<std::unique_ptr<RowWriter>> OpenWriter(StoreFormat format, const std::string& path,
                                              const StoreHeader& header, const std::string& flag);

}  // namespace rlcost::explore
