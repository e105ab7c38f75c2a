// rlcost-serve's command line: the program behind `rlcost serve` (src/serve/serve.h).
// `rlcost serve [--host 127.0.0.1] [--port 8080] ...`: parses the flags into
// an ops::ServeRequest, runs the server, and prints its errors with each
// request field said as its flag (threads -> --threads, allow_hosts -> --allow-host).
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "api/ops.h"
#include "api/serve_request.h"
#include "serve/serve.h"

namespace {

// A ServeRequest field as the flag that sets it.
std::string FlagOf(const std::string& field) {
  if (field.empty()) return field;
  if (field == "allow_hosts") return "--allow-host";
  std::string flag = "--" + field;
  for (char& c : flag) c = c == '_' ? '-' : c;
  return flag;
}

void AddFlags(CLI::App& app, rlcost::ops::ServeRequest& a) {
  app.add_option("--host", a.host, "address to listen on (default 127.0.0.1: this machine only)");
  app.add_option("--port", a.port, "TCP port (default 8080; 0 = any free port, printed on start)");
  app.add_option("--token", a.token,
                 "secret every request must carry (\"Authorization: Bearer SECRET\"); required when --host is not a "
                 "loopback address (also read from RLCOST_SERVE_TOKEN)");
  app.add_option("--allow-host", a.allow_hosts,
                 "another name clients may reach this server by (the Host header), e.g. a proxy's; repeatable");
  app.add_option("--threads", a.threads, "worker threads; each open connection holds one (default 64)");
  app.add_option("--queue", a.queue, "connections that may wait for a worker before new ones get 503 (default 256)");
  app.add_option("--cache-mib", a.cache_mib,
                 "memory for answers to repeated estimate/waterfall/price requests (default 64; 0 = compute every time)")
      ->check(CLI::Range(0, 4096));
  app.add_option("--sweep-max-points", a.sweep_max_points, "most points one /v1/sweep request may have (default 10000)")
      ->check(CLI::Range(1, 10000000));
  app.add_option("--sweep-timeout-ms", a.sweep_timeout_ms, "longest a /v1/sweep request computes before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  app.add_option("--request-budget-ms", a.request_budget_ms,
                 "longest an estimate, waterfall, price card, report or forecast computes before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  app.add_option("--sim-timeout-ms", a.sim_timeout_ms, "longest a /v1/simulate request waits before 504 (default 10000)")
      ->check(CLI::Range(100, 600000));
  app.add_option("--header-timeout-ms", a.header_timeout_ms,
                 "longest a request's header may take to arrive; the connection waits without a worker meanwhile "
                 "(default 5000)")
      ->check(CLI::Range(100, 600000));
  app.add_option("--request-timeout-ms", a.request_timeout_ms,
                 "longest a request (its headers and body together) may take to arrive (default 10000)")
      ->check(CLI::Range(100, 600000));
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{rlcost::ops::kServeDescription, "rlcost serve"};
  rlcost::ops::ServeRequest request;
  AddFlags(app, request);
  int exit_code = 0;
  app.callback([&request, &exit_code] {
    auto r = rlcost::serve::Run(request);
    if (r) return;
    rlcost::Error e = r.error();
    for (auto& p : e.problems) p.path = FlagOf(p.path);
    exit_code = rlcost::ops::PrintError(e, false);
  });
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
