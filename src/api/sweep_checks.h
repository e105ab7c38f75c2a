// The checks of a sweep's fields made before any point runs (the axes to
// vary, the fixed overrides, the metric columns), shared by the sweep of the
// HTTP server and Python (ops::Sweep) and `rlcost sweep` / rlcost-sweep-mpi
// (api/sweep_run.cc): one set of checks, each front end's own words.
#pragma once

#include <string>
#include <vector>

#include "explore/design.h"
#include "explore/sweep.h"
#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost::ops {

// How a front end names a sweep's fields in these checks' errors.
struct SweepFieldWords {
  std::string vary_twice = "varied twice; give each key one set of values";
  std::string nothing_path = "vary";
  std::string nothing_message = "nothing to vary; expected at least one field with its values";
  std::string metric_field = "metrics";
  bool clear_vary_file = true;  // an axis's error names the field by its path alone
};

struct SweepFields {
  std::vector<explore::Axis> axes;
  std::vector<Override> fixed;
  std::vector<const MetricDef*> metrics;  // DefaultMetrics() when none is asked for
};

// Checks every field; each problem found is added to `bad` (its code that of
// the first), so that a request hears of all of them at once.
SweepFields CheckSweepFields(const std::vector<std::string>& vary, bool sampled, const std::vector<std::string>& sets,
                             const std::vector<std::string>& metrics, const SweepFieldWords& words, Error& bad);

}  // namespace rlcost::ops
