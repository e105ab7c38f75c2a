// libFuzzer target: the scenario loader (YAML, and JSON as its subset) on
// arbitrary bytes, then the analytic estimate of whatever loads. Any crash,
// sanitizer report or uncaught exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "rlcost/catalog.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const rlcost::Catalog catalog = rlcost::Catalog::Builtin().value();
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto s = rlcost::LoadScenarioText(text, catalog, "fuzz.yaml", "/nonexistent");
  if (s) (void)rlcost::EstimateAnalytic(*s);
  return 0;
}
