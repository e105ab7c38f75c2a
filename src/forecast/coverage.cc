// What the back-test showed of the interval (docs/forecast-validation.md).
#include "forecast/render.h"

namespace rlcost::forecast {

const char* const kBacktestCoverageNote =
    "5-95% quantiles of the bootstrap (nominal 90%); in the back-test on three public veRL runs they held the true "
    "step for 31 of 39 targets (79%) reading a target as reached at the first logged value at it, and 42 of 45 (93%) "
    "reading it at the first step whose average is (docs/forecast-validation.md; in-sample: the level was chosen there)";

}  // namespace rlcost::forecast
