// `rlcost serve`: the JSON HTTP API, a program of its own (rlcost-serve) so
// that only the server loads the HTTP library. `rlcost serve ARGS` replaces
// itself with `rlcost-serve ARGS` (src/cli/cmd_serve.cc).
#pragma once

#include <CLI/CLI.hpp>

namespace rlcost::cli {

// One description for `rlcost --help` and `rlcost serve --help`.
inline constexpr const char* kServeDescription =
    "JSON HTTP API: POST /v1/estimate, /v1/simulate, /v1/waterfall, /v1/price, /v1/sweep, /v1/report; GET /v1/catalog, /v1/health, /v1/default, /v1/openapi.json (the API described)";

// The server's options and, as the callback, the server itself, on `app`.
void ConfigureServe(CLI::App& app, int& exit_code);

}  // namespace rlcost::cli
