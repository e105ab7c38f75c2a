#include "signal/beta_math.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace rlcost::signal_internal {

double LogBeta(double x, double y) { return std::lgamma(x) + std::lgamma(y) - std::lgamma(x + y); }

double BetaMoment(double a, double b, double i, double j) {
  if (i == 0 && j == 0) return 1.0;
  // Whole moments (a group's all-pass / all-fail probabilities) as the product
  // B(a+i, b+j)/B(a, b) = prod_{k<i} (a+k) prod_{k<j} (b+k) / prod_{k<i+j} (a+b+k),
  // no lgamma or exp (the same value to ~1e-14 relative).
  if (i >= 0 && j >= 0 && i + j <= 256 && i == std::floor(i) && j == std::floor(j)) {
    // Four factors to a division (a product of four stays finite for a + b up to ~1e76).
    const int n = static_cast<int>(i), m = static_cast<int>(j);
    double r = 1.0, num = 1.0, den = 1.0;
    int in_chunk = 0;
    auto factor = [&](double x, double y) {
      num *= x;
      den *= y;
      if (++in_chunk == 4) {
        r *= num / den;
        num = den = 1.0;
        in_chunk = 0;
      }
    };
    for (int k = 0; k < n; ++k) factor(a + k, a + b + k);
    for (int k = 0; k < m; ++k) factor(b + k, a + b + n + k);
    return r * (num / den);
  }
  return std::exp(LogBeta(a + i, b + j) - LogBeta(a, b));
}

double Digamma(double x) {
  double r = 0;
  while (x < 10) {
    r -= 1 / x;
    x += 1;
  }
  const double f = 1 / (x * x);
  // ln x - 1/(2x) - 1/(12x^2) + 1/(120x^4) - 1/(252x^6) + 1/(240x^8) - 1/(132x^10)
  return r + std::log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f / 132))));
}

namespace {

// Continued fraction of the incomplete Beta function, evaluated by the modified
// Lentz method; converges quickly for x < (a+1)/(a+b+2).
double IncompleteBetaFraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  constexpr double kEps = 1e-15;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 10000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < kEps) break;
  }
  return h;
}

}  // namespace

double RegularizedIncompleteBeta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front = a * std::log(x) + b * std::log1p(-x) - LogBeta(a, b);
  if (x < (a + 1) / (a + b + 2)) return std::exp(log_front) * IncompleteBetaFraction(a, b, x) / a;
  return 1 - std::exp(log_front) * IncompleteBetaFraction(b, a, 1 - x) / b;
}

double BinaryEntropyBits(double p) {
  if (p <= 0 || p >= 1) return 0;
  return -(p * std::log2(p) + (1 - p) * std::log2(1 - p));
}

double BetaExpectedEntropyBits(double a, double b) {
  // E[-p ln p] = a/(a+b) (psi(a+b+1) - psi(a+1)), since p Beta(a,b)/E[p] is Beta(a+1,b)
  // and E[ln p] under Beta(a+1, b) is psi(a+1) - psi(a+b+1); same for 1-p.
  const double s = a + b;
  const double psi_s1 = Digamma(s + 1);
  const double nats = a / s * (psi_s1 - Digamma(a + 1)) + b / s * (psi_s1 - Digamma(b + 1));
  return nats / std::log(2.0);
}

namespace {

// Gauss-Kronrod 7/15 nodes and weights on [-1, 1] (QUADPACK qk15).
constexpr std::array<double, 8> kXgk = {
    0.991455371120812639206854697526329, 0.949107912342758524526189684047851,
    0.864864423359769072789712788640926, 0.741531185599394439863864773280788,
    0.586087235467691130294144845693013, 0.405845151377397166906606412076961,
    0.207784955007898467600689403773245, 0.000000000000000000000000000000000};
constexpr std::array<double, 8> kWgk = {
    0.022935322010529224963732008058970, 0.063092092629978553290700663189204,
    0.104790010322250183839876322541518, 0.140653259715525918745189590510238,
    0.169004726639267902826583426598550, 0.190350578064785409913256402421014,
    0.204432940075298892414161999234649, 0.209482141084727828012999174891714};
constexpr std::array<double, 4> kWg = {
    0.129484966168869693270611432679082, 0.279705391489276667901467771423780,
    0.381830050505118944950369775488975, 0.417959183673469387755102040816327};

template <typename F>
void Kronrod15(const F& g, double lo, double hi, double* kronrod, double* error) {
  const double c = 0.5 * (lo + hi), h = 0.5 * (hi - lo);
  const double fc = g(c);
  double rk = fc * kWgk[7];
  double rg = fc * kWg[3];
  for (int j = 0; j < 7; ++j) {
    const double dx = h * kXgk[j];
    const double f1 = g(c - dx), f2 = g(c + dx);
    rk += kWgk[j] * (f1 + f2);
    if (j % 2 == 1) rg += kWg[j / 2] * (f1 + f2);  // Gauss nodes are the odd Kronrod ones
  }
  *kronrod = rk * h;
  *error = std::fabs((rk - rg) * h);
}

// Each call may split at most kMaxPieces times: an integrand whose rounding
// noise stays above the halved tolerance (a very narrow Beta, a process reward
// with 1e5 credited steps) would otherwise split up to 2^40 times and never
// return. 20000 pieces of 15 points is 3e5 evaluations: milliseconds.
constexpr int kMaxPieces = 20000;

template <typename F>
double Adaptive(const F& g, double lo, double hi, double tol, int depth, int* pieces) {
  if (!(hi > lo)) return 0;
  double k = 0, err = 0;
  Kronrod15(g, lo, hi, &k, &err);
  if (err <= tol || depth >= 40 || *pieces >= kMaxPieces) return k;
  *pieces += 2;
  const double mid = 0.5 * (lo + hi);
  return Adaptive(g, lo, mid, 0.5 * tol, depth + 1, pieces) + Adaptive(g, mid, hi, 0.5 * tol, depth + 1, pieces);
}

template <typename F>
double Adaptive(const F& g, double lo, double hi, double tol) {
  int pieces = 0;
  return Adaptive(g, lo, hi, tol, 0, &pieces);
}

}  // namespace

