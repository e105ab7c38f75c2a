// `rlcost calibrate`: efficiency factors fitted to logged step times.
// Method (docs/model.md (validation section), "Calibration"): per phase, a bounded
// one-dimensional least-squares fit of the relative residuals
//   r_i = predicted_i(x) / logged_i - 1
// over the logged steps, each step predicted by the analytic model with that
// step's logged mean prompt and response lengths. A long log (more than
// kExactSteps steps) is predicted at a grid of lengths spanning it and
// interpolated between them, as a response-length schedule is
// (econ/run.h, ScheduledAnalyticStep); the least-squares sums then come from
// sums over the log computed once (Fitter::Grid), so a trial value costs a
// few dozen estimates however long the log is.
#include "fit/calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include "rlcost/perf.h"

namespace rlcost::calib {
namespace {

// A fraction of the roofline is searched down to 1e-3: below that a factor
// means the scenario, not the hardware, is wrong (the fit says so: bound hit).
constexpr double kMinFraction = 1e-3;
// ASSUMPTION: a fixed cost per decode iteration above 50 ms is not an engine
// overhead (vLLM's profiled CPU bubble is ~4 ms, catalog/efficiency.yaml);
// the search stops there.
constexpr double kMaxIterOverheadS = 0.05;
// Decode overhead and bandwidth are told apart only when their effects on the
// residuals are not collinear over the logged steps (both grow with the
// number of decode iterations; only the KV part of the bytes does not).
constexpr double kMaxCollinearity = 0.98;
constexpr int kMinPointsForTwoParams = 6;
constexpr double kMinFStatistic = 4.0;

// The lower bound a parametric distribution was made with; a fixed kind's
// min() is its value (or, with a share at max, the rest's value), not a
// declared bound.
std::optional<double> DeclaredMin(const Distribution& d) {
  if (d.min() > 0 && d.kind() != DistKind::kFixed) return d.min();
  return std::nullopt;
}

Distribution WithMean(const Distribution& d, double mean) {
  if (d.is_fixed()) return Distribution::Fixed(mean);
  if (d.kind() == DistKind::kEmpirical || d.mean() <= 0) {
    // Scale an empirical distribution by the ratio of the means; sampling
    // the quantiles keeps its shape.
    std::vector<double> q;
    const int n = 256;
    double ratio = d.mean() > 0 ? mean / d.mean() : 1;
    for (int i = 0; i < n; ++i) q.push_back(d.Quantile((i + 0.5) / n) * ratio);
    if (auto e = Distribution::Empirical(std::move(q))) return *e;
    return Distribution::Fixed(mean);
  }
  const std::optional<double> lo = DeclaredMin(d);
  std::optional<double> hi;
  if (std::isfinite(d.max())) hi = d.max();
  if (auto m = Distribution::Make(d.kind(), mean, d.cv(), lo, hi, d.clipped())) return *m;
  if (d.clipped() > 0) {  // the share at max cannot fit the logged mean: keep the clip, drop the share
    if (auto m = Distribution::Make(d.kind(), mean, d.cv(), lo, hi)) return *m;
  }
  // The logged mean lies outside what the clip allows: keep the shape, drop the clip.
  if (auto m = Distribution::Make(d.kind(), mean, d.cv(), std::nullopt, std::nullopt)) return *m;
  return Distribution::Fixed(mean);
}

// The response-length distribution with the same kind, cv, bounds and mean
// whose share at max, s + (1 - s) P(X >= max), is `ratio` (a log's mean
// response_length/clip_ratio): s solved by bisection on [0, ratio] (the share
// grows with s; docs/model.md, "Responses clipped at the maximum length").
// nullopt when the distribution has no max or is samples, or when the shape's
// own tail beyond max already exceeds `ratio` (s = 0 is then the closest).
std::optional<Distribution> WithShareAtMax(const Distribution& d, double ratio) {
  if (d.kind() == DistKind::kEmpirical || !std::isfinite(d.max()) || !(ratio >= 0 && ratio < 1)) return std::nullopt;
  const std::optional<double> lo = DeclaredMin(d);
  auto at = [&](double s) { return Distribution::Make(d.kind(), d.mean(), d.cv(), lo, d.max(), s); };
  auto none = at(0);
  if (!none || none->ShareAtMax() > ratio) return std::nullopt;
  double a = 0, b = ratio;
  for (int i = 0; i < 60; ++i) {
    const double m = 0.5 * (a + b);
    auto x = at(m);
    if (x && x->ShareAtMax() < ratio) a = m; else b = m;
  }
  auto best = at(a);
  if (!best) return std::nullopt;
  return *best;
}

double Phase(const PhasePrediction& p, int which) {
  switch (which) {
    case 0: return p.step_s;
    case 1: return p.gen_s;
    case 2: return p.update_s;
    case 3: return p.logprob_s;
    default: return p.sync_s;
  }
}
double Logged(const LoggedStep& s, int which) {
  switch (which) {
    case 0: return s.step_s;
    case 1: return s.gen_s;
    case 2: return s.update_s;
    case 3: return s.logprob_s;
    default: return s.sync_s;
  }
}
const char* kPhaseNames[] = {"step", "generation", "update", "logprob", "weight_sync"};

// Golden-section search for the minimum of f on [a, b] (f unimodal there).
double GoldenMin(const std::function<double(double)>& f, double a, double b, int iters = 48) {
  const double g = (std::sqrt(5.0) - 1) / 2;
  double c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < iters; ++i) {
    if (fc < fd) {
      b = d; d = c; fd = fc; c = b - g * (b - a); fc = f(c);
    } else {
      a = c; c = d; fc = fd; d = a + g * (b - a); fd = f(d);
    }
  }
  return (a + b) / 2;
}

// Grid nodes over the log's range of mean response / prompt lengths.
// ASSUMPTION: 9 x 3 nodes; the step time is piecewise linear or smooth in the
// lengths between them (the schedule integration uses 5 nodes over a run).
constexpr int kResponseNodes = 9;
constexpr int kPromptNodes = 3;

// The nodes spanning one length over the log: `count` evenly spaced from the
// smallest to the largest logged value; one node when every step has the same
// value, or none is logged (-1: the scenario's own length).
std::vector<double> Nodes(const std::vector<LoggedStep>& steps, double LoggedStep::*field, int count) {
  double lo = steps.front().*field, hi = lo;
  for (const auto& st : steps) {
    lo = std::min(lo, st.*field);
    hi = std::max(hi, st.*field);
  }
  if (hi - lo <= 1e-9 * std::abs(hi)) return {lo};
  std::vector<double> out;
  for (int j = 0; j < count; ++j) out.push_back(lo + (hi - lo) * j / (count - 1));
  return out;
}

// Piecewise-linear weights of `x` between `nodes`: (index, weight) pairs.
std::array<std::pair<int, double>, 2> Between(const std::vector<double>& nodes, double x) {
  if (nodes.size() == 1) return {{{0, 1.0}, {0, 0.0}}};
  const double h = nodes[1] - nodes[0];
  const int j = std::clamp(static_cast<int>((x - nodes[0]) / h), 0, static_cast<int>(nodes.size()) - 2);
  const double f = std::clamp((x - nodes[j]) / h, 0.0, 1.0);
  return {{{j, 1.0 - f}, {j + 1, f}}};
}

struct Fitter {
  const Scenario& s;
  const std::vector<LoggedStep>& steps;
  Error first_error;
  bool failed = false;

