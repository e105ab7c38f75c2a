// `rlcost forecast` on what runs kept back from the back-test look like:
// noisy, plateaued, rising late, dipping, logged every N steps, resumed from a
// checkpoint. Every curve here is SYNTHETIC (a known curve plus seeded noise),
// so the true step is known by hand; the real runs are the back-test's
// (forecast_test.cc, docs/forecast-validation.md).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "forecast/forecast.h"

namespace {

using namespace rlcost::forecast;

// Standard normal draws from the 64-bit Mersenne Twister's raw output (its
// sequence is fixed by the standard, unlike std::normal_distribution's), by
// Box-Muller.
class Noise {
 public:
  explicit Noise(uint64_t seed) : rng_(seed) {}
  double Normal() {
    const double u1 = (double(rng_() >> 11) + 0.5) * 0x1.0p-53, u2 = double(rng_() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  }

 private:
  std::mt19937_64 rng_;
};

ProgressSeries Points(const std::vector<std::pair<int, double>>& pts) {
  ProgressSeries s;
  s.path = "synthetic";
  s.metric = "reward";
  for (const auto& [step, v] : pts) s.points.push_back({step, v, 0});
  s.first_step = 0;
  s.last_step = pts.empty() ? 0 : pts.back().first;
  return s;
}

Curve Sigmoid(double r0, double a, double b, double c_mid) {
  Curve c;
  c.kind = CurveKind::kSigmoid;
  c.r0 = r0, c.a = a, c.b = b, c.c_mid = c_mid;
  return c;
}

// A number with an interval around it, or n/a with its reason: never a bare
// number, never an empty reason.
void ExpectHonest(const Outcome& r, const std::string& what) {
  if (r.ok) {
    EXPECT_TRUE(std::isfinite(r.steps_to_target)) << what;
    EXPECT_LE(r.interval_low, r.steps_to_target) << what;
    EXPECT_GE(r.interval_high, r.steps_to_target) << what;  // +inf: "beyond reach"
  } else {
    EXPECT_FALSE(r.reason.empty()) << what;
  }
}

// A metric logged every 10 steps: 6 points (steps 10..60) of the power law
// R = 0.7 - 0.6 C^-0.5 with noise sd 0.01. The target 0.66 is reached by the
// curve at C = (0.6 / 0.04)^2 = 225, step 224; the true step of each run is
// its first logged value at or above 0.66 (noise moves it by tens of steps).
// Fitted on 6 points the power law keeps 3 residual degrees of freedom. With
// the residuals rescaled by sqrt(6/3) = 1.41 the 5-95% interval holds the true
// step in 47 of these 60 runs (78%); unscaled (measured with the factor set
// to 1) in 41 (68%). Both are below the nominal 90%: with 6 points the fit's
// own spread is not linear in the noise (the ceiling A often sits on its bound
// 1), which the bootstrap only partly sees; docs/model.md says so. The test
// holds the rescaled figure (>= 45) and fails without it.
TEST(ForecastInterval, ASparseMetricsIntervalHoldsTheTrueStepAsOftenAsStated) {
  Curve truth;
  truth.kind = CurveKind::kPowerLaw;
  truth.a = 0.7, truth.d = 0.6, truth.alpha = 0.5;
  ASSERT_NEAR(truth.ComputeAt(0.66), 225, 1e-9);
  constexpr int kRuns = 60;
  int held = 0, forecast = 0;
  for (int run = 0; run < kRuns; ++run) {
    Noise noise(1000 + uint64_t(run));
    std::vector<std::pair<int, double>> pts;
    int true_step = -1;
    for (int step = 10; step <= 2000; step += 10) {
      const double v = truth.Value(step + 1) + 0.01 * noise.Normal();  // C = step - 0 + 1
      pts.push_back({step, v});
      if (true_step < 0 && v >= 0.66) true_step = step;
    }
    Options o;
    o.target = 0.66;
    o.fit_until = 60;
    o.only = CurveKind::kPowerLaw;
    o.replicates = 200;
    o.seed = 7 + uint64_t(run);
    o.half_window = 0;  // both readings the first logged value, as the truth is read
    auto r = Forecast(Points(pts), o);
    ASSERT_TRUE(r);
    ASSERT_EQ(r->points_used, 6);
    forecast += r->ok;
    held += std::isfinite(r->interval_low) && true_step >= r->interval_low && true_step <= r->interval_high;
  }
  EXPECT_GE(held, 45) << "of " << kRuns;
  EXPECT_GE(forecast, kRuns / 2);
}

// Five points fit the power law (3 parameters + 2), not the sigmoid (4 + 2):
// the sigmoid is listed as not fitted, with the points it needs.
TEST(ForecastRun, FivePointsFitThePowerLawAloneAndSaySo) {
  const Curve truth = Sigmoid(0.2, 0.8, 1.5, 60);
  std::vector<std::pair<int, double>> pts;
  Noise noise(3);
  for (int step = 9; step <= 119; step += 10) pts.push_back({step, truth.Value(step + 1) + 0.01 * noise.Normal()});
  Options o;
  o.target = 0.6;
  o.fit_until = 49;  // steps 9..49: 5 points (C = 10..50; none in the first 10%, C <= 5)
  auto five = Forecast(Points(pts), o);
  ASSERT_TRUE(five);
  EXPECT_EQ(five->points_used, 5);
  ASSERT_EQ(five->candidates.size(), 2u);
  EXPECT_EQ(five->candidates[0].kind, CurveKind::kSigmoid);
  EXPECT_FALSE(five->candidates[0].fitted);
  EXPECT_EQ(five->candidates[0].min_points, 6);
  EXPECT_TRUE(five->candidates[1].fitted);
  EXPECT_EQ(five->candidates[1].min_points, 5);
  EXPECT_TRUE(five->fitted);
  EXPECT_EQ(five->curve.kind, CurveKind::kPowerLaw);
  ExpectHonest(*five, "five points");
  o.fit_until = 39;  // 4 points: n/a, saying how many a curve needs
  auto four = Forecast(Points(pts), o);
  ASSERT_TRUE(four);
  EXPECT_FALSE(four->ok);
  EXPECT_NE(four->reason.find("only 4 points"), std::string::npos) << four->reason;
  EXPECT_NE(four->reason.find("at least 5"), std::string::npos) << four->reason;
}

// The shapes a kept-back run may have, fitted on steps 0..60 of 120, target
// 0.6. By hand, the rising runs' curve (R0 0.2, A 0.8, B 1.5, C_mid 60) is at
// 0.6 where s = 0.4 / 0.6 = 2/3: C = 60 * 2^(1/1.5) = 95.2, step 95.
TEST(ForecastRun, KeptBackShapesGiveANumberWithAnIntervalOrNaWithTheReason) {
  const Curve rise = Sigmoid(0.2, 0.8, 1.5, 60);
  ASSERT_NEAR(rise.ComputeAt(0.6), 95.24, 0.01);
  Options o;
  o.target = 0.6;
  o.fit_until = 60;
  auto run = [&](const char* what, auto value, uint64_t seed, double sd) {
    Noise noise(seed);
    std::vector<std::pair<int, double>> pts;
    for (int step = 0; step < 120; ++step) pts.push_back({step, value(step) + sd * noise.Normal()});
    auto r = Forecast(Points(pts), o);
    EXPECT_TRUE(r) << what;
    if (r) ExpectHonest(*r, what);
    return r ? *r : Outcome{};
  };
  // Noisy (sd 0.06, a third of the rise so far): two logged values already
  // touch 0.6 before step 60, and by default that is the log reaching it
  // (issue 39: reached at the first of them). Read by the +-3 average
  // (--smooth 3) the run is not there yet: a number whose interval holds step 95.
  auto touched = run("noisy", [&](int s) { return rise.Value(s + 1); }, 3, 0.06);
  EXPECT_TRUE(touched.already_reached);
  EXPECT_LT(touched.steps_to_target, 60);
  o.half_window = 3;
  auto noisy = run("noisy", [&](int s) { return rise.Value(s + 1); }, 3, 0.06);
  o.half_window = -1;
  ASSERT_TRUE(noisy.ok) << noisy.reason;
  EXPECT_FALSE(noisy.already_reached);
  EXPECT_LE(noisy.interval_low, 95);
  EXPECT_GE(noisy.interval_high, 95);
  // On its plateau (0.7 flat): n/a, flat, nothing to extrapolate.
  auto plateau = run("plateau", [](int) { return 0.7; }, 4, 0.01);
  EXPECT_FALSE(plateau.ok);
  EXPECT_NE(plateau.reason.find("flat"), std::string::npos) << plateau.reason;
  // A late rise (flat at 0.2 until step 80, after the points fitted): n/a,
  // flat; the rise to come is not in the points, and no number is invented.
  auto late = run("late rise", [&](int s) { return s < 80 ? 0.2 : rise.Value(s - 79); }, 5, 0.01);
  EXPECT_FALSE(late.ok);
  EXPECT_NE(late.reason.find("flat"), std::string::npos) << late.reason;
  // A dip of 0.15 at step 50 just before the cut: the points fitted bend
  // down, the curves level off lower; the answer is n/a "beyond reach" or a
  // number, either with the bootstrap's share of runs that never get there.
  auto dip = run("dip", [&](int s) { return rise.Value(s + 1) - 0.15 * std::exp(-std::pow((s - 50) / 8.0, 2)); }, 6,
                 0.01);
  EXPECT_TRUE(dip.fitted);
  EXPECT_GT(dip.p_beyond_reach, 0.05);  // the dip shows up as doubt, not as a confident step
  if (!dip.ok) {
    EXPECT_NE(dip.reason.find("beyond reach"), std::string::npos) << dip.reason;
  }
}

// A run resumed from a checkpoint re-does the steps after it; the later lines
// are the run that went on, and the resume is reported with its line.
TEST(ForecastRead, AResumedRunKeepsTheLaterLinesAndSaysWhere) {
  // line 1 header, lines 2..9 steps 1..8, line 10 resumes at step 6.
  std::string csv = "step,reward\n";
  for (int s = 1; s <= 8; ++s) csv += std::to_string(s) + ",0." + std::to_string(s) + "\n";
  for (int s = 6; s <= 9; ++s) csv += std::to_string(s) + ",0." + std::to_string(s) + "5\n";
  auto r = ReadProgressText(csv, "resumed.csv", {"reward", 0});
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_EQ(r->points.size(), 9u);  // steps 1..9, one each
  EXPECT_DOUBLE_EQ(r->points[4].value, 0.5);   // step 5: logged once
  EXPECT_DOUBLE_EQ(r->points[5].value, 0.65);  // step 6: the resumed run's line
  EXPECT_DOUBLE_EQ(r->points[8].value, 0.95);
  ASSERT_EQ(r->resumes.size(), 1u);
  EXPECT_EQ(r->resumes[0].line, 10);
  EXPECT_EQ(r->resumes[0].from_step, 8);
  EXPECT_EQ(r->resumes[0].to_step, 6);
}

// A step column that goes back to the start cannot be placed: an error naming
// the file, the line and the two steps.
TEST(ForecastRead, AStepColumnThatStartsAgainIsAnErrorNamingTheLine) {
  const std::string csv = "step,reward\n0,0.1\n1,0.2\n2,0.3\n0,0.4\n1,0.5\n";
  auto r = ReadProgressText(csv, "two_runs.csv", {"reward", 0});
  ASSERT_FALSE(r);
  const std::string e = r.error().ToString();
  EXPECT_NE(e.find("two_runs.csv:5"), std::string::npos) << e;
  EXPECT_NE(e.find("step 0 after step 2"), std::string::npos) << e;
}

}  // namespace
