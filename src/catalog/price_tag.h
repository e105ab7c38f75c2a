// catalog/price_tag: the head of a GPU's price source, what the default price
// is and its date ("MARKET, 2026-05-20", "ASSUMPTION", "set with --price"),
// for tables and lever details that show a price without its full source.
#pragma once

#include <string>

#include "rlcost/catalog.h"

namespace rlcost::catalog_internal {

// The text of sources["price_per_hour"] before ", override it" (or before its
// first ':'), at most 60 characters; "" when the entry gives no source.
std::string PriceTag(const GpuSpec& g);

}  // namespace rlcost::catalog_internal
