// The simulator's own outputs as JSON, beside the contract keys: the report
// merges this object into `rlcost simulate --json` under the key "sim".
//
//   nlohmann::json j = rlcost::report::SimExtrasToJson(result);
//   j["trajectory_time_s"]["p99"];   // seconds
#pragma once

#include <nlohmann/json.hpp>

#include "rlcost/sim.h"

namespace rlcost::report {

// {"trajectory_time_s": {p50, p90, p99, max}, "trajectory_tokens": {...},
//  "idle_gpu_s": {length_tail, trainer, tools, weight_sync, waiting_rollout},
//  "sandbox_wait_s", "mean_batch_occupancy", "preemptions", "engines",
//  "kv_blocks_per_engine", "events", "seed", "steps"}; the caller puts it
// under "sim" (so the keys read sim.trajectory_time_s.p50, ...).
nlohmann::json SimExtrasToJson(const sim::SimResult& r);

}  // namespace rlcost::report
