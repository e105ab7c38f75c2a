// `rlcost forecast`: a run's own learning curve, read from its log, fitted and
// extrapolated to a target (docs/model.md, "Forecasting steps from a run's
// own curve").
//
//   auto series = rlcost::forecast::ReadProgressFile("run.log", {.metric = "val_acc"});
//   auto f = rlcost::forecast::Forecast(*series, {.target = 0.55});
//   f->steps_to_target, f->interval_low, f->interval_high, f->model
//
// Compute is counted in training steps done, C = step - first_step + 1: each
// step trains on the same batch, so steps are samples up to the batch size
// (and GPU-hours up to the step's cost, priced separately). Two curves are fitted:
//  - "sigmoid": R(C) = R0 + (A - R0) / (1 + (C_mid / C)^B) (ScaleRL, arXiv
//    2510.13786, eq. 1), R0 fitted;
//  - "power_law": R(C) = A - D C^-alpha, the power law of the error 1 - R in
//    compute of arXiv 2509.25300 with the ceiling A fitted instead of fixed at 1.
// The one with the lower error on the last quarter of the given points (fitted
// on the first three quarters) is kept and refitted on all of them. Its
// interval comes from a moving-block bootstrap of the residuals (the points of
// a run are correlated step to step), refitting the kept curve each time.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "rlcost/error.h"

