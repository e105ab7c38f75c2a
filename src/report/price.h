// report/price: where the GPU price of an estimate comes from, for the table
// and the HTML report.
#pragma once

#include <string>

#include "rlcost/scenario.h"

namespace rlcost::report {

// "$2.95/GPU-h, <the catalog's source of the price, with its date>", or that
// the scenario set it (hardware.price_per_gpu_hour).
std::string PriceSource(const Scenario& s);

// The origin alone: the catalog's source text (what the figure is, its date
// and where it was published), "set in the scenario (...)" or "set with `price`" (a front end's own knob).
std::string PriceOrigin(const Scenario& s);

// A catalog source "MARKET, 2026-05-20, override it: $2.95/GPU-h, what it is"
// as people read it: "market price as of 2026-05-20: what it is; a catalog
// default, change it with hardware.price_per_gpu_hour". Other origins come
// back as given.
std::string ReadablePriceOrigin(std::string_view origin);

}  // namespace rlcost::report
