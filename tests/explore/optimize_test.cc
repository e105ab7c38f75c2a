// optimize against a brute-force reading of the same grid's sweep rows: the
// optimum under a wall-time cap, the constraint that binds, and the Pareto front.
#include <gtest/gtest.h>

#include <limits>

#include "explore/optimize.h"
#include "rlcost/estimate.h"
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
  EXPECT_NE(unknown.error().ToString().find("subject_to: run.wall_hours: unknown metric"), std::string::npos);
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

// A front of 7 rows thinned to 4 keeps rows round(k * 6 / 3) = 0, 2, 4, 6:
// the fastest and the cheapest, evenly spaced between; a short front stays.
TEST(ThinFront, KeepsTheEndsAndRowsEvenlySpacedBetween) {
  std::vector<Candidate> front(7);
  for (size_t i = 0; i < front.size(); ++i) front[i].wall_time_h = double(i), front[i].objective = 10.0 - double(i);
  ThinFront(front, 4);
  ASSERT_EQ(front.size(), 4u);
  EXPECT_EQ(front[0].wall_time_h, 0);
  EXPECT_EQ(front[1].wall_time_h, 2);
  EXPECT_EQ(front[2].wall_time_h, 4);
  EXPECT_EQ(front[3].wall_time_h, 6);
  // 5 rows to 4: round(k * 4 / 3) = 0, 1 (1.33), 3 (2.67), 4.
  std::vector<Candidate> five(5);
  for (size_t i = 0; i < five.size(); ++i) five[i].wall_time_h = double(i);
  ThinFront(five, 4);
  ASSERT_EQ(five.size(), 4u);
  EXPECT_EQ(five[1].wall_time_h, 1);
  EXPECT_EQ(five[2].wall_time_h, 3);
  EXPECT_EQ(five[3].wall_time_h, 4);
  std::vector<Candidate> short_front(3);
  ThinFront(short_front, kMaxFrontRows);
  EXPECT_EQ(short_front.size(), 3u);
}

using test::Qwen32bOn32H100NoPlacement;

// Issue #26: optimize plans the layout of every configuration (colocated and
// disaggregated splits) and lists each run once. Without planning, the async
// configurations on the default colocated layout ran synchronously and came
// in identical pairs.
TEST(Optimize, PlansEachConfigurationAndListsEachRunOnce) {
  auto doc = scenario_internal::ScenarioDocument::FromText(Qwen32bOn32H100NoPlacement(), "<q32>", ".", "");
  ASSERT_TRUE(doc);
  auto design = Design::Grid({*ParseAxis("pipeline.mode=sync,async"), *ParseAxis("precision.rollout=bf16,fp8"),
                              *ParseAxis("algorithm.group_size=8,16")});
  ASSERT_TRUE(design);
  OptimizeOptions opt;
  opt.objective = FindMetric("run.usd");
  opt.sweep.plan = plan::Objective::kCost;
  auto r = Optimize(*doc, test::Cat(), *design, opt);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->best.size(), 5u);
  EXPECT_GE(r->disaggregated, 1u) << "no disaggregated split was evaluated";
  for (size_t i = 0; i < r->best.size(); ++i) {
    ASSERT_TRUE(r->best[i].row.effective);
    for (size_t j = 0; j < i; ++j) {
      EXPECT_NE(EffectiveKey(*design, r->best[i].row), EffectiveKey(*design, r->best[j].row)) << i << " vs " << j;
    }
  }
}

