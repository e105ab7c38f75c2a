// STUB
#include "rlcost/estimate.h"
namespace rlcost {
Estimate BuildEstimate(const Scenario&, const StepTiming&, const signal::Summary&) { return {}; }
Result<Estimate> EstimateAnalytic(const Scenario&) { return Fail(ErrorCode::kNotImplemented, "", "not yet"); }
Result<Estimate> EstimateSimulated(const Scenario&, const sim::Options&) { return Fail(ErrorCode::kNotImplemented, "", "not yet"); }
}
