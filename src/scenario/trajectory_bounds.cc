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
  // Bounded work whatever the file says (turns go to 10^4): at most about
  // kMaxBoundedTurns turns in all, and at least kMinBoundedTrajectories trajectories.
  int64_t drawn_turns = 0;
  for (int i = 0; i < kBoundedTrajectories && (i < kMinBoundedTrajectories || drawn_turns < kMaxBoundedTurns); ++i) {
    int drawn = 0;
    const int kept = DrawBoundedTrajectory(
        rng, u.turns, u.response_tokens, u.tool_output_tokens, u.tool_latency_s, budget, e.tool_timeout_s,
        [&](const DrawnTurn& d, bool call) {
          responses.push_back(double(d.response));
          if (call) {
            outputs.push_back(double(d.tool_out));
            latencies.push_back(d.tool_latency_s);
          }
        },
        &drawn);
    drawn_turns += drawn;
    turns.push_back(double(kept));
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
