// The forecast: which curve, where it reaches the target, and how sure
// (docs/model.md, "Forecasting steps from a run's own curve").
#include "core/cancel.h"
#include "core/numbers.h"
#include "forecast/forecast.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <fmt/format.h>

namespace rlcost::forecast {
namespace {

// A crossing more than this many times the steps fitted counts as out of
// reach: a curve extrapolated that far says nothing (docs/model.md).
constexpr double kHorizon = 20.0;
// A trend needs |t| >= 2 (the slope of the metric against ln C two standard
// errors from zero) before a curve is extrapolated from it.
constexpr double kTrendT = 2.0;
// A curve of p parameters is fitted only to n >= p + 2 points, which leaves
// its residuals two degrees of freedom (an error estimate needs one, its
// spread a second): 5 for the power law (3), 6 for the sigmoid (4).
constexpr int kSpareDof = 2;
constexpr int kMinPoints = 3 + kSpareDof;
constexpr int kMaxPoints = 1000;
constexpr double kSkipShare = 0.1;

double Rmse(const Curve& c, const std::vector<double>& x, const std::vector<double>& y, size_t from, size_t to) {
  double s = 0;
  for (size_t i = from; i < to; ++i) s += (y[i] - c.Value(x[i])) * (y[i] - c.Value(x[i]));
  return to > from ? std::sqrt(s / double(to - from)) : 0;
}

// Slope of y against ln x and its t statistic.
std::pair<double, double> Trend(const std::vector<double>& x, const std::vector<double>& y) {
  const size_t n = y.size();
  double mx = 0, my = 0;
  for (size_t i = 0; i < n; ++i) mx += std::log(x[i]), my += y[i];
  mx /= n;
  my /= n;
  double sxx = 0, sxy = 0;
  for (size_t i = 0; i < n; ++i) {
    const double dx = std::log(x[i]) - mx;
    sxx += dx * dx;
    sxy += dx * (y[i] - my);
  }
  if (sxx <= 0) return {0, 0};
  const double slope = sxy / sxx;
  double sse = 0;
  for (size_t i = 0; i < n; ++i) {
    const double r = y[i] - my - slope * (std::log(x[i]) - mx);
    sse += r * r;
  }
  if (n <= 2) return {slope, 0};
  const double se = std::sqrt(sse / double(n - 2) / sxx);
  if (!(se > 0)) return {slope, slope > 0 ? kInf : slope < 0 ? -kInf : 0};
  return {slope, slope / se};
}

double Quantile(std::vector<double> v, double q) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const double pos = q * double(v.size() - 1);
  const size_t i = size_t(std::floor(pos));
  if (i + 1 >= v.size()) return v.back();
  if (!std::isfinite(v[i + 1])) return std::isfinite(v[i]) && pos == double(i) ? v[i] : kInf;
  return v[i] + (pos - double(i)) * (v[i + 1] - v[i]);
}

}  // namespace

