#include "scenario/trajectory_bounds.h"

#include <cmath>
#include <random>
#include <vector>

namespace rlcost::scenario_internal {

std::string ApplyTrajectoryBounds(EnvironmentSpec& e) {
  if (e.max_trajectory_tokens <= 0 && e.tool_timeout_s <= 0) return {};
  EnvironmentSpec::Unbounded u{e.turns, e.response_tokens, e.tool_output_tokens, e.tool_latency_s};
  const int64_t budget = e.max_trajectory_tokens;
  std::mt19937_64 rng(0x7B0D5EEDULL);
  std::vector<double> turns, responses, outputs, latencies;
  turns.reserve(kBoundedTrajectories);
  for (int i = 0; i < kBoundedTrajectories; ++i) {
    // Drawn as the simulator draws a trajectory (sim/trajectories.cc): the
    // turns, then each turn's response and, after every turn but the last,
    // its tool call.
    const int t = static_cast<int>(std::max<long long>(1, std::llround(u.turns.Sample(rng))));
    int64_t used = 0;
    int done = 0;
    for (int k = 0; k < t; ++k) {
      const int64_t r = BoundedResponse(std::max<long long>(1, std::llround(u.response_tokens.Sample(rng))), used,
                                        budget);
      used += r;
      responses.push_back(double(r));
      ++done;
      if (budget > 0 && used >= budget) break;  // the budget is reached: no tool call, no further turn
      if (k + 1 < t) {
        const int64_t o = std::max<long long>(0, std::llround(u.tool_output_tokens.Sample(rng)));
        const double lat = BoundedLatency(std::max(0.0, u.tool_latency_s.Sample(rng)), e.tool_timeout_s);
        if (ToolOutputEnds(used, o, budget)) break;  // its output would reach the budget: the trajectory ends
        used += o;
        outputs.push_back(double(o));
        latencies.push_back(lat);
      }
    }
    turns.push_back(double(done));
  }
  auto set = [](Distribution& d, std::vector<double> v) -> std::string {
    if (v.empty()) return {};  // no tool call survived: the distribution is never used
    auto em = Distribution::Empirical(std::move(v));
    if (!em) return em.error();
    d = *em;
    return {};
  };
  if (auto m = set(e.turns, std::move(turns)); !m.empty()) return m;
  if (auto m = set(e.response_tokens, std::move(responses)); !m.empty()) return m;
  if (auto m = set(e.tool_output_tokens, std::move(outputs)); !m.empty()) return m;
  if (auto m = set(e.tool_latency_s, std::move(latencies)); !m.empty()) return m;
  e.unbounded = std::move(u);
  return {};
}

}  // namespace rlcost::scenario_internal
