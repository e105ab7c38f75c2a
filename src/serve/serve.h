// `rlcost serve`: the JSON HTTP API, a program of its own (rlcost-serve) so
// that only the server loads the HTTP library. `rlcost serve ARGS` replaces
// itself with `rlcost-serve ARGS` (src/cli/cmd_serve.cc), whose command line
// is src/cli/serve/main.cc. The endpoints, the rules that keep it safe to
// leave running, and the files: serve/serve.cc.
#pragma once

#include "api/serve_request.h"
#include "rlcost/error.h"

namespace rlcost::serve {

// Checks the request (ServeRequest::Validate, after RLCOST_SERVE_TOKEN is
// read), listens, prints "rlcost serve: listening on http://HOST:PORT" and
// answers until the server stops. An error names the request's field
// ("threads", "queue", "token", "port").
Result<void> Run(ops::ServeRequest a);

}  // namespace rlcost::serve
