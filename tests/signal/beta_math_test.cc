// Numerics of the signal stage against values worked out by hand, and the
// quadrature against the closed forms it must reproduce.
#include "signal/beta_math.h"

#include <cmath>
#include <random>

#include <gtest/gtest.h>

namespace rlcost::signal_internal {
namespace {

TEST(BetaMath, LogBetaByHand) {
  EXPECT_NEAR(LogBeta(1, 1), 0.0, 1e-14);                    // B(1,1) = 1
  EXPECT_NEAR(LogBeta(2, 3), std::log(1.0 / 12), 1e-13);     // 1! 2! / 4! = 2/24
  EXPECT_NEAR(LogBeta(0.5, 0.5), std::log(M_PI), 1e-13);     // Gamma(1/2)^2 / Gamma(1) = pi
}

TEST(BetaMath, MomentsByHand) {
  // Beta(0.7, 1.3): E[p] = 0.7/2 = 0.35; E[p^2] = a(a+1)/((a+b)(a+b+1)) = 0.7*1.7/(2*3) = 0.198333...
  EXPECT_NEAR(BetaMoment(0.7, 1.3, 1, 0), 0.35, 1e-14);
  EXPECT_NEAR(BetaMoment(0.7, 1.3, 2, 0), 1.19 / 6, 1e-14);
  // E[p(1-p)] = ab/((a+b)(a+b+1)) = 0.91/6.
  EXPECT_NEAR(BetaMoment(0.7, 1.3, 1, 1), 0.91 / 6, 1e-14);
  // Uniform: E[p^G] = 1/(G+1); finite for G = 1024.
  // Relative 1e-11: lgamma(1026) ~ 6.1e3 has an ulp of 9e-13; three of them are combined.
  EXPECT_NEAR(BetaMoment(1, 1, 1024, 0) * 1025, 1.0, 1e-11);
  // a = 0.01, G = 1024: E[p^G] = prod_{i<G} (a+i)/(a+b+i) with b = 0.01, positive and < E[p] = 0.5.
  const double m = BetaMoment(0.01, 0.01, 1024, 0);
  EXPECT_TRUE(std::isfinite(m));
  EXPECT_GT(m, 0.45);  // nearly all mass sits at 0 or 1: E[p^G] -> P(p near 1) = 1/2 minus a little
  EXPECT_LT(m, 0.5);
}

TEST(BetaMath, DigammaByHand) {
  constexpr double kEulerGamma = 0.57721566490153286;
  EXPECT_NEAR(Digamma(1), -kEulerGamma, 1e-13);
  EXPECT_NEAR(Digamma(0.5), -kEulerGamma - 2 * std::log(2.0), 1e-13);
  // psi(n) = -gamma + sum_{k<n} 1/k: psi(10) = -gamma + H_9 = -0.5772156649 + 2.8289682540.
  EXPECT_NEAR(Digamma(10), -kEulerGamma + 7129.0 / 2520, 1e-13);
  EXPECT_NEAR(Digamma(0.01), -100.56088545786867, 1e-9);  // psi(x) ~ -1/x - gamma + (pi^2/6) x
}

TEST(BetaMath, IncompleteBetaByHand) {
  EXPECT_NEAR(RegularizedIncompleteBeta(1, 1, 0.3), 0.3, 1e-14);             // uniform CDF
  EXPECT_NEAR(RegularizedIncompleteBeta(0.5, 1, 0.25), 0.5, 1e-14);          // x^a
  EXPECT_NEAR(RegularizedIncompleteBeta(1, 3, 0.1), 1 - 0.9 * 0.9 * 0.9, 1e-14);  // 1 - (1-x)^b
  for (double a : {0.01, 0.7, 7.3, 300.0})
    EXPECT_NEAR(RegularizedIncompleteBeta(a, a, 0.5), 0.5, 1e-10) << a;     // symmetry
  EXPECT_EQ(RegularizedIncompleteBeta(0.7, 1.3, 0), 0);
  EXPECT_EQ(RegularizedIncompleteBeta(0.7, 1.3, 1), 1);
}

TEST(BetaMath, EntropyByHand) {
  EXPECT_NEAR(BinaryEntropyBits(0.5), 1.0, 1e-15);
  EXPECT_EQ(BinaryEntropyBits(0), 0);
  // Uniform p: E[-p ln p] = 1/4 twice = 1/2 nat = 0.5/ln 2 bits.
  EXPECT_NEAR(BetaExpectedEntropyBits(1, 1), 0.5 / std::log(2.0), 1e-13);
}

// The quadrature against two closed forms over shapes from 0.01 to 10^4: the
// informative probability through log-Beta, and the entropy through digamma.
TEST(BetaMath, QuadratureMatchesClosedForms) {
  for (double a : {0.01, 0.1, 0.7, 1.0, 3.0, 50.0, 1e4}) {
    for (double b : {0.01, 0.3, 1.3, 20.0, 1e4}) {
      for (int g : {2, 16, 1024}) {
        const double closed = 1 - BetaMoment(a, b, g, 0) - BetaMoment(a, b, 0, g);
        const double quad = BetaExpectation(a, b, [&](double p, double pc) {
          return 1 - std::pow(p, g) - std::pow(pc, g);
        });
        EXPECT_NEAR(quad, closed, 1e-8) << "a=" << a << " b=" << b << " G=" << g;
      }
      const double h = BetaExpectation(a, b, [](double p, double) { return BinaryEntropyBits(p); });
      EXPECT_NEAR(h, BetaExpectedEntropyBits(a, b), 1e-8) << "a=" << a << " b=" << b;
      EXPECT_NEAR(BetaExpectation(a, b, [](double, double) { return 1.0; }), 1.0, 1e-9) << a << " " << b;
    }
  }
}

// The fit recovers a known Beta from simulated pilot data. Tolerance: three
// standard errors from the observed Fisher information (numerical Hessian of the
// log-likelihood in (ln a, ln b)), carried to the mean a/(a+b) and ln(a+b) by the
// delta method.
TEST(BetaMath, FitRecoversKnownBetaWithinThreeStandardErrors) {
  const double a_true = 0.7, b_true = 1.3;
  const int n = 16, tasks = 20000;
  std::mt19937_64 rng(20250917);
  std::gamma_distribution<double> ga(a_true, 1.0), gb(b_true, 1.0);
  BinomialCounts c;
  c.n = n;
  c.tasks_with_k.assign(n + 1, 0.0);
  for (int t = 0; t < tasks; ++t) {
    const double x = ga(rng), y = gb(rng);
    const double p = x / (x + y);
    int k = 0;
    for (int i = 0; i < n; ++i) k += std::uniform_real_distribution<double>(0, 1)(rng) < p;
    c.tasks_with_k[k] += 1;
  }
  const BetaBinomialFit fit = FitBetaBinomial(c);
  ASSERT_TRUE(fit.converged);
  ASSERT_FALSE(fit.at_bound);

  // Hessian of the log-likelihood in (x, y) = (ln a, ln b) by central differences.
  auto ll = [&](double x, double y) { return BetaBinomialLogLikelihood(c, std::exp(x), std::exp(y)); };
  const double x0 = std::log(fit.a), y0 = std::log(fit.b), h = 1e-4;
  const double hxx = (ll(x0 + h, y0) - 2 * ll(x0, y0) + ll(x0 - h, y0)) / (h * h);
  const double hyy = (ll(x0, y0 + h) - 2 * ll(x0, y0) + ll(x0, y0 - h)) / (h * h);
  const double hxy =
      (ll(x0 + h, y0 + h) - ll(x0 + h, y0 - h) - ll(x0 - h, y0 + h) + ll(x0 - h, y0 - h)) / (4 * h * h);
  // Covariance = inverse of the observed information -H.
  const double det = hxx * hyy - hxy * hxy;
  ASSERT_GT(det, 0);
  const double vxx = -hyy / det, vyy = -hxx / det, vxy = hxy / det;
  const double s = fit.a + fit.b;
  // mean m = a/(a+b): dm/dx = ab/s^2, dm/dy = -ab/s^2.
  const double dm = fit.a * fit.b / (s * s);
  const double se_mean = std::sqrt(dm * dm * (vxx + vyy - 2 * vxy));
  // ln s: d/dx = a/s, d/dy = b/s.
  const double gx = fit.a / s, gy = fit.b / s;
  const double se_log_s = std::sqrt(gx * gx * vxx + gy * gy * vyy + 2 * gx * gy * vxy);
  EXPECT_NEAR(fit.a / s, a_true / (a_true + b_true), 3 * se_mean);
  EXPECT_NEAR(std::log(s), std::log(a_true + b_true), 3 * se_log_s);
  // The optimum is a maximum: the log-likelihood falls a step away.
  EXPECT_GT(fit.log_likelihood, ll(x0 + 0.01, y0));
  EXPECT_GT(fit.log_likelihood, ll(x0, y0 - 0.01));
}

TEST(BetaMath, MomentsStartOnUnderdispersedDataStaysInBounds) {
  // Every task at 8/16: no spread beyond binomial noise -> concentration runs to the upper bound.
  BinomialCounts c;
  c.n = 16;
  c.tasks_with_k.assign(17, 0.0);
  c.tasks_with_k[8] = 100;
  const BetaBinomialFit fit = FitBetaBinomial(c);
  // The likelihood is flat along the bound; 1e-3 is far inside the binomial standard
  // error of the mean, sqrt(0.25 / (100 * 16)) = 0.0125.
  EXPECT_NEAR(fit.a / (fit.a + fit.b), 0.5, 1e-3);
  EXPECT_TRUE(fit.at_bound);
  EXPECT_LE(fit.a, kFitMaxShape * (1 + 1e-9));
}

}  // namespace
}  // namespace rlcost::signal_internal
