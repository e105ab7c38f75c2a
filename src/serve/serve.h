// `rlcost serve`: the JSON HTTP API, a program of its own (rlcost-serve) so
// that only the server loads the HTTP library. `rlcost serve ARGS` replaces
// itself with `rlcost-serve ARGS` (src/cli/cmd_serve.cc).
#pragma once

#include <CLI/CLI.hpp>

#include "api/ops.h"

namespace rlcost::cli {

using ops::kServeDescription;

// The server's options and, as the callback, the server itself, on `app`.
void ConfigureServe(CLI::App& app, int& exit_code);

}  // namespace rlcost::cli
