// Internal: the bounds a framework puts on an agentic trajectory — a token
// budget over everything after the first prompt, a timeout per tool call —
// turned into what the run generates under them (docs/model.md, "Trajectory
// bounds"). Used by the scenario loader; the simulator applies the same rule
// per trajectory (sim/trajectories.cc).
#pragma once

#include <algorithm>
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

// Draws kBoundedTrajectories trajectories from e's distributions (a fixed
// seed: the same scenario gives the same figures), applies the bounds, and
// replaces turns, response_tokens, tool_output_tokens and tool_latency_s by
// the empirical distributions of what the bounded trajectories generate;
// the originals go to e.unbounded. Nothing changes without a bound. Returns
// an error message (empty: none).
inline constexpr int kBoundedTrajectories = 4096;
std::string ApplyTrajectoryBounds(EnvironmentSpec& e);

}  // namespace rlcost::scenario_internal
