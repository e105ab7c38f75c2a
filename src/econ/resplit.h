// Internal: elastic rollout/train pools (placement.resplit), the run's steps
// priced phase by phase with the split chosen for each phase's response
// length. docs/model.md, "Elastic pools".
//
//   auto r = econ_internal::PriceResplit(s, sig, usd_per_h);
//   r->summary;     // Estimate::Resplit: splits, hours and dollars, fixed vs re-split
//   r->mean_step;   // the re-split run's mean step (what the estimate is built on)
#pragma once

#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/timing.h"

namespace rlcost::econ_internal {

// Seconds the run stops per re-split: placement.resplit.restart_s, else one
// start-up (the policy's bf16 weights read at run.startup.storage_read_gb_per_s
// + the engine warm-up), an ASSUMPTION.
double ResplitRestartS(const Scenario& s);

struct ResplitPricing {
  Estimate::Resplit summary;
  // The mean step of the re-split run: each phase's steps at the split chosen
  // for it (the response-length schedule integrated within the phase, as
  // ScheduledAnalyticStep does over the whole run), the stops for re-splitting
  // spread over the steps as idle time of every GPU.
  StepTiming mean_step;
};

// Requires s.placement.resplit and a response-length schedule; `usd_per_h`
// prices an hour of all the run's GPUs.
Result<ResplitPricing> PriceResplit(const Scenario& s, const signal::Summary& sig, double usd_per_h);

}  // namespace rlcost::econ_internal
