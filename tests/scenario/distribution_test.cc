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

}  // namespace
}  // namespace rlcost