Result<Outcome> Forecast(const ProgressSeries& s, const Options& o) {
  if (!std::isfinite(o.target)) return Fail(ErrorCode::kInvalidInput, "target", "expected a finite number");
  if (!(o.level > 0 && o.level < 1)) {
    return Fail(ErrorCode::kInvalidInput, "level", fmt::format("{} is not a probability between 0 and 1", o.level));
  }
  if (o.replicates < 0) {
    return Fail(ErrorCode::kInvalidInput, "replicates", fmt::format("{} is negative", o.replicates));
  }
  Outcome r;
  r.target = o.target;
  r.level = o.level;
  std::vector<double> x, y;
  for (const auto& p : s.points) {
    if (o.fit_until && p.step > *o.fit_until) break;
    x.push_back(double(p.step - s.first_step + 1));
    y.push_back(p.value);
    r.fit_until_step = p.step;
  }
  // Reached already, on the logged points up to fit_until (the run's start
  // included), not the bins below: a window sized in logged points applies to
  // logged points. (a) The +-h average (only windows that lie within the
  // points fitted; h: --smooth, else 2.5% of the points); (b) by default
  // also a second logged value at or above the target, the answer being the
  // first of them: one value alone may be the noise, two are the run there
  // (val_acc 0.531 logged at steps 99 and 119: reached at step 99).
  const int h_raw = o.half_window < 0 ? SmoothingHalfWindow(s) : o.half_window;
  const int h_point = o.half_window < 0 ? 0 : o.half_window;
  r.half_window = h_point;
  r.half_window_wide = h_raw;
  {
    const size_t m = x.size();
    const size_t hw = size_t(h_raw);
    double sum = 0;
    size_t k = 0;
    for (size_t i = 0; i < m && i + hw < m; ++i) {
      // window [i - h, i + h]: add the right edge, drop the one past the left
      if (i == 0) {
        for (size_t j = 0; j <= hw; ++j) sum += y[j], ++k;
      } else {
        sum += y[i + hw], ++k;
        if (i > hw) sum -= y[i - hw - 1], --k;
      }
      if (sum / double(k) >= o.target) {
        r.already_reached = true;
        r.steps_to_target = double(s.points[i].step);  // x[i] is this point's C
        r.reached_value = sum / double(k);
        r.reached_window = h_raw;
        break;
      }
    }
    if (o.half_window < 0 && !o.smoothed_truth) {
      size_t first = m;
      for (size_t i = 0; i < m; ++i) {
        if (y[i] < o.target) continue;
        if (first == m) {
          first = i;
          continue;
        }
        // a second value at or above the target: reached at the first
        if (!r.already_reached || double(s.points[first].step) < r.steps_to_target) {
          r.already_reached = true;
          r.steps_to_target = double(s.points[first].step);
          r.reached_value = y[first];
          r.reached_window = 0;
        }
        break;
      }
    }
  }
  auto reached = [&r]() {
    r.ok = true;
    r.reason.clear();
    r.interval_low = r.interval_high = r.steps_to_target;
    return r;
  };
  // The start of the run is left out of the fit, as ScaleRL fits only past
  // its low-compute start (arXiv 2510.13786, sec. 2): the first 10% of the
  // steps fitted (at least the first step), where a run often waits at its
  // starting level before it rises.
  if (!x.empty()) {
    const double skip = std::max(1.0, std::floor(kSkipShare * x.back()));
    size_t k = 0;
    while (k < x.size() && x[k] <= skip && x.size() - k > size_t(kMinPoints)) ++k;
    r.points_skipped = int(k);
    x.erase(x.begin(), x.begin() + long(k));
    y.erase(y.begin(), y.begin() + long(k));
  }
  // A long log is averaged into kMaxPoints bins of consecutive points first:
  // the fit and its 400 refits stay under a few seconds.
  double bin_width = 1;  // logged points a fitted point averages
  if (y.size() > size_t(kMaxPoints)) {
    std::vector<double> bx, by;
    const size_t n0 = y.size();
    bin_width = double(n0) / double(kMaxPoints);
    for (size_t b = 0; b < size_t(kMaxPoints); ++b) {
      const size_t lo = b * n0 / kMaxPoints, hi = (b + 1) * n0 / kMaxPoints;
      double sx = 0, sy = 0;
      for (size_t i = lo; i < hi; ++i) sx += x[i], sy += y[i];
      bx.push_back(sx / double(hi - lo));
      by.push_back(sy / double(hi - lo));
    }
    x.swap(bx);
    y.swap(by);
    r.binned = true;
  }
  r.points_used = int(y.size());
  const std::string metric = "\"" + s.metric + "\"";
  const std::string upto = o.fit_until ? fmt::format(" up to step {}", *o.fit_until) : "";
  if (y.empty()) {
    r.reason = fmt::format("the log has no value of {}{}: nothing to fit", metric, upto);
    return r.already_reached ? reached() : r;
  }
  if (int(y.size()) < kMinPoints) {
    r.reason = fmt::format("only {} point{} of {}{}; a learning curve needs at least {}", y.size(),
                           y.size() == 1 ? "" : "s", metric, upto, kMinPoints);
    return r.already_reached ? reached() : r;
  }
  const Bounds bounds = BoundsOf(s);
  auto [slope, t] = Trend(x, y);
  if (t <= -kTrendT) {
    r.reason = fmt::format("{} falls over the steps fitted (slope {:.3g} per e-fold of steps, t = {:.1f}): a "
                           "forecast needs a metric that rises toward the target (a reward or an accuracy)",
                           metric, slope, t);
    r.already_reached = false;
    return r;
  }
  if (t < kTrendT) {
    r.reason = fmt::format("{} is flat over the steps fitted (slope {:.3g} per e-fold of steps, t = {:.1f}, "
                           "not 2 standard errors from 0): no rise to extrapolate",
                           metric, slope, t);
    r.already_reached = false;
    return r;
  }

  // Which curve: each fitted on the first three quarters, scored on the last.
  const size_t n = y.size();
  const size_t n_fit = std::max<size_t>(5, (n * 3 + 3) / 4);
  std::vector<CurveKind> kinds = o.only ? std::vector<CurveKind>{*o.only}
                                        : std::vector<CurveKind>{CurveKind::kSigmoid, CurveKind::kPowerLaw};
  double best = kInf;
  std::optional<CurveKind> chosen;
  for (CurveKind k : kinds) {
    ModelChoice mc{k, kInf, false, CurveParams(k) + kSpareDof};
    if (n < size_t(CurveParams(k) + kSpareDof)) {
      r.candidates.push_back(mc);  // too few points for this curve
      continue;
    }
    if (n_fit < n && n_fit >= size_t(CurveParams(k) + kSpareDof)) {
      std::vector<double> xf(x.begin(), x.begin() + long(n_fit)), yf(y.begin(), y.begin() + long(n_fit));
      if (auto c = FitCurve(k, xf, yf, bounds)) {
        mc.fitted = true;
        mc.heldout_rmse = Rmse(*c, x, y, n_fit, n);
      }
    } else if (FitCurve(k, x, y, bounds)) {
      mc.fitted = true;  // too few points to hold any back: the fit on all of them decides
      mc.heldout_rmse = std::numeric_limits<double>::quiet_NaN();
    }
    r.candidates.push_back(mc);
    if (mc.fitted && (!chosen || mc.heldout_rmse < best)) {
      best = mc.heldout_rmse;
      chosen = k;
    }
  }
  if (!chosen) {
    r.reason = fmt::format("no learning curve fits the {} points of {}", n, metric);
    return r.already_reached ? reached() : r;
  }
  auto curve = FitCurve(*chosen, x, y, bounds);
  if (!curve) {
    r.reason = fmt::format("no learning curve fits the {} points of {}", n, metric);
    return r.already_reached ? reached() : r;
  }
  r.curve = *curve;
  r.fitted = true;
  r.rmse = Rmse(*curve, x, y, 0, n);
  const double c_last = x.back();
  const double horizon = kHorizon * c_last;
  auto to_step = [&](double c) { return std::ceil(c - 1e-9) + s.first_step - 1; };

  // Two readings of "reached" in a noisy log: the first logged value at the
  // target (h = 0), and the first step whose +-h average is (h: --smooth, by
  // default 2.5% of the points). By default the forecast reads the log as
  // logged and its interval spans both readings; with --smooth both are that h.
  // h counts logged points; on a binned log the bootstrap's runs go on in
  // bins, so it is h / bin_width bins (at least 1 where h is).
  const bool both = o.half_window < 0;
  const int h = h_raw == 0 ? 0 : std::max(1, int(std::lround(double(h_raw) / bin_width)));
  const int hp = both ? 0 : h;
  r.curve_steps_to_target = curve->ComputeAt(o.target) <= horizon ? to_step(std::max(1.0, curve->ComputeAt(o.target)))
                                                                   : kInf;
  if (r.already_reached) {
    r.asymptote_low = r.asymptote_high = curve->Asymptote();
    return reached();
  }

  // Bootstrap: moving blocks of residuals added back to each candidate's fit
  // and refitted, the replicates of both curves pooled (the choice of curve is
  // part of the uncertainty: docs/model.md). Each refit then runs on past the
  // last point, at the log's own spacing, with the residual blocks as its
  // noise: the step at which that run's metric, averaged over +-h points as
  // the back-test reads a log, first reaches the target.
  const size_t L = std::max<size_t>(1, size_t(std::lround(std::cbrt(double(n)))));
  r.block_length = int(L);
  std::mt19937_64 rng(o.seed);
  std::uniform_int_distribution<size_t> start(0, n - L);
  std::vector<double> gaps;
  for (size_t i = 1; i < n; ++i) gaps.push_back(x[i] - x[i - 1]);
  std::nth_element(gaps.begin(), gaps.begin() + long(gaps.size() / 2), gaps.end());
  const double dc = std::max(1.0, gaps[gaps.size() / 2]);
  const long K = long(std::min(20000.0, std::ceil((horizon - c_last) / dc)));
  std::vector<double> cs, cw, as, ystar(n), path;
  int beyond = 0;
  std::vector<Curve> bases{*curve};
  for (CurveKind k : kinds) {
    if (k == *chosen || n < size_t(CurveParams(k) + kSpareDof)) continue;
    if (auto other = FitCurve(k, x, y, bounds)) bases.push_back(*other);
  }
  const int per_base = bases.empty() ? 0 : o.replicates / int(bases.size());
  for (const Curve& base : bases) {
    std::vector<double> fit(n), res(n);
    // Residuals of a least-squares fit are smaller than the noise: p
    // parameters absorb p of n degrees of freedom. Rescaled by sqrt(n / (n - p))
    // (the "modified residuals" of Davison & Hinkley 1997, sec. 6.2.3, with
    // every point at the mean leverage p / n), their variance is the noise's;
    // unscaled, a run of few points (a metric logged every 10 steps) gets an
    // interval too narrow by that factor (1.6x at 5 points, 1.04x at 40).
    const double inflate = std::sqrt(double(n) / double(n - size_t(CurveParams(base.kind))));
    for (size_t i = 0; i < n; ++i) fit[i] = base.Value(x[i]), res[i] = (y[i] - fit[i]) * inflate;
    for (int rep = 0; rep < per_base; ++rep) {
      // A forecast no longer wanted (a server request past its budget or
      // whose client left) stops between refits.
      if (CancelRequested()) return Fail(CancelledError("forecast", "the forecast"));
      for (size_t i = 0; i < n;) {
        const size_t b = start(rng);
        for (size_t j = 0; j < L && i < n; ++j, ++i) ystar[i] = fit[i] + res[b + j];
      }
      auto c = FitCurve(base.kind, x, ystar, bounds);
      if (!c) continue;
      as.push_back(c->Asymptote());
      r.replicate_curves.push_back(*c);
      // The path: the last h observed points, then the refit's run on.
      path.assign(y.end() - long(std::min<size_t>(size_t(h), n)), y.end());
      const long off = long(path.size());
      double passage = kInf, raw = kInf;
      size_t blk = 0, in_blk = L;
      auto next = [&](long k) {
        if (in_blk == L) blk = start(rng), in_blk = 0;
        return c->Value(c_last + double(k) * dc) + res[blk + in_blk++];
      };
      for (long k = 1; k <= h; ++k) path.push_back(next(k));
      double sum = 0;
      for (double v : path) sum += v;
      long count = long(path.size());
      for (long k = 1; k <= K; ++k) {
        // window of point k: path[off + k - 1 - h .. off + k - 1 + h]
        path.push_back(next(k + h));
        sum += path.back();
        ++count;
        const long lo = off + k - 1 - h;
        if (lo - 1 >= 0 && count > 2 * h + 1) sum -= path[size_t(lo - 1)], --count;
        if (!std::isfinite(raw) && path[size_t(off + k - 1)] >= o.target) raw = c_last + double(k) * dc;
        if (!std::isfinite(passage) && sum / double(count) >= o.target) passage = c_last + double(k) * dc;
        if (std::isfinite(raw) && std::isfinite(passage)) break;
      }
      const double point = hp == 0 ? raw : passage;
      if (!std::isfinite(point)) ++beyond;
      cs.push_back(point);
      cw.push_back(passage);
    }
  }
  r.replicates = int(cs.size());
  r.curves_pooled = int(bases.size());
  const double qlo = (1 - o.level) / 2, qhi = 1 - qlo;
  if (cs.empty()) {
    r.reason = "no bootstrap refit of the curve succeeded";
    return r;
  }
  r.p_beyond_reach = double(beyond) / double(cs.size());
  r.interval_low = to_step(std::min(Quantile(cs, qlo), Quantile(cw, qlo)));
  const double hi = std::max(Quantile(cs, qhi), Quantile(cw, qhi));
  r.interval_high = std::isfinite(hi) ? to_step(hi) : kInf;
  r.asymptote_low = Quantile(as, qlo);
  r.asymptote_high = Quantile(as, qhi);
  const double med = Quantile(cs, 0.5);
  // A target at or above the fitted curve's ceiling is beyond reach, whatever
  // the noisy runs of the bootstrap touch on the way: its crossing would be
  // noise, not the curve.
  if (o.target >= curve->Asymptote()) {
    r.beyond_reach = true;
    r.reason = fmt::format("the target {:.4g} is beyond reach: the fitted {} levels off at {:.4g} ({:.0f}% interval "
                           "{:.4g} .. {:.4g}); in {:.0f}% of the {} bootstrap refits the metric does not reach it "
                           "within {:.0f} times the steps fitted",
                           o.target, CurveName(*chosen), curve->Asymptote(), 100 * o.level, r.asymptote_low,
                           r.asymptote_high, 100 * r.p_beyond_reach, r.replicates, kHorizon);
    return r;
  }
  if (!std::isfinite(med)) {
    r.beyond_reach = true;
    r.reason = fmt::format("the target {:.4g} is beyond reach: in {:.0f}% of the bootstrap runs the metric does not "
                           "reach it within {:.0f} times the steps fitted (the fitted {} levels off at {:.4g})",
                           o.target, 100 * r.p_beyond_reach, kHorizon, CurveName(*chosen), curve->Asymptote());
    return r;
  }
  r.ok = true;
  r.steps_to_target = to_step(med);
  return r;
}

