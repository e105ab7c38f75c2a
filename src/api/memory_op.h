// `memory`: GPU memory per GPU for each role of a run (its planned layout, or
// as written when the request reads layouts literally), the fewest GPUs on
// which it fits and the catalog's largest model that fits on N GPUs.
//
//   ops::ScenarioInput in;  in.file = "q32.yaml";
//   auto m = ops::MemoryView(in, {});   // m->view.json["fits"], m->fits
#pragma once

#include "api/views.h"

namespace rlcost::ops {

struct MemoryInput {
  int gpus = 0;  // GPU count for the largest model that fits; 0 = the scenario's
  Result<void> Validate() const;  // "gpus": 0..1,000,000
};

struct MemoryOutcome {
  View view;
  bool fits = false;  // a layout that does not fit is an answer, not an error
};
Result<MemoryOutcome> MemoryView(const ScenarioInput& in, const MemoryInput& m);

}  // namespace rlcost::ops
