// cli/sweep_command: the command line that `rlcost sweep` and the MPI launcher
// (`rlcost-sweep-mpi`, src/cli/mpi/main.cc) share — the options, and the
// request (ops::SweepRunInput) they make — so both take the same command line
// and write the same files.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/sweep_run.h"
#include "cli/common.h"

namespace rlcost::cli {

// The flags fill the request's fields (in.output is -o); --no-plan empties its plan_for.
struct SweepArgs {
  ops::SweepRunInput in;
  bool no_plan = false;
};

// Adds the sweep's options (file, --vary, --sample, ... -o, --csv, --jsonl) to `sub`.
void AddSweepOptions(CLI::App* sub, SweepArgs& a);

// The request of these options; `command_name` heads the command line recorded in the files.
ops::SweepRunInput SweepRequest(const SweepArgs& a, const std::string& command_name = "rlcost sweep");

// The sweep's own spelling of the request's `output` (errors name it -o).
inline constexpr FlagName kSweepFlags[] = {{"output", "-o"}};

}  // namespace rlcost::cli
