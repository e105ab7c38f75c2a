// Internal to the CLI: the user's scenario reloaded with extra --set
// overrides, for the commands that run the model on variants of it (claims,
// the report's claims section).
#pragma once

#include <string>
#include <vector>

#include "cli/common.h"
#include "decide/claims.h"

namespace rlcost::cli {

// Overrides go after the user's own, so a variant is checked like the user's
// file. `cat` must outlive the loader.
inline claims::LoadVariant VariantLoader(const std::string& file, const Catalog& cat, const Common& common) {
  return [file, &cat, common](const std::vector<std::string>& sets) {
    Common c = common;
    c.sets.insert(c.sets.end(), sets.begin(), sets.end());
    return LoadScenario(file, cat, c);
  };
}

}  // namespace rlcost::cli
