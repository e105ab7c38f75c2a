// Internal: the catalog as text tables and JSON for `rlcost catalog`.
#pragma once

#include <string>

#include "rlcost/catalog.h"

namespace rlcost {

std::string FormatCatalogTable(const Catalog& catalog);
std::string FormatCatalogJson(const Catalog& catalog);

}  // namespace rlcost
