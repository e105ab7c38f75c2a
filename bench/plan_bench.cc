// The layout planner's cost (issue #26: planning adds at most 50 ms to
// `estimate`, and a sweep with planning still runs >= 10^4 analytic points
// per second per core). The scenarios leave their placement out, so every
// layout field is planned: default.yaml without its placement block (8 H100s)
// and Qwen3-235B-A22B on 64 H100s (the most layouts of the done-when cases).
#include <algorithm>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "reference.h"
#include "explore/design.h"
#include "explore/sweep.h"
#include "plan/plan.h"
#include "rlcost/estimate.h"
#include "scenario/document.h"

namespace {

using namespace rlcost;

const char* kDefaultNoPlacement = R"(model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8, gpus_per_node: 8}
environment:
  prompt_tokens: {mean: 300, cv: 0.5, max: 1024}
  response_tokens: {mean: 2000, cv: 0.8, max: 8192}
  pass_rate: {mean: 0.35, concentration: 2.0}
algorithm: {name: grpo, group_size: 16, prompts_per_step: 64, steps: 300}
goal: {target_pass_rate: 0.6}
)";

// Qwen3-235B-A22B on GPUS H100s with every layout field left to the planner.
std::string Moe235bNoPlacement(int gpus) {
  return "model: qwen3-235b-a22b\nhardware: {gpu: h100-sxm, gpus: " + std::to_string(gpus) + R"(}
environment:
  prompt_tokens: {mean: 400, cv: 0.5, max: 2048}
  response_tokens: {mean: 3000, cv: 0.7, max: 8192}
algorithm: {group_size: 8, prompts_per_step: 128}
)";
}

void PlanThenEstimate(benchmark::State& state, const std::string& text, bool plan) {
  auto cat = Catalog::Builtin();
  auto s = cat ? LoadScenarioText(text, *cat) : Result<Scenario>(Fail(ErrorCode::kInternal, "", "no catalog"));
  if (!s) {
    state.SkipWithError("cannot load the scenario");
    return;
  }
  for (auto _ : state) {
    if (plan) {
      auto p = plan::PlanLayout(*s);
      auto e = p ? EstimateAnalytic(p->scenario) : Result<Estimate>(Fail(p.error()));
      benchmark::DoNotOptimize(e);
    } else {
      auto e = EstimateAnalytic(*s);
      benchmark::DoNotOptimize(e);
    }
  }
}

void BM_EstimateLiteral8xH100(benchmark::State& st) { PlanThenEstimate(st, kDefaultNoPlacement, false); }
BENCHMARK(BM_EstimateLiteral8xH100)->Unit(benchmark::kMillisecond);
void BM_PlanAndEstimate8xH100(benchmark::State& st) { PlanThenEstimate(st, kDefaultNoPlacement, true); }
BENCHMARK(BM_PlanAndEstimate8xH100)->Unit(benchmark::kMillisecond);
void BM_PlanAndEstimateQwen3_235b64xH100(benchmark::State& st) { PlanThenEstimate(st, Moe235bNoPlacement(64), true); }
BENCHMARK(BM_PlanAndEstimateQwen3_235b64xH100)->Unit(benchmark::kMillisecond);

// The sweep of sweep_bench.cc (three keys over default.yaml), with the
// placement left out and planned at every point.
void BM_SweepAnalyticPlanned3Keys(benchmark::State& state) {
  auto cat = Catalog::Builtin();
  auto doc = scenario_internal::ScenarioDocument::FromText(kDefaultNoPlacement, "<bench>", ".", "");
  auto design = explore::Design::Grid({*explore::ParseAxis("algorithm.group_size=4..16:4"),
                                       *explore::ParseAxis("algorithm.prompts_per_step=16,32,64,128"),
                                       *explore::ParseAxis("environment.pass_rate.mean=0.1..0.5:0.1")});
  if (!cat || !doc || !design) {
    state.SkipWithError("cannot load the scenario or its design");
    return;
  }
  explore::SweepOptions opt;
  opt.plan = plan::Objective::kCost;
  const explore::PointRunner runner(*doc, *cat, *design, opt);
  uint64_t i = 0, ok = 0;
  for (auto _ : state) {
    auto row = runner.Run(i++ % design->size());
    ok += row.status == explore::PointStatus::kOk;
    benchmark::DoNotOptimize(row);
  }
  if (ok != static_cast<uint64_t>(state.iterations())) state.SkipWithError("a point did not run");
  state.counters["points_per_s"] =
      benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepAnalyticPlanned3Keys)->Unit(benchmark::kMicrosecond);


// Issue #26's 50 ms: the planner alone (every candidate layout estimated) on
// the largest done-when case, Qwen3-235B-A22B on 128 H100s.
void BM_PlanAndEstimateQwen3_235b128xH100(benchmark::State& st) { PlanThenEstimate(st, Moe235bNoPlacement(128), true); }
BENCHMARK(BM_PlanAndEstimateQwen3_235b128xH100)->Unit(benchmark::kMillisecond);

