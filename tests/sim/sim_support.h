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

// The analytic step and `steps` simulated steps (seed 1) of one scenario,
// for the tests that compare the two paths. `ok` is false (and GoogleTest
// told why) when either failed.
struct BothPaths {
  bool ok = false;
  StepTiming analytic;
  sim::SimResult simulated;
};

inline BothPaths AnalyticAndSimulated(const Scenario& s, int steps) {
  BothPaths b;
  auto sig = signal::Analyze(s);
  EXPECT_TRUE(sig.has_value());
  if (!sig) return b;
  auto a = sim::AnalyticStep(s, *sig);
  EXPECT_TRUE(a.has_value()) << (a ? "" : a.error().ToString());
  sim::Options o;
  o.seed = 1;
  o.steps = steps;
  auto r = sim::Simulate(s, *sig, o);
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  if (!a || !r) return b;
  b.ok = true;
  b.analytic = *a;
  b.simulated = *r;
  return b;
}

}  // namespace rlcost::test
