// Whose measurements a GPU's efficiency figures are (docs/model.md,
// "Efficiency defaults"): kept with the GPU's sources by the catalog reader
// (catalog_internal::SetEfficiencyBorrowedFrom, ApplyEfficiencyRow) and read
// here by the estimate's text and its JSON, one definition for both.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "core/strings.h"
#include "rlcost/catalog.h"

namespace rlcost {

// Source keys: the whole row borrowed ("efficiency.measured_on" = donor id),
// or a row of its own that leaves some fields to the donor's figures
// ("efficiency.borrowed_from" = donor id, "efficiency.borrowed_fields" = the
// fields, comma-separated, in the order of EfficiencyFields()).
inline constexpr const char* kEfficiencyBorrowedAll = "efficiency.measured_on";
inline constexpr const char* kEfficiencyBorrowedFrom = "efficiency.borrowed_from";
inline constexpr const char* kEfficiencyBorrowedFields = "efficiency.borrowed_fields";

struct EfficiencyOrigin {
  std::string borrowed_from;                // empty: every figure is the GPU's own
  bool whole_row = false;                   // true: no figure of its own
  std::vector<std::string> borrowed_fields;  // the fields taken from borrowed_from
};

inline bool IsEfficiencyOriginKey(const std::string& key) {
  return key == kEfficiencyBorrowedAll || key == kEfficiencyBorrowedFrom || key == kEfficiencyBorrowedFields;
}

inline EfficiencyOrigin OriginOfEfficiency(const GpuSpec& g) {
  EfficiencyOrigin o;
  if (auto all = g.sources.find(kEfficiencyBorrowedAll); all != g.sources.end()) {
    o.borrowed_from = all->second;
    o.whole_row = true;
    for (const auto& f : EfficiencyFields()) {
      if (f.per_gpu) o.borrowed_fields.emplace_back(f.name);
    }
    return o;
  }
  auto from = g.sources.find(kEfficiencyBorrowedFrom);
  auto fields = g.sources.find(kEfficiencyBorrowedFields);
  if (from == g.sources.end() || fields == g.sources.end()) return o;
  o.borrowed_from = from->second;
  const std::string& list = fields->second;
  for (std::size_t start = 0; start <= list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    if (std::string name = TrimBlanks(std::string_view(list).substr(start, comma - start)); !name.empty()) {
      o.borrowed_fields.push_back(std::move(name));
    }
    start = comma + 1;
  }
  if (o.borrowed_fields.empty()) o.borrowed_from.clear();
  return o;
}

// The GPU's own figures that are derivations, not measurements on it: each
// such field's source in catalog/efficiency.yaml starts with "DERIVED" (a
// figure measured on another GPU scaled by a ratio measured on both; docs/
// model.md, "Efficiency defaults"). In the order of EfficiencyFields();
// borrowed fields are not the GPU's own and are not listed.
inline std::vector<std::string> DerivedEfficiencyFields(const GpuSpec& g) {
  std::vector<std::string> out;
  const EfficiencyOrigin origin = OriginOfEfficiency(g);
  if (origin.whole_row) return out;
  for (const auto& f : EfficiencyFields()) {
    if (std::find(origin.borrowed_fields.begin(), origin.borrowed_fields.end(), f.name) !=
        origin.borrowed_fields.end()) {
      continue;
    }
    auto it = g.sources.find(std::string("efficiency.") + f.name);
    if (it != g.sources.end() && it->second.rfind("DERIVED", 0) == 0) out.emplace_back(f.name);
  }
  return out;
}

// The figures that are named fits to measured runs, not published figures:
// each such field's source starts with "NAMED FIT" (docs/model.md, "Named
// fits"). In the order of EfficiencyFields(); the text and the JSON read it.
inline std::vector<std::string> FittedEfficiencyFields(const GpuSpec& g) {
  std::vector<std::string> out;
  for (const auto& f : EfficiencyFields()) {
    auto it = g.sources.find(std::string("efficiency.") + f.name);
    if (it != g.sources.end() && it->second.rfind("NAMED FIT", 0) == 0) out.emplace_back(f.name);
  }
  return out;
}

// Writes `o` into the GPU's sources, the inverse of OriginOfEfficiency:
// nothing borrowed (no donor or no field), the whole row, or the fields named.
inline void SetOriginOfEfficiency(GpuSpec& g, const EfficiencyOrigin& o) {
  for (const char* k : {kEfficiencyBorrowedAll, kEfficiencyBorrowedFrom, kEfficiencyBorrowedFields}) g.sources.erase(k);
  if (o.borrowed_from.empty() || (!o.whole_row && o.borrowed_fields.empty())) return;
  if (o.whole_row) {
    g.sources[kEfficiencyBorrowedAll] = o.borrowed_from;
    return;
  }
  std::string list;
  for (const auto& name : o.borrowed_fields) list += (list.empty() ? "" : ", ") + name;
  g.sources[kEfficiencyBorrowedFrom] = o.borrowed_from;
  g.sources[kEfficiencyBorrowedFields] = list;
}

}  // namespace rlcost
