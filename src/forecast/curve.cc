// Fitting the two learning curves by least squares (docs/model.md,
// "Forecasting steps from a run's own curve"). Each curve is linear in two of
// its parameters once the others are fixed (variable projection): the sigmoid
// R = R0 (1 - s) + A s with s = 1 / (1 + (C_mid / C)^B), the power law
// R = A - D z with z = C^-alpha. The linear pair is solved exactly (within the
// metric's range), the rest searched: a grid, then Nelder-Mead (sigmoid, over
// ln C_mid and ln B) or golden section (power law, over ln alpha).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "core/numbers.h"
#include "forecast/forecast.h"

namespace rlcost::forecast {
namespace {


struct Lin {
  double p = 0, q = 0, sse = kInf;
};

// min sum (y - p u - q v)^2 with p, q in [lo, hi] (each optionally unbounded).
Lin SolveBounded2(const std::vector<double>& u, const std::vector<double>& v, const std::vector<double>& y,
                  double plo, double phi, double qlo, double qhi) {
  double uu = 0, uv = 0, vv = 0, uy = 0, vy = 0, yy = 0;
  for (size_t i = 0; i < y.size(); ++i) {
    uu += u[i] * u[i];
    uv += u[i] * v[i];
    vv += v[i] * v[i];
    uy += u[i] * y[i];
    vy += v[i] * y[i];
    yy += y[i] * y[i];
  }
  auto sse = [&](double p, double q) { return yy - 2 * p * uy - 2 * q * vy + p * p * uu + 2 * p * q * uv + q * q * vv; };
  auto feasible = [&](double p, double q) { return p >= plo - 1e-12 && p <= phi + 1e-12 && q >= qlo - 1e-12 && q <= qhi + 1e-12; };
  Lin best;
  auto consider = [&](double p, double q) {
    if (!std::isfinite(p) || !std::isfinite(q) || !feasible(p, q)) return;
    double e = std::max(0.0, sse(p, q));
    if (e < best.sse) best = Lin{p, q, e};
  };
  const double det = uu * vv - uv * uv;
  if (std::abs(det) > 1e-14 * std::max(1.0, uu * vv)) consider((uy * vv - vy * uv) / det, (vy * uu - uy * uv) / det);
  // On an edge: one fixed at a bound, the other solved and clamped.
  for (double p : {plo, phi}) {
    if (!std::isfinite(p) || vv <= 0) continue;
    consider(p, std::clamp((vy - p * uv) / vv, qlo, qhi));
  }
  for (double q : {qlo, qhi}) {
    if (!std::isfinite(q) || uu <= 0) continue;
    consider(std::clamp((uy - q * uv) / uu, plo, phi), q);
  }
  return best;
}

struct SigmoidEval {
  const std::vector<double>* lnc;
  const std::vector<double>* y;
  Bounds b;
  mutable std::vector<double> u, v;
  Lin operator()(double ln_cmid, double ln_b) const {
    const double B = std::exp(ln_b);
    u.resize(y->size());
    v.resize(y->size());
    for (size_t i = 0; i < y->size(); ++i) {
      // s = 1 / (1 + exp(B (ln C_mid - ln C)))
      const double z = std::clamp(B * (ln_cmid - (*lnc)[i]), -700.0, 700.0);
      v[i] = 1.0 / (1.0 + std::exp(z));
      u[i] = 1.0 - v[i];
    }
    return SolveBounded2(u, v, *y, b.lo, b.hi, b.lo, b.hi);
  }
};

struct PowerEval {
  const std::vector<double>* lnc;
  const std::vector<double>* y;
  Bounds b;
  mutable std::vector<double> one, z;
  Lin operator()(double ln_alpha) const {
    const double alpha = std::exp(ln_alpha);
    one.assign(y->size(), 1.0);
    z.resize(y->size());
    for (size_t i = 0; i < y->size(); ++i) z[i] = -std::exp(-alpha * (*lnc)[i]);  // R = A + D (-C^-alpha)
    return SolveBounded2(one, z, *y, b.lo, b.hi, -kInf, kInf);
  }
};

}  // namespace

const char* CurveName(CurveKind k) { return k == CurveKind::kSigmoid ? "sigmoid" : "power_law"; }

double Curve::Value(double c) const {
  if (kind == CurveKind::kSigmoid) {
    if (c <= 0) return r0;
    return r0 + (a - r0) / (1.0 + std::pow(c_mid / c, b));
  }
  return a - d * std::pow(c, -alpha);
}

double Curve::ComputeAt(double target) const {
  if (kind == CurveKind::kSigmoid) {
    // s = (T - R0) / (A - R0) in (0, 1): C = C_mid (s / (1 - s))^(1/B)
    if (a == r0) return target <= r0 ? 0 : kInf;
    const double s = (target - r0) / (a - r0);
    if (s <= 0) return 0;
    if (s >= 1) return kInf;
    return c_mid * std::pow(s / (1 - s), 1.0 / b);
  }
  // A - D C^-alpha = T: C = (D / (A - T))^(1/alpha), rising only when D > 0
  if (target >= a) return kInf;
  if (d <= 0) return 0;
  return std::pow(d / (a - target), 1.0 / alpha);
}

std::optional<Curve> FitCurve(CurveKind kind, const std::vector<double>& c, const std::vector<double>& y,
                              const Bounds& bounds) {
  const size_t n = y.size();
  if (n != c.size() || n < (kind == CurveKind::kSigmoid ? 5u : 4u)) return std::nullopt;
  std::vector<double> lnc(n);
  for (size_t i = 0; i < n; ++i) {
    if (!(c[i] > 0) || !std::isfinite(y[i])) return std::nullopt;
    lnc[i] = std::log(c[i]);
  }
  const double lo = *std::min_element(lnc.begin(), lnc.end());
  const double hi = *std::max_element(lnc.begin(), lnc.end());
  if (hi - lo < 1e-9) return std::nullopt;
  Curve out;
  out.kind = kind;
  if (kind == CurveKind::kSigmoid) {
    SigmoidEval f{&lnc, &y, bounds, {}, {}};
    // C_mid from e^-2 below the first point to 50x past the last; B from 0.2 to 8.
    const double m_lo = lo - 2.0, m_hi = hi + std::log(50.0);
    const double b_lo = std::log(0.2), b_hi = std::log(8.0);
    auto obj = [&](const std::array<double, 2>& x) {
      const double m = std::clamp(x[0], m_lo, m_hi), bb = std::clamp(x[1], b_lo, b_hi);
      return f(m, bb).sse;
    };
    std::array<double, 2> best{m_lo, b_lo};
    double best_e = kInf;
    constexpr int kGm = 24, kGb = 12;
    for (int i = 0; i < kGm; ++i) {
      for (int j = 0; j < kGb; ++j) {
        std::array<double, 2> x{m_lo + (m_hi - m_lo) * i / (kGm - 1), b_lo + (b_hi - b_lo) * j / (kGb - 1)};
        double e = obj(x);
        if (e < best_e) best_e = e, best = x;
      }
    }
    // Nelder-Mead from the best grid point (a simplex one grid cell wide).
    std::array<std::array<double, 2>, 3> s{best, best, best};
    s[1][0] += (m_hi - m_lo) / (kGm - 1);
    s[2][1] += (b_hi - b_lo) / (kGb - 1);
    std::array<double, 3> e{obj(s[0]), obj(s[1]), obj(s[2])};
    for (int it = 0; it < 200; ++it) {
      std::array<int, 3> idx{0, 1, 2};
      std::sort(idx.begin(), idx.end(), [&](int a, int b) { return e[a] < e[b]; });
      const auto b0 = s[idx[0]], b1 = s[idx[1]], w = s[idx[2]];
      const double eb = e[idx[0]], e1 = e[idx[1]], ew = e[idx[2]];
      if (std::abs(ew - eb) <= 1e-13 * (1 + std::abs(eb))) break;
      const std::array<double, 2> cen{(b0[0] + b1[0]) / 2, (b0[1] + b1[1]) / 2};
      auto at = [&](double t) { return std::array<double, 2>{cen[0] + t * (w[0] - cen[0]), cen[1] + t * (w[1] - cen[1])}; };
      const auto xr = at(-1);
      const double er = obj(xr);
      if (er < eb) {
        const auto xe = at(-2);
        const double ee = obj(xe);
        if (ee < er) s[idx[2]] = xe, e[idx[2]] = ee;
        else s[idx[2]] = xr, e[idx[2]] = er;
      } else if (er < e1) {
        s[idx[2]] = xr, e[idx[2]] = er;
      } else {
        const auto xc = at(er < ew ? -0.5 : 0.5);
        const double ec = obj(xc);
        if (ec < std::min(er, ew)) {
          s[idx[2]] = xc, e[idx[2]] = ec;
        } else {
          for (int k : {idx[1], idx[2]}) {
            s[k] = {(s[k][0] + b0[0]) / 2, (s[k][1] + b0[1]) / 2};
            e[k] = obj(s[k]);
          }
        }
      }
    }
    int k = int(std::min_element(e.begin(), e.end()) - e.begin());
    const double m = std::clamp(s[k][0], m_lo, m_hi), bb = std::clamp(s[k][1], b_lo, b_hi);
    Lin l = f(m, bb);
    if (!std::isfinite(l.sse)) return std::nullopt;
    out.r0 = l.p;
    out.a = l.q;
    out.c_mid = std::exp(m);
    out.b = std::exp(bb);
    return out;
  }
  PowerEval f{&lnc, &y, bounds, {}, {}};
  const double a_lo = std::log(0.02), a_hi = std::log(4.0);
  constexpr int kG = 60;
  double best_x = a_lo, best_e = kInf;
  for (int i = 0; i < kG; ++i) {
    const double x = a_lo + (a_hi - a_lo) * i / (kG - 1);
    const double e = f(x).sse;
    if (e < best_e) best_e = e, best_x = x;
  }
  // Golden section within one grid cell either side.
  const double h = (a_hi - a_lo) / (kG - 1);
  double l = std::max(a_lo, best_x - h), r = std::min(a_hi, best_x + h);
  const double g = (std::sqrt(5.0) - 1) / 2;
  double x1 = r - g * (r - l), x2 = l + g * (r - l);
  double f1 = f(x1).sse, f2 = f(x2).sse;
  for (int it = 0; it < 60; ++it) {
    if (f1 < f2) r = x2, x2 = x1, f2 = f1, x1 = r - g * (r - l), f1 = f(x1).sse;
    else l = x1, x1 = x2, f1 = f2, x2 = l + g * (r - l), f2 = f(x2).sse;
  }
  const double x = f1 < f2 ? x1 : x2;
  Lin lin = f(x);
  if (!std::isfinite(lin.sse)) return std::nullopt;
  out.a = lin.p;
  out.d = lin.q;
  out.alpha = std::exp(x);
  return out;
}

}  // namespace rlcost::forecast
