// Energy of a run (src/econ/energy.cc, docs/model.md "Energy"): the figures
// recomputed by hand from the GPUs' datasheet power limits and the measured
// power shares.
#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "econ/energy.h"
#include "rlcost/estimate.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

// Board power limits from the datasheets (catalog/gpus.yaml, tdp_w).
const std::map<std::string, double>& DatasheetTdpW() {
  static const std::map<std::string, double> tdp = {
      {"a100-80g", 400}, {"h100-sxm", 700}, {"h800", 700}, {"h200", 700}, {"h20", 400},
      {"b200", 1000},    {"gb200", 1200},   {"mi300x", 750}, {"l40s", 350}, {"a800", 400}, {"l20", 275}};
  return tdp;
}

TEST(Energy, DecodePowerJoinsTheTwoMeasuredAnchorsInLog2Batch) {
  // ML.ENERGY v3.0 on H100 (700 W): 300 W at batch 1, 600 W at batch 128.
  EXPECT_DOUBLE_EQ(econ_internal::DecodePowerShare(1) * 700, 300);
  EXPECT_NEAR(econ_internal::DecodePowerShare(128) * 700, 600, 1e-9);
  // Batch 8: log2 8 / 7 = 3/7 of the way: 300 + 300 x 3/7 = 428.571 W.
  EXPECT_NEAR(econ_internal::DecodePowerShare(8) * 700, 300 + 300 * 3.0 / 7.0, 1e-9);
  // Flat outside: below batch 1 and above 128.
  EXPECT_DOUBLE_EQ(econ_internal::DecodePowerShare(0.5) * 700, 300);
  EXPECT_NEAR(econ_internal::DecodePowerShare(1000) * 700, 600, 1e-9);
}

TEST(Energy, MatchesAHandCalculationFromTheGpuPowerFigures) {
  // Every shared scenario: E = steps x (rollout GPU-s x P_decode(b) +
  // (train + other) GPU-s x TDP + idle GPU-s x 145/700 TDP) + every GPU of the
  // run through start-up and checkpoints at idle power, evaluation at decode
  // power, restarts at the steps' mean power; kWh = J / 3.6e6; CO2e at the
  // world's 436 g/kWh.
  int n = 0;
  for (const auto& f : test::SharedScenarioFiles()) {
    auto s = LoadScenarioFile(f, Cat());
    if (!s) continue;  // files that do not load are other tests' business
    auto e = EstimateAnalytic(*s);
    if (!e) continue;
    SCOPED_TRACE(f);
    const double tdp = DatasheetTdpW().at(s->hardware.gpu.id);
    const StepTiming& t = e->step;
    const double b = std::max(1.0, t.mean_batch);
    const double p_decode = tdp * (300.0 + 300.0 * std::min(1.0, std::log2(b) / 7.0)) / 700.0;
    const double p_busy = tdp, p_idle = tdp * 145.0 / 700.0;
    const double steps = e->run.steps_h * 3600.0 / t.time_s;
    const double step_j = t.gpu_s_rollout * p_decode + (t.gpu_s_train + t.gpu_s_other) * p_busy + t.gpu_s_idle * p_idle;
    const double step_gpu_s = t.gpu_s_rollout + t.gpu_s_train + t.gpu_s_other + t.gpu_s_idle;
    const double gpus = s->hardware.gpus + t.verifier_gpus;
    const double run_j = steps * step_j + gpus * 3600.0 *
                                              ((e->run.startup_h + e->run.checkpoints_h) * p_idle +
                                               e->run.evaluation_h * p_decode +
                                               e->run.restarts_h * step_j / step_gpu_s);
    const double kwh = run_j / 3.6e6;
    ASSERT_TRUE(e->energy.known);
    EXPECT_NEAR(e->energy.kwh, kwh, 1e-9 * kwh);
    EXPECT_NEAR(e->energy.kwh_by_phase.total(), e->energy.kwh, 1e-9 * kwh);
    EXPECT_NEAR(e->energy.co2e_kg, kwh * 436.0 / 1000.0, 1e-9 * kwh);
    // Between all GPUs idle and all at their limit, for the whole run.
    EXPECT_GT(e->energy.kwh, e->gpu_hours * p_idle / 1000.0 * (1 - 1e-12));
    EXPECT_LT(e->energy.kwh, e->gpu_hours * tdp / 1000.0 * (1 + 1e-12));
    ++n;
  }
  EXPECT_GT(n, 20);
}

