// Likely ranges from the validation residuals (econ/interval.h): the
// percentile rule worked by hand, ranges around an estimate, bad band files,
// and catalog/intervals.yaml recomputed from the published runs.
#include "fit/interval.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "report/intervals.h"
#include "support.h"

namespace rlcost::interval {
namespace {

namespace fs = std::filesystem;

TEST(Interval, PercentileIsLinearBetweenOrderStatistics) {
  // {1..5}: q = 0.1 sits at position 0.4 -> 1 + 0.4 = 1.4; q = 0.9 at 3.6 -> 4.6.
  EXPECT_NEAR(Percentile({5, 1, 4, 2, 3}, 0.1), 1.4, 1e-12);
  EXPECT_NEAR(Percentile({5, 1, 4, 2, 3}, 0.9), 4.6, 1e-12);
  Band b = BandFrom({0.5, 1.0, 2.0});  // positions 0.2 and 1.8: 0.6 and 1.8
  EXPECT_NEAR(b.p10, 0.6, 1e-12);
  EXPECT_NEAR(b.p90, 1.8, 1e-12);
  EXPECT_EQ(b.cases, 3);
}

TEST(Interval, RangeDividesByTheBand) {
  // Predictions run 0.5x..2x the truth -> the truth of a 100 s prediction is 50..200 s.
  Band b;
  b.p10 = 0.5;
  b.p90 = 2.0;
  Estimate e;
  e.step.time_s = 100;
  e.usd = 1000;
  e.wall_time_h = 10;
  e.gpu_hours = 80;
  auto r = Intervals(e, b);
  EXPECT_NEAR(r.at("step.time_s").low, 50, 1e-9);
  EXPECT_NEAR(r.at("step.time_s").high, 200, 1e-9);
  EXPECT_NEAR(r.at("run.usd").low, 500, 1e-9);
  EXPECT_NEAR(r.at("run.usd").high, 2000, 1e-9);
  EXPECT_NEAR(r.at("cost.gpu_hours").high, 160, 1e-9);
  EXPECT_EQ(r.count("goal.usd"), 0u);  // no goal asked for: no range
}

TEST(Interval, EveryHeadlineOfTheDefaultScenarioHasARangeAroundIt) {
  auto s = DefaultScenario(test::Cat()).value();
  s.goal.target_pass_rate = 0.6;
  auto e = EstimateAnalytic(s).value();
  auto j = report::IntervalsToJson(e);
  for (const char* k : {"step.time_s", "run.wall_time_h", "cost.gpu_hours", "run.usd"}) {
    ASSERT_TRUE(j.contains(k)) << k;
    double v = FindMetric(k)->get(e).value();
    EXPECT_LT(j[k]["low"].get<double>(), v) << k;
    EXPECT_GT(j[k]["high"].get<double>(), v) << k;
  }
  EXPECT_NE(report::IntervalSource(e).find("in-sample"), std::string::npos);
}

TEST(Interval, BadBandFileNamesTheField) {
  auto r = ParseBands("intervals:\n  analytic: {p10: 1.5, p90: 1.2, cases: 3, source: x}\n"
                      "  simulated: {p10: 1, p90: 1, cases: 1, source: x}\n",
                      "f.yaml");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("intervals.analytic"), std::string::npos) << r.error().ToString();
  EXPECT_NE(r.error().ToString().find("0 < p10 <= p90"), std::string::npos) << r.error().ToString();
  auto m = ParseBands("intervals:\n  analytic: {p10: 1, p90: 1, cases: 1, source: x}\n", "f.yaml");
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().ToString().find("intervals.simulated"), std::string::npos);
}

// catalog/intervals.yaml must be what `rlcost validate ../shared/validation
// --intervals` prints now: a model change that moves the residuals fails here.
TEST(Interval, CatalogBandsAreRecomputedFromTheValidationRuns) {
  std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared/validation absent";
  auto rep = validate::ValidateDir(dir, test::Cat(), validate::Options{});
  ASSERT_TRUE(rep.has_value()) << rep.error().ToString();
  std::ifstream f(std::string(RLCOST_SOURCE_DIR) + "/catalog/intervals.yaml");
  std::stringstream ss;
  ss << f.rdbuf();
  EXPECT_EQ(BandsYaml(*rep, rep->dir_name), ss.str())
      << "catalog/intervals.yaml is stale: run `rlcost validate ../shared/validation --intervals > catalog/intervals.yaml`";
  // The coverage the validate report prints is over the same figures.
  for (const auto& p : rep->paths) {
    auto c = CoverageOf(p, BandFor(validate::ToString(p.path)));
    EXPECT_EQ(c.total, BandFor(validate::ToString(p.path)).cases);
    EXPECT_GT(c.inside, 0);
  }
}

}  // namespace
}  // namespace rlcost::interval
