// The simulator as the sim tests drive it: the scenario's signal, then
// `steps` simulated steps (seed 1), with any error reported through GoogleTest.
#pragma once

#include <deque>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "support.h"

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

// Rollout engines of scenario heads (model, hardware, placement ...) given
// 1,000 + 1,000-token requests, for the tests that compare an engine's kept
// pricing with perf.h's. An engine points into its scenario, so each scenario
// is kept for as long as this is (a deque's push_back leaves the earlier ones
// where they are).
class KeptEngines {
 public:
  perf::EngineConfig operator()(const std::string& head) {
    auto s = LoadScenarioText(head + "environment: {prompt_tokens: 1000, response_tokens: 1000}\n", Cat(),
                              "engine.yaml");
    EXPECT_TRUE(s) << head << (s ? "" : s.error().ToString());
    kept_.push_back(s ? *s : Scenario{});
    return perf::RolloutEngine(kept_.back());
  }

 private:
  std::deque<Scenario> kept_;
};

}  // namespace rlcost::test