TEST(Energy, DefaultScenarioWorkedByHand) {
  // The default scenario's step on 8 x H100: the rollout GPU-seconds at the
  // decode power of its mean batch, the rest as above; here checked through the
  // registry's keys so JSON, table and HTML carry the same figures.
  auto s = DefaultScenario(Cat()).value();
  auto e = EstimateAnalytic(s).value();
  const MetricDef* kwh = FindMetric("energy.kwh");
  const MetricDef* co2 = FindMetric("energy.co2e_kg");
  const MetricDef* roll = FindMetric("energy.kwh_by_phase.rollout");
  ASSERT_TRUE(kwh && co2 && roll);
  const double b = e.step.mean_batch;
  const double p = 300.0 + 300.0 * std::min(1.0, std::log2(b) / 7.0);  // W on a 700 W H100
  const double steps = e.run.steps_h * 3600.0 / e.step.time_s;
  EXPECT_NEAR(*roll->get(e), steps * e.step.gpu_s_rollout * p / 3.6e6, 1e-9 * *roll->get(e));
  EXPECT_NEAR(*co2->get(e), *kwh->get(e) * 0.436, 1e-9 * *co2->get(e));
}

TEST(Energy, GridPicksTheIntensity) {
  auto world = EstimateAnalytic(DefaultScenario(Cat()).value()).value();
  auto france = EstimateAnalytic(DefaultScenario(Cat(), {{"energy.grid", "france"}}).value()).value();
  auto custom = EstimateAnalytic(DefaultScenario(Cat(), {{"energy.grid", "369"}}).value()).value();
  EXPECT_DOUBLE_EQ(france.energy.kwh, world.energy.kwh);           // the grid moves emissions only
  EXPECT_NEAR(france.energy.co2e_kg, world.energy.kwh * 0.056, 1e-9 * world.energy.kwh);  // 56 g/kWh
  EXPECT_NEAR(custom.energy.co2e_kg, world.energy.kwh * 0.369, 1e-9 * world.energy.kwh);
  auto bad = DefaultScenario(Cat(), {{"energy.grid", "mars"}});
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().ToString().find("energy.grid"), std::string::npos);
  EXPECT_NE(bad.error().ToString().find("mars"), std::string::npos);
  auto neg = DefaultScenario(Cat(), {{"energy.grid", "-5"}});
  ASSERT_FALSE(neg.has_value());
  EXPECT_NE(neg.error().ToString().find("energy.grid"), std::string::npos);
}

TEST(Energy, AGpuWithoutAPowerLimitHasNoEnergyFigures) {
  auto s = DefaultScenario(Cat()).value();
  s.hardware.gpu.tdp_w = 0;
  auto e = EstimateAnalytic(s).value();
  EXPECT_FALSE(e.energy.known);
  EXPECT_FALSE(FindMetric("energy.kwh")->get(e).has_value());
}

TEST(Energy, EveryCatalogGpuStatesItsPowerLimitWithASource) {
  for (const auto& [id, tdp] : DatasheetTdpW()) {
    const GpuSpec* g = Cat().FindGpu(id);
    ASSERT_NE(g, nullptr) << id;
    EXPECT_DOUBLE_EQ(g->tdp_w, tdp) << id;
    EXPECT_TRUE(g->sources.count("tdp_w")) << id;
  }
  EXPECT_EQ(Cat().GpuIds().size(), DatasheetTdpW().size());
}

}  // namespace
}  // namespace rlcost
