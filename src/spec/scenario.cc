// STUB — replaced by the scenario loader.
#include "rlcost/scenario.h"
namespace rlcost {
double PassRateSpec::mean() const { return a / (a + b); }
Result<Override> ParseOverride(std::string_view) { return Fail(ErrorCode::kNotImplemented, "--set", "not yet"); }
Result<Scenario> LoadScenarioText(std::string_view, const Catalog&, const std::string&, const std::string&, const std::vector<Override>&) { return Fail(ErrorCode::kNotImplemented, "", "not yet"); }
Result<Scenario> LoadScenarioFile(const std::string&, const Catalog&, const std::vector<Override>&) { return Fail(ErrorCode::kNotImplemented, "", "not yet"); }
Result<Scenario> DefaultScenario(const Catalog&, const std::vector<Override>&) { return Fail(ErrorCode::kNotImplemented, "", "not yet"); }
Distribution Distribution::Fixed(double v) { Distribution d; d.mean_ = v; d.lo_ = v; d.hi_ = v; return d; }
}  // namespace rlcost