namespace rlcost::forecast {

struct ProgressPoint {
  int step = 0;
  double value = 0;
  int line = 0;  // line in the file (0 when not known)
};

// Where a log's step column goes back (a run resumed from a checkpoint).
struct Resume {
  int line = 0;         // the first line of the resumed part (0 when not known)
  int from_step = 0;    // the last step logged before it
  int to_step = 0;      // the step it resumes at (the later lines are kept)
};

struct ProgressSeries {
  std::string path;
  std::string format;   // the log's format ("csv", "verl-console", "jsonl", ...)
  std::string metric;   // the column / key read
  bool metric_chosen = false;  // true: picked from the known names (no --metric)
  int first_step = 0;          // the log's first step (C = step - first_step + 1)
  int last_step = 0;           // the log's last step with any record
  std::vector<ProgressPoint> points;  // by step, one per step
  std::vector<std::string> columns;   // every numeric key seen (for messages)
  std::vector<Resume> resumes;        // where the step column goes back (steps re-done)
  // Step cost read off the log, per logged step (NaN where not logged).
  std::vector<int> cost_steps;
  std::vector<double> step_s;          // wall seconds of the step
  std::vector<double> step_gpu_hours;  // GPU-hours of the step (cum_gpu_hours differences or step_s x GPUs)
};

struct ReadOptions {
  std::string metric;  // empty: the first known reward / accuracy key present
  int gpus = 0;        // GPUs of the run (0 = not given): GPU-hours from step times
};

// Reads a CSV with a header (lines starting with '#' are comments; the step in
// a column named "step") or any training log `calibrate` reads.
Result<ProgressSeries> ReadProgressText(const std::string& text, const std::string& origin, const ReadOptions& o);
Result<ProgressSeries> ReadProgressFile(const std::string& path, const ReadOptions& o);

// --- curves -----------------------------------------------------------------

enum class CurveKind { kSigmoid, kPowerLaw };
const char* CurveName(CurveKind k);

struct Curve {
  CurveKind kind = CurveKind::kSigmoid;
  // sigmoid: r0, a, b, c_mid; power law: a, d, alpha
  double r0 = 0, a = 0, b = 0, c_mid = 0, d = 0, alpha = 0;
  double Value(double c) const;
  // The compute C at which the curve reaches `target`: +inf when it never
  // does (the ceiling A is at or below it), 0 when it starts at or above it.
  double ComputeAt(double target) const;
  double Asymptote() const { return a; }
};

struct Bounds {
  double lo = -1e300, hi = 1e300;  // the metric's range (0..1 for a rate)
};

// Least squares; nullopt when the points do not determine the curve.
std::optional<Curve> FitCurve(CurveKind kind, const std::vector<double>& c, const std::vector<double>& y,
                              const Bounds& bounds);

// --- the forecast -----------------------------------------------------------

struct Options {
  double target = 0;
  std::optional<int> fit_until;  // use only the points at steps <= this
  int replicates = 400;          // bootstrap refits
  uint64_t seed = 1;
  // The bootstrap quantiles' nominal two-sided level. 0.9 (5% to 95%) held the
  // true step for 86% / 98% of the back-test's targets (docs/forecast-validation.md).
  double level = 0.9;
  std::optional<CurveKind> only; // fit this curve only (no choice)
  // A target is reached where the metric averaged over +-this many logged
  // points is at it. -1 (default): the point forecast reads the log as logged
  // (0) and the interval spans that and the +-SmoothingHalfWindow reading.
  int half_window = -1;
  bool smoothed_truth = false;   // back-test: the true step by the +-SmoothingHalfWindow reading (with half_window -1)
};

struct ModelChoice {
  CurveKind kind;
  double heldout_rmse = 0;  // on the last quarter, fitted on the first three
  bool fitted = false;
  int min_points = 0;       // the points it needs (its parameters + 2); fewer: not fitted
};
// The parameters of a curve (sigmoid 4: R0, A, B, C_mid; power law 3: A, D, alpha).
int CurveParams(CurveKind k);

struct Outcome {
  bool ok = false;           // false: steps_to_target is n/a, `reason` says why
  std::string reason;
  double target = 0;
  int points_used = 0;
  int fit_until_step = 0;    // the last step fitted
  // The logged points up to fit_until_step already reach the target: a
  // second logged value at or above it (one alone may be noise; the answer is
  // the first), or the +-h average of the logged points (h: --smooth, else
  // 2.5% of the points; with --smooth or a smoothed back-test only this):
  // steps_to_target is that logged step.
  bool already_reached = false;
  double reached_value = NAN;    // the logged value (or +-h average) there
  int reached_window = 0;        // 0: two logged values at or above the target, the first of them; h: a +-h average
  bool beyond_reach = false;     // not reached, and the target is at or above the fitted curve's ceiling
  bool fitted = false;           // a curve was fitted (curve, rmse, bootstrap hold)
  bool binned = false;           // more than 1,000 points: fitted as 1,000 bins of consecutive points
  Curve curve;                   // the kept curve, fitted on all the points used
  double rmse = 0;               // its residual error on them
  std::vector<ModelChoice> candidates;
  double steps_to_target = 0;    // median step (log numbering) at which the bootstrap runs reach the target
  double curve_steps_to_target = 0;  // where the kept curve itself crosses it (+inf: never, within the horizon)
  int half_window = 0;           // +-points averaged for the point forecast
  int half_window_wide = 0;      // +-points of the other reading the interval spans
  // Bootstrap quantiles; high is +inf when more than (1 - level)/2 of the refits never reach it.
  double interval_low = NAN, interval_high = NAN;
  double asymptote_low = NAN, asymptote_high = NAN;
  double p_beyond_reach = 0;     // share of refits whose ceiling is at or below the target
  int replicates = 0;
  int curves_pooled = 0;   // curves whose bootstrap refits are pooled
  int points_skipped = 0;  // the run's start, left out of the fit
  int block_length = 0;
  double level = 0.9;
  // The bootstrap refits' curves, each on the same compute axis as `curve`
  // (forecast/plot.h draws their pointwise quantiles as the band).
  std::vector<Curve> replicate_curves;
};

// Not a `rlcost::Result`: a forecast that says n/a is an answer, not an error.
// Errors (no such metric, bad target) come back as Error.
Result<Outcome> Forecast(const ProgressSeries& s, const Options& o);

// The metric's range: [0, 1] when every value is (a rate, an accuracy).
Bounds BoundsOf(const ProgressSeries& s);

// --- the back-test ----------------------------------------------------------

struct BacktestCase {
  std::string curve;   // file name
  double fraction = 0; // share of the run fitted
  int fit_until = 0;
  double target = 0;
  int true_step = 0;   // first step the metric reaches the target
  bool ok = false;     // a number was forecast
  std::string reason;
  double forecast = 0, low = NAN, high = NAN, p_beyond = 0;
  std::string model;
  double rel_error() const;  // (forecast - true) / true
  bool within(double tol) const;
  bool covered() const;
};

// For each fraction f, fits the points up to f of the run's steps and forecasts
// each target in `targets` that the run first reaches after that step
// (targets: `per_case` evenly spaced levels between the fitted points' level and
// the run's best, unless given).
std::vector<BacktestCase> Backtest(const ProgressSeries& s, const std::vector<double>& fractions, int per_case,
                                   const Options& base);
// The first step at which the metric, averaged over the points within
// `half_window` either side, is at or above target (-1: never).
int FirstReached(const ProgressSeries& s, double target, int half_window = 0);
// The back-test's half window: 2.5% of the run's points, at least 1.
int SmoothingHalfWindow(const ProgressSeries& s);

}  // namespace rlcost::forecast

// --- what the steps cost ----------------------------------------------------

namespace rlcost::forecast {

// What a step costs: from the log's own step times (source "log"), or from a
// scenario's estimate (source "scenario"). NaN where not known.
struct StepCost {
  std::string source;            // "log" | "scenario" | "" (none)
  std::string note;              // where the figures come from, in words
  double step_s = 0;             // wall seconds per step (ahead)
  double gpu_hours_per_step = 0;
  double usd_per_gpu_hour = 0;   // NaN: no price
  double usd_per_step = 0;       // NaN: no price
  // Spent up to the last fitted step (log only; NaN otherwise).
  double spent_wall_h = 0, spent_gpu_hours = 0;
};

// The log's step cost over the points fitted (mean of the last 20 logged steps
// ahead; the logged totals behind). `usd_per_gpu_hour` NaN: no dollars.
StepCost CostFromLog(const ProgressSeries& s, int fit_until_step, double usd_per_gpu_hour);

struct Totals {
  double steps = 0, remaining_steps = 0;
  double wall_h = 0, gpu_hours = 0, usd = 0;  // NaN where not known
};
// From the run's start to `step` (log numbering), priced with `cost`.
Totals PriceTo(const ProgressSeries& s, const Outcome& r, const StepCost& cost, double step);

}  // namespace rlcost::forecast
