// What `rlcost serve` is asked to be, checked (api/serve_request.h).
#include "api/serve_request.h"

namespace rlcost::ops {

bool IsLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host == "[::1]" || host.rfind("127.", 0) == 0;
}

Result<void> ServeRequest::Validate() const {
  if (threads < 1 || threads > 1024) {
    return Fail(Error::Invalid("threads", std::to_string(threads) + "; expected 1..1024"));
  }
  if (queue < 0 || queue > 100000) {
    return Fail(Error::Invalid("queue", std::to_string(queue) + "; expected 0..100000"));
  }
  if (!IsLoopback(host) && token.empty()) {
    return Fail(Error::Invalid("token", "required when listening on " + host +
                                            ", an address other machines can reach: give a token SECRET (or set "
                                            "RLCOST_SERVE_TOKEN); clients send \"Authorization: Bearer SECRET\""));
  }
  return {};
}

}  // namespace rlcost::ops
