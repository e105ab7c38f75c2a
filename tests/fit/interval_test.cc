// Likely ranges from the validation residuals (econ/interval.h): the
// percentile rule worked by hand, ranges around an estimate, bad band files,
// and catalog/intervals.yaml recomputed from the published runs.
#include "fit/interval.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
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
}

TEST(Interval, BandIsAnOrderStatisticPredictionInterval) {
  // j = max(1, floor(0.1 (n + 1))): n = 3 -> j = 1, [min, max], nominal (4 - 2) / 4 = 50%.
  Band b = BandFrom({1.0, 2.0, 0.5});
  EXPECT_EQ(b.low, 0.5);
  EXPECT_EQ(b.high, 2.0);
  EXPECT_NEAR(b.nominal, 0.5, 1e-12);
  EXPECT_EQ(b.cases, 3);
  // n = 15 (the published figures): j = floor(1.6) = 1 -> [min, max], 14 / 16 = 87.5%.
  std::vector<double> v;
  for (int i = 1; i <= 15; ++i) v.push_back(i);
  b = BandFrom(v);
  EXPECT_EQ(b.low, 1);
  EXPECT_EQ(b.high, 15);
  EXPECT_NEAR(b.nominal, 14.0 / 16, 1e-12);
  // n = 19: j = 2 -> ranks 2 and 18, (20 - 4) / 20 = 80%: the smallest n that drops one figure each side.
  v.clear();
  for (int i = 1; i <= 19; ++i) v.push_back(i);
  b = BandFrom(v);
  EXPECT_EQ(b.low, 2);
  EXPECT_EQ(b.high, 18);
  EXPECT_NEAR(b.nominal, 0.8, 1e-12);
  // Every n from 9 on reaches the 80% it is meant to cover.
  for (int n = 9; n <= 200; ++n) {
    std::vector<double> w(n);
    for (int i = 0; i < n; ++i) w[i] = i;
    EXPECT_GE(BandFrom(w).nominal, kBandCoverage - 1e-12) << n;
  }
}

TEST(Interval, RangeDividesByTheBand) {
  // Predictions run 0.5x..2x the truth -> the truth of a 100 s prediction is 50..200 s.
  Band b;
  b.low = 0.5;
  b.high = 2.0;
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
  EXPECT_NE(report::IntervalSource(e).find("80%"), std::string::npos);
}

TEST(Interval, BadBandFileNamesTheField) {
  auto r = ParseBands("intervals:\n  analytic: {low: 1.5, high: 1.2, nominal: 0.8, cases: 3, leave_one_out_inside: 2, source: x}\n"
                      "  simulated: {low: 1, high: 1, nominal: 0.8, cases: 1, leave_one_out_inside: 1, source: x}\n",
                      "f.yaml");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("intervals.analytic"), std::string::npos) << r.error().ToString();
  EXPECT_NE(r.error().ToString().find("0 < low <= high"), std::string::npos) << r.error().ToString();
  auto m = ParseBands("intervals:\n  analytic: {low: 1, high: 1, nominal: 0.8, cases: 1, leave_one_out_inside: 1, source: x}\n", "f.yaml");
  ASSERT_FALSE(m.has_value());
  EXPECT_NE(m.error().ToString().find("intervals.simulated"), std::string::npos);
}

