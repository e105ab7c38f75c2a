// cli/sweep_command: the parts of `rlcost sweep` that the single-process
// command and the MPI launcher (`rlcost-sweep-mpi`) share — the options, every
// check made before any point runs, the row files and the closing summary —
// so both take the same command line and write the same files.
#pragma once

#include <atomic>
#include <chrono>
#include <csignal>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

#include "explore/design.h"
#include "explore/store.h"
#include "explore/sweep.h"
#include "scenario/document.h"

namespace rlcost::cli {

struct SweepArgs {
  std::string file;
  std::vector<std::string> catalog_files;
  std::vector<std::string> sets;
  std::vector<std::string> vary;
  std::vector<std::string> metrics;
  uint64_t sample = 0;
  uint64_t seed = 1;
  bool simulate = false;
  int steps = 0;
  unsigned jobs = 0;
  std::string db, csv, jsonl;
  bool no_plan = false;          // --no-plan: every point's placement read literally
  std::string plan_for = "cost"; // --plan-for cost|time
};

// Adds the sweep's options (file, --vary, --sample, ... -o, --csv, --jsonl) to `sub`.
void AddSweepOptions(CLI::App* sub, SweepArgs& a);

// Everything a sweep needs, checked: a bad --vary, --set, --metric, an unknown
// scenario field or an unreadable file is an error here, before any work.
struct PreparedSweep {
  explore::Design design;
  Catalog catalog;
  scenario_internal::ScenarioDocument doc;
  explore::SweepOptions opt;      // metrics, fixed overrides, simulator, threads
  explore::StoreHeader header;
};
Result<PreparedSweep> PrepareSweep(const SweepArgs& a, const std::string& command_name = "rlcost sweep");

// The row files of one sweep (-o, --csv, --jsonl): opened before any point
// runs, each row written as it arrives in point order, closed once.
class SweepOutput {
 public:
  // Opens every file named in `a` (sweep.db when none); errors name the flag.
  static Result<SweepOutput> Open(const SweepArgs& a, const explore::StoreHeader& header);
  // Writes one row; after a write error the rest are counted, not written, and
  // `stop` is set so no more points start.
  void Write(explore::PointRow&& row, std::atomic<bool>* stop);
  // Closes the files (complete when `done` == planned and nothing failed),
  // prints the one-line summary and returns the exit code: 0, 130 interrupted,
  // or the write error's.
  int Finish(uint64_t done, uint64_t planned, std::chrono::steady_clock::time_point start, const std::string& engine);

 private:
  std::vector<std::pair<std::string, std::unique_ptr<explore::RowWriter>>> writers_;
  std::optional<Error> write_error_;
  uint64_t counts_[4] = {0, 0, 0, 0};
  std::set<std::string> goal_curves_;  // the rows' goal_curve labels (what their goal figures rest on)
};

// Ctrl-C (or SIGTERM) from construction on sets `Interrupted()`; a second one,
// a second or more later, ends the process at once. Restored on destruction.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
  static std::atomic<bool>& Interrupted();

 private:
  struct sigaction old_int_{}, old_term_{};
};

}  // namespace rlcost::cli
