// The signal stage, dynamic sampling (DAPO): the generation rounds a step
// needs to fill its batch with informative groups, and what a step trains on.
// docs/model.md, "Dynamic sampling (DAPO)".
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "signal/signal_parts.h"

namespace rlcost::signal {

namespace detail {
namespace {

constexpr double kImpracticalProbability = 1.0 / kMaxOversampling;  // 1e-4 (issue 3)

// n KL(k/n || q): minus the log of the Chernoff bound on P(Bin(n, q) >= k) for
// k/n > q, or on P(Bin(n, q) <= k) for k/n < q.
double ChernoffExponent(double n, double k, double q) {
  const double a = std::clamp(k / n, 0.0, 1.0);
  double kl = 0;
  if (a > 0) kl += a * std::log(a / q);
  if (a < 1) kl += (1 - a) * (std::log1p(-a) - std::log1p(-q));
  return n * kl;
}

// P(Bin(n, q) < k) for whole n, k >= 1: P(X <= k-1) = I_{1-q}(n-k+1, k).
double BinomialBelow(double n, double q, double k) {
  if (n < k) return 1;
  return si::RegularizedIncompleteBeta(n - k + 1, k, 1 - q);
}

struct Rounds {
  double expected = 1;          // E[min(R, M)], R = rounds until `need` informative groups
  double fail_probability = 0;  // P(R > M): still short after the last allowed round
};

// E[min(R, M)] = sum_{r=0}^{M-1} P(R > r), with P(R > r) = P(Bin(r B, q) < P):
// after r rounds, r B groups have been drawn, each informative with probability q.
// Below, either exactly through the negative binomial count of groups drawn,
// or (when that count spreads over more than ~20000 values) by rounds: those
// whose term is 1 (or 0) to within e^-30 are counted without evaluating it
// (Chernoff bounds, bisection); a window of more than 48 uncertain rounds is
// summed at a stride (the term is smooth in r on that scale).
Rounds ExpectedRounds(double q, const RoundPlan& plan) {
  Rounds out;
  const double need = plan.need, b = plan.per_round;
  const double limit = plan.max_rounds > 0 ? plan.max_rounds - 1 : 1e15;  // last r in the sum
  constexpr double kSure = 30;  // e^-30 ~ 1e-13
  // Exact and cheap when the count of groups drawn is not too spread: N, the
  // groups drawn until the P-th informative one, is negative binomial,
  // P(N = n) = C(n-1, P-1) q^P (1-q)^(n-P) for n >= P, and R = ceil(N / B), so
  // E[min(R, M)] = sum_n P(N = n) min(ceil(n / B), M). The pmf is walked out
  // from its mode by P(N = n+1) / P(N = n) = n (1-q) / (n - P + 1) until it is
  // below 1e-17 of the mode's (~8.8 sd each side).
  const double sd_n = std::sqrt(need * (1 - q)) / q;
  if (q < 1 && 18 * sd_n + 2 <= 20000) {
    const double mode = std::max(need, std::floor((need - 1) / q) + 1);
    auto rounds_at = [&](double n) {
      const double r = std::ceil(n / b);
      return plan.max_rounds > 0 ? std::min(r, double(plan.max_rounds)) : r;
    };
    const double cap_n = plan.max_rounds > 0 ? plan.max_rounds * b : 1e300;
    double mass = 0, sum = 0, fail = 0;
    auto add = [&](double n, double pmf) {
      mass += pmf;
      sum += pmf * rounds_at(n);
      if (n > cap_n) fail += pmf;
    };
    // Relative to the mode's pmf (the normalisation divides it out).
    add(mode, 1.0);
    double pmf = 1;
    for (double n = mode; pmf > 1e-17; ++n) {
      pmf *= n * (1 - q) / (n - need + 1);
      add(n + 1, pmf);
    }
    pmf = 1;
    for (double n = mode; n > need && pmf > 1e-17; --n) {
      pmf *= (n - need) / ((n - 1) * (1 - q));
      add(n - 1, pmf);
    }
    out.expected = sum / mass;
    out.fail_probability = fail / mass;
    return out;
  }
  // Otherwise by rounds: P(R > r) evaluated where it is neither 0 nor 1.
  const double r_mean = need / (b * q);  // rounds at which r B q = P
  // sure(r): P(R > r) = 1 within e^-30 (fewer than P groups drawn, or the
  // upper tail of Bin(r B, q) at P negligible). True at 0, false past r_mean.
  auto sure = [&](double r) {
    return r * b < need || (r * b * q < need && ChernoffExponent(r * b, need, q) >= kSure);
  };
  // gone(r): P(R > r) = P(Bin(r B, q) <= P - 1) < e^-30.
  auto gone = [&](double r) {
    return r * b * q > need - 1 && ChernoffExponent(r * b, need - 1, q) >= kSure;
  };
  double lo = 0, hi = std::floor(r_mean) + 1;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (sure(mid) ? lo : hi) = mid;
  }
  const double r_sure = std::min(lo, limit);
  lo = r_sure;
  hi = std::max(1.0, std::ceil(r_mean));
  while (!gone(hi)) hi *= 2;
  while (hi - lo > 1) {
    const double mid = std::floor((lo + hi) / 2);
    (gone(mid) ? hi : lo) = mid;
  }
  const double r_gone = std::min(hi, limit);
  out.expected = 1 + r_sure;
  const double window = r_gone - r_sure;
  if (window > 0) {
    const double stride = std::max(1.0, std::ceil(window / 48));
    for (double r = r_sure + 1; r <= r_gone; r += stride) {
      const double width = std::min(stride, r_gone - r + 1);
      // The stride's mid-point stands for its `width` rounds (not rounded to a
      // whole round: that would shift every stride by half a round; the
      // incomplete Beta interpolates smoothly between whole counts).
      const double at = r + (width - 1) / 2;
      out.expected += width * BinomialBelow(at * b, q, need);
    }
  }
  if (plan.max_rounds > 0) out.fail_probability = BinomialBelow(plan.max_rounds * b, q, need);
  return out;
}

}  // namespace

RoundPlan PlanOf(const AlgorithmSpec& alg) {
  RoundPlan plan;
  plan.need = alg.prompts_per_step;
  plan.per_round = alg.gen_batch_prompts > 0 ? alg.gen_batch_prompts : alg.prompts_per_step;
  plan.max_rounds = alg.max_gen_batches;
  return plan;
}

StepSignal SignalOfStep(double p_group, double p_rollout_plain, bool dynamic_sampling, const RoundPlan& plan) {
  StepSignal out;
  if (!dynamic_sampling) {
    out.informative_fraction = p_rollout_plain;
    return out;
  }
  if (p_group < kImpracticalProbability && plan.max_rounds <= 0) {
    out.impractical = true;
    out.oversampling = kMaxOversampling;
    out.rounds = kMaxOversampling * plan.need / plan.per_round;
    // Regeneration stops at the cap; the informative groups found fill part of the batch.
    out.informative_fraction = std::min(1.0, kMaxOversampling * p_group);
    return out;
  }
  // Rounds of per_round groups until `need` informative ones are kept; the
  // last round's surplus is dropped (veRL: batch = batch[:traj_bsz]).
  const Rounds r = p_group > 0 ? ExpectedRounds(p_group, plan) : Rounds{double(plan.max_rounds), 1.0};
  out.rounds = r.expected;
  out.fail_probability = r.fail_probability;
  out.oversampling = r.expected * plan.per_round / plan.need;
  out.informative_fraction = 1;
  out.impractical = r.fail_probability >= 0.5;
  return out;
}

}  // namespace detail

}  // namespace rlcost::signal
