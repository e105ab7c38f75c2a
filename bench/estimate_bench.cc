// One analytic estimate of the built-in default scenario (goal: < 50 us).
#include <benchmark/benchmark.h>

#include <cstdlib>

#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

namespace {

const rlcost::Scenario& Default() {
  static const rlcost::Scenario s = [] {
    auto cat = rlcost::Catalog::Builtin();
    if (!cat) std::abort();
    auto sc = rlcost::DefaultScenario(*cat);
    if (!sc) std::abort();
    return *sc;
  }();
  return s;
}

void BM_EstimateAnalyticDefault(benchmark::State& state) {
  const auto& s = Default();
  for (auto _ : state) {
    auto e = rlcost::EstimateAnalytic(s);
    benchmark::DoNotOptimize(e);
  }
}
BENCHMARK(BM_EstimateAnalyticDefault)->Unit(benchmark::kMicrosecond);

void BM_LoadDefaultScenario(benchmark::State& state) {
  auto cat = rlcost::Catalog::Builtin();
  for (auto _ : state) {
    auto sc = rlcost::DefaultScenario(*cat);
    benchmark::DoNotOptimize(sc);
  }
}
BENCHMARK(BM_LoadDefaultScenario)->Unit(benchmark::kMicrosecond);

}  // namespace

namespace {

void BM_SignalAnalyzeDefault(benchmark::State& state) {
  const auto& s = Default();
  for (auto _ : state) benchmark::DoNotOptimize(rlcost::signal::Analyze(s));
}
BENCHMARK(BM_SignalAnalyzeDefault)->Unit(benchmark::kMicrosecond);

void BM_AnalyticStepDefault(benchmark::State& state) {
  const auto& s = Default();
  auto sig = rlcost::signal::Analyze(s).value();
  for (auto _ : state) benchmark::DoNotOptimize(rlcost::sim::AnalyticStep(s, sig));
}
BENCHMARK(BM_AnalyticStepDefault)->Unit(benchmark::kMicrosecond);

void BM_GoalStepsDefault(benchmark::State& state) {
  const auto& s = Default();
  for (auto _ : state) {
    benchmark::DoNotOptimize(rlcost::signal::StepsToTarget(s, rlcost::LearningCurveSpec{}, 0.6));
  }
}
BENCHMARK(BM_GoalStepsDefault)->Unit(benchmark::kMicrosecond);

}  // namespace
