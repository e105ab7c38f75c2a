// libFuzzer target: what `rlcost serve` does with an HTTP request's body. The
// first byte says whether the body came with a YAML Content-Type; the rest is
// the body, read as the server reads it (ops::ParseRequestBody) and, when it
// reads, estimated and written as the JSON the server would send. (HTTP
// framing itself is cpp-httplib's, a Debian library.)
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "api/ops.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string_view body(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto parsed = rlcost::ops::ParseRequestBody(body, (data[0] & 1) != 0, {"steps", "seed"});
  if (!parsed) return 0;
  auto j = rlcost::ops::Estimate(parsed->in);
  if (j) (void)j->dump();  // throws on text that is not UTF-8: a finding
  return 0;
}