double BetaExpectation(double a, double b, const std::function<double(double, double)>& f) {
  constexpr double kTol = 1e-12;
  const double lb = LogBeta(a, b);
  const double mean = a / (a + b);
  const double sd = std::sqrt(a * b / ((a + b) * (a + b) * (a + b + 1)));

  // Interior breakpoints: 1/2 and mean +- 2^j sd (j = -1, 0, 1, ...) inside (0, 1):
  // pieces grow geometrically away from the bulk, so a narrow or skewed Beta is
  // resolved and no piece is much wider than its distance from the mean.
  std::vector<double> cuts = {0.5};
  for (double sgn : {-1.0, 1.0}) {
    for (double k = 0.5;; k *= 2) {
      const double x = mean + sgn * k * sd;
      if (!(x > 1e-12 && x < 1 - 1e-12)) break;
      cuts.push_back(x);
    }
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());

  // Left end [0, cuts.front()]: p = u^(1/a), so p^(a-1) dp = du / a.
  const double left = cuts.front();
  auto g_left = [&](double u) {
    const double p = u > 0 ? std::exp(std::log(u) / a) : 0.0;
    return f(p, 1 - p) * std::exp((b - 1) * std::log1p(-p) - std::log(a) - lb);
  };
  double total = Adaptive(g_left, 0.0, std::pow(left, a), kTol);

  // Right end [cuts.back(), 1]: 1-p = v^(1/b).
  const double right = cuts.back();
  auto g_right = [&](double v) {
    const double pc = v > 0 ? std::exp(std::log(v) / b) : 0.0;
    return f(1 - pc, pc) * std::exp((a - 1) * std::log1p(-pc) - std::log(b) - lb);
  };
  total += Adaptive(g_right, 0.0, std::pow(1 - right, b), kTol);

  // Interior pieces: the density itself, bounded there.
  auto g_mid = [&](double p) {
    return f(p, 1 - p) * std::exp((a - 1) * std::log(p) + (b - 1) * std::log1p(-p) - lb);
  };
  for (size_t i = 0; i + 1 < cuts.size(); ++i) total += Adaptive(g_mid, cuts[i], cuts[i + 1], kTol);
  return total;
}

double Integrate(const std::function<double(double)>& g, double lo, double hi, double tol) {
  return Adaptive(g, lo, hi, tol);
}

double BinomialCounts::tasks() const {
  double t = 0;
  for (double c : tasks_with_k) t += c;
  return t;
}

double BetaBinomialLogLikelihood(const BinomialCounts& c, double a, double b) {
  const double lb = LogBeta(a, b);
  double ll = 0;
  for (int k = 0; k <= c.n; ++k) {
    if (c.tasks_with_k[k] == 0) continue;
    ll += c.tasks_with_k[k] * (LogBeta(k + a, c.n - k + b) - lb);
  }
  return ll;
}

