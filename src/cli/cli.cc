#include "cli/cli.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/common.h"

namespace rlcost::cli {

int Main(int argc, char** argv) {
  CLI::App app{"rlcost: what an RL post-training run will cost, where the money goes, and which lever cuts it most"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "rlcost 0.1.0");
  int exit_code = 0;
  RegisterEstimate(app, exit_code);
  RegisterSimulate(app, exit_code);
  RegisterCatalog(app, exit_code);
  RegisterCompare(app, exit_code);
  RegisterWaterfall(app, exit_code);
  RegisterPrice(app, exit_code);
  RegisterReport(app, exit_code);
  RegisterValidate(app, exit_code);
  RegisterCalibrate(app, exit_code);
  RegisterImport(app, exit_code);
  RegisterSweep(app, exit_code);
  RegisterServe(app, exit_code);
  RegisterOptimize(app, exit_code);
  RegisterSensitivity(app, exit_code);
  RegisterClaims(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help / --version exit 0; a bad command line is bad input: 2, like
    // every other input error (CLI11's own codes run past 100).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    // Anything the checks above did not catch is our bug: one line, no core dump.
    std::cerr << "rlcost: internal error: " << e.what()
              << " (please report it with the command and input that caused it)\n";
    return 3;
  }
  // Output lost to a full disk or a closed pipe is a failure, not a success.
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    std::cerr << "rlcost: cannot write the output: " << std::strerror(errno) << "\n";
    return exit_code != 0 ? exit_code : 1;
  }
  return exit_code;
}

}  // namespace rlcost::cli