// issue #27: the likely-range sentence states once that the band is the 80%
// band read off the published runs and its leave-one-out coverage, from the
// catalog's count: 22 of 26 inside is 84.6%, printed 85%.
TEST(Interval, BandSentenceCitesTheLeaveOneOutCoverage) {
  Band b;
  b.low = 0.36;
  b.high = 1.09;
  b.cases = 26;
  b.loo_inside = 22;
  const std::string s = BandSentence(b, "analytic");
  EXPECT_NE(s.find("the 80% band read off the published runs"), std::string::npos) << s;
  EXPECT_NE(s.find("leave-one-out coverage 85%: 22 of 26 figures"), std::string::npos) << s;
  EXPECT_EQ(s.find("leave-one-out"), s.rfind("leave-one-out")) << "once: " << s;
  // The built-in band's sentence carries the catalog's own count.
  const Band& a = BandFor("analytic");
  EXPECT_NE(BandSentence(a, "analytic").find(fmt::format(": {} of {} figures", a.loo_inside, a.cases)), std::string::npos);
  // A count beyond the cases is a bad file, named by its field.
  auto r = ParseBands("intervals:\n  analytic: {low: 1, high: 1, nominal: 0.8, cases: 3, leave_one_out_inside: 4, source: x}\n"
                      "  simulated: {low: 1, high: 1, nominal: 0.8, cases: 1, leave_one_out_inside: 1, source: x}\n",
                      "f.yaml");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("leave_one_out_inside 4"), std::string::npos) << r.error().ToString();
}

// The bands compiled in (cmake/intervals.cmake) are exactly what the YAML
// reader makes of catalog/intervals.yaml.
TEST(Interval, BuiltinBandsAreTheCatalogFile) {
  std::ifstream f(std::string(RLCOST_SOURCE_DIR) + "/catalog/intervals.yaml");
  std::stringstream ss;
  ss << f.rdbuf();
  auto parsed = ParseBands(ss.str(), "catalog/intervals.yaml");
  ASSERT_TRUE(parsed.has_value()) << parsed.error().ToString();
  const Bands& built = BuiltinBands();
  for (auto [a, b] : {std::pair{&parsed->analytic, &built.analytic}, std::pair{&parsed->simulated, &built.simulated}}) {
    EXPECT_EQ(a->low, b->low);
    EXPECT_EQ(a->high, b->high);
    EXPECT_EQ(a->nominal, b->nominal);
    EXPECT_EQ(a->cases, b->cases);
    EXPECT_EQ(a->loo_inside, b->loo_inside);
    EXPECT_EQ(a->source, b->source);
    EXPECT_FALSE(b->source.empty());
  }
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
    // Out of sample (each run against the band of the others), the published
    // figures should land inside about as often as the band promises: the
    // issue's target is 80%. Measured 13 of 15 on both paths (docs/model.md).
    auto loo = LeaveOneRunOut(p);
    EXPECT_EQ(loo.total, c.total);
    // ... and the catalog carries it (the likely-range sentence cites it).
    EXPECT_EQ(loo.inside, BandFor(validate::ToString(p.path)).loo_inside);
    EXPECT_GE(double(loo.inside) / loo.total, kBandCoverage) << validate::ToString(p.path);
  }
}

// Leave one run out worked by hand: four runs, the band of the other three is
// [min, max] of them; a run's two figures (step and wall time) leave together.
TEST(Interval, LeaveOneRunOutUsesTheOtherRunsOnly) {
  validate::PathResult p;
  auto add = [&](const std::string& file, const std::string& key, double predicted, double measured) {
    validate::Check c;
    c.file = file;
    c.key = key;
    c.predicted = predicted;
    c.measured = measured;
    c.status = validate::Status::kPass;
    p.checks.push_back(c);
  };
  add("a.yaml", "step.time_s", 1.0, 1.0);      // ratio 1.0
  add("b.yaml", "step.time_s", 1.2, 1.0);      // 1.2
  add("c.yaml", "step.time_s", 0.8, 1.0);      // 0.8: below the others' [1.0, 1.2] -> outside
  add("d.yaml", "step.time_s", 1.1, 1.0);      // 1.1
  add("d.yaml", "run.wall_time_h", 1.5, 1.0);  // 1.5: above the other runs' [0.8, 1.2] -> outside
  auto c = LeaveOneRunOut(p);
  EXPECT_EQ(c.total, 5);
  EXPECT_EQ(c.inside, 3);
  // In-sample with the band of all five, [0.8, 1.5], every figure is inside.
  auto in = CoverageOf(p, BandFrom(TimeRatios(p)));
  EXPECT_EQ(in.inside, 5);
}

}  // namespace
}  // namespace rlcost::interval
