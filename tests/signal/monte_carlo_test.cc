// Every closed form of the signal stage against a seeded Monte Carlo.
//
// Tolerances are derived, not guessed: a probability q estimated as the share of
// N independent groups has standard error SE = sqrt(q (1 - q) / N); a mean of N
// independent draws has SE = sd / sqrt(N) with sd from the closed form or the
// sample. Each check allows three standard errors (a correct formula fails one
// check with probability ~0.27%; the seeds are fixed, so the outcome is
// reproducible). Beta draws are X / (X + Y) with X ~ Gamma(a), Y ~ Gamma(b).
#include <cmath>
#include <cstdio>
#include <random>

#include <gtest/gtest.h>

#include "rlcost/signal.h"
#include "signal/beta_math.h"

namespace rlcost::signal {
namespace {

class BetaDraw {
 public:
  BetaDraw(double a, double b) : ga_(a, 1.0), gb_(b, 1.0) {}
  double operator()(std::mt19937_64& rng) {
    const double x = ga_(rng), y = gb_(rng);
    return x / (x + y);
  }

 private:
  std::gamma_distribution<double> ga_, gb_;
};

PassRateSpec Beta(double mean, double concentration) {
  PassRateSpec pr;
  pr.kind = PassRateSpec::Kind::kBeta;
  pr.a = mean * concentration;
  pr.b = (1 - mean) * concentration;
  return pr;
}

double ProportionSe(double q, double n) { return std::sqrt(q * (1 - q) / n); }

// Required by issue 3: Beta(mean 0.35, concentration 2) = Beta(0.7, 1.3), informative
// fractions at G = 2, 4, 8, 16 against 10^6 simulated groups each.
TEST(SignalMonteCarlo, InformativeGroupsBeta035Concentration2) {
  const PassRateSpec pr = Beta(0.35, 2.0);
  constexpr int kGroups = 1000000;
  for (int g : {2, 4, 8, 16}) {
    std::mt19937_64 rng(1000 + g);
    BetaDraw beta(pr.a, pr.b);
    int informative = 0;
    for (int i = 0; i < kGroups; ++i) {
      const double p = beta(rng);
      int passes = 0;
      for (int j = 0; j < g; ++j) passes += UniformDouble(rng) < p;
      informative += passes > 0 && passes < g;
    }
    const double q = InformativeGroupProbability(pr, g);
    const double mc = static_cast<double>(informative) / kGroups;
    EXPECT_NEAR(mc, q, 3 * ProportionSe(q, kGroups)) << "G = " << g;
    std::printf("G = %2d: closed form %.5f, Monte Carlo %.5f, 3 SE = %.5f\n", g, q, mc,
                3 * ProportionSe(q, kGroups));
  }
}

// Small shapes (a = b = 0.05: pass rates pile up at 0 and 1) and a large group.
TEST(SignalMonteCarlo, InformativeGroupsSmallShapesLargeGroup) {
  const PassRateSpec pr = Beta(0.5, 0.1);
  constexpr int kGroups = 200000;
  const int g = 256;
  std::mt19937_64 rng(77);
  BetaDraw beta(pr.a, pr.b);
  int informative = 0;
  for (int i = 0; i < kGroups; ++i) {
    const double p = beta(rng);
    int passes = 0;
    for (int j = 0; j < g; ++j) passes += UniformDouble(rng) < p;
    informative += passes > 0 && passes < g;
  }
  const double q = InformativeGroupProbability(pr, g);
  EXPECT_NEAR(static_cast<double>(informative) / kGroups, q, 3 * ProportionSe(q, kGroups));
}

// Process reward: K credited steps, each passing with p^(1/K) independently; a
// group is informative when any step has mixed outcomes across the group.
// The environment of scenarios/process-reward.yaml: Beta(mean 0.10, conc. 1), K = 8, G = 16.
TEST(SignalMonteCarlo, ProcessRewardInformativeGroups) {
  const PassRateSpec pr = Beta(0.10, 1.0);
  const int g = 16, k = 8;
  constexpr int kGroups = 200000;
  std::mt19937_64 rng(4242);
  BetaDraw beta(pr.a, pr.b);
  int informative = 0;
  for (int i = 0; i < kGroups; ++i) {
    const double q = std::pow(beta(rng), 1.0 / k);
    bool mixed = false;
    for (int step = 0; step < k; ++step) {
      int passes = 0;
      for (int j = 0; j < g; ++j) passes += UniformDouble(rng) < q;
      mixed = mixed || (passes > 0 && passes < g);
    }
    informative += mixed;
  }
  const double q = ProcessInformativeGroupProbability(pr, g, k);
  EXPECT_NEAR(static_cast<double>(informative) / kGroups, q, 3 * ProportionSe(q, kGroups));
  // More credited steps can only add informative groups.
  EXPECT_GT(q, InformativeGroupProbability(pr, g));
}

// E[H(p)] (bits) over Beta(0.7, 1.3): mean of H(p) over 10^6 draws; SE from the
// sample standard deviation.
TEST(SignalMonteCarlo, RewardBits) {
  const PassRateSpec pr = Beta(0.35, 2.0);
  constexpr int kDraws = 1000000;
  std::mt19937_64 rng(99);
  BetaDraw beta(pr.a, pr.b);
  double sum = 0, sum2 = 0;
  for (int i = 0; i < kDraws; ++i) {
    const double h = signal_internal::BinaryEntropyBits(beta(rng));
    sum += h;
    sum2 += h * h;
  }
  const double mean = sum / kDraws;
  const double se = std::sqrt((sum2 / kDraws - mean * mean) / kDraws);
  EXPECT_NEAR(mean, signal_internal::BetaExpectedEntropyBits(pr.a, pr.b), 3 * se);
}

// Hard-task share P(p < 1/R) (1/p > R) against the share of drawn pass rates below 1/R.
TEST(SignalMonteCarlo, HardTaskFraction) {
  const PassRateSpec pr = Beta(0.35, 2.0);
  constexpr int kDraws = 1000000;
  for (double r : {16.0, 100.0}) {
    std::mt19937_64 rng(static_cast<uint64_t>(r));
    BetaDraw beta(pr.a, pr.b);
    int hard = 0;
    for (int i = 0; i < kDraws; ++i) hard += 1 / beta(rng) > r;
    const double q = signal_internal::RegularizedIncompleteBeta(pr.a, pr.b, 1 / r);
    EXPECT_NEAR(static_cast<double>(hard) / kDraws, q, 3 * ProportionSe(q, kDraws)) << "R = " << r;
  }
}

// Dynamic sampling as veRL's DAPO trainer loops (recipe/dapo/dapo_ray_trainer.py):
// rounds of gen_batch_prompts (here = prompts_per_step = 128) groups until 128
// informative ones are kept. The mean rounds per step over 2000 steps has SE =
// sample sd / sqrt(2000).
TEST(SignalMonteCarlo, DynamicSamplingOversampling) {
  Scenario s;
  s.algorithm.name = Algorithm::kDapo;
  s.algorithm.dynamic_sampling = true;
  s.algorithm.group_size = 8;
  s.algorithm.prompts_per_step = 128;
  s.environment.pass_rate = Beta(0.10, 1.0);  // hard tasks: many all-fail groups
  auto sum = Analyze(s);
  ASSERT_TRUE(sum.has_value()) << sum.error().ToString();

  constexpr int kSteps = 2000;
  std::mt19937_64 rng(5150);
  BetaDraw beta(s.environment.pass_rate.a, s.environment.pass_rate.b);
  double rounds_sum = 0, rounds_sq = 0;
  for (int step = 0; step < kSteps; ++step) {
    int found = 0, rounds = 0;
    while (found < s.algorithm.prompts_per_step) {
      ++rounds;
      for (int group = 0; group < s.algorithm.prompts_per_step; ++group) {
        const double pr = beta(rng);
        int passes = 0;
        for (int j = 0; j < s.algorithm.group_size; ++j) passes += UniformDouble(rng) < pr;
        found += passes > 0 && passes < s.algorithm.group_size;
      }
    }
    rounds_sum += rounds;
    rounds_sq += double(rounds) * rounds;
  }
  const double mean = rounds_sum / kSteps;
  const double sd = std::sqrt(std::max(0.0, rounds_sq / kSteps - mean * mean));
  const double se = std::max(sd, 0.5) / std::sqrt(double(kSteps));  // floor: rounds are whole numbers
  EXPECT_NEAR(mean, sum->gen_rounds_per_step, 3 * se);
  EXPECT_NEAR(sum->oversampling, sum->gen_rounds_per_step, 1e-12);  // B = P
  EXPECT_NEAR(sum->rollouts_per_step, sum->oversampling * 128 * 8, 1e-9);
}

}  // namespace
}  // namespace rlcost::signal
