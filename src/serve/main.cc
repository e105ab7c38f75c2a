// rlcost-serve: the program behind `rlcost serve` (src/serve/serve.h).
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "serve/serve.h"

int main(int argc, char** argv) {
  CLI::App app{rlcost::cli::kServeDescription, "rlcost serve"};
  int exit_code = 0;
  rlcost::cli::ConfigureServe(app, exit_code);
  // A bad command line reads as every other error: "error: ..." (#27 item 8).
  app.failure_message([](const CLI::App* a, const CLI::Error& e) { return "error: " + CLI::FailureMessage::simple(a, e); });
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // As `rlcost`: --help exits 0, a bad command line is bad input (2).
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "error: internal error: " << e.what()
              << " (please report it with the command and input that caused it)\n";
    return 3;
  }
  return exit_code;
}
