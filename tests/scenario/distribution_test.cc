#include <gtest/gtest.h>

#include <cmath>

#include "rlcost/distribution.h"
#include "scenario/normal.h"

namespace rlcost {
namespace {

using scenario_internal::NormalCdf;
using scenario_internal::NormalQuantile;

// Independent check of the closed forms: for X clipped to [lo, hi],
//   E[X]   = lo   + integral_lo^hi (1 - F(x)) dx,
//   E[X^2] = lo^2 + integral_lo^hi 2x (1 - F(x)) dx,
// by the composite midpoint rule (never evaluates the jump at the ends).
std::pair<double, double> MomentsByIntegration(const Distribution& d) {
  const double lo = d.min(), hi = d.max();
  const int n = 1'000'000;
  const double h = (hi - lo) / n;
  double m1 = lo, m2 = lo * lo;
  for (int i = 0; i < n; ++i) {
    double x = lo + (i + 0.5) * h;
    double s = 1.0 - d.Cdf(x);
    m1 += s * h;
    m2 += 2 * x * s * h;
  }
  return {m1, m2};
}

TEST(Normal, QuantileInvertsCdf) {
  // Phi^-1(0.975) = 1.959963984540054 (standard tables).
  EXPECT_NEAR(NormalQuantile(0.975), 1.959963984540054, 1e-12);
  EXPECT_NEAR(NormalQuantile(0.5), 0.0, 1e-15);
  for (double p : {1e-12, 1e-6, 0.01, 0.02425, 0.3, 0.7, 0.98, 0.999999}) {
    EXPECT_NEAR(NormalCdf(NormalQuantile(p)) / p, 1.0, 1e-11) << p;
  }
  EXPECT_TRUE(std::isinf(NormalQuantile(0.0)));
  EXPECT_TRUE(std::isinf(NormalQuantile(1.0)));
}

struct Case {
  DistKind kind;
  double mean, cv;
  std::optional<double> min, max;
};

class ClippedMean : public ::testing::TestWithParam<Case> {};

TEST_P(ClippedMean, MeanAfterClippingIsTheRequestedMean) {
  const Case c = GetParam();
  auto d = Distribution::Make(c.kind, c.mean, c.cv, c.min, c.max);
  ASSERT_TRUE(d.has_value()) << d.error();
  EXPECT_EQ(d->kind(), c.kind);
  EXPECT_DOUBLE_EQ(d->mean(), c.mean);
  auto [m1, m2] = MomentsByIntegration(*d);
  EXPECT_NEAR(m1 / c.mean, 1.0, 1e-6) << ToString(c.kind);
  EXPECT_NEAR(m2 / d->SecondMoment(), 1.0, 1e-6) << ToString(c.kind);
  // Quantiles are monotone and stay inside [min, max].
  double prev = -1;
  for (int i = 0; i <= 1000; ++i) {
    double q = d->Quantile(i / 1000.0);
    EXPECT_GE(q, prev);
    EXPECT_GE(q, d->min());
    EXPECT_LE(q, d->max());
    prev = q;
  }
  // Monte Carlo: the mean of 1e5 draws lies within 4 standard errors.
  std::mt19937_64 rng(12345);
  const int n = 100000;
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += d->Sample(rng);
  double se = std::sqrt((d->SecondMoment() - c.mean * c.mean) / n);
  EXPECT_NEAR(sum / n, c.mean, 4 * se) << ToString(c.kind);
}

INSTANTIATE_TEST_SUITE_P(
    Kinds, ClippedMean,
    ::testing::Values(Case{DistKind::kLognormal, 2000, 0.8, std::nullopt, 8192},  // SCENARIO default
                      Case{DistKind::kLognormal, 300, 0.5, 50.0, 1024},
                      Case{DistKind::kLognormal, 3.0, 1.5, std::nullopt, 120},  // heavy tail, hard clip
                      Case{DistKind::kNormal, 2000, 0.8, std::nullopt, 8192},   // also clipped at 0
                      Case{DistKind::kNormal, 1000, 0.3, 200.0, 1500},
                      Case{DistKind::kUniform, 2000, 0.8, 500.0, 4000},
                      Case{DistKind::kUniform, 100, 0.2, std::nullopt, 110},
                      Case{DistKind::kExponential, 2000, 1.0, std::nullopt, 8192},
                      Case{DistKind::kExponential, 500, 0.0, 100.0, 1000}),  // cv ignored
    // Readable test names: kind_index, e.g. "lognormal_0".
    [](const ::testing::TestParamInfo<Case>& info) {
      return std::string(ToString(info.param.kind)) + "_" + std::to_string(info.index);
    });

TEST(Distribution, ScenarioDefaultResponseLengths) {
  auto d = Distribution::Make(DistKind::kLognormal, 2000, 0.8, std::nullopt, 8192);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->max(), 8192);
  EXPECT_EQ(d->min(), 0);
  EXPECT_DOUBLE_EQ(d->mean(), 2000);
  EXPECT_DOUBLE_EQ(d->cv(), 0.8);
  // Clipping removes mass above 8192, so the underlying lognormal must sit
  // higher than the unclipped one with mean 2000 (median 2000/sqrt(1.64) = 1561.7).
  EXPECT_GT(d->Quantile(0.5), 1561.7);
  EXPECT_EQ(d->Quantile(1.0), 8192);
  EXPECT_GT(d->Cdf(8191.9), 0.99);
  EXPECT_EQ(d->Cdf(8192), 1.0);
}

TEST(Distribution, HandWorkedUnclippedValues) {
  // Lognormal mean 1000, cv 1: s^2 = ln 2, mu = ln 1000 - ln2/2, median
  // exp(mu) = 1000 / sqrt(2) = 707.10678.
  auto ln = Distribution::Make(DistKind::kLognormal, 1000, 1.0, std::nullopt, std::nullopt);
  ASSERT_TRUE(ln);
  EXPECT_NEAR(ln->Quantile(0.5), 707.10678, 1e-4);
  EXPECT_TRUE(std::isinf(ln->max()));
  // E[X^2] = mean^2 (1 + cv^2) = 2e6.
  EXPECT_NEAR(ln->SecondMoment(), 2e6, 1e-3);
  // Exponential mean 100: median 100 ln 2 = 69.3147.
  auto ex = Distribution::Make(DistKind::kExponential, 100, 0.3, std::nullopt, std::nullopt);
  ASSERT_TRUE(ex);
  EXPECT_NEAR(ex->Quantile(0.5), 69.3147, 1e-4);
  EXPECT_DOUBLE_EQ(ex->cv(), 1.0);
  // Uniform mean 10, cv 0.2: half-width sqrt(3) * 0.2 * 10 = 3.4641 -> [6.5359, 13.4641].
  auto un = Distribution::Make(DistKind::kUniform, 10, 0.2, std::nullopt, std::nullopt);
  ASSERT_TRUE(un);
  EXPECT_NEAR(un->min(), 6.5359, 1e-4);
  EXPECT_NEAR(un->max(), 13.4641, 1e-4);
  EXPECT_NEAR(un->Cdf(10), 0.5, 1e-12);
  // Normal mean 100, cv 0.1: sd 10, P(X < 0) ~ 1e-23 so the clip at 0 does not
  // move it; the 97.5th percentile is 100 + 1.95996 * 10 = 119.5996.
  auto no = Distribution::Make(DistKind::kNormal, 100, 0.1, std::nullopt, std::nullopt);
  ASSERT_TRUE(no);
  EXPECT_NEAR(no->Quantile(0.975), 119.5996, 1e-4);
}

TEST(Distribution, UnreachableMeansAreClearErrors) {
  auto above = Distribution::Make(DistKind::kLognormal, 9000, 0.8, std::nullopt, 8192);
  ASSERT_FALSE(above);
  EXPECT_NE(above.error().find("above max 8192"), std::string::npos) << above.error();
  auto below = Distribution::Make(DistKind::kNormal, 10, 0.5, 20.0, std::nullopt);
  ASSERT_FALSE(below);
  EXPECT_NE(below.error().find("below min 20"), std::string::npos) << below.error();
  EXPECT_FALSE(Distribution::Make(DistKind::kLognormal, 10, -1, std::nullopt, std::nullopt));
  EXPECT_FALSE(Distribution::Make(DistKind::kLognormal, -5, 1, std::nullopt, std::nullopt));
  EXPECT_FALSE(Distribution::Make(DistKind::kUniform, 5, 1, 8.0, 4.0));
}

TEST(Distribution, DegenerateCasesAreFixed) {
  auto cv0 = Distribution::Make(DistKind::kLognormal, 500, 0, std::nullopt, 1000);
  ASSERT_TRUE(cv0);
  EXPECT_TRUE(cv0->is_fixed());
  EXPECT_EQ(cv0->Quantile(0.9), 500);
  auto at_max = Distribution::Make(DistKind::kLognormal, 1000, 0.5, std::nullopt, 1000);
  ASSERT_TRUE(at_max);
  EXPECT_TRUE(at_max->is_fixed());
  Distribution f = Distribution::Fixed(7);
  EXPECT_EQ(f.SecondMoment(), 49);
  EXPECT_EQ(f.Cdf(6.9), 0);
  EXPECT_EQ(f.Cdf(7), 1);
  std::mt19937_64 rng(1);
  EXPECT_EQ(f.Sample(rng), 7);
}

TEST(Distribution, Empirical) {
  // Samples {4, 1, 3, 2}: mean 2.5, E[X^2] = (1+4+9+16)/4 = 7.5, each value
  // drawn with probability 1/4: u in [0.25, 0.5) -> the second smallest, 2.
  auto d = Distribution::Empirical({4, 1, 3, 2});
  ASSERT_TRUE(d);
  EXPECT_EQ(d->kind(), DistKind::kEmpirical);
  EXPECT_DOUBLE_EQ(d->mean(), 2.5);
  EXPECT_DOUBLE_EQ(d->SecondMoment(), 7.5);
  EXPECT_EQ(d->Quantile(0.3), 2);
  EXPECT_EQ(d->Quantile(0.0), 1);
  EXPECT_EQ(d->Quantile(1.0), 4);
  EXPECT_DOUBLE_EQ(d->Cdf(2), 0.5);
  EXPECT_EQ(d->min(), 1);
  EXPECT_EQ(d->max(), 4);
  EXPECT_FALSE(Distribution::Empirical({}));
  EXPECT_FALSE(Distribution::Empirical({1, -2}));
}

// `clipped: s` (docs/model.md, "Responses clipped at the maximum length"):
// Y = max with probability s, else clip(X, min, max), X's location solved so
// that s max + (1 - s) E[clip(X)] = mean.
TEST(ClippedShare, UniformMixtureByHand) {
  // mean 600, cv 0.2, max 1000, s 0.2: the rest has mean (600 - 0.2 * 1000) /
  // 0.8 = 500; uniform of mean 500, sd 0.2 * 500 = 100, half-width sqrt(3) *
  // 100 = 173.205 -> [326.795, 673.205], inside [0, 1000] so not clipped.
  // E[X^2] = 500^2 + 100^2 = 260000; E[Y^2] = 0.2 * 1000^2 + 0.8 * 260000 = 408000.
  auto d = Distribution::Make(DistKind::kUniform, 600, 0.2, std::nullopt, 1000.0, 0.2);
  ASSERT_TRUE(d) << d.error();
  EXPECT_DOUBLE_EQ(d->mean(), 600);
  EXPECT_DOUBLE_EQ(d->clipped(), 0.2);
  EXPECT_NEAR(d->SecondMoment(), 408000, 1e-6);
  EXPECT_EQ(d->max(), 1000);
  EXPECT_FALSE(d->is_fixed());
  // u >= 1 - s = 0.8 -> max; below, the rest's quantile at u / 0.8:
  // Q(0.4) = X's median 500; Q(0.2) = X's 0.25 quantile = 326.795 + 0.25 * 346.410 = 413.397.
  EXPECT_EQ(d->Quantile(0.8), 1000);
  EXPECT_EQ(d->Quantile(0.95), 1000);
  EXPECT_NEAR(d->Quantile(0.4), 500, 1e-6);
  EXPECT_NEAR(d->Quantile(0.2), 500 - 0.5 * std::sqrt(3.0) * 100, 1e-6);
  // CDF: 0.8 F_X(x) below max, 1 at max.
  EXPECT_NEAR(d->Cdf(500), 0.4, 1e-12);
  EXPECT_NEAR(d->Cdf(999), 0.8, 1e-12);
  EXPECT_EQ(d->Cdf(1000), 1);
  // Share at max: s + (1 - s) P(X >= 1000) = 0.2 + 0.8 * 0.
  EXPECT_DOUBLE_EQ(d->ShareAtMax(), 0.2);
}

TEST(ClippedShare, FixedMixtureByHand) {
  // Fixed rest: (600 - 0.2 * 1000) / 0.8 = 500; E[Y^2] = 0.2 * 1e6 + 0.8 * 500^2 = 400000.
  auto d = Distribution::Make(DistKind::kFixed, 600, 0, std::nullopt, 1000.0, 0.2);
  ASSERT_TRUE(d) << d.error();
  EXPECT_FALSE(d->is_fixed());  // two values: the simulator and the step must see the spread
  EXPECT_DOUBLE_EQ(d->mean(), 600);
  EXPECT_DOUBLE_EQ(d->SecondMoment(), 400000);
  EXPECT_EQ(d->Quantile(0.5), 500);
  EXPECT_EQ(d->Quantile(0.79), 500);
  EXPECT_EQ(d->Quantile(0.9), 1000);
  EXPECT_EQ(d->Cdf(499), 0);
  EXPECT_DOUBLE_EQ(d->Cdf(500), 0.8);
  EXPECT_EQ(d->Cdf(1000), 1);
  EXPECT_DOUBLE_EQ(d->ShareAtMax(), 0.2);
}

TEST(ClippedShare, LognormalMixtureMomentsByIntegration) {
  // default.yaml's responses (mean 2000, cv 0.8, max 8192) with 3% at max.
  auto d = Distribution::Make(DistKind::kLognormal, 2000, 0.8, std::nullopt, 8192.0, 0.03);
  ASSERT_TRUE(d) << d.error();
  auto [m1, m2] = MomentsByIntegration(*d);
  EXPECT_NEAR(m1 / 2000, 1.0, 1e-6);
  EXPECT_NEAR(m2 / d->SecondMoment(), 1.0, 1e-6);
  // The mass at max is the CDF's jump there: 1 - Cdf(just below max).
  EXPECT_NEAR(d->ShareAtMax(), 1.0 - d->Cdf(std::nextafter(8192.0, 0.0)), 1e-12);
  EXPECT_GT(d->ShareAtMax(), 0.03);  // plus the lognormal's own tail beyond 8192
  // The lognormal's own tail (no `clipped`): P(X >= 8192) of the solved X.
  auto plain = Distribution::Make(DistKind::kLognormal, 2000, 0.8, std::nullopt, 8192.0);
  ASSERT_TRUE(plain);
  EXPECT_NEAR(plain->ShareAtMax(), 1.0 - plain->Cdf(std::nextafter(8192.0, 0.0)), 1e-12);
  EXPECT_GT(plain->ShareAtMax(), 0.0);
  // Draws: the share at max within 4 standard errors of 100000 draws.
  std::mt19937_64 rng(7);
  const int n = 100000;
  int at_max = 0;
  for (int i = 0; i < n; ++i) at_max += d->Sample(rng) == 8192.0;
  const double p = d->ShareAtMax(), se = std::sqrt(p * (1 - p) / n);
  EXPECT_NEAR(static_cast<double>(at_max) / n, p, 4 * se);
  // Without a max there is nothing to stop at.
  auto open = Distribution::Make(DistKind::kLognormal, 2000, 0.8, std::nullopt, std::nullopt);
  ASSERT_TRUE(open);
  EXPECT_EQ(open->ShareAtMax(), 0);
}

TEST(ClippedShare, TheLongestOfNDrawsIsMaxOnceNsReachesOne) {
  // The synchronous step prices the longest of n draws at the n / (n + 1)
  // quantile (sim/analytic.cc LengthSlices, perf/tail.cc). A fixed rest
  // (mean 600, max 1000, s = 0.03: rest (600 - 30) / 0.97 = 587.629) puts
  // nothing else at max, so that quantile is max once n / (n + 1) >= 0.97,
  // i.e. n >= 0.97 / 0.03 = 32.33: 33 responses (33 / 34 = 0.97059) reach
  // max, 32 (32 / 33 = 0.96970) do not.
  auto d = Distribution::Make(DistKind::kFixed, 600, 0, std::nullopt, 1000.0, 0.03);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->Quantile(33.0 / 34.0), 1000);
  EXPECT_NEAR(d->Quantile(32.0 / 33.0), 570.0 / 0.97, 1e-9);
}

