// The error rates of an ensemble of verifiers from its members' (docs/model.md,
// "Ensembles of verifiers"): every pattern of pass/fail votes, weighted by its
// probability given a right and given a wrong rollout, members independent
// given the outcome.
#include <cstdint>

#include "rlcost/scenario.h"

namespace rlcost {

RewardSpec::Noise EnsembleNoise(const RewardSpec::Verifier& ensemble, double prior) {
  const auto& m = ensemble.members;
  const size_t k = m.size();
  RewardSpec::Noise out;
  if (k == 0 || k > 20) return out;
  for (uint32_t votes = 0; votes < (1u << k); ++votes) {
    double p_right = 1, p_wrong = 1;  // P(this pattern | right rollout), P(... | wrong rollout)
    size_t passes = 0;
    for (size_t i = 0; i < k; ++i) {
      const bool pass = (votes >> i) & 1u;
      passes += pass;
      p_right *= pass ? 1 - m[i].noise.false_negative : m[i].noise.false_negative;
      p_wrong *= pass ? m[i].noise.false_positive : 1 - m[i].noise.false_positive;
    }
    const bool rewarded = ensemble.aggregation == RewardSpec::Aggregation::kMajority
                              ? 2 * passes > k
                              : prior * p_right > (1 - prior) * p_wrong;  // ties: not rewarded
    if (rewarded) {
      out.false_positive += p_wrong;
    } else {
      out.false_negative += p_right;
    }
  }
  return out;
}

}  // namespace rlcost
