// Event-simulator speed: full runs of the shipped scenarios, with events per
// second of CPU time as a counter. Goals (2-core dev machine): >= 5 M events/s,
// default.yaml (300 steps) < 1 s, swe-agent.yaml (200 steps) < 3 s.
#include <string>

#include <benchmark/benchmark.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"

namespace {

void RunScenario(benchmark::State& state, const std::string& file) {
  auto cat = rlcost::Catalog::Builtin();
  auto s = rlcost::LoadScenarioFile(file, *cat);
  if (!s) {
    state.SkipWithError(s.error().ToString().c_str());
    return;
  }
  auto sig = rlcost::signal::Analyze(*s);
  if (!sig) {
    state.SkipWithError(sig.error().ToString().c_str());
    return;
  }
  rlcost::sim::Options opt;  // the scenario's own steps
  long long events = 0;
  for (auto _ : state) {
    auto r = rlcost::sim::Simulate(*s, *sig, opt);
    if (!r) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    events += r->events;
    benchmark::DoNotOptimize(r->mean_step.time_s);
  }
  state.counters["events"] = benchmark::Counter(double(events) / double(state.iterations()));
  state.counters["events_per_s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
}

void BM_SimulateDefault(benchmark::State& state) {
  RunScenario(state, "/work/shared/scenarios/default.yaml");
}
void BM_SimulateSweAgent(benchmark::State& state) {
  RunScenario(state, "/work/shared/scenarios/swe-agent.yaml");
}

}  // namespace

BENCHMARK(BM_SimulateDefault)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_SimulateSweAgent)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