// Placement stated as an axis: colocated async is the synchronous run (the
// closed form overlaps only on separate GPUs), so of the 8 points 2 are the
// same run as a better one: exactly the two colocated async ones.
TEST(Optimize, AsyncOnSharedGpusIsTheSynchronousRunAndIsListedOnce) {
  auto doc = scenario_internal::ScenarioDocument::FromText(Qwen32bOn32H100NoPlacement(), "<q32>", ".", "");
  ASSERT_TRUE(doc);
  auto design = Design::Grid({*ParseAxis("placement.mode=colocated,disaggregated"),
                              *ParseAxis("pipeline.mode=sync,async"), *ParseAxis("precision.rollout=bf16,fp8")});
  ASSERT_TRUE(design);
  OptimizeOptions opt;
  opt.objective = FindMetric("run.usd");
  opt.sweep.plan = plan::Objective::kCost;
  opt.top = 8;
  auto r = Optimize(*doc, test::Cat(), *design, opt);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_EQ(r->ran, 8u);
  EXPECT_EQ(r->same_run, 2u);
  ASSERT_EQ(r->best.size(), 6u);
  int colocated = 0;
  for (const auto& c : r->best) {
    ASSERT_TRUE(c.row.effective);
    if (c.row.effective->layout.mode == PlacementMode::kColocated) {
      ++colocated;
      EXPECT_EQ(c.row.effective->pipeline, PipelineMode::kSync);
    }
  }
  EXPECT_EQ(colocated, 2);
}


// A disaggregated split wins, by hand from the parts of the two steps
// (Qwen3-32B, 32 H100s, fp8 rollout, G = 8). Synchronous colocated rollout_tp 8:
// the step is the sum of its phases, 64.1 s generating + 18.1 s training +
// 7.2 + 7.2 s log-prob passes + 12.5 s moving the training state + 2.2 s
// weight sync = 111.1 s. Async on 16 + 16 GPUs: generation on half the GPUs
// takes 72.4 s, longer than the trainer's work on the other half, so the
// step is 72.4 s + 1.7 s weight sync = 74.1 s, and with the same GPUs at the
// same price per hour the split is cheaper by 74.1 / 111.1.
TEST(Optimize, ADisaggregatedSplitWinsWhenTrainingHidesUnderGeneration) {
  auto doc = scenario_internal::ScenarioDocument::FromText(Qwen32bOn32H100NoPlacement(), "<q32>", ".", "");
  ASSERT_TRUE(doc);
  auto design = Design::Grid({*ParseAxis("pipeline.mode=sync,async")});
  ASSERT_TRUE(design);
  OptimizeOptions opt;
  opt.objective = FindMetric("cost.usd_per_step");
  opt.sweep.plan = plan::Objective::kCost;
  opt.sweep.fixed = {{"precision.rollout", "fp8"}, {"algorithm.group_size", "8"}};
  auto r = Optimize(*doc, test::Cat(), *design, opt);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->best.size(), 2u);
  ASSERT_TRUE(r->best[0].row.effective && r->best[1].row.effective);
  const auto& win = *r->best[0].row.effective;
  EXPECT_EQ(win.layout.mode, PlacementMode::kDisaggregated);
  EXPECT_EQ(win.pipeline, PipelineMode::kAsync);
  EXPECT_EQ(r->best[1].row.effective->layout.mode, PlacementMode::kColocated);
  // The two runs' steps, from their parts.
  auto step = [&](const Effective& e) {
    auto s = LoadScenarioText(Qwen32bOn32H100NoPlacement(), test::Cat(), "<q32>", ".", opt.sweep.fixed);
    EXPECT_TRUE(s);
    plan::ApplyLayout(s->placement, e.layout);
    s->pipeline.mode = e.pipeline;
    auto est = EstimateAnalytic(*s, TextDetail::kNumbers);
    EXPECT_TRUE(est);
    return est->step;
  };
  const StepTiming dis = step(win), col = step(*r->best[1].row.effective);
  // Rollout-bound: the trainer's phases are hidden, the step is generation + sync.
  EXPECT_NEAR(dis.time_s, dis.rollout_s + dis.weight_sync_s, 1e-6 * dis.time_s);
  EXPECT_EQ(dis.train_s, 0.0);
  // Synchronous: every phase in turn.
  EXPECT_NEAR(col.time_s, col.rollout_s + col.train_s + col.other_s, 1e-6 * col.time_s);
  EXPECT_GT(col.train_s + col.other_s, dis.rollout_s - col.rollout_s + dis.weight_sync_s);
  // Same GPUs, same price: the dollars go as the steps.
  EXPECT_NEAR(r->best[0].objective / r->best[1].objective, dis.time_s / col.time_s, 1e-6);
}

}  // namespace
}  // namespace rlcost::explore
