// STUB
#include "rlcost/sim.h"
namespace rlcost::sim {
Result<StepTiming> AnalyticStep(const Scenario&, const signal::Summary&) { return Fail(ErrorCode::kNotImplemented, "", "not yet"); }
}
