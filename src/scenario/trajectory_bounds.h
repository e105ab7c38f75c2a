// Internal: the bounds a framework puts on an agentic trajectory — a token
// budget over everything after the first prompt, a timeout per tool call —
// turned into what the run generates under them (docs/model.md, "Trajectory
// bounds"). Used by the scenario loader; the simulator applies the same rule
// per trajectory (sim/trajectories.cc).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

// One turn under the budget: `used` tokens after the prompt so far, `budget`
// (0: none). Returns the tokens the turn generates (at least 1, at most what
// is left) — veRL's agent loop gives each generation at most the room left
// (vllm_async_server.py: max_tokens = response_length + prompt_length -
// len(prompt_ids)) and ends the trajectory once the budget is reached.
inline int64_t BoundedResponse(int64_t drawn, int64_t used, int64_t budget) {
  if (budget <= 0) return drawn;
  return std::max<int64_t>(1, std::min(drawn, budget - used));
}

// True when a tool output of `tool_out` tokens after `used` tokens ends the
// trajectory before its next turn (tool_agent_loop.py: a tool response that
// would reach the budget terminates the trajectory and is not appended).
inline bool ToolOutputEnds(int64_t used, int64_t tool_out, int64_t budget) {
  return budget > 0 && used + tool_out >= budget;
}

// A tool call's wall time under the timeout (0: none).
inline double BoundedLatency(double drawn, double timeout_s) {
  return timeout_s > 0 ? std::min(drawn, timeout_s) : drawn;
}

// One turn of a drawn trajectory: its response, and its tool call when it has one.
struct DrawnTurn {
  int64_t response = 0;
  int64_t tool_out = 0;
  double tool_latency_s = 0;
};

// A draw rounded to an integer, and a draw as it is. The simulator passes
// its own draw types (sim/draws.h: the same values, faster), found by
// argument-dependent lookup.
template <class Rng>
long long RoundedDraw(const Distribution& d, Rng& rng) {
  return std::llround(d.Sample(rng));
}
template <class Rng>
double RealDraw(const Distribution& d, Rng& rng) {
  return d.Sample(rng);
}

// One trajectory drawn from the task's own distributions and bounded, the
// one rule of both paths (the loader's draws below, the simulator's
// sim/trajectories.cc): its turns, then each turn's response and, after every
// turn but the last, its tool call; the bounds end it early. `on_turn` gets
// each turn kept; returns the turns kept, `*drawn` the turns drawn.
template <class Rng, class Rounded, class Real, class OnTurn>
int DrawBoundedTrajectory(Rng& rng, const Rounded& turns, const Rounded& response, const Rounded& tool_out,
                          const Real& latency, int64_t budget, double timeout_s, OnTurn&& on_turn,
                          int* drawn = nullptr) {
  const int t = static_cast<int>(std::max<long long>(1, RoundedDraw(turns, rng)));
  if (drawn) *drawn = t;
  int64_t used = 0;  // tokens after the prompt (the budget's count)
  for (int k = 0; k < t; ++k) {
    DrawnTurn d;
    d.response = BoundedResponse(std::max<long long>(1, RoundedDraw(response, rng)), used, budget);
    used += d.response;
    bool last = budget > 0 && used >= budget;  // the budget is reached: no tool call, no further turn
    if (k + 1 < t && !last) {
      const int64_t out = std::max<long long>(0, RoundedDraw(tool_out, rng));
      const double lat = BoundedLatency(std::max(0.0, RealDraw(latency, rng)), timeout_s);
      if (ToolOutputEnds(used, out, budget)) {
        last = true;  // its output would reach the budget: the trajectory ends here
      } else {
        d.tool_out = out;
        d.tool_latency_s = lat;
        used += out;
      }
    }
    on_turn(d, k + 1 < t && !last);
    if (last) return k + 1;
  }
  return t;
}

// Draws kBoundedTrajectories trajectories (fewer once they hold
// kMaxBoundedTurns turns between them, never fewer than kMinBoundedTrajectories) from e's distributions (a fixed
// seed: the same scenario gives the same figures), applies the bounds, and
// replaces turns, response_tokens, tool_output_tokens and tool_latency_s by
// the empirical distributions of what the bounded trajectories generate;
// the originals go to e.unbounded. Nothing changes without a bound. Returns
// an error message (empty: none).
inline constexpr int kBoundedTrajectories = 4096;
inline constexpr int kMinBoundedTrajectories = 64;
inline constexpr int64_t kMaxBoundedTurns = int64_t(1) << 18;
std::string ApplyTrajectoryBounds(EnvironmentSpec& e);

}  // namespace rlcost::scenario_internal
