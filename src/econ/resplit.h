// Internal: elastic rollout/train pools (placement.resplit), the run's steps
// priced phase by phase with the split chosen for each phase's response
// length. docs/model.md, "Elastic pools".
//
//   auto r = econ_internal::PriceResplit(s, sig, usd_per_h);   // Estimate::Resplit
#pragma once

#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"

namespace rlcost::econ_internal {

// Seconds the run stops per re-split: placement.resplit.restart_s, else one
// start-up (the policy's bf16 weights read at run.startup.storage_read_gb_per_s
// + the engine warm-up), an ASSUMPTION.
double ResplitRestartS(const Scenario& s);

// Requires s.placement.resplit and a response-length schedule; `usd_per_h`
// prices an hour of all the run's GPUs.
Result<Estimate::Resplit> PriceResplit(const Scenario& s, const signal::Summary& sig, double usd_per_h);

}  // namespace rlcost::econ_internal
