// The simulator as the sim tests drive it: the scenario's signal, then
// `steps` simulated steps (seed 1), with any error reported through GoogleTest.
#pragma once

#include <gtest/gtest.h>

#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"

namespace rlcost::test {

inline sim::SimResult RunSim(const Scenario& s, int steps = 2) {
  auto sig = signal::Analyze(s);
  EXPECT_TRUE(sig.has_value());
  sim::Options o;
  o.steps = steps;
  auto r = sim::Simulate(s, *sig, o);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  return r ? *r : sim::SimResult{};
}

}  // namespace rlcost::test