TEST(ClippedShare, ErrorsNameTheProblem) {
  auto one = Distribution::Make(DistKind::kLognormal, 600, 0.5, std::nullopt, 1000.0, 1.0);
  ASSERT_FALSE(one);
  EXPECT_NE(one.error().find("clipped 1 is out of range; expected a share in [0, 1)"), std::string::npos) << one.error();
  auto neg = Distribution::Make(DistKind::kLognormal, 600, 0.5, std::nullopt, 1000.0, -0.1);
  ASSERT_FALSE(neg);
  EXPECT_NE(neg.error().find("clipped -0.1 is out of range"), std::string::npos) << neg.error();
  auto no_max = Distribution::Make(DistKind::kLognormal, 600, 0.5, std::nullopt, std::nullopt, 0.1);
  ASSERT_FALSE(no_max);
  EXPECT_NE(no_max.error().find("clipped needs max"), std::string::npos) << no_max.error();
  // 70% at 1000 already makes 700 > 600: the rest would need (600 - 700) / 0.3 = -333.333.
  auto high = Distribution::Make(DistKind::kLognormal, 600, 0.5, std::nullopt, 1000.0, 0.7);
  ASSERT_FALSE(high);
  EXPECT_NE(high.error().find("mean 600 cannot be reached with a share 0.7 at max 1000"), std::string::npos)
      << high.error();
  EXPECT_NE(high.error().find("-333.333"), std::string::npos) << high.error();
}

}  // namespace
}  // namespace rlcost