void BetaBinomialMoments(const BinomialCounts& c, double* a, double* b) {
  const double tasks = c.tasks();
  const int n = c.n;
  double sum = 0;
  for (int k = 0; k <= n; ++k) sum += c.tasks_with_k[k] * k;
  const double mean_k = sum / tasks;
  double var_k = 0;
  for (int k = 0; k <= n; ++k) var_k += c.tasks_with_k[k] * (k - mean_k) * (k - mean_k);
  var_k /= tasks;
  const double m = std::clamp(mean_k / n, 1e-3, 1 - 1e-3);
  // Var(k) = n m (1-m) [1 + (n-1) rho], rho = 1 / (a + b + 1): the intra-task correlation.
  double concentration = 2;  // n = 1 carries no information on the spread: the default Beta's
  if (n > 1) {
    const double rho = (var_k / (n * m * (1 - m)) - 1) / (n - 1);
    concentration = rho > 0 ? 1 / rho - 1 : 1e5;
    concentration = std::clamp(concentration, 1e-2, 1e5);
  }
  *a = m * concentration;
  *b = (1 - m) * concentration;
}

BetaBinomialFit FitBetaBinomial(const BinomialCounts& c) {
  const double lo = std::log(kFitMinShape), hi = std::log(kFitMaxShape);
  // Negative log-likelihood over (ln a, ln b); outside the bounds it is evaluated on the
  // bound plus a quadratic penalty, so the simplex is pushed back without infinities.
  auto objective = [&](const std::array<double, 2>& x) {
    double penalty = 0;
    std::array<double, 2> y = x;
    for (double& v : y) {
      const double cl = std::clamp(v, lo, hi);
      penalty += 1e3 * (v - cl) * (v - cl);
      v = cl;
    }
    return -BetaBinomialLogLikelihood(c, std::exp(y[0]), std::exp(y[1])) + penalty;
  };

  double a0 = 1, b0 = 1;
  BetaBinomialMoments(c, &a0, &b0);
  std::array<std::array<double, 2>, 3> simplex = {
      {{std::log(a0), std::log(b0)}, {std::log(a0) + 0.5, std::log(b0)}, {std::log(a0), std::log(b0) + 0.5}}};
  std::array<double, 3> fv{};
  for (int i = 0; i < 3; ++i) fv[i] = objective(simplex[i]);

  BetaBinomialFit fit;
  for (fit.iterations = 0; fit.iterations < 5000; ++fit.iterations) {
    // Order best .. worst.
    std::array<int, 3> idx = {0, 1, 2};
    std::sort(idx.begin(), idx.end(), [&](int i, int j) { return fv[i] < fv[j]; });
    auto s = simplex;
    auto f = fv;
    for (int i = 0; i < 3; ++i) {
      simplex[i] = s[idx[i]];
      fv[i] = f[idx[i]];
    }
    double size = 0;
    for (int i = 1; i < 3; ++i)
      size = std::max(size, std::hypot(simplex[i][0] - simplex[0][0], simplex[i][1] - simplex[0][1]));
    if (size < 1e-9 && fv[2] - fv[0] <= 1e-11 * (1 + std::fabs(fv[0]))) {
      fit.converged = true;
      break;
    }
    const std::array<double, 2> centroid = {0.5 * (simplex[0][0] + simplex[1][0]),
                                            0.5 * (simplex[0][1] + simplex[1][1])};
    auto along = [&](double t) {
      return std::array<double, 2>{centroid[0] + t * (simplex[2][0] - centroid[0]),
                                   centroid[1] + t * (simplex[2][1] - centroid[1])};
    };
    const auto xr = along(-1.0);
    const double fr = objective(xr);
    if (fr < fv[0]) {
      const auto xe = along(-2.0);
      const double fe = objective(xe);
      if (fe < fr) {
        simplex[2] = xe, fv[2] = fe;
      } else {
        simplex[2] = xr, fv[2] = fr;
      }
    } else if (fr < fv[1]) {
      simplex[2] = xr, fv[2] = fr;
    } else {
      const auto xc = fr < fv[2] ? along(-0.5) : along(0.5);
      const double fc = objective(xc);
      if (fc < std::min(fr, fv[2])) {
        simplex[2] = xc, fv[2] = fc;
      } else {  // shrink towards the best vertex
        for (int i = 1; i < 3; ++i) {
          simplex[i] = {0.5 * (simplex[i][0] + simplex[0][0]), 0.5 * (simplex[i][1] + simplex[0][1])};
          fv[i] = objective(simplex[i]);
        }
      }
    }
  }
  int best = static_cast<int>(std::min_element(fv.begin(), fv.end()) - fv.begin());
  const double la = std::clamp(simplex[best][0], lo, hi), lb = std::clamp(simplex[best][1], lo, hi);
  fit.a = std::exp(la);
  fit.b = std::exp(lb);
  fit.log_likelihood = BetaBinomialLogLikelihood(c, fit.a, fit.b);
  constexpr double kNearBound = 1e-3;
  fit.at_bound = la - lo < kNearBound || hi - la < kNearBound || lb - lo < kNearBound || hi - lb < kNearBound;
  return fit;
}

}  // namespace rlcost::signal_internal