  // The grid of a long log: each step's prediction is sum_k w_ik P_k over the
  // node predictions P_k, so the relative residuals' sum of squares of a phase
  // is P'AP - 2 b'P + n with A_km = sum_i w_ik w_im / l_i^2, b_k = sum_i w_ik /
  // l_i over the steps logging it (l_i): A and b are summed once.
  struct Grid {
    std::vector<LoggedStep> nodes;                              // lengths at each node
    std::vector<std::vector<std::pair<int, double>>> weights;   // per step: (node, weight)
    std::array<std::vector<double>, 5> a, b;                    // per phase
    std::array<double, 5> n{};
  };
  std::optional<Grid> grid;

  // Up to `exact_up_to` logged steps each is predicted on its own; beyond, the grid.
  Fitter(const Scenario& sc, const std::vector<LoggedStep>& st, size_t exact_up_to) : s(sc), steps(st) {
    if (steps.size() <= exact_up_to) return;
    // Every step logs its lengths or none does (else each is predicted alone).
    for (double LoggedStep::*f : {&LoggedStep::prompt_mean, &LoggedStep::response_mean}) {
      const bool first = steps.front().*f > 0;
      for (const auto& st : steps) {
        if ((st.*f > 0) != first) return;
      }
    }
    Grid g;
    const auto pn = Nodes(steps, &LoggedStep::prompt_mean, kPromptNodes);
    const auto rn = Nodes(steps, &LoggedStep::response_mean, kResponseNodes);
    for (double p : pn) {
      for (double r : rn) {
        LoggedStep node;
        node.prompt_mean = p;
        node.response_mean = r;
        g.nodes.push_back(node);
      }
    }
    const size_t k = g.nodes.size();
    for (int w = 0; w < 5; ++w) {
      g.a[w].assign(k * k, 0.0);
      g.b[w].assign(k, 0.0);
    }
    g.weights.reserve(steps.size());
    for (const auto& st : steps) {
      std::vector<std::pair<int, double>> wi;
      for (auto [pj, pw] : Between(pn, st.prompt_mean)) {
        for (auto [rj, rw] : Between(rn, st.response_mean)) {
          if (pw * rw > 0) wi.emplace_back(pj * static_cast<int>(rn.size()) + rj, pw * rw);
        }
      }
      for (int w = 0; w < 5; ++w) {
        const double l = Logged(st, w);
        if (l <= 0) continue;
        g.n[w] += 1;
        for (auto [i, wt] : wi) {
          g.b[w][i] += wt / l;
          for (auto [j, wt2] : wi) g.a[w][i * k + j] += wt * wt2 / (l * l);
        }
      }
      g.weights.push_back(std::move(wi));
    }
    grid = std::move(g);
  }

