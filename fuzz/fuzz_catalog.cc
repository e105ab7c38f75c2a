// libFuzzer target: a user's catalog file (`--catalog`) added to the
// built-in one.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rlcost/catalog.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rlcost::Catalog builtin = rlcost::Catalog::Builtin().value();
  rlcost::Catalog c = builtin;
  (void)c.AddText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz-catalog.yaml");
  return 0;
}
