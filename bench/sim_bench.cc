// Event-simulator speed: full runs of the shipped scenarios and issue 41's
// 1,024-GPU agentic run, with events per second of CPU time as a counter and
// the CPU time as a ratio to a reference measured in the same run
// (bench/reference.h). Goals (issue 41, one core): >= 10 M events/s on the
// 1,024-GPU run, >= 8 M on default.yaml.
#include <algorithm>
#include <string>
#include <vector>

#include <benchmark/benchmark.h>

#include "reference.h"
#include "rlcost/catalog.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"
#include "rlcost/sim.h"
#include "plan/plan.h"

namespace {

void RunScenario(benchmark::State& state, const std::string& file, const std::vector<rlcost::Override>& sets = {},
                 int steps = 0) {
  auto cat = rlcost::Catalog::Builtin();
  auto s = rlcost::LoadScenarioFile(file, *cat, sets);
  if (!s) {
    state.SkipWithError(s.error().ToString().c_str());
    return;
  }
  auto sig = rlcost::signal::Analyze(*s);
  if (!sig) {
    state.SkipWithError(sig.error().ToString().c_str());
    return;
  }
  rlcost::sim::Options opt;  // the scenario's own steps unless given
  opt.steps = steps;
  long long events = 0;
  const double t0 = bench::CpuSeconds();
  for (auto _ : state) {
    auto r = rlcost::sim::Simulate(*s, *sig, opt);
    if (!r) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    events += r->events;
    benchmark::DoNotOptimize(r->mean_step.time_s);
  }
  const double cpu = bench::CpuSeconds() - t0;
  const double per_iter = double(events) / double(state.iterations());
  state.counters["events"] = per_iter;
  state.counters["events_per_s"] = benchmark::Counter(double(events), benchmark::Counter::kIsRate);
  bench::ReportAgainstReference(state, cpu, per_iter);
}

const std::string kShared = "/work/shared/scenarios/";

void BM_SimulateDefault(benchmark::State& state) { RunScenario(state, std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml"); }
void BM_SimulateSweAgent(benchmark::State& state) { RunScenario(state, kShared + "swe-agent.yaml"); }
// Issue 41's run: swe-agent.yaml on 1,024 GPUs (512 engines), 4,096 prompts
// x 8 rollouts x ~20 turns a step, 2 steps (about 4 M events).
void BM_SimulateSweAgent1024Gpus(benchmark::State& state) {
  RunScenario(state, kShared + "swe-agent.yaml",
              {{"hardware.gpus", "1024"}, {"algorithm.prompts_per_step", "4096"}}, 2);
}
// One GPU: 8,192 requests of 1,000 + 1,000 tokens on one A100 (bench/scenarios/one-a100.yaml).
void BM_SimulateOneA100(benchmark::State& state) {
  RunScenario(state, std::string(RLCOST_SOURCE_DIR) + "/bench/scenarios/one-a100.yaml");
}

// Issue 41's one-GPU goal: `simulate` on bench/scenarios/one-a100.yaml spends
// <= 10% of its time planning. Each iteration plans the layout (as `simulate`
// does: PlanLayout, cost objective) and simulates the planned scenario; the
// counter plan_share is the planner's share of their CPU time.
void BM_SimulateOneA100PlanShare(benchmark::State& state) {
  auto cat = rlcost::Catalog::Builtin();
  auto s = rlcost::LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/bench/scenarios/one-a100.yaml", *cat);
  if (!s) {
    state.SkipWithError(s.error().ToString().c_str());
    return;
  }
  double plan_s = 0, sim_s = 0;
  const double t0 = bench::CpuSeconds();
  for (auto _ : state) {
    const double a = bench::CpuSeconds();
    auto p = rlcost::plan::PlanLayout(*s);
    const double b = bench::CpuSeconds();
    if (!p) {
      state.SkipWithError(p.error().ToString().c_str());
      return;
    }
    auto sig = rlcost::signal::Analyze(p->scenario);
    if (!sig) {
      state.SkipWithError(sig.error().ToString().c_str());
      return;
    }
    auto r = rlcost::sim::Simulate(p->scenario, *sig, {});
    if (!r) {
      state.SkipWithError(r.error().ToString().c_str());
      return;
    }
    benchmark::DoNotOptimize(r->mean_step.time_s);
    plan_s += b - a;
    sim_s += bench::CpuSeconds() - b;
  }
  const double cpu = bench::CpuSeconds() - t0;
  const double it = double(state.iterations());
  state.counters["plan_ms"] = 1e3 * plan_s / it;
  state.counters["sim_ms"] = 1e3 * sim_s / it;
  state.counters["plan_share"] = plan_s / std::max(1e-12, plan_s + sim_s);
  bench::ReportAgainstReference(state, cpu, 1.0);
}

}  // namespace

BENCHMARK(BM_SimulateDefault)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_SimulateSweAgent)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_SimulateSweAgent1024Gpus)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_SimulateOneA100)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
BENCHMARK(BM_SimulateOneA100PlanShare)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime();
