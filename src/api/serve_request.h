// What `rlcost serve` is asked to be: where it listens, who may ask, and
// its limits. Each field is named by its own name in errors (Validate); the
// command line (src/cli/serve/main.cc) says them as its flags.
#pragma once

#include <string>
#include <vector>

#include "rlcost/error.h"

namespace rlcost::ops {

struct ServeRequest {
  std::string host = "127.0.0.1";
  int port = 8080;                    // 0 = any free port, printed on start
  std::string token;                  // or RLCOST_SERVE_TOKEN; required off loopback
  std::vector<std::string> allow_hosts;  // more names the Host header may carry
  int request_timeout_ms = 10000;     // the whole request (headers and body) must arrive within this
  int header_timeout_ms = 5000;       // its header within this (408 and closed, without holding a worker)
  int request_budget_ms = 10000;      // longest an estimate, waterfall, price card, report or forecast computes
  int threads = 64;          // workers; each keep-alive connection holds one
  int queue = 256;           // connections waiting for a worker; beyond it: 503
  int sim_timeout_ms = 10000;
  int cache_mib = 64;        // answers kept for repeated requests; 0 = none
  int sweep_max_points = 10000;
  int sweep_timeout_ms = 10000;

  // The first field out of range, by its name ("threads", "queue", "token").
  Result<void> Validate() const;
};

// True for an address only this machine reaches (localhost, 127.x, ::1).
bool IsLoopback(const std::string& host);

}  // namespace rlcost::ops
