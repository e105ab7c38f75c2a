// `optimize`: the best configurations of a scenario over a search space, under
// constraints on any metric, what binds, and the Pareto front of the objective
// against wall time (explore/optimize.h). Fields are named by their own names
// in errors ("minimize", "subject_to", "over"); a front end says them its way.
//
//   ops::OptimizeInput in;
//   in.file = "q32.yaml";  in.minimize = "goal.usd";  in.subject_to = {"run.wall_time_h<=168"};
//   auto r = ops::OptimizeView(in);    // r->view.json["best"], r->found
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "api/views.h"

namespace rlcost::ops {

struct OptimizeInput {
  std::string file;                      // the scenario; "" = the built-in default
  std::string minimize;                  // a metric key, e.g. goal.usd
  std::vector<std::string> subject_to;   // "METRIC<=VALUE" (<, >=, >), at most 32
  std::vector<std::string> over;         // "KEY=V1,V2" or "KEY=LO..HI[:STEP]"; empty = a default space
  std::vector<std::string> sets;         // "key=value" fixed in every configuration
  std::vector<std::string> catalog_files;
  size_t top = 5;                        // configurations listed
  unsigned jobs = 0;                     // threads; 0 = every core
  bool plan = true;                      // false: every placement read as written
  std::string plan_for;                  // cost | time; "" = time for a time metric, else cost
};

struct OptimizeOutcome {
  View view;           // the text names a field of the request as `over`
  bool found = false;  // some configuration meets every constraint
};
// At most 20,000 points are searched; a larger space is refused before any runs.
Result<OptimizeOutcome> OptimizeView(const OptimizeInput& in);

}  // namespace rlcost::ops
