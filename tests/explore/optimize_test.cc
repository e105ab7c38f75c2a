// optimize against a brute-force reading of the same grid's sweep rows: the
// optimum under a wall-time cap, the constraint that binds, and the Pareto front.
#include <gtest/gtest.h>

#include <limits>

#include "explore/optimize.h"
#include "scenario/document.h"
#include "support.h"

namespace rlcost::explore {
namespace {

TEST(Optimize, ConstraintsParseOrSayWhatIsWrong) {
  auto c = ParseConstraint("run.wall_time_h <= 168");
  ASSERT_TRUE(c) << c.error().ToString();
  EXPECT_EQ(c->op, Op::kLe);
  EXPECT_EQ(c->limit, 168);
  EXPECT_TRUE(c->Holds(168));
  EXPECT_FALSE(c->Holds(168.5));
  EXPECT_TRUE(ParseConstraint("goal.usd>1e3"));
  auto unknown = ParseConstraint("run.wall_hours<=24");
  ASSERT_FALSE(unknown);
  EXPECT_NE(unknown.error().ToString().find("--subject-to: run.wall_hours: unknown metric"), std::string::npos);
  for (const char* bad : {"run.usd=<5", "run.usd==5", "run.usd=5", "run.usd<>5", "run.usd 5", "run.usd<=x"}) {
    EXPECT_FALSE(ParseConstraint(bad)) << bad;
  }
}

TEST(Optimize, MatchesAnExhaustiveReadingOfTheGrid) {
  auto doc = scenario_internal::ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
  ASSERT_TRUE(doc);
  auto design = Design::Grid({*ParseAxis("hardware.gpu=h100-sxm,b200"), *ParseAxis("hardware.gpus=8,16,32"),
                              *ParseAxis("algorithm.group_size=8,16")});
  ASSERT_TRUE(design);
  // Every point, as the sweep computes it.
  SweepOptions sw;
  sw.metrics = {FindMetric("goal.usd"), FindMetric("run.wall_time_h")};
  std::vector<PointRow> rows;
  RunSweep(*doc, test::Cat(), *design, sw, [&](PointRow&& r) { rows.push_back(std::move(r)); });
  ASSERT_EQ(rows.size(), 12u);
  auto best_under = [&](double cap) {
    double best = std::numeric_limits<double>::infinity();
    uint64_t at = 0;
    for (const auto& r : rows) {
      if (r.status == PointStatus::kOk && r.metrics[0] && *r.metrics[1] <= cap && *r.metrics[0] < best) {
        best = *r.metrics[0];
        at = r.index;
      }
    }
    return std::make_pair(best, at);
  };
  const auto [free_best, free_at] = best_under(std::numeric_limits<double>::infinity());
  // A cap just below the unconstrained optimum's wall time forces another answer.
  const double cap = *rows[free_at].metrics[1] * 0.999;
  const auto [capped_best, capped_at] = best_under(cap);
  ASSERT_TRUE(std::isfinite(capped_best));

  OptimizeOptions opt;
  opt.objective = FindMetric("goal.usd");
  opt.constraints = {*ParseConstraint("run.wall_time_h<=" + std::to_string(cap))};
  opt.top = 3;
  auto r = Optimize(*doc, test::Cat(), *design, opt);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_FALSE(r->best.empty());
  EXPECT_EQ(r->best[0].row.index, capped_at);
  EXPECT_EQ(r->best[0].objective, capped_best);
  EXPECT_LE(r->best.size(), 3u);
  for (size_t i = 1; i < r->best.size(); ++i) EXPECT_LE(r->best[i - 1].objective, r->best[i].objective);
  ASSERT_EQ(r->binding.size(), 1u);  // dropping the cap gives the cheaper free optimum
  EXPECT_GT(capped_best, free_best);

  // The front: no feasible point is both cheaper and faster than a point on it,
  // and every feasible point off it is beaten on both by one on it.
  ASSERT_FALSE(r->front.empty());
  for (const auto& f : r->front) {
    for (const auto& row : rows) {
      if (row.status != PointStatus::kOk || !row.metrics[0] || *row.metrics[1] > cap) continue;
      EXPECT_FALSE(*row.metrics[0] < f.objective && *row.metrics[1] < f.wall_time_h) << row.index;
    }
  }
  // Without the cap, nothing binds and the optimum is the grid's.
  opt.constraints.clear();
  auto r2 = Optimize(*doc, test::Cat(), *design, opt);
  ASSERT_TRUE(r2);
  EXPECT_EQ(r2->best[0].row.index, free_at);
  EXPECT_TRUE(r2->binding.empty());
}

}  // namespace
}  // namespace rlcost::explore
