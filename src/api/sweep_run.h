// api/sweep_run: a sweep that writes its rows to files as they arrive — what
// `rlcost sweep` and `rlcost-sweep-mpi` run — checked whole before any point
// runs. Fields are named by their own names in errors ("vary", "output",
// "csv"); a front end says them its way (SweepRunInput::words).
//
//   ops::SweepRunInput in;
//   in.file = "q32.yaml";  in.vary = {"algorithm.group_size=4,8,16"};  in.csv = "rows.csv";
//   auto p = ops::PrepareSweep(in);                  // every check, no point run yet
//   auto files = ops::SweepFiles::Open(in, p->header);
//   uint64_t done = explore::RunSweep(p->doc, p->catalog, p->design, p->opt,
//                                     [&](explore::PointRow&& r) { files->Write(std::move(r), nullptr); });
//   auto summary = files->Finish(done, p->design.size(), start, p->header.engine);
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "api/sweep_checks.h"
#include "explore/design.h"
#include "explore/store.h"
#include "explore/sweep.h"
#include "scenario/document.h"

namespace rlcost::ops {

struct SweepRunInput {
  std::string file;                       // the scenario; "" = the built-in default
  std::vector<std::string> catalog_files;
  std::vector<std::string> sets;          // "key=value" fixed at every point
  std::vector<std::string> vary;          // "KEY=V1,V2,..." or "KEY=LO..HI[:STEP]"
  std::vector<std::string> metrics;       // columns; empty = the main ones
  uint64_t sample = 0;                    // > 0: a Latin-hypercube sample of this many points
  uint64_t seed = 1;                      // of the sample and the simulator
  bool simulate = false;
  int steps = 0;                          // simulated steps per point; 0 = the scenario's
  unsigned jobs = 0;                      // threads; 0 = every core
  std::string output, csv, jsonl;         // the row files (SQLite, CSV, JSON Lines); none = sweep.db
  std::string plan_for = "cost";          // the planner's objective at every point; "" = placement as written
  std::string command_line;               // how the front end was asked, recorded in the files
  SweepFieldWords words;                  // how the checks' messages name the fields
};

// Everything a sweep needs, checked: a bad `vary`, `sets`, `metrics`, an
// unknown scenario field or an unreadable file is an error here, before any work.
struct PreparedSweep {
  explore::Design design;
  rlcost::Catalog catalog;
  scenario_internal::ScenarioDocument doc;
  explore::SweepOptions opt;      // metrics, fixed overrides, simulator, threads
  explore::StoreHeader header;
};
Result<PreparedSweep> PrepareSweep(const SweepRunInput& in);

// What a finished sweep says: a line on what was written (and notes) for
// stdout, a line on an early stop for stderr, and the exit code for a
// program (0, or 130 when it stopped early).
struct SweepSummary {
  std::string text;
  std::string stopped;
  int exit_code = 0;
};

// The row files of one sweep: opened before any point runs, each row written
// as it arrives in point order, closed once.
class SweepFiles {
 public:
  // Opens every file named in `in` (sweep.db when none); errors name the field.
  static Result<SweepFiles> Open(const SweepRunInput& in, const explore::StoreHeader& header);
  // Writes one row; after a write error the rest are counted, not written, and
  // `stop` is set so no more points start.
  void Write(explore::PointRow&& row, std::atomic<bool>* stop);
  // Closes the files (complete when `done` == planned and nothing failed): the
  // summary, or the write error.
  Result<SweepSummary> Finish(uint64_t done, uint64_t planned, std::chrono::steady_clock::time_point start,
                              const std::string& engine);

 private:
  std::vector<std::pair<std::string, std::unique_ptr<explore::RowWriter>>> writers_;
  std::optional<Error> write_error_;
  uint64_t counts_[4] = {0, 0, 0, 0};
  std::set<std::string> goal_curves_;  // the rows' goal_curve labels (what their goal figures rest on)
};

// How far a sweep is: points done of planned, the mean rate so far (points a
// second) and the seconds left (< 0: not known yet), from how the points' cost
// has moved, not from their mean rate (explore/eta.h).
struct SweepProgress {
  uint64_t done = 0;
  uint64_t planned = 0;
  double rate = 0;
  double remaining_s = -1;
};
// Runs a prepared sweep on this process's threads, every row into `files` as
// it arrives; stops starting points once `stop` is set (when given), and
// calls `progress` (when given) as points finish. Returns the points done.
uint64_t RunPreparedSweep(const PreparedSweep& p, SweepFiles& files, std::atomic<bool>* stop,
                          const std::function<void(const SweepProgress&)>& progress = nullptr);

}  // namespace rlcost::ops
