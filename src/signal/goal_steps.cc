// The signal stage, the goal: steps to a target on the learning curve.
// docs/model.md (signal section).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "signal/signal_parts.h"
#include "core/count.h"
#include "signal/goal.h"

namespace rlcost::signal {

using namespace detail;

namespace {
Result<void> CheckCurve(const LearningCurveSpec& curve, double target) {
  if (!(target > 0 && target < 1))
    return Fail(Error::Invalid("goal.target_pass_rate", fmt::format("{}; expected a pass rate in (0, 1)", target)));
  if (!(curve.asymptote > 0 && curve.asymptote <= 1))
    return Fail(Error::Invalid("goal.curve.asymptote", fmt::format("{}; expected a pass rate in (0, 1]", curve.asymptote)));
  if (!(curve.exponent > 0 && std::isfinite(curve.exponent)))
    return Fail(Error::Invalid("goal.curve.exponent", fmt::format("{}; expected > 0", curve.exponent)));
  if (!(curve.midpoint_useful_samples > 0 && std::isfinite(curve.midpoint_useful_samples)))
    return Fail(Error::Invalid("goal.curve.midpoint_useful_samples",
                               fmt::format("{}; expected > 0", curve.midpoint_useful_samples)));
  return {};
}

}  // namespace

Counted CountSteps(const double* p_of, const double* q_of, const double* u_end_of, int intervals, double u0,
                   double u_target, double max_steps) {
  Counted out;
  double u = u0, steps = 0;
  int i = 0;
  while (u < u_target) {
    while (i < intervals - 1 && u >= u_end_of[i]) ++i;
    const double P = p_of[i], Q = q_of[i];
    const double b = std::min(u_end_of[i], u_target);  // this interval's steps end at the first u >= b
    const double fa = P - Q / u, fb = P - Q / b;
    if (!(fa > 0) || !(fb > 0)) return out;  // a step with no useful samples: the loop says where
    // The expansion's parameters at the worse end: |f'| and a step's size relative to u.
    const double e1 = std::max(std::abs(Q) / (u * u), std::abs(Q) / (b * b));
    const double e2 = std::max(fa / u, fb / b);
    // With Q < 0 the closed form's two parts cancel as |Q| / (P u) grows.
    const double z = Q < 0 ? -Q / (P * u) : 0;
    bool stepped = !(P > 0) || z > 0.5 || e1 > 1e-2 || e2 > 1e-2;
    // T(y) - T(x) on this interval: the 1/f and f'/(2f) parts in closed form
    // (ln f(y)/f(x) and ln y/x), the f'' and f'f'' parts likewise, the
    // f'^2/f and f'^3/f parts by 3-point Gauss-Legendre.
    auto dT = [&](double x, double y, double fx) {
      const double l1 = std::log1p(Q * (y - x) / (x * y) / fx);  // ln f(y)/f(x)
      const double l2 = std::log1p((y - x) / x);                  // ln y/x
      auto r = [&](double w) {
        const double d1 = Q / (w * w);
        return d1 * d1 / (P - Q / w) * (d1 / 24 - 1.0 / 12);
      };
      const double c = 0.5 * (x + y), hw = 0.5 * (y - x), k = 0.7745966692414834 * hw;
      const double gl = hw * (5 * r(c - k) + 8 * r(c) + 5 * r(c + k)) / 9;
      const double d1x = Q / (x * x), d1y = Q / (y * y);
      return (y - x) / P + Q / (P * P) * (l1 + l2) + 0.5 * l1 - (d1y - d1x) / 12 + (d1y * d1y - d1x * d1x) / 24 + gl;
    };
    double m = 0, dt = 0;
    if (!stepped) {
      dt = dT(u, b, fa);
      m = std::max(1.0, std::ceil(dt));  // u < b: at least one step
      // The expansion's error in steps (fourth-order terms over m steps), with a margin.
      const double eps = e1 + e2;
      const double err = 1e-9 + m * eps * eps * eps * eps;
      if (m - dt < 100 * err || dt - (m - 1) < 100 * err) stepped = true;
    }
    if (stepped) {
      // One step at a time to b, as the loop does.
      while (u < b) {
        const double useful = P - Q / u;
        if (!(useful > 0)) return out;
        u += useful;
        steps += 1;
        if (steps > max_steps) return out;
      }
      continue;
    }
    steps += m;
    if (steps > max_steps) return out;
    ++out.intervals_counted;
    // The state after the m steps: the flow of the modified equation from b
    // for the rest of the last step, tau = m - dt (its Taylor series in tau to
    // third order), then one Newton step on T.
    const double tau = m - dt;
    const double f = fb, f1 = Q / (b * b), f2 = -2 * Q / (b * b * b);
    const double g = f - 0.5 * f * f1 + f * f1 * f1 / 3 + f * f * f2 / 12;
    const double gg1 = f * f1 - f * f1 * f1 - 0.5 * f * f * f2;
    const double g3 = f * f1 * f1 + f * f * f2;
    double v = b + tau * (g + tau * (gg1 / 2 + tau * g3 / 6));
    // The series' error, ~ f eps^3 tau^4 / 24, relative to u: where it is
    // above 1e-14, one Newton step on T (its error is then that of T).
    const double eps = e1 + e2;
    if (tau > 0 && e2 * eps * eps * eps > 24e-14) {
      const double fv = P - Q / v, f1v = Q / (v * v);
      v -= (dT(b, v, fb) - tau) * fv * (1 - 0.5 * f1v);  // dv/dT = g(v)
    }
    u = v;
  }
  out.ok = true;
  out.steps = steps;
  out.u = u;
  return out;
}

Result<GoalProgress> StepsToTarget(const Scenario& s, const LearningCurveSpec& curve, double target) {
  if (auto ok = CheckCurve(curve, target); !ok) return Fail(ok.error());
  auto base = Analyze(s);  // validates the rest of the inputs
  if (!base) return Fail(base.error());
  return StepsToTarget(s, curve, target, *base, GoalDetail::kWithTrajectory);
}

// One function of ~200 lines on purpose: it is on the path of every estimate
// (a goal at a few microseconds, estimate's < 50 us budget), and its step
// loop, its tail integral and its chart points share the tabulated P(informative)
// and the closures over a dozen locals (the curve, the plan, the failures);
// split, each part would take them all as arguments.
Result<GoalProgress> StepsToTarget(const Scenario& s, const LearningCurveSpec& curve, double target,
                                   const Summary& analyzed, GoalDetail detail) {
  if (auto ok = CheckCurve(curve, target); !ok) return Fail(ok.error());
  const Summary* base = &analyzed;
  auto eff_or = EffectivePassRate(s.environment.pass_rate);
  if (!eff_or) return Fail(eff_or.error());
  const PassRateSpec start = MomentMatchedBeta(*eff_or);
  const double kappa = start.a + start.b;

  GoalProgress out;
  const double r0 = start.a / kappa;
  const double a_inf = curve.asymptote;
  out.start_pass_rate = r0;
  out.target_pass_rate = target;
  if (target <= r0) {
    out.reachable = true;
    out.within_planned_steps = true;
    out.trajectory.push_back({0.0, r0});
    return out;
  }
  if (a_inf <= target) {
    out.reason = fmt::format("not reachable: asymptote A = {:.2f} is {} the target {:.2f}", a_inf,
                             a_inf < target ? "below" : "equal to (the curve only approaches it)", target);
    return out;
  }
  // The curve starts from the moment-matched Beta, which spreads a pass rate
  // that is always 0 (or always 1) into a few solvable tasks; the run itself
  // learns nothing when no group of the actual distribution is informative.
  if (!(base->useful_samples_per_step > 0)) {
    out.reason = fmt::format(
        "not reachable: no useful samples at the start (informative fraction {:.3g}: every group of {} has the same "
        "outcome, so no rollout carries a learning signal)",
        base->informative_fraction, s.algorithm.group_size);
    return out;
  }

  const AlgorithmSpec& alg = s.algorithm;
  const bool process = s.environment.reward.type == RewardType::kProcess;
  const int g = alg.group_size;
  const int k = process ? s.environment.reward.credited_steps : 1;
  const bool ppo = alg.critic;  // a value baseline, not the group's mean
  const Channel ch = ChannelOf(s.environment.reward);
  // Useful samples are counted in clean-gradient units: (1 - fp - fn) per informative rollout.
  const double trained = static_cast<double>(alg.prompts_per_step) * g;
  // Environment failures (docs/model.md, "Environment failures"): retried
  // ones add generation, dropped ones leave fewer rollouts to train on.
  const EnvFailureSpec& fails = s.environment.failures;
  const double kept = fails.retry ? 1.0 : 1.0 - fails.rate;
  const double gen_mult = fails.retry ? 1.0 / (1.0 - fails.rate) : 1.0;
  const double useful_per_trained = ch.scale() * kept;

  // Useful samples the curve needs: R(C*) = T  =>  C* = C_mid / ((A - R0)/(T - R0) - 1)^(1/B).
  const double c_target =
      curve.midpoint_useful_samples / std::pow((a_inf - r0) / (target - r0) - 1, 1 / curve.exponent);
  const bool linear = curve.exponent == 1.0;  // the default: no pow in the hot loop
  auto pass_rate_at = [&](double c) {
    if (c <= 0) return r0;
    const double x = curve.midpoint_useful_samples / c;
    return r0 + (a_inf - r0) / (1 + (linear ? x : std::pow(x, curve.exponent)));
  };

  // P(informative group) on [R0, T], tabulated (the process form needs quadrature)
  // and interpolated linearly. 32 intervals: the interpolation error is below
  // h^2/8 * max|P''| ~ 1e-4 relative, far inside the curve's own uncertainty,
  // and keeps a goal estimate at a few microseconds (estimate's < 50 us budget).
  constexpr int kTable = 32;
  std::vector<double> table(kTable + 1);
  for (int i = 0; i <= kTable; ++i) {
    const double r = r0 + (target - r0) * i / kTable;
    PassRateSpec at;
    at.a = r * kappa;
    at.b = (1 - r) * kappa;
    table[i] = ProcessInformative(at, g, k, ch);
  }
  auto interpolate = [&](const std::vector<double>& tab, double r) {
    const double x = std::clamp((r - r0) / (target - r0), 0.0, 1.0) * kTable;
    const int i = FloorCount(x, 0, kTable - 1);  // x is NaN only if r is
    return tab[i] + (x - i) * (tab[i + 1] - tab[i]);
  };
  // Dynamic sampling: the expected rounds (a sum of binomial tails) are
  // tabulated on the same nodes, with the informative share they leave.
  const RoundPlan plan = PlanOf(alg);
  std::vector<double> over_table, frac_table;
  if (alg.dynamic_sampling) {
    for (int i = 0; i <= kTable; ++i) {
      const StepSignal st = SignalOfStep(table[i], table[i], true, plan);
      over_table.push_back(st.oversampling);
      frac_table.push_back(st.informative_fraction);
    }
  }
  // (useful samples, rollouts generated) of one step at mean pass rate r.
  auto step_at = [&](double r) {
    if (alg.dynamic_sampling) {
      return std::pair<double, double>{trained * useful_per_trained * interpolate(frac_table, r),
                                       trained * interpolate(over_table, r) * gen_mult};
    }
    const double pg = interpolate(table, r);
    const StepSignal st = SignalOfStep(pg, ppo ? 1.0 : pg, false, plan);
    return std::pair<double, double>{trained * useful_per_trained * st.informative_fraction,
                                     trained * st.oversampling * gen_mult};
  };

  // Whole steps, one at a time: at step s the policy stands at R(C_s). The
  // useful samples after each step are kept (cs[s] = C_s) for the chart, which
  // reads R(C_s) at up to ~64 of them; the buffer is reused between calls.
  constexpr double kDiscreteSteps = 1e5;
  double c = 0, steps = 0, generated = 0;
  static thread_local std::vector<double> cs;
  cs.clear();
  cs.push_back(0.0);  // step 0 stands at R0
  auto unreachable_at = [&](double r) {
    out.reason = fmt::format(
        "not reachable: no useful samples at mean pass rate {:.3f} (every group of {} has the same outcome)", r, g);
    return out;
  };
  if (!alg.dynamic_sampling && linear) {
    // The common case, one division a step. With u = C + C_mid, the table
    // position of R(C) is x = G (1 - C_mid / u), G = kTable (A - R0) / (T - R0)
    // (R(C) - R0 = (A - R0) C / (C + C_mid)); on table interval i the share
    // table[i] + (x - i) slope[i] makes a step's useful samples P_i - Q_i / u,
    // and interval i ends where x = i + 1, at u = C_mid / (1 - (i + 1) / G).
    // The same interpolation as step_at, to rounding (~1e-16 relative a
    // step; tests/signal pins the results to 1e-9 and the step counts exactly).
    const double pos_scale = kTable * ((a_inf - r0) / (target - r0));
    const double mid = curve.midpoint_useful_samples;
    const double per_step = trained * useful_per_trained;  // times the informative share
    double p_of[kTable], q_of[kTable], u_end_of[kTable];
    for (int i = 0; i < kTable; ++i) {
      const double slope = ppo ? 0.0 : table[i + 1] - table[i];
      const double at0 = ppo ? 1.0 : table[i] - i * slope;  // the share at x = 0 on this interval's line
      p_of[i] = per_step * (at0 + slope * pos_scale);
      q_of[i] = per_step * slope * pos_scale * mid;
      const double frac = (i + 1) / pos_scale;
      u_end_of[i] = frac < 1 ? mid / (1 - frac) : std::numeric_limits<double>::infinity();
    }
    const double u_target = c_target + mid;
    double u = mid;  // C = 0
    int i = 0;
    if (detail == GoalDetail::kStepsOnly) {
      // The same count without stepping (CountSteps); where it cannot tell,
      // the loop below runs as always.
      const Counted n = CountSteps(p_of, q_of, u_end_of, kTable, u, u_target, kDiscreteSteps);
      if (n.ok) {
        steps = n.steps;
        generated = trained * steps;
        u = n.u;
      }
    }
    while (u < u_target && steps < kDiscreteSteps) {
      while (i < kTable - 1 && u >= u_end_of[i]) ++i;
      const double useful = p_of[i] - q_of[i] / u;
      if (!(useful > 0)) return unreachable_at(pass_rate_at(u - mid));
      u += useful;
      generated += trained;  // no dynamic sampling: every rollout generated is trained on
      steps += 1;
      cs.push_back(u - mid);
    }
    c = u - mid;
  } else {
    double r = r0;  // R(C) at the current step, carried over (one pow per step)
    while (c < c_target && steps < kDiscreteSteps) {
      const auto [useful, gen] = step_at(r);
      if (!(useful > 0)) return unreachable_at(r);
      c += useful;
      generated += gen;
      steps += 1;
      r = pass_rate_at(c);
      cs.push_back(c);
    }
  }
  // The chart's points: (s, R(C_s)) for every step run, then the target when
  // the rest is integrated.
  std::vector<std::pair<double, double>> tail;
  if (c < c_target) {
    // Beyond 10^5 steps, the step count is the integral dC / useful(R(C)).
    constexpr double kRel = 1e-9;
    const double more = si::Integrate([&](double x) { return 1 / step_at(pass_rate_at(x)).first; }, c, c_target,
                                      kRel * c_target / trained);
    generated += si::Integrate(
        [&](double x) {
          const auto [u, gen] = step_at(pass_rate_at(x));
          return gen / u;
        },
        c, c_target, kRel * c_target);
    steps += std::ceil(more);
    c = c_target;
    tail.push_back({steps, target});
  }
  out.reachable = true;
  out.steps = steps;
  out.useful_samples = c;
  out.rollouts_generated = generated;
  out.rollouts_trained = steps * trained * kept;
  out.final_informative_fraction = step_at(target).first / (trained * useful_per_trained);
  out.within_planned_steps = steps <= alg.steps;
  if (detail == GoalDetail::kStepsOnly) {
    out.trajectory.push_back({steps, tail.empty() ? pass_rate_at(c) : target});
    return out;
  }
  // At most ~64 points for charts, always keeping the last.
  const size_t points = cs.size() + tail.size();
  auto point = [&](size_t i) -> std::pair<double, double> {
    if (i >= cs.size()) return tail[i - cs.size()];
    return {static_cast<double>(i), i == 0 ? r0 : pass_rate_at(cs[i])};
  };
  const size_t stride = std::max<size_t>(1, points / 64);
  for (size_t i = 0; i < points; i += stride) out.trajectory.push_back(point(i));
  if (out.trajectory.back() != point(points - 1)) out.trajectory.push_back(point(points - 1));
  return out;
}


}  // namespace rlcost::signal