// The axes of a 10^5-point sweep with planning (issue #26: >= 10^4 points/s
// per core): 3 models x 3 GPUs x 4 GPU counts x 3 group sizes x 4 batch sizes
// x 4 response lengths x 2 rollout precisions = 3456 layouts to plan, each
// for 10 base pass rates x 3 goals (30 points that share a layout: the pass
// rate and the goal change neither the rollouts nor the step) = 103,680 points.
std::vector<explore::Axis> Sweep1e5Axes() {
  std::vector<explore::Axis> axes;
  for (const char* a : {"model=qwen3-8b,qwen3-32b,qwen3-30b-a3b", "hardware.gpu=h100-sxm,h200,b200",
                        "hardware.gpus=8,16,32,64", "algorithm.group_size=4,8,16",
                        "algorithm.prompts_per_step=32,64,128,256", "environment.response_tokens.mean=1000,2000,4000,6000",
                        "precision.rollout=bf16,fp8", "environment.pass_rate.mean=0.05..0.5:0.05",
                        "goal.target_pass_rate=0.6,0.7,0.8"}) {
    axes.push_back(*explore::ParseAxis(a));
  }
  return axes;
}

// Every point of `design`, once per benchmark iteration, on this thread from
// a cold runner (no plan cached), as one thread of `rlcost sweep` runs its
// share. Returns the points run; `ok` counts those that ran.
uint64_t SweepEveryPoint(benchmark::State& state, const scenario_internal::ScenarioDocument& doc, const Catalog& cat,
                         const explore::Design& design, const explore::SweepOptions& opt, uint64_t& ok) {
  uint64_t points = 0;
  for (auto _ : state) {
    const explore::PointRunner runner(doc, cat, design, opt);
    for (uint64_t i = 0; i < design.size(); ++i) {
      auto row = runner.Run(i);
      ok += row.status == explore::PointStatus::kOk;
      benchmark::DoNotOptimize(row);
    }
    points += design.size();
  }
  return points;
}

// One pass over every point on one thread, from a cold runner (no plan
// cached), as one thread of `rlcost sweep` runs its share.
void BM_Sweep1e5PointsPlannedOneCore(benchmark::State& state) {
  auto cat = Catalog::Builtin();
  auto doc = scenario_internal::ScenarioDocument::FromText(kDefaultNoPlacement, "<bench>", ".", "");
  auto design = explore::Design::Grid(Sweep1e5Axes());
  if (!cat || !doc || !design) {
    state.SkipWithError("cannot load the scenario or its design");
    return;
  }
  explore::SweepOptions opt;
  opt.plan = plan::Objective::kCost;
  uint64_t ok = 0;
  const uint64_t points = SweepEveryPoint(state, *doc, *cat, *design, opt, ok);
  state.counters["points"] = static_cast<double>(design->size());
  state.counters["ran_share"] = static_cast<double>(ok) / static_cast<double>(std::max<uint64_t>(points, 1));
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sweep1e5PointsPlannedOneCore)->Unit(benchmark::kSecond)->Iterations(1);

// The worst case: a layout planned at every point (no two points share one):
// the first 3456 points of the grid above with the shared axes fixed.
void BM_SweepEveryPointPlannedOneCore(benchmark::State& state) {
  auto cat = Catalog::Builtin();
  auto doc = scenario_internal::ScenarioDocument::FromText(kDefaultNoPlacement, "<bench>", ".", "");
  auto axes = Sweep1e5Axes();
  axes.resize(7);
  auto design = explore::Design::Grid(axes);
  if (!cat || !doc || !design) {
    state.SkipWithError("cannot load the scenario or its design");
    return;
  }
  explore::SweepOptions opt;
  opt.plan = plan::Objective::kCost;
  uint64_t ok = 0;
  const uint64_t points = SweepEveryPoint(state, *doc, *cat, *design, opt, ok);
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_SweepEveryPointPlannedOneCore)->Unit(benchmark::kSecond)->Iterations(1);

// Issue 41's done-when: a sweep of 10^4 points where every point has its own
// layout, >= 10^4 points/s on one core. The 3,456 layouts above times three
// prompt lengths (which change the KV cache a sequence needs, so the plan):
// 10,368 points, none of which shares a plan (the runner's cache is keyed on
// every axis but the layout-neutral ones, and there are none here). Reports
// points/s of CPU and the ratio to the same-run reference (bench/reference.h).
void BM_Sweep10kPointsEachOwnLayoutOneCore(benchmark::State& state) {
  auto cat = Catalog::Builtin();
  auto doc = scenario_internal::ScenarioDocument::FromText(kDefaultNoPlacement, "<bench>", ".", "");
  auto axes = Sweep1e5Axes();
  axes.resize(7);
  axes.push_back(*explore::ParseAxis("environment.prompt_tokens.mean=200,400,800"));
  auto design = explore::Design::Grid(axes);
  if (!cat || !doc || !design) {
    state.SkipWithError("cannot load the scenario or its design");
    return;
  }
  explore::SweepOptions opt;
  opt.plan = plan::Objective::kCost;
  uint64_t ok = 0;
  const double t0 = bench::CpuSeconds();
  const uint64_t points = SweepEveryPoint(state, *doc, *cat, *design, opt, ok);
  const double cpu = bench::CpuSeconds() - t0;
  state.counters["points"] = static_cast<double>(design->size());
  state.counters["ran_share"] = static_cast<double>(ok) / static_cast<double>(std::max<uint64_t>(points, 1));
  state.counters["points_per_s"] = benchmark::Counter(static_cast<double>(points), benchmark::Counter::kIsRate);
  bench::ReportAgainstReference(state, cpu, static_cast<double>(design->size()));
}
BENCHMARK(BM_Sweep10kPointsEachOwnLayoutOneCore)->Unit(benchmark::kSecond)->Iterations(1)->MeasureProcessCPUTime();

}  // namespace
