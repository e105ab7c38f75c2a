// libFuzzer target: `--set` overrides. Each input line is one `key=value`
// applied to the built-in default scenario, as the command line would.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rlcost::Catalog catalog = rlcost::Catalog::Builtin().value();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<rlcost::Override> overrides;
  size_t start = 0;
  while (start <= text.size() && overrides.size() < 16) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    auto o = rlcost::ParseOverride(text.substr(start, end - start));
    if (o) overrides.push_back(*o);
    start = end + 1;
  }
  auto s = rlcost::DefaultScenario(catalog, overrides);
  if (s) (void)rlcost::EstimateAnalytic(*s);
  return 0;
}
