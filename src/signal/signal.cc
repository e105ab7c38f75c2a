// STUB — replaced by the signal module.
#include "rlcost/signal.h"
namespace rlcost::signal {
double InformativeGroupProbability(const PassRateSpec&, int) { return 0; }
Result<Summary> Analyze(const Scenario&) { return Fail(ErrorCode::kNotImplemented, "signal", "not yet"); }
}  // namespace rlcost::signal
