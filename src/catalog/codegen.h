// Internal: the built-in catalog as C++ source. The build parses catalog/*.yaml
// once (Catalog::BuiltinFromYaml) and writes a function that constructs the
// same GpuSpec/ModelSpec values directly, so `Catalog::Builtin()` parses no
// YAML when the program starts. User catalogs keep the YAML path.
//
//   std::string cc = catalog_internal::CatalogToCpp(*Catalog::BuiltinFromYaml());
#pragma once

#include <string>

#include "rlcost/catalog.h"

namespace rlcost::catalog_internal {

// A translation unit defining `Result<Catalog> Catalog::Builtin()`. Every
// field is written (a static_assert on the structs' sizes stops the build when
// a field is added and not written here), so equal output means equal catalogs.
std::string CatalogToCpp(const Catalog& catalog);

}  // namespace rlcost::catalog_internal
