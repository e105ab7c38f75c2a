// The signal stage: informative groups, useful samples, reward bits,
// dynamic-sampling oversampling, exploration hardness, the pilot fit and the
// learning curve. Every formula is derived in docs/model.md (signal section).
#include "rlcost/signal.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "core/count.h"
#include "signal/beta_math.h"
#include "signal/goal.h"

namespace rlcost::signal {

namespace si = rlcost::signal_internal;

namespace {

constexpr double kImpracticalProbability = 1.0 / kMaxOversampling;  // 1e-4 (issue 3)

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

// The verifier as a noisy channel on the true pass/fail outcome
// (environment.reward.noise; docs/model.md, "Noisy rewards"): a wrong rollout
// is rewarded with probability fp, a right one is not with probability fn.
struct Channel {
  double fp = 0, fn = 0;
  bool clean() const { return fp == 0 && fn == 0; }
  double scale() const { return 1 - fp - fn; }  // 1 - fp - fn > 0
  // Observed pass probability q = fp + (1 - fp - fn) p and 1 - q = fn + (1 - fp - fn)(1 - p):
  // sums of non-negative terms, so both stay accurate near 0 and 1.
  std::pair<double, double> Observed(double p, double pc) const {
    if (clean()) return {p, pc};
    return {fp + scale() * p, fn + scale() * pc};
  }
  // I(observed; true) per Bernoulli(p) outcome: H(q) - p H(fn) - (1-p) H(fp).
  double BitsAt(double p, double pc) const {
    const auto [q, qc] = Observed(p, pc);
    double h = 0;
    if (q > 0) h -= q * std::log2(q);
    if (qc > 0) h -= qc * std::log2(qc);
    if (clean()) return h;
    return std::max(0.0, h - p * si::BinaryEntropyBits(fn) - pc * si::BinaryEntropyBits(fp));
  }
};

Channel ChannelOf(const RewardSpec& r) { return {r.noise.false_positive, r.noise.false_negative}; }

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

Error InvalidPassRate(const std::string& message) {
  return Error::Invalid("environment.pass_rate", message);
}

bool IsBeta(const PassRateSpec& pr) { return pr.kind != PassRateSpec::Kind::kHistogram; }

// Expectation of f(p, 1-p) over an effective distribution (Beta or histogram).
template <typename F>
double Expect(const PassRateSpec& eff, const F& f) {
  if (IsBeta(eff)) return si::BetaExpectation(eff.a, eff.b, f);
  double e = 0;
  for (const auto& [p, w] : eff.histogram) e += w * f(p, 1 - p);
  return e;
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

double OutcomeInformative(const PassRateSpec& eff, int g, const Channel& ch = {}) {
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

double ProcessInformative(const PassRateSpec& eff, int g, int k, const Channel& ch = {}) {
  if (k <= 1) return OutcomeInformative(eff, g, ch);
  if (g < 1) return 0;
  if (!ch.clean())
    return std::clamp(Expect(eff, [&](double p, double pc) { return NoisyMixedAt(p, pc, g, k, ch); }), 0.0, 1.0);
  return std::clamp(Expect(eff, [&](double p, double pc) { return ProcessMixedAt(p, pc, g, k); }), 0.0, 1.0);
}

double RewardBits(const PassRateSpec& eff, int k, const Channel& ch = {}) {
  if (!ch.clean()) return Expect(eff, [&](double p, double pc) { return NoisyBitsAt(p, pc, k, ch); });
  if (k <= 1 && IsBeta(eff)) return si::BetaExpectedEntropyBits(eff.a, eff.b);
  return Expect(eff, [&](double p, double pc) { return ProcessBitsAt(p, pc, std::max(k, 1)); });
}

// P(0 < q < 1): the share of rollouts an ideal critic (V = q, the observed
// pass probability) gives a non-zero advantage.
double InteriorMass(const PassRateSpec& eff, const Channel& ch = {}) {
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

// Dynamic sampling in rounds, as veRL's DAPO trainer loops
// (recipe/dapo/dapo_ray_trainer.py, RayDAPOTrainer.fit): generate a round of
// `per_round` groups, keep the informative ones, generate another round while
// fewer than `need` are kept (at most `max_rounds`, 0 = no limit), then train on
// the first `need`. docs/model.md, "Dynamic sampling (DAPO)".
struct RoundPlan {
  double need = 1;       // prompts_per_step
  double per_round = 1;  // gen_batch_prompts
  int max_rounds = 0;    // max_gen_batches
};

RoundPlan PlanOf(const AlgorithmSpec& alg) {
  RoundPlan plan;
  plan.need = alg.prompts_per_step;
  plan.per_round = alg.gen_batch_prompts > 0 ? alg.gen_batch_prompts : alg.prompts_per_step;
  plan.max_rounds = alg.max_gen_batches;
  return plan;
}

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

// What one step trains on, given P(informative group) and the per-rollout share
// without dynamic sampling.
struct StepSignal {
  double informative_fraction = 0;  // of trained rollouts
  double oversampling = 1;
  double rounds = 1;                // generation rounds per step (expected)
  double fail_probability = 0;      // P(the batch is still short after max_gen_batches rounds)
  bool impractical = false;
};

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

// ---- pilot files -------------------------------------------------------------

struct CacheKey {
  int samples_per_task;
  std::vector<double> rates;
  bool operator<(const CacheKey& o) const {
    return std::tie(samples_per_task, rates) < std::tie(o.samples_per_task, o.rates);
  }
};

std::mutex g_fit_mutex;
std::map<CacheKey, PilotFit>& FitCache() {
  static auto* cache = new std::map<CacheKey, PilotFit>();
  return *cache;
}
constexpr size_t kFitCacheSize = 32;

// Tolerance for "k/n": 1e-6 per sample, so rates printed with six decimals still
// count as multiples of 1/n (a printed rate is off by up to 5e-7, so rate*n by 5e-7 n).
bool IsMultipleOf(double rate, int n) {
  const double x = rate * n;
  return std::fabs(x - std::round(x)) <= 1e-6 * std::max(1, n);
}

constexpr int kMaxInferredSamples = 1024;

Result<PilotFit> ComputeFit(const PassRateSpec& pr) {
  const std::string path = "environment.pass_rate.file";
  const std::string where = pr.file.empty() ? std::string("the pilot file") : pr.file;
  if (pr.task_pass_rates.empty()) return Fail(Error::Invalid(path, fmt::format("{}: no pass rates", where)));
  for (size_t i = 0; i < pr.task_pass_rates.size(); ++i) {
    const double r = pr.task_pass_rates[i];
    if (!(r >= 0 && r <= 1))
      return Fail(Error::Invalid(path, fmt::format("{}: task {} has pass rate {}; expected a number in [0, 1]",
                                                   where, i + 1, r)));
  }
  if (pr.samples_per_task < 0)
    return Fail(Error::Invalid("environment.pass_rate.samples_per_task",
                               fmt::format("{}; expected a positive number of samples (0 = infer)",
                                           pr.samples_per_task)));
  int n = pr.samples_per_task;
  if (n == 0) {
    for (int cand = 1; cand <= kMaxInferredSamples && n == 0; ++cand) {
      bool all = true;
      for (double r : pr.task_pass_rates) {
        if (!IsMultipleOf(r, cand)) {
          all = false;
          break;
        }
      }
      if (all) n = cand;
    }
    if (n == 0)
      return Fail(Error::Invalid(
          path, fmt::format("{}: the pass rates are not multiples of 1/n for any n <= {}; set "
                            "environment.pass_rate.samples_per_task to the samples per task of the pilot",
                            where, kMaxInferredSamples)));
  } else {
    for (size_t i = 0; i < pr.task_pass_rates.size(); ++i) {
      if (!IsMultipleOf(pr.task_pass_rates[i], n))
        return Fail(Error::Invalid(
            path, fmt::format("{}: task {} has pass rate {}, not a multiple of 1/{} (samples_per_task)", where,
                              i + 1, pr.task_pass_rates[i], n)));
    }
  }

  si::BinomialCounts counts;
  counts.n = n;
  counts.tasks_with_k.assign(n + 1, 0.0);
  double sum = 0;
  for (double r : pr.task_pass_rates) {
    const int k = static_cast<int>(std::lround(r * n));
    counts.tasks_with_k[std::clamp(k, 0, n)] += 1;
    sum += r;
  }
  const si::BetaBinomialFit bb = si::FitBetaBinomial(counts);

  PilotFit fit;
  fit.present = true;
  fit.tasks = static_cast<int>(pr.task_pass_rates.size());
  fit.samples_per_task = n;
  fit.observed_mean = sum / fit.tasks;
  fit.never_solved = static_cast<int>(counts.tasks_with_k[0]);
  fit.always_solved = static_cast<int>(counts.tasks_with_k[n]);
  fit.fit_a = bb.a;
  fit.fit_b = bb.b;
  fit.method = "maximum likelihood (Beta-binomial, Nelder-Mead over ln a, ln b)";
  fit.fit_mass_below_1_over_n = si::RegularizedIncompleteBeta(bb.a, bb.b, 1.0 / n);
  fit.fit_mean = bb.a / (bb.a + bb.b);
  fit.fit_concentration = bb.a + bb.b;
  fit.expected_tasks_below_1_over_n = fit.tasks * fit.fit_mass_below_1_over_n;
  fit.expected_never_solved = fit.tasks * si::BetaMoment(bb.a, bb.b, 0, n);
  fit.log_likelihood = bb.log_likelihood;
  fit.converged = bb.converged;
  fit.iterations = bb.iterations;
  fit.at_bound = bb.at_bound;
  return fit;
}

// A histogram as the Beta with the same mean and variance (used where the model
// needs a concentration: the learning curve).
PassRateSpec MomentMatchedBeta(const PassRateSpec& eff) {
  if (IsBeta(eff)) return eff;
  double m = 0, m2 = 0;
  for (const auto& [p, w] : eff.histogram) {
    m += w * p;
    m2 += w * p * p;
  }
  const double var = m2 - m * m;
  m = std::clamp(m, 1e-6, 1 - 1e-6);
  double kappa = var > 0 ? m * (1 - m) / var - 1 : si::kFitMaxShape;
  kappa = std::clamp(kappa, 2 * si::kFitMinShape, si::kFitMaxShape);
  PassRateSpec out;
  out.kind = PassRateSpec::Kind::kBeta;
  out.a = m * kappa;
  out.b = (1 - m) * kappa;
  return out;
}

std::string Percent(double x) { return fmt::format("{:.1f}%", 100 * x); }

}  // namespace

// ---- public functions --------------------------------------------------------

double InformativeProbabilityAt(double p, int group_size) {
  return MixedProbability(p, 1 - p, group_size);
}

Result<PilotFit> FitPilot(const PassRateSpec& pr) {
  if (pr.kind != PassRateSpec::Kind::kTasks)
    return Fail(InvalidPassRate("not a pilot file: FitPilot needs pass_rate: {file: ...}"));
  CacheKey key{pr.samples_per_task, pr.task_pass_rates};
  {
    std::lock_guard<std::mutex> lock(g_fit_mutex);
    auto it = FitCache().find(key);
    if (it != FitCache().end()) return it->second;
  }
  auto fit = ComputeFit(pr);
  if (!fit) return fit;
  std::lock_guard<std::mutex> lock(g_fit_mutex);
  if (FitCache().size() >= kFitCacheSize) FitCache().clear();
  FitCache().emplace(std::move(key), *fit);
  return fit;
}

Result<PassRateSpec> EffectivePassRate(const PassRateSpec& pr) {
  switch (pr.kind) {
    case PassRateSpec::Kind::kBeta:
      if (!(pr.a > 0 && pr.b > 0 && std::isfinite(pr.a) && std::isfinite(pr.b)))
        return Fail(InvalidPassRate(fmt::format("Beta(a = {}, b = {}); expected a > 0 and b > 0", pr.a, pr.b)));
      return pr;
    case PassRateSpec::Kind::kHistogram: {
      if (pr.histogram.empty()) return Fail(InvalidPassRate("histogram is empty"));
      double total = 0;
      for (const auto& [p, w] : pr.histogram) {
        if (!(p >= 0 && p <= 1))
          return Fail(InvalidPassRate(fmt::format("histogram pass rate {}; expected a number in [0, 1]", p)));
        if (!(w >= 0)) return Fail(InvalidPassRate(fmt::format("histogram weight {} at {}; expected >= 0", w, p)));
        total += w;
      }
      if (!(std::fabs(total - 1) <= 1e-6))
        return Fail(InvalidPassRate(fmt::format("histogram weights sum to {}; expected 1", total)));
      PassRateSpec out = pr;
      for (auto& hw : out.histogram) hw.second /= total;
      return out;
    }
    case PassRateSpec::Kind::kTasks: {
      auto fit = FitPilot(pr);
      if (!fit) return Fail(fit.error());
      PassRateSpec out;
      out.kind = PassRateSpec::Kind::kBeta;
      out.a = fit->fit_a;
      out.b = fit->fit_b;
      return out;
    }
  }
  return Fail(ErrorCode::kInternal, "environment.pass_rate", "unknown pass-rate kind");
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

Result<Summary> Analyze(const Scenario& s, TextDetail detail) {
  const AlgorithmSpec& alg = s.algorithm;
  const RewardSpec& reward = s.environment.reward;
  if (alg.group_size < 1)
    return Fail(Error::Invalid("algorithm.group_size", fmt::format("{}; expected >= 1", alg.group_size)));
  if (alg.prompts_per_step < 1)
    return Fail(Error::Invalid("algorithm.prompts_per_step", fmt::format("{}; expected >= 1", alg.prompts_per_step)));
  if (alg.steps < 0) return Fail(Error::Invalid("algorithm.steps", fmt::format("{}; expected >= 0", alg.steps)));
  const bool process = reward.type == RewardType::kProcess;
  if (process && reward.credited_steps < 1)
    return Fail(Error::Invalid("environment.reward.credited_steps",
                               fmt::format("{}; expected >= 1", reward.credited_steps)));
  for (auto [rate, key] : {std::pair{reward.noise.false_positive, "false_positive"},
                            std::pair{reward.noise.false_negative, "false_negative"}}) {
    if (!(rate >= 0 && rate < 1))
      return Fail(Error::Invalid(fmt::format("environment.reward.noise.{}", key),
                                 fmt::format("{}; expected a rate in [0, 1)", rate)));
  }
  if (!(reward.noise.false_positive + reward.noise.false_negative < 1))
    return Fail(Error::Invalid("environment.reward.noise",
                               fmt::format("false_positive + false_negative = {}; expected a sum below 1",
                                           reward.noise.false_positive + reward.noise.false_negative)));
  const Channel ch = ChannelOf(reward);
  const int g = alg.group_size;
  const int k = process ? reward.credited_steps : 1;

  Summary out;
  PassRateSpec eff;
  if (s.environment.pass_rate.kind == PassRateSpec::Kind::kTasks) {
    auto fit = FitPilot(s.environment.pass_rate);
    if (!fit) return Fail(fit.error());
    out.pilot = *fit;
    eff.a = fit->fit_a;
    eff.b = fit->fit_b;
  } else {
    auto eff_or = EffectivePassRate(s.environment.pass_rate);
    if (!eff_or) return Fail(eff_or.error());
    eff = *eff_or;
  }
  out.mean_pass_rate = MeanPassRate(eff);
  out.outcome_informative_group_probability = OutcomeInformative(eff, g, ch);
  out.informative_group_probability =
      process ? ProcessInformative(eff, g, k, ch) : out.outcome_informative_group_probability;
  out.mean_abs_advantage = MeanAbsAdvantage(eff);
  out.reward_signal_factor = ch.scale();
  out.observed_pass_rate = ch.fp + ch.scale() * out.mean_pass_rate;

  const bool ppo = alg.critic;  // a value baseline, not the group's mean
  const double per_rollout = ppo ? InteriorMass(eff, ch) : out.informative_group_probability;
  const RoundPlan plan = PlanOf(alg);
  const StepSignal step = SignalOfStep(out.informative_group_probability, per_rollout, alg.dynamic_sampling, plan);

  out.rollouts_trained_per_step = static_cast<double>(alg.prompts_per_step) * g;
  out.oversampling = step.oversampling;
  out.rollouts_per_step = out.rollouts_trained_per_step * step.oversampling;
  out.gen_rounds_per_step = step.rounds;
  out.rollouts_per_round = alg.dynamic_sampling ? plan.per_round * g : out.rollouts_trained_per_step;
  out.gen_failure_probability = step.fail_probability;
  out.informative_fraction = step.informative_fraction;
  // A noisy reward's expected gradient is (1 - fp - fn) times the clean one
  // (docs/model.md, "Noisy rewards"): a useful sample counts for that much.
  out.useful_samples_per_step = out.rollouts_trained_per_step * step.informative_fraction * ch.scale();
  out.full_batch_impractical = step.impractical;
  out.reward_bits_per_rollout = RewardBits(eff, k, ch);
  // A rubric's graded score carries its own information (docs/model.md, "Rubrics").
  const auto& rubric = s.environment.reward.rubric;
  if (!rubric.empty()) out.reward_bits_per_rollout = RubricRewardBits(rubric, out.mean_pass_rate);
  // Environment failures (docs/model.md, "Environment failures"): a failed
  // trajectory is generated in full and thrown away. retry: generate until the
  // batch is full (1/(1 - f) as many); drop: train on the (1 - f) that finish.
  if (const EnvFailureSpec& fails = s.environment.failures; fails.rate > 0) {
    const double f = fails.rate;
    if (fails.retry) {
      out.rollouts_per_step /= 1 - f;
      out.rollouts_per_round /= 1 - f;
      out.oversampling /= 1 - f;
    } else {
      out.rollouts_trained_per_step *= 1 - f;
      out.useful_samples_per_step *= 1 - f;
      out.oversampling /= 1 - f;
    }
    out.env_failure_rate = f;
    out.wasted_rollouts_per_step = out.rollouts_per_step * f;
  }

  // Exploration hardness: tasks whose expected rollouts to a first success (1/p)
  // exceed the rollouts the run spends on each of them.
  const int tasks = out.pilot.present ? out.pilot.tasks : 0;
  out.rollouts_per_task = tasks > 0 ? alg.steps * out.rollouts_per_step / tasks : g;
  out.hard_task_fraction = out.rollouts_per_task > 1 ? MassBelow(eff, 1 / out.rollouts_per_task) : 1.0;

  // ---- notes, in plain words ----
  if (detail == TextDetail::kNumbers) return out;
  const std::string algo(ToString(alg.name));
  if (out.pilot.present) {
    const PilotFit& f = out.pilot;
    out.notes.push_back(fmt::format(
        "pilot: {} of {} tasks never solved in {} samples (and {} always solved); the Beta-binomial fit "
        "(a = {:.3f}, b = {:.3f}, mean {:.3f} vs the file's {:.3f}) puts {} of tasks below p = 1/{} "
        "(about {:.0f} tasks) and expects {:.1f} tasks at 0/{}",
        f.never_solved, f.tasks, f.samples_per_task, f.always_solved, f.fit_a, f.fit_b, f.fit_mean,
        f.observed_mean, Percent(f.fit_mass_below_1_over_n), f.samples_per_task, f.expected_tasks_below_1_over_n,
        f.expected_never_solved, f.samples_per_task));
    if (s.environment.pass_rate.samples_per_task == 0)
      out.notes.push_back(fmt::format("pilot: {} samples per task inferred from the rates' granularity",
                                      f.samples_per_task));
    if (f.at_bound)
      out.notes.push_back(
          "pilot: the fit ran to a bound (a or b at 0.001 or 10^6): the file does not pin the spread of "
          "pass rates down; treat the fitted distribution with care");
  }
  if (ppo) {
    out.notes.push_back(fmt::format(
        "ppo: the critic's advantage is non-zero for every rollout whose reward differs from the critic's "
        "prediction; with a critic that has learned each task's pass rate p, that is every rollout of a task "
        "with 0 < p < 1 ({} of rollouts); the mean |advantage| per rollout is E[2p(1-p)] = {:.3f}",
        Percent(InteriorMass(eff)), out.mean_abs_advantage));
  } else {
    out.notes.push_back(fmt::format(
        "{} of groups of {} have mixed {} (mean pass rate {:.3f}); only those carry a gradient under {}",
        Percent(out.informative_group_probability), g,
        process ? "step rewards" : (ch.clean() ? "pass/fail outcomes" : "rewards (as the verifier gives them)"),
        out.mean_pass_rate, algo));
  }
  if (alg.dynamic_sampling) {
    if (step.impractical) {
      out.notes.push_back(fmt::format(
          "a full batch of informative groups is practically impossible: P = {:.3g} per group; costs assume "
          "regeneration stops at {:.0f} rollouts generated per rollout trained on, with {} of the batch "
          "informative",
          out.informative_group_probability, kMaxOversampling, Percent(step.informative_fraction)));
    } else {
      out.notes.push_back(fmt::format(
          "dynamic sampling: {:.2f} rollouts generated per rollout trained on: {:.2f} generation rounds of {:.0f} "
          "prompts per step on average, until {} groups with mixed rewards are kept (P = {:.4f} per group; "
          "1/P = {:.2f} if generation could stop at the last one needed), as veRL's DAPO trainer loops",
          step.oversampling, step.rounds, plan.per_round, alg.prompts_per_step, out.informative_group_probability,
          1 / out.informative_group_probability));
    }
    if (plan.max_rounds > 0 && step.fail_probability > 1e-3) {
      out.notes.push_back(fmt::format(
          "dynamic sampling: {} of steps are still short of {} informative groups after max_gen_batches = {} "
          "rounds; veRL's DAPO trainer stops the run with an error there (costs count {} rounds for such a step)",
          Percent(step.fail_probability), alg.prompts_per_step, plan.max_rounds, plan.max_rounds));
    }
  }
  if (!rubric.empty()) {
    int stated = 0;
    for (const auto& it : rubric) stated += it.pass_rate ? 1 : 0;
    out.notes.push_back(fmt::format(
        "reward: {:.3f} bits per rollout, the entropy of the rubric's graded score (sum of weight x verdict over "
        "{} criteria, normalised by the weights' sum), ASSUMED: each criterion met independently of the others, "
        "{} at its stated pass rate{}; {:.3f} bits for one pass/fail outcome",
        out.reward_bits_per_rollout, rubric.size(), stated,
        stated == int(rubric.size()) ? std::string()
                                     : fmt::format(", the rest at the mean pass rate {:.3f}", out.mean_pass_rate),
        RewardBits(eff, k, ch)));
  } else if (process) {
    out.notes.push_back(fmt::format(
        "process reward: {:.2f} bits per rollout from {} credited steps (each step passes with p^(1/{}), "
        "independently; {} bits at most) vs {:.3f} for the outcome alone; {} of groups informative vs {} "
        "with the outcome alone",
        out.reward_bits_per_rollout, k, k, k, RewardBits(eff, 1),
        Percent(out.informative_group_probability), Percent(out.outcome_informative_group_probability)));
  } else if (!ch.clean()) {
    out.notes.push_back(fmt::format(
        "reward: {:.3f} bits per rollout about the true outcome (mutual information of the noisy reward and "
        "the outcome, E[H(q)] - E[p] H(fn) - E[1-p] H(fp); {:.3f} with a correct verifier)",
        out.reward_bits_per_rollout, RewardBits(eff, 1)));
  } else {
    out.notes.push_back(fmt::format(
        "reward: {:.3f} bits per rollout (expected binary entropy E[H(p)] of one pass/fail outcome; 1 at most)",
        out.reward_bits_per_rollout));
  }
  if (!ch.clean()) {
    out.notes.push_back(fmt::format(
        "noisy reward (assumed verifier error rates, as given): {} of wrong rollouts rewarded, {} of right ones "
        "not; the rewarded share is {:.3f} (true pass rate {:.3f}); groups count as informative on the rewards "
        "they show, and each useful sample carries {:.2f}x the expected gradient of a clean one (1 - {} - {})",
        Percent(ch.fp), Percent(ch.fn), out.observed_pass_rate, out.mean_pass_rate, ch.scale(), ch.fp, ch.fn));
  }
  if (const auto& v = s.environment.reward.verifier; v.kind == VerifierKind::kEnsemble) {
    out.notes.push_back(fmt::format(
        "ensemble of {} verifiers, {}: its error rates {} / {} follow from the members' as given, ASSUMED "
        "independent given whether the rollout is right (correlated judges err together and do worse)",
        v.members.size(),
        v.aggregation == RewardSpec::Aggregation::kWeighted
            ? fmt::format("weighted vote (rewarded when P(right | votes) > 1/2, prior {:.3f})",
                          s.environment.pass_rate.mean())
            : std::string("majority vote"),
        Percent(ch.fp), Percent(ch.fn)));
  }
  if (out.env_failure_rate > 0) {
    out.notes.push_back(fmt::format(
        "environment failures: {} of trajectories fail (as given) and are {}: {:.0f} of the {:.0f} generated per step "
        "are wasted (ASSUMED: each fails after running its full length, as a timeout does)",
        Percent(out.env_failure_rate),
        s.environment.failures.retry ? "retried until the batch is full" : "dropped (the step trains on the rest)",
        out.wasted_rollouts_per_step, out.rollouts_per_step));
  }
  const std::string spend =
      tasks > 0 ? fmt::format("{} steps x {:.0f} rollouts over {} pilot tasks", alg.steps, out.rollouts_per_step, tasks)
                : fmt::format("every prompt assumed fresh, so {} rollouts per task", g);
  out.notes.push_back(fmt::format(
      "exploration: {} of tasks need more than {:.4g} rollouts on average for a first success (1/p > {:.4g}, "
      "the rollouts the run spends per task: {})",
      Percent(out.hard_task_fraction), out.rollouts_per_task, out.rollouts_per_task, spend));
  return out;
}

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