  std::vector<PhasePrediction> Predict(const Efficiency& eff, const std::vector<LoggedStep>& at) {
    std::vector<PhasePrediction> out;
    out.reserve(at.size());
    for (const auto& st : at) {
      auto p = PredictStep(s, eff, st);
      if (!p) {
        if (!failed) first_error = p.error();
        failed = true;
        out.push_back({});
      } else {
        out.push_back(*p);
      }
    }
    return out;
  }

  // Per logged step.
  std::vector<PhasePrediction> Eval(const Efficiency& eff) {
    if (!grid) return Predict(eff, steps);
    const auto node = Predict(eff, grid->nodes);
    std::vector<PhasePrediction> out(steps.size());
    for (size_t i = 0; i < steps.size(); ++i) {
      PhasePrediction& p = out[i];
      for (auto [k, w] : grid->weights[i]) {
        p.step_s += w * node[k].step_s;
        p.gen_s += w * node[k].gen_s;
        p.update_s += w * node[k].update_s;
        p.logprob_s += w * node[k].logprob_s;
        p.sync_s += w * node[k].sync_s;
      }
    }
    return out;
  }

  // Sse(Eval(eff), which) without expanding the grid to every step.
  double SseAt(const Efficiency& eff, int which) {
    if (!grid) return Sse(Eval(eff), which);
    const auto node = Predict(eff, grid->nodes);
    const size_t k = node.size();
    const auto& a = grid->a[which];
    const auto& b = grid->b[which];
    double sse = grid->n[which];
    for (size_t i = 0; i < k; ++i) {
      const double pi = Phase(node[i], which);
      sse -= 2 * b[i] * pi;
      for (size_t j = 0; j < k; ++j) sse += a[i * k + j] * pi * Phase(node[j], which);
    }
    return std::max(0.0, sse);
  }
  // Sum of squared relative residuals of one phase; points with no log skipped.
  double Sse(const std::vector<PhasePrediction>& pred, int which) const {
    double sse = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      double l = Logged(steps[i], which);
      if (l <= 0) continue;
      double r = Phase(pred[i], which) / l - 1;
      sse += r * r;
    }
    return sse;
  }
  int Points(int which) const {
    int n = 0;
    for (const auto& st : steps) n += Logged(st, which) > 0;
    return n;
  }
  double Rms(const std::vector<PhasePrediction>& pred, int which) const {
    int n = Points(which);
    return n ? std::sqrt(Sse(pred, which) / n) : 0;
  }
  std::vector<double> Residuals(const std::vector<PhasePrediction>& pred, int which) const {
    std::vector<double> r;
    for (size_t i = 0; i < steps.size(); ++i) {
      double l = Logged(steps[i], which);
      if (l > 0) r.push_back(Phase(pred[i], which) / l - 1);
    }
    return r;
  }
  // Fits one field against one phase, searching log(x) for fractions.
  double FitField(Efficiency& eff, const EfficiencyField& f, int which, double hi) {
    auto objective = [&](double u) {
      Efficiency e = eff;
      e.*(f.member) = f.fraction ? std::exp(u) : u;
      return SseAt(e, which);
    };
    double lo_u = f.fraction ? std::log(kMinFraction) : 0.0;
    double hi_u = f.fraction ? 0.0 : hi;
    double u = GoldenMin(objective, lo_u, hi_u);
    // Compare with the bounds themselves (golden section never lands on them).
    double best = u, fbest = objective(u);
    for (double cand : {lo_u, hi_u}) {
      double fc = objective(cand);
      if (fc < fbest) { fbest = fc; best = cand; }
    }
    eff.*(f.member) = f.fraction ? std::exp(best) : best;
    return eff.*(f.member);
  }
};

