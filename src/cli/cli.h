// The `rlcost` command line: subcommands estimate, simulate, catalog, compare,
// waterfall, price, report, validate, calibrate, sweep, optimize.
#pragma once
namespace rlcost::cli {
int Main(int argc, char** argv);
}  // namespace rlcost::cli
