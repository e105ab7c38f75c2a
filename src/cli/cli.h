// The `rlcost` command line: subcommands estimate, simulate, catalog, compare,
// waterfall, price, report, validate, calibrate, sweep, optimize.
#pragma once

#include <span>
#include <string_view>

namespace CLI {
class App;
}

namespace rlcost::cli {

int Main(int argc, char** argv);

// A subcommand: its name as typed and what adds it (with its options) to the app.
struct Command {
  std::string_view name;
  void (*add)(CLI::App& app, int& exit_code);
};
// Every subcommand, in the order `rlcost --help` lists them.
std::span<const Command> Commands();

}  // namespace rlcost::cli