double Correlation(const std::vector<double>& a, const std::vector<double>& b) {
  size_t n = std::min(a.size(), b.size());
  if (n < 2) return 1;
  double ma = std::accumulate(a.begin(), a.begin() + n, 0.0) / n;
  double mb = std::accumulate(b.begin(), b.begin() + n, 0.0) / n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0 || sbb <= 0) return 1;
  return sab / std::sqrt(saa * sbb);
}

std::string Num(double v) { return fmt::format("{:.4g}", v); }

}  // namespace

const EfficiencyField* FindEfficiencyField(std::string_view name) {
  for (const auto& f : EfficiencyFields()) {
    if (name == f.name) return &f;
  }
  return nullptr;
}

Result<PhasePrediction> PredictStep(const Scenario& s, const Efficiency& eff, const LoggedStep& step) {
  Scenario sc = s;
  sc.hardware.gpu.efficiency = eff;
  // eff starts from the engine's (perf::RolloutEfficiency): its decode overhead is used as fitted.
  sc.hardware.gpu.sources["efficiency.decode_iter_overhead_s"] = "set by the fit";
  if (step.prompt_mean > 0) sc.environment.prompt_tokens = WithMean(sc.environment.prompt_tokens, step.prompt_mean);
  if (step.response_mean > 0) sc.environment.response_tokens = WithMean(sc.environment.response_tokens, step.response_mean);
  auto e = EstimateAnalytic(sc, TextDetail::kNumbers);  // the numbers only: the notes are not read here
  if (!e) {
    Error err = e.error();
    for (auto& p : err.problems) {
      p.message += fmt::format(" (logged step {}, line {})", step.step, step.line);
    }
    return Fail(err);
  }
  const StepTiming& t = e->step;
  PhasePrediction p;
  p.step_s = t.time_s;
  p.logprob_s = t.logprob_s + t.reference_s;
  p.sync_s = t.weight_sync_s;
  if (s.pipeline.mode == PipelineMode::kSync) {
    p.gen_s = t.rollout_s;
    p.update_s = t.train_s;
  } else {
    // Async: each side's own busy time (the log times each side's work).
    p.gen_s = t.rollout_busy_s > 0 ? t.rollout_busy_s : t.rollout_s;
    p.update_s = std::max(t.train_s, t.train_busy_s - p.logprob_s);
  }
  return p;
}

