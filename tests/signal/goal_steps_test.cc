// The goal's steps counted without stepping (signal::CountSteps) against the
// step loop they replace: the same whole number of steps and the same useful
// samples to 1e-9, on random learning-curve tables and on the pinned cases of
// the shared scenarios, through the estimate's path (GoalDetail::kStepsOnly).
#include <algorithm>
#include <cmath>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/signal.h"
#include "signal/goal.h"
#include "support.h"

namespace rlcost::signal {
namespace {

double Rel(double a, double b) { return a == b ? 0.0 : std::abs(a - b) / std::max(std::abs(a), std::abs(b)); }

// The loop of StepsToTarget (src/signal/signal.cc), one step at a time.
Counted Stepped(const std::vector<double>& p, const std::vector<double>& q, const std::vector<double>& u_end, double u,
                double u_target, double max_steps) {
  Counted out;
  int i = 0;
  const int n = static_cast<int>(p.size());
  while (u < u_target && out.steps < max_steps) {
    while (i < n - 1 && u >= u_end[i]) ++i;
    const double useful = p[i] - q[i] / u;
    if (!(useful > 0)) return out;
    u += useful;
    out.steps += 1;
  }
  out.ok = u >= u_target;
  out.u = u;
  return out;
}

// A table like the goal's: P(informative group of g) on [R0, T] at 33 nodes,
// a Beta of concentration kappa around each mean, the curve R(C) = R0 + (A - R0) C / (C + C_mid).
struct Table {
  std::vector<double> p, q, u_end;
  double u0 = 0, u_target = 0;
};

Table MakeTable(double r0, double target, double a_inf, double mid, double per_step, int g, double kappa, bool ppo) {
  constexpr int kTable = 32;
  std::vector<double> share(kTable + 1);
  for (int i = 0; i <= kTable; ++i) {
    const double r = r0 + (target - r0) * i / kTable;
    PassRateSpec at;
    at.kind = PassRateSpec::Kind::kBeta;
    at.a = r * kappa;
    at.b = (1 - r) * kappa;
    share[i] = InformativeGroupProbability(at, g);
  }
  Table t;
  const double pos_scale = kTable * ((a_inf - r0) / (target - r0));
  for (int i = 0; i < kTable; ++i) {
    const double slope = ppo ? 0.0 : share[i + 1] - share[i];
    const double at0 = ppo ? 1.0 : share[i] - i * slope;
    t.p.push_back(per_step * (at0 + slope * pos_scale));
    t.q.push_back(per_step * slope * pos_scale * mid);
    const double frac = (i + 1) / pos_scale;
    t.u_end.push_back(frac < 1 ? mid / (1 - frac) : std::numeric_limits<double>::infinity());
  }
  t.u0 = mid;
  t.u_target = mid + mid / ((a_inf - r0) / (target - r0) - 1);
  return t;
}

TEST(StepsWithoutStepping, SameStepsAsTheLoopOnRandomCurves) {
  std::mt19937_64 rng(20261203);
  std::uniform_real_distribution<double> unit(0, 1);
  const int groups[] = {2, 4, 8, 16, 64};
  int cases = 0, long_runs = 0, intervals = 0, fast = 0;
  double worst = 0;
  for (int k = 0; k < 3000; ++k) {
    const double r0 = 0.02 + 0.6 * unit(rng);
    const double target = r0 + (0.97 - r0) * (0.05 + 0.9 * unit(rng));
    const double a_inf = target + (1 - target) * (0.02 + 0.98 * unit(rng));
    const double mid = std::pow(10.0, 3 + 4 * unit(rng));
    const double per_step = std::pow(10.0, 1 + 4 * unit(rng));
    const int g = groups[k % 5];
    const double kappa = std::pow(10.0, -0.5 + 2 * unit(rng));
    const bool ppo = k % 7 == 0;
    const Table t = MakeTable(r0, target, a_inf, mid, per_step, g, kappa, ppo);
    const Counted loop = Stepped(t.p, t.q, t.u_end, t.u0, t.u_target, 1e5);
    const Counted fast_count = CountSteps(t.p.data(), t.q.data(), t.u_end.data(), 32, t.u0, t.u_target, 1e5);
    if (!loop.ok) {
      EXPECT_FALSE(fast_count.ok && fast_count.steps <= 1e5) << "case " << k;
      continue;
    }
    ++cases;
    ASSERT_TRUE(fast_count.ok) << "case " << k << ": " << loop.steps << " steps";
    EXPECT_EQ(fast_count.steps, loop.steps) << "case " << k << " r0 " << r0 << " T " << target << " A " << a_inf
                                            << " mid " << mid << " per_step " << per_step << " g " << g;
    const double rel = Rel(fast_count.u - t.u0, loop.u - t.u0);
    worst = std::max(worst, rel);
    EXPECT_LE(rel, 1e-9) << "case " << k;
    if (loop.steps >= 1000) {  // long runs, where not stepping pays: most intervals are counted
      ++long_runs;
      intervals += 32;
      fast += fast_count.intervals_counted;
    }
  }
  EXPECT_GT(cases, 2000);
  EXPECT_GT(long_runs, 500);
  EXPECT_GT(fast, intervals * 8 / 10);
  std::printf("%d runs (%d of 1,000 steps or more: %d of their %d intervals counted without stepping), "
              "worst useful-samples difference %.2e\n", cases, long_runs, fast, intervals, worst);
}

TEST(StepsWithoutStepping, EstimatePathMatchesTheTrajectoryPathOnThePinnedCases) {
  std::ifstream in(std::string(RLCOST_SOURCE_DIR) + "/tests/data/signal/steps_to_target_pinned.txt");
  ASSERT_TRUE(in);
  std::string line;
  int rows = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string file, ovs;
    double target = 0, exponent = 0;
    ASSERT_TRUE(ls >> file >> ovs >> target >> exponent) << line;
    const std::vector<Override> ov = test::ParseOverrides(ovs);
    auto s = LoadScenarioFile(std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/" + file, test::Cat(), ov);
    ASSERT_TRUE(s) << line;
    LearningCurveSpec curve;
    curve.exponent = exponent;
    auto sig = Analyze(*s);
    ASSERT_TRUE(sig) << line;
    auto full = StepsToTarget(*s, curve, target, *sig, GoalDetail::kWithTrajectory);
    auto only = StepsToTarget(*s, curve, target, *sig, GoalDetail::kStepsOnly);
    ASSERT_TRUE(full && only) << line;
    EXPECT_EQ(only->reachable, full->reachable) << line;
    EXPECT_EQ(only->reason, full->reason) << line;
    EXPECT_EQ(only->steps, full->steps) << line;
    EXPECT_LE(Rel(only->useful_samples, full->useful_samples), 1e-9) << line;
    EXPECT_LE(Rel(only->rollouts_generated, full->rollouts_generated), 1e-9) << line;
    EXPECT_LE(Rel(only->rollouts_trained, full->rollouts_trained), 1e-9) << line;
    EXPECT_LE(Rel(only->final_informative_fraction, full->final_informative_fraction), 1e-9) << line;
    EXPECT_EQ(only->within_planned_steps, full->within_planned_steps) << line;
    if (full->reachable) {
      ASSERT_EQ(only->trajectory.size(), 1u) << line;
      EXPECT_EQ(only->trajectory[0].first, full->trajectory.back().first) << line;
      EXPECT_LE(Rel(only->trajectory[0].second, full->trajectory.back().second), 1e-9) << line;
    }
    ++rows;
  }
  EXPECT_EQ(rows, 192);
}

}  // namespace
}  // namespace rlcost::signal
