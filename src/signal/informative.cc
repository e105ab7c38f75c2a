// The signal stage, informative groups: P(a group is informative) for an
// outcome or a process reward, the reward bits of a rollout, and both through
// a noisy verifier. docs/model.md (signal section).
#include "rlcost/signal.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "signal/signal_parts.h"

namespace rlcost::signal {

namespace detail {
namespace {

// P(a group of G is not all-equal) for one Bernoulli(q) step, with q and 1-q both
// given accurately: 1 - q^G - (1-q)^G, computed without cancellation near 0 and 1.
double MixedProbability(double q, double qc, int g) {
  if (g <= 1) return 0;  // one rollout is its own baseline
  if (q <= 0 || qc <= 0) return 0;
  // The smaller of q, 1-q is the accurate one; the other's log comes from log1p.
  if (q <= qc) return -std::expm1(g * std::log1p(-q)) - std::exp(g * std::log(q));
  return -std::expm1(g * std::log1p(-qc)) - std::exp(g * std::log(qc));
}

// Per-step pass probability q = p^(1/K) and 1 - q, accurate near both ends.
std::pair<double, double> StepPassRate(double p, double pc, int k) {
  if (p <= 0) return {0.0, 1.0};
  if (pc <= 0) return {1.0, 0.0};
  const double log_p = p <= 0.5 ? std::log(p) : std::log1p(-pc);
  return {std::exp(log_p / k), -std::expm1(log_p / k)};
}

// P(group informative) for a task of pass rate p under a K-step process reward:
// 1 - (all-equal per step)^K = -expm1(K ln(1 - m)), m = P(one step mixed).
double ProcessMixedAt(double p, double pc, int g, int k) {
  const auto [q, qc] = StepPassRate(p, pc, k);
  const double m = MixedProbability(q, qc, g);
  if (m >= 1) return 1;
  return -std::expm1(k * std::log1p(-m));
}

double ProcessBitsAt(double p, double pc, int k) {
  const auto [q, qc] = StepPassRate(p, pc, k);
  double h = 0;
  if (q > 0) h -= q * std::log2(q);
  if (qc > 0) h -= qc * std::log2(qc);
  return k * h;
}
// The noisy forms of the per-task functions above: each credited step's
// outcome passes through the channel independently.
double NoisyMixedAt(double p, double pc, int g, int k, const Channel& ch) {
  const auto [s, sc] = StepPassRate(p, pc, std::max(k, 1));
  const auto [q, qc] = ch.Observed(s, sc);
  const double m = MixedProbability(q, qc, g);
  if (k <= 1 || m >= 1) return m;
  return -std::expm1(k * std::log1p(-m));
}

double NoisyBitsAt(double p, double pc, int k, const Channel& ch) {
  const auto [s, sc] = StepPassRate(p, pc, std::max(k, 1));
  return std::max(k, 1) * ch.BitsAt(s, sc);
}

}  // namespace

Channel ChannelOf(const RewardSpec& r) { return {r.noise.false_positive, r.noise.false_negative}; }

Error InvalidPassRate(const std::string& message) {
  return Error::Invalid("environment.pass_rate", message);
}

// E[q^g] under Beta(a, b) for q = c + s p (c, s >= 0): the binomial expansion
// sum_j C(g, j) c^(g-j) s^j E[p^j], every term non-negative (no cancellation).
double ShiftedBetaPower(double a, double b, int g, double c, double s) {
  if (c <= 0) return std::exp(g * std::log(s)) * si::BetaMoment(a, b, g, 0);
  double sum = 0;
  const double log_c = std::log(c), log_s = std::log(s), lg = std::lgamma(g + 1.0);
  for (int j = 0; j <= g; ++j) {
    const double log_binom = lg - std::lgamma(j + 1.0) - std::lgamma(g - j + 1.0);
    sum += std::exp(log_binom + (g - j) * log_c + j * log_s + (j > 0 ? std::log(si::BetaMoment(a, b, j, 0)) : 0.0));
  }
  return sum;
}

double OutcomeInformative(const PassRateSpec& eff, int g, const Channel& ch) {
  // A group of one always agrees with itself: exactly 0 (1 - E[p] - E[1 - p]
  // would leave a rounding residue of ~1e-16 that a goal would divide by).
  if (g < 2) return 0;
  if (!ch.clean()) {
    if (IsBeta(eff)) {
      // 1 - E[q^G] - E[(1-q)^G], q = fp + s p, 1 - q = fn + s (1 - p), 1 - p ~ Beta(b, a).
      const double v = 1 - ShiftedBetaPower(eff.a, eff.b, g, ch.fp, ch.scale()) -
                       ShiftedBetaPower(eff.b, eff.a, g, ch.fn, ch.scale());
      return std::clamp(v, 0.0, 1.0);
    }
    return Expect(eff, [&](double p, double pc) { return NoisyMixedAt(p, pc, g, 1, ch); });
  }
  if (IsBeta(eff)) {
    const double v = 1 - si::BetaMoment(eff.a, eff.b, g, 0) - si::BetaMoment(eff.a, eff.b, 0, g);
    return std::clamp(v, 0.0, 1.0);
  }
  double e = 0;
  for (const auto& [p, w] : eff.histogram) e += w * MixedProbability(p, 1 - p, g);
  return e;
}

double ProcessInformative(const PassRateSpec& eff, int g, int k, const Channel& ch) {
  if (k <= 1) return OutcomeInformative(eff, g, ch);
  if (g < 1) return 0;
  if (!ch.clean())
    return std::clamp(Expect(eff, [&](double p, double pc) { return NoisyMixedAt(p, pc, g, k, ch); }), 0.0, 1.0);
  return std::clamp(Expect(eff, [&](double p, double pc) { return ProcessMixedAt(p, pc, g, k); }), 0.0, 1.0);
}

double RewardBits(const PassRateSpec& eff, int k, const Channel& ch) {
  if (!ch.clean()) return Expect(eff, [&](double p, double pc) { return NoisyBitsAt(p, pc, k, ch); });
  if (k <= 1 && IsBeta(eff)) return si::BetaExpectedEntropyBits(eff.a, eff.b);
  return Expect(eff, [&](double p, double pc) { return ProcessBitsAt(p, pc, std::max(k, 1)); });
}

// P(0 < q < 1): the share of rollouts an ideal critic (V = q, the observed
// pass probability) gives a non-zero advantage.
double InteriorMass(const PassRateSpec& eff, const Channel& ch) {
  if (IsBeta(eff)) return 1;
  double e = 0;
  for (const auto& [p, w] : eff.histogram) {
    const auto [q, qc] = ch.Observed(p, 1 - p);
    if (q > 0 && qc > 0) e += w;
  }
  return e;
}

// E[2p(1-p)] = E|r - p| of one pass/fail rollout.
double MeanAbsAdvantage(const PassRateSpec& eff) {
  if (IsBeta(eff)) {
    const double s = eff.a + eff.b;
    return 2 * eff.a * eff.b / (s * (s + 1));
  }
  double e = 0;
  for (const auto& [p, w] : eff.histogram) e += w * 2 * p * (1 - p);
  return e;
}

double MassBelow(const PassRateSpec& eff, double x) {
  if (IsBeta(eff)) return si::RegularizedIncompleteBeta(eff.a, eff.b, x);
  double e = 0;
  for (const auto& [p, w] : eff.histogram)
    if (p < x) e += w;
  return e;
}

}  // namespace detail

using namespace detail;

double InformativeProbabilityAt(double p, int group_size) {
  return MixedProbability(p, 1 - p, group_size);
}

double MeanPassRate(const PassRateSpec& pr) { return pr.mean(); }

double InformativeGroupProbability(const PassRateSpec& pr, int group_size) {
  auto eff = EffectivePassRate(pr);
  if (!eff) return std::numeric_limits<double>::quiet_NaN();
  return OutcomeInformative(*eff, group_size);
}

double ProcessInformativeGroupProbability(const PassRateSpec& pr, int group_size, int credited_steps) {
  auto eff = EffectivePassRate(pr);
  if (!eff) return std::numeric_limits<double>::quiet_NaN();
  return ProcessInformative(*eff, group_size, std::max(credited_steps, 1));
}

double RubricRewardBits(const std::vector<RewardSpec::RubricItem>& rubric, double default_pass_rate) {
  auto h = [](double p) { return p <= 0 || p >= 1 ? 0.0 : -(p * std::log2(p) + (1 - p) * std::log2(1 - p)); };
  double wsum = 0;
  for (const auto& it : rubric) wsum += it.weight;
  if (!(wsum > 0)) return 0;
  // The score's distribution, criterion by criterion: scores equal to 1e-9 of
  // the weights' sum are one value.
  constexpr size_t kMaxScores = 65536;
  std::map<long long, double> dist{{0, 1.0}};
  double beyond = 0;  // entropy of the criteria past kMaxScores distinct scores
  for (const auto& it : rubric) {
    const double p = std::clamp(it.pass_rate.value_or(default_pass_rate), 0.0, 1.0);
    if (dist.size() > kMaxScores) {
      beyond += h(p);
      continue;
    }
    const long long step = std::llround(it.weight / wsum * 1e9);
    std::map<long long, double> next;
    for (const auto& [v, q] : dist) {
      if (p < 1) next[v] += q * (1 - p);
      if (p > 0) next[v + step] += q * p;
    }
    dist.swap(next);
  }
  double bits = 0;
  for (const auto& [v, q] : dist)
    if (q > 0) bits -= q * std::log2(q);
  return bits + beyond;
}

}  // namespace rlcost::signal