Result<FitResult> FitCalibration(const Scenario& s, const std::vector<LoggedStep>& steps,
                                 const std::string& source, size_t exact_up_to) {
  if (steps.empty()) return Fail(ErrorCode::kInvalidInput, source, "no logged steps to fit");
  // The log's share of responses at the maximum length (veRL
  // response_length/clip_ratio): its mean over the steps that log it is
  // reported, and the fit prices every step with that share at max (the
  // scenario's response_tokens `clipped`, kept by WithMean at each step's mean).
  double clip_sum = 0;
  int clip_n = 0;
  for (const auto& st : steps) {
    if (st.clip_ratio >= 0) {
      clip_sum += st.clip_ratio;
      ++clip_n;
    }
  }
  const std::optional<double> clip_mean = clip_n > 0 ? std::optional<double>(clip_sum / clip_n) : std::nullopt;
  Scenario with_clip = s;
  std::string clip_note;
  if (clip_mean) {
    const double ratio = *clip_mean;
    const Distribution& resp = s.environment.response_tokens;
    clip_note = fmt::format("the log's response_length/clip_ratio averages {:.4g} over {} steps", ratio, clip_n);
    if (auto d = WithShareAtMax(resp, ratio)) {
      with_clip.environment.response_tokens = *d;
      clip_note += fmt::format(": every step was priced with that share of responses at the maximum length {} "
                               "(environment.response_tokens.clipped = {:.4g})",
                               Num(d->max()), d->clipped());
    } else if (!std::isfinite(resp.max()) || resp.kind() == DistKind::kEmpirical) {
      clip_note += ": reported only; environment.response_tokens has no max (or is samples), so the share cannot "
                   "be placed at the maximum length";
    } else {
      clip_note += fmt::format(": reported only; the scenario's response lengths already put {:.4g} at the maximum "
                               "length {} (environment.response_tokens)",
                               resp.ShareAtMax(), Num(resp.max()));
    }
  }
  Fitter fit(with_clip, steps, exact_up_to);
  FitResult out;
  out.before = perf::RolloutEfficiency(s);  // as the scenario's engine runs
  Calibration& cal = out.calibration;
  cal.gpu_id = s.hardware.gpu.id;
  cal.source = source;
  cal.scenario = s.source_path;
  cal.steps = static_cast<int>(steps.size());
  cal.response_clip_ratio = clip_mean;

  auto before = fit.Eval(out.before);
  if (fit.failed) return Fail(fit.first_error);
  Efficiency eff = out.before;
  auto& notes = cal.notes;
  if (!clip_note.empty()) notes.push_back(clip_note);
  if (s.pipeline.mode != PipelineMode::kSync) {
    notes.push_back("async pipeline: phase times are compared with each side's busy time; the step time with the overlapped critical path");
  }
  if (fit.grid) {
    notes.push_back(fmt::format("{} logged steps: the model was evaluated at {} pairs of mean prompt and response "
                                "lengths spanning the log and interpolated linearly between them for each step",
                                steps.size(), fit.grid->nodes.size()));
  }
  if (!steps.front().step_s_logged) {
    notes.push_back("the log has no whole-step time (timing_s/step, timing/train/total_step_time): the step time is the sum of the logged phases and step_overhead_s is not fitted");
  }

  auto depends = [&](const EfficiencyField& f, int which) {
    Efficiency e = eff;
    e.*(f.member) = f.fraction ? e.*(f.member) * 0.5 : e.*(f.member) + 0.01;
    auto a = fit.Eval(eff), b = fit.Eval(e);
    for (size_t i = 0; i < a.size(); ++i) {
      double x = Phase(a[i], which), y = Phase(b[i], which);
      if (std::abs(x - y) > 1e-9 * std::max(1.0, std::abs(x))) return true;
    }
    return false;
  };
  auto bound_note = [&](const EfficiencyField& f, double v, double hi) {
    if (f.fraction && v >= 0.995) {
      notes.push_back(fmt::format("bound hit: {} = {} (upper bound 1): the log is faster than the roofline allows; check the GPU, the model or the lengths in the scenario", f.name, Num(v)));
    } else if (f.fraction && v <= kMinFraction * 1.01) {
      notes.push_back(fmt::format("bound hit: {} = {} (lower bound {}): the log is far slower than the model; check the scenario", f.name, Num(v), Num(kMinFraction)));
    } else if (!f.fraction && v <= 1e-9) {
      notes.push_back(fmt::format("bound hit: {} = 0 (lower bound): the model without it is already as slow as the log or slower", f.name));
    } else if (!f.fraction && v >= hi * 0.999) {
      notes.push_back(fmt::format("bound hit: {} = {} s (upper bound {} s, an assumption)", f.name, Num(v), Num(hi)));
    }
  };
  auto fit_one = [&](const char* field, int which, double hi) {
    const EfficiencyField& f = *FindEfficiencyField(field);
    if (fit.Points(which) == 0) {
      notes.push_back(fmt::format("{} not fitted: the log has no {} time", f.name, kPhaseNames[which]));
      return false;
    }
    if (!depends(f, which)) {
      notes.push_back(fmt::format("{} not fitted: the model's {} time does not depend on it for this scenario", f.name, kPhaseNames[which]));
      return false;
    }
    double v = fit.FitField(eff, f, which, hi);
    if (fit.failed) return false;
    bound_note(f, v, hi);
    cal.fitted.push_back(f.name);
    return true;
  };

  // 1. Generation -> decode_bw; decode_iter_overhead_s too when identifiable.
  if (fit_one("decode_bw", 1, 0)) {
    const EfficiencyField& bw = *FindEfficiencyField("decode_bw");
    const EfficiencyField& ov = *FindEfficiencyField("decode_iter_overhead_s");
    int n = fit.Points(1);
    if (n < kMinPointsForTwoParams) {
      notes.push_back(fmt::format("decode_iter_overhead_s not fitted: {} generation points, {} needed to separate it from decode_bw; kept at {} s", n, kMinPointsForTwoParams, Num(eff.decode_iter_overhead_s)));
    } else {
      auto base = fit.Residuals(fit.Eval(eff), 1);
      Efficiency e1 = eff, e2 = eff;
      e1.decode_bw *= 0.9;
      e2.decode_iter_overhead_s += 0.001;
      auto r1 = fit.Residuals(fit.Eval(e1), 1), r2 = fit.Residuals(fit.Eval(e2), 1);
      std::vector<double> a, b;
      for (size_t i = 0; i < base.size(); ++i) {
        a.push_back(r1[i] - base[i]);
        b.push_back(r2[i] - base[i]);
      }
      double corr = Correlation(a, b);
      if (std::abs(corr) > kMaxCollinearity) {
        notes.push_back(fmt::format("decode_iter_overhead_s not fitted: over these steps its effect is collinear with decode_bw (correlation {:.3f}); kept at {} s", corr, Num(eff.decode_iter_overhead_s)));
      } else {
        double sse1 = fit.Sse(fit.Eval(eff), 1);
        Efficiency trial = eff;
        for (int round = 0; round < 6; ++round) {
          fit.FitField(trial, ov, 1, kMaxIterOverheadS);
          fit.FitField(trial, bw, 1, 0);
        }
        // Keep the second parameter only when it explains significantly more:
        // F = (SSE1 - SSE2) / (SSE2 / (n - 2)) above ~4, the 95% point of
        // F(1, n-2) for n >= 10 (a standard nested-model test).
        double sse2 = fit.Sse(fit.Eval(trial), 1);
        double f_stat = sse2 > 0 ? (sse1 - sse2) / (sse2 / (n - 2)) : (sse1 > 0 ? 1e9 : 0);
        if (f_stat <= kMinFStatistic) {
          notes.push_back(fmt::format("decode_iter_overhead_s not fitted: a second generation parameter does not explain the log significantly better (F = {:.2f}); kept at {} s", f_stat, Num(eff.decode_iter_overhead_s)));
        } else {
          eff = trial;
          cal.fitted.push_back(ov.name);
          bound_note(ov, eff.decode_iter_overhead_s, kMaxIterOverheadS);
        }
      }
    }
  }
  // 2. Update -> train_mfu. 3. Log-prob + reference -> logprob_mfu.
  // MoE models' update runs at train_mfu_moe (docs/model.md, "MoE and the training layout").
  const char* train_field = s.model.is_moe() ? "train_mfu_moe" : "train_mfu";
  // The log is the run: its update's own MFU is fitted, not a share of the
  // published one, so the typical-run share is set to 1 with it (docs/model.md,
  // "Named fits").
  const double typical_share = eff.typical_update_share;
  eff.typical_update_share = 1.0;
  if (fit_one(train_field, 2, 0)) {
    cal.fitted.push_back("typical_update_share");
  } else {
    eff.typical_update_share = typical_share;
  }
  fit_one("logprob_mfu", 3, 0);
  // 4. Weight sync -> weight_sync_eff, when the log times it.
  if (fit.Points(4) > 0) fit_one("weight_sync_eff", 4, 0);
  // 5. The remainder of the step -> step_overhead_s (only with a logged step time).
  if (steps.front().step_s_logged) {
    double max_step = 0;
    for (const auto& st : steps) max_step = std::max(max_step, st.step_s);
    fit_one("step_overhead_s", 0, max_step);
  }
  if (fit.failed) return Fail(fit.first_error);

  cal.efficiency = eff;
  auto after = fit.Eval(eff);
  cal.error_before = fit.Rms(before, 0);
  cal.error_after = fit.Rms(after, 0);
  const char* fields[] = {"step_overhead_s", "decode_bw", train_field, "logprob_mfu", "weight_sync_eff"};
  for (int w = 0; w < 5; ++w) {
    int n = fit.Points(w);
    if (n == 0) continue;
    PhaseReport pr;
    pr.phase = kPhaseNames[w];
    pr.field = fields[w];
    if (std::find(cal.fitted.begin(), cal.fitted.end(), pr.field) == cal.fitted.end()) pr.field = "";
    pr.points = n;
    pr.error_before = fit.Rms(before, w);
    pr.error_after = fit.Rms(after, w);
    for (size_t i = 0; i < steps.size(); ++i) {
      if (Logged(steps[i], w) <= 0) continue;
      pr.logged_mean_s += Logged(steps[i], w) / n;
      pr.predicted_before_mean_s += Phase(before[i], w) / n;
      pr.predicted_after_mean_s += Phase(after[i], w) / n;
    }
    cal.phase_error_before[pr.phase] = pr.error_before;
    cal.phase_error_after[pr.phase] = pr.error_after;
    out.phases.push_back(pr);
  }
  for (const auto& st : steps) out.logged_step_mean_s += st.step_s / steps.size();
  for (const auto& p : after) out.predicted_step_mean_after_s += p.step_s / after.size();
  out.predicted_after = std::move(after);
  return out;
}

}  // namespace rlcost::calib
