// Internal numerics of the signal stage: log-Beta, digamma, the regularised
// incomplete Beta function, expectations over a Beta by quadrature, and the
// Beta-binomial maximum-likelihood fit of a pilot evaluation.
// Derivations: docs/model.md (signal section).
//
//   double q = signal_internal::BetaMoment(0.7, 1.3, 16, 0);   // E[p^16] under Beta(0.7, 1.3)
//   double e = signal_internal::BetaExpectation(0.7, 1.3, [](double p, double pc) { return p * pc; });
#pragma once

#include <functional>
#include <vector>

namespace rlcost::signal_internal {

// ln B(x, y) = lgamma(x) + lgamma(y) - lgamma(x + y), for x, y > 0.
double LogBeta(double x, double y);

// E[p^i (1-p)^j] under Beta(a, b) = B(a+i, b+j) / B(a, b), through log-Beta so
// that it stays finite for large i, j and small a, b.
double BetaMoment(double a, double b, double i, double j);

// psi(x) = d/dx ln Gamma(x), x > 0: recurrence up to x >= 10, then the
// asymptotic series (Abramowitz & Stegun 6.3.18).
double Digamma(double x);

// I_x(a, b) = P(p <= x) for p ~ Beta(a, b): continued fraction (modified
// Lentz), with the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) where it converges
// faster (Numerical Recipes 3rd ed., section 6.4, re-derived, not copied).
double RegularizedIncompleteBeta(double a, double b, double x);

// Binary entropy in bits, H(p) = -p log2 p - (1-p) log2(1-p); H(0) = H(1) = 0.
double BinaryEntropyBits(double p);

// E[H(p)] in bits under Beta(a, b), closed form through digamma:
// E[p ln p] = a/(a+b) * (psi(a+1) - psi(a+b+1)).
double BetaExpectedEntropyBits(double a, double b);

// E[f(p)] under Beta(a, b) by adaptive Gauss-Kronrod (7/15) quadrature.
// f receives (p, 1-p), both accurate near the ends. The end pieces are
// integrated after the substitution p = u^(1/a) (resp. 1-p = v^(1/b)), which
// removes the p^(a-1) singularity for a < 1; interior breakpoints around the
// mean (mean +- 2^j sd) keep a sharply peaked Beta from being missed.
double BetaExpectation(double a, double b, const std::function<double(double, double)>& f);

// Integral of g over [lo, hi] by adaptive Gauss-Kronrod (7/15), absolute tolerance tol.
double Integrate(const std::function<double(double)>& g, double lo, double hi, double tol);

// A pilot evaluation: tasks_with_k[k] tasks were solved k times in n samples.
struct BinomialCounts {
  int n = 0;
  std::vector<double> tasks_with_k;  // size n + 1
  double tasks() const;
};

// Beta-binomial log-likelihood without the (a, b)-free binomial constant:
// sum_k c_k [ln B(k+a, n-k+b) - ln B(a, b)].
double BetaBinomialLogLikelihood(const BinomialCounts& c, double a, double b);

struct BetaBinomialFit {
  double a = 0, b = 0;
  double log_likelihood = 0;
  int iterations = 0;
  bool converged = false;
  bool at_bound = false;  // the optimum sits on a bound of (a, b): the MLE does not exist inside
};

// Bounds on a and b during the fit (a Beta with a or b outside them is
// indistinguishable from the bound for any pilot of n <= 1024 samples).
inline constexpr double kFitMinShape = 1e-3;
inline constexpr double kFitMaxShape = 1e6;

// Maximum likelihood over (ln a, ln b) by Nelder-Mead, started from the
// method-of-moments estimate.
BetaBinomialFit FitBetaBinomial(const BinomialCounts& c);

// Method-of-moments (a, b) for the counts (the start of the fit).
void BetaBinomialMoments(const BinomialCounts& c, double* a, double* b);

}  // namespace rlcost::signal_internal
