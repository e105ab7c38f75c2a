// What the back-test showed of the interval (docs/forecast-validation.md).
#include "forecast/render.h"

namespace rlcost::forecast {

const char* const kBacktestCoverageNote =
    "5-95% quantiles of the bootstrap (nominal 90%); in the back-test on three public veRL runs (fitted on 30, 50 and "
    "70% of each) they held the true step for 36 of 42 targets (86%) reading a target as reached at the first logged "
    "value at it, and 47 of 48 (98%) reading it at the first step whose average is (docs/forecast-validation.md; "
    "in-sample: the level was chosen there)";

}  // namespace rlcost::forecast
