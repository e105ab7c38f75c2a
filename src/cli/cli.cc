#include "cli/cli.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string_view>

#include <CLI/CLI.hpp>

#include "cli/common.h"

namespace rlcost::cli {

std::span<const Command> Commands() {
  static constexpr Command kCommands[] = {
      {"estimate", RegisterEstimate},   {"simulate", RegisterSimulate},   {"catalog", RegisterCatalog},
      {"compare", RegisterCompare},     {"waterfall", RegisterWaterfall}, {"price", RegisterPrice},
      {"report", RegisterReport},       {"validate", RegisterValidate},   {"calibrate", RegisterCalibrate},
      {"import", RegisterImport},       {"sweep", RegisterSweep},         {"serve", RegisterServe},
      {"optimize", RegisterOptimize},   {"sensitivity", RegisterSensitivity}, {"claims", RegisterClaims},
      {"forecast", RegisterForecast},
      {"memory", RegisterMemory},
      {"noise-scale", RegisterNoiseScale},
  };
  return kCommands;
}

int Main(int argc, char** argv) {
  CLI::App app{"rlcost: what an RL post-training run will cost, where the money goes, and which lever cuts it most"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rlcost 0.1.0");
  int exit_code = 0;
  // When the first argument names a command, only that command is built:
  // building the options of all of them was a fifth of an estimate's start-up
  // (docs/performance.md). Anything else (--help, --version, a typo) gets all
  // of them, so that help lists them and CLI11 says what it expected.
  const std::string_view asked = argc > 1 ? argv[1] : "";
  const auto commands = Commands();
  const bool known = std::any_of(commands.begin(), commands.end(), [&](const Command& c) { return c.name == asked; });
  for (const Command& c : commands) {
    if (!known || c.name == asked) c.add(app, exit_code);
  }
  // A bad command line reads as every other error: "error: ..." (#27 item 8).
  app.failure_message([](const CLI::App* a, const CLI::Error& e) { return "error: " + CLI::FailureMessage::simple(a, e); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version exit 0; a bad command line is bad input: 2, like
    // every other input error (CLI11's own codes run past 100).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // Anything the checks above did not catch is our bug: one line, no core dump.
    std::cerr << "error: internal error: " << e.what()
              << " (please report it with the command and input that caused it)\n";
    return 3;
  }
  // Output lost to a full disk or a closed pipe is a failure, not a success.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "error: cannot write the output: " << std::strerror(errno) << "\n";
    return exit_code != 0 ? exit_code : 1;
  }
  return exit_code;
}

}  // namespace rlcost::cli
