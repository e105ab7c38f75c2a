// Internal to the CLI: saying when an answer rests on rlcost's default
// (illustrative) learning curve rather than a measured one (goal.curve).
#pragma once

#include <string>
#include <string_view>

#include "rlcost/scenario.h"

namespace rlcost::api {

// The goal's figures (goal.steps, goal.usd, $ to goal) exist when a target is
// set; they rest on the illustrative curve when goal.curve is not given.
inline bool RestsOnIllustrativeCurve(const Scenario& s) {
  return s.goal.target_pass_rate.has_value() && !s.goal.curve.has_value();
}

inline constexpr std::string_view kIllustrativeCurveNote =
    "the goal figures (goal.steps, goal.usd, $ to goal) rest on rlcost's ILLUSTRATIVE learning curve (default A, B, "
    "C_mid, not measured): set goal.curve to your run's own fit (rlcost forecast) or a published one "
    "(docs/model.md, sec. 7b)";

inline bool MentionsGoal(std::string_view metric) { return metric.find("goal.") != std::string_view::npos; }

}  // namespace rlcost::api
