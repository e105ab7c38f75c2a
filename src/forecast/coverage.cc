// What the back-test showed of the interval (docs/forecast-validation.md).
#include "forecast/render.h"

namespace rlcost::forecast {

const char* const kBacktestCoverageNote =
    "nominal 80% bootstrap interval; not yet measured against the back-test";

}  // namespace rlcost::forecast
