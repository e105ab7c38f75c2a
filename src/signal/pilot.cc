// The signal stage, pilot files: a pilot's per-task pass rates fitted to a
// Beta (cached), and the effective pass-rate distribution of any spec.
// docs/model.md (signal section).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "signal/signal_parts.h"
#include <map>
#include <mutex>
#include <tuple>

namespace rlcost::signal {

namespace detail {
namespace {

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

}  // namespace

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

}  // namespace detail

using namespace detail;

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

}  // namespace rlcost::signal
