// Internal: a scenario document loaded once, then loaded again with `--set`
// overrides many times (a sweep applies one set per point), where the scalar
// fields a sweep varies are written straight into a copy of the loaded
// Scenario instead of going through YAML and the whole loader.
//
//   scenario_internal::FastOverrides fast(doc, catalog, /*fixed=*/{});
//   auto s = fast.Load({{"algorithm.group_size", "8"}});   // == doc.Load(catalog, {{"algorithm.group_size", "8"}})
//
// The result is always exactly what ScenarioDocument::Load gives. A field is
// set directly only when the loader reads it in one place, with a check of its
// own (spec/fields.h, the loader's rule) and nothing else in the loader
// depends on it (a length's mean: the loader's own ReadDist makes the whole
// distribution again, and nothing else in the loader reads it where the field
// is allowed); the document's shape must allow it (its parent mappings are
// there: setting a field inside a block that the file leaves out would switch
// the block on). Anything else goes the YAML way, whose result and messages
// are the definition: another key, a value that is not a plain decimal number,
// a value the field's check refuses, a document that does not load without
// the point's overrides. Not shared between threads (it holds a document).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "scenario/document.h"

namespace rlcost::scenario_internal {

class FastOverrides {
 public:
  // Loads `doc` with `fixed` (applied before every Load's own overrides).
  // `doc` and `catalog` must outlive this object.
  FastOverrides(const ScenarioDocument& doc, const Catalog& catalog, std::vector<Override> fixed = {});

  // Exactly doc.Load(catalog, fixed + overrides).
  Result<Scenario> Load(const std::vector<Override>& overrides) const;

  // The same scenario written into `out` (whose storage a sweep reuses from
  // point to point), when every override is a field written straight into
  // it and its check accepts the value; false otherwise (`out` is then
  // unspecified, and Load takes the YAML way and says why).
  bool TryLoadInto(Scenario& out, const std::vector<Override>& overrides) const;

  // Whether an override of `path` is written straight into the Scenario for
  // this document (a value its check refuses still goes the YAML way).
  bool Direct(std::string_view path) const;

  // The dotted paths that can be written straight into a Scenario (for some document).
  static std::vector<std::string_view> Fields();

  // A `--set` value as Reader::AsNumber reads it, for plain decimal numbers
  // only ("16", "-0.25", "1e3"; not "+1", ".5", "0x10", "1_000", " 1", ".inf"):
  // false for anything else, which then goes through YAML.
  static bool PlainNumber(std::string_view text, double& out);

  // The table of fields and a point's pending values (defined in fast_override.cc).
  struct Field;
  struct Working;

  // environment.prompt_tokens (0) and response_tokens (1) with their mean set
  // to `mean`, the document's other figures kept ({cv, min, max, dist,
  // clipped}), as the loader makes and checks it; nullptr when the loader
  // refuses that mean. Kept per value (kMaxLengthMemo of them): the answer
  // depends on the value and the document only, which this object fixes.
  const Distribution* LengthWithMean(int which, double mean) const;

 private:
  const ScenarioDocument& doc_;
  const Catalog& catalog_;
  std::vector<Override> fixed_;
  std::optional<Scenario> base_;               // doc loaded with fixed_; empty when it does not load
  std::vector<const Field*> direct_;            // fields usable on this document
  double pass_rate_mean_ = 0, concentration_ = 0;  // the document's {mean, concentration} (or defaults)
  // The two length mappings as the loader reads them (the fixed overrides and
  // the framework's defaults applied), each alone under its key, and the
  // distributions made from them per mean (bit pattern; nullopt: refused).
  YAML::Node length_map_[2];
  static constexpr size_t kMaxLengthMemo = 16;
  mutable std::vector<std::pair<uint64_t, std::optional<Distribution>>> length_memo_[2];
};

}  // namespace rlcost::scenario_internal