int CurveParams(CurveKind k) { return k == CurveKind::kSigmoid ? 4 : 3; }

int FirstReached(const ProgressSeries& s, double target, int half_window) {
  const auto& p = s.points;
  const long n = long(p.size()), h = std::max(0, half_window);
  for (long i = 0; i < n; ++i) {
    double sum = 0;
    long k = 0;
    for (long j = std::max(0L, i - h); j <= std::min(n - 1, i + h); ++j) sum += p[size_t(j)].value, ++k;
    if (sum / double(k) >= target) return p[size_t(i)].step;
  }
  return -1;
}

int SmoothingHalfWindow(const ProgressSeries& s) {
  return std::max(1, int(std::lround(0.025 * double(s.points.size()))));
}

double BacktestCase::rel_error() const { return ok ? (forecast - true_step) / double(true_step) : kInf; }
bool BacktestCase::within(double tol) const { return ok && std::abs(rel_error()) <= tol; }
bool BacktestCase::covered() const {
  return std::isfinite(low) && true_step >= low && (!std::isfinite(high) ? !std::isnan(high) : true_step <= high);
}

std::vector<BacktestCase> Backtest(const ProgressSeries& s, const std::vector<double>& fractions, int per_case,
                                   const Options& base) {
  std::vector<BacktestCase> out;
  if (s.points.size() < 2) return out;
  const int span = s.last_step - s.first_step + 1;
  for (double f : fractions) {
    const int until = s.first_step - 1 + int(std::floor(f * span));
    // Targets: evenly spaced between the best of the smoothed metric fitted
    // and the best of the whole run's, each first reached after `until`.
    const int h = base.half_window >= 0 ? base.half_window : (base.smoothed_truth ? SmoothingHalfWindow(s) : 0);
    double fitted_best = -kInf, run_best = -kInf;
    const long n = long(s.points.size());
    for (long i = 0; i < n; ++i) {
      double sum = 0;
      long k = 0;
      for (long j = std::max(0L, i - h); j <= std::min(n - 1, i + h); ++j) sum += s.points[size_t(j)].value, ++k;
      run_best = std::max(run_best, sum / double(k));
      if (s.points[size_t(i)].step <= until) fitted_best = std::max(fitted_best, sum / double(k));
    }
    if (!std::isfinite(fitted_best) || !(run_best > fitted_best)) continue;
    for (int k = 1; k <= per_case; ++k) {
      const double target = fitted_best + (run_best - fitted_best) * k / (per_case + 1);
      const int truth = FirstReached(s, target, h);
      if (truth <= until) continue;
      Options o = base;
      o.target = target;
      o.fit_until = until;
      BacktestCase c;
      c.curve = s.path.substr(s.path.find_last_of('/') + 1);
      c.fraction = f;
      c.fit_until = until;
      c.target = target;
      c.true_step = truth;
      auto r = Forecast(s, o);
      if (!r) {
        c.reason = r.error().ToString();
      } else {
        c.ok = r->ok;
        c.reason = r->reason;
        c.forecast = r->steps_to_target;
        c.low = r->interval_low;
        c.high = r->interval_high;
        c.p_beyond = r->p_beyond_reach;
        c.model = CurveName(r->curve.kind);
      }
      out.push_back(c);
    }
  }
  return out;
}

}  // namespace rlcost::forecast
