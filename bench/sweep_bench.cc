// Sweep speed: points per second per core on default.yaml varying three keys
// (goal: analytic >= 100,000 points/s/core), and the simulated sweep. One
// thread: the scenario is loaded once and each point's values are applied as
// --set overrides (straight into the Scenario where the field allows it,
// explore::PointRunner) before a full estimate, as `rlcost sweep` does. The
// "YamlWay" variant loads the document with the overrides at every point
// (explore::RunPoint), for comparison.
#include <string>

#include <benchmark/benchmark.h>

#include "explore/design.h"
#include "explore/sweep.h"
#include "scenario/document.h"

namespace {

using namespace rlcost;

void RunPoints(benchmark::State& state, bool simulate, bool yaml_way = false) {
  auto cat = Catalog::Builtin();
  auto doc = scenario_internal::ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
  auto design = explore::Design::Grid({*explore::ParseAxis("algorithm.group_size=4..16:4"),
                                       *explore::ParseAxis("algorithm.prompts_per_step=16,32,64,128"),
                                       *explore::ParseAxis("environment.pass_rate.mean=0.1..0.5:0.1")});
  if (!cat || !doc || !design) {
    state.SkipWithError("cannot load the default scenario or its design");
    return;
  }
  explore::SweepOptions opt;
  opt.simulate = simulate;
  const explore::PointRunner runner(*doc, *cat, *design, opt);
  uint64_t i = 0, ok = 0;
  for (auto _ : state) {
    const uint64_t index = i++ % design->size();
    auto row = yaml_way ? explore::RunPoint(*doc, *cat, *design, opt, index) : runner.Run(index);
    ok += row.status == explore::PointStatus::kOk;
    benchmark::DoNotOptimize(row);
  }
  if (ok != static_cast<uint64_t>(state.iterations())) state.SkipWithError("a point did not run");
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(state.iterations()),
                                                      benchmark::Counter::kIsRate);
}

void BM_SweepAnalyticDefault3Keys(benchmark::State& state) { RunPoints(state, false); }
BENCHMARK(BM_SweepAnalyticDefault3Keys)->Unit(benchmark::kMicrosecond);

void BM_SweepAnalyticDefault3KeysYamlWay(benchmark::State& state) { RunPoints(state, false, true); }
BENCHMARK(BM_SweepAnalyticDefault3KeysYamlWay)->Unit(benchmark::kMicrosecond);

void BM_SweepSimulatedDefault3Keys(benchmark::State& state) { RunPoints(state, true); }
BENCHMARK(BM_SweepSimulatedDefault3Keys)->Unit(benchmark::kMillisecond)->Iterations(20);

}  // namespace
