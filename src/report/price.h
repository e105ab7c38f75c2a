// report/price: where the GPU price of an estimate comes from, for the table
// and the HTML report.
#pragma once

#include <string>

#include "rlcost/scenario.h"

namespace rlcost::report {

// "$6.16/GPU-h, <the catalog's source of the price, with its date>", or that
// the scenario set it (hardware.price_per_gpu_hour).
std::string PriceSource(const Scenario& s);

}  // namespace rlcost::report
