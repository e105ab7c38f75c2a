// Saying what the goal's figures (goal.steps, goal.usd, $ to goal) rest on:
// rlcost's default (illustrative) learning curve, a published fit borrowed
// from another run (`goal.curve: NAME`, catalog/curves.yaml), or the user's
// own numbers. The command line, the server and the Python module put the
// same keys on every answer that uses them:
//
//   nlohmann::json j = ...;                      // an object answer (price, waterfall)
//   api::FlagGoalCurve(j, scenario);             // goal_curve_is_illustrative, goal_curve, notes[]
//   api::FlagGoalRows(rows, scenario, pred);     // array answers (claims, sensitivity): per row
#pragma once

#include <functional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

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

// What the goal's curve is: "illustrative" (the defaults), "published:NAME"
// (a preset), "given" (the user's numbers); "" when no target is set.
inline std::string GoalCurveSource(const Scenario& s) {
  if (!s.goal.target_pass_rate) return "";
  if (!s.goal.curve) return "illustrative";
  if (!s.goal.curve->preset.empty()) return "published:" + s.goal.curve->preset;
  return "given";
}

// The note an answer carries about its curve, or "" when it needs none (no
// target, or the user's own numbers).
inline std::string GoalCurveNote(const Scenario& s) {
  if (RestsOnIllustrativeCurve(s)) return std::string(kIllustrativeCurveNote);
  if (s.goal.target_pass_rate && s.goal.curve && !s.goal.curve->preset.empty()) {
    const LearningCurveSpec& c = *s.goal.curve;
    return std::string("the goal figures rest on a published learning curve ") +
           (c.borrowed ? "BORROWED from another model's run" : "measured on this model") + ": " + c.preset + " (" +
           c.preset_label + "); its C_mid is converted from GPU-hours to useful samples at that run's own rate";
  }
  return "";
}

inline bool MentionsGoal(std::string_view metric) { return metric.find("goal.") != std::string_view::npos; }

// An object answer that uses the goal's figures: `goal_curve_is_illustrative`,
// `goal_curve` (GoalCurveSource) and the note appended to `notes`.
inline void FlagGoalCurve(nlohmann::json& j, const Scenario& s) {
  j["goal_curve_is_illustrative"] = RestsOnIllustrativeCurve(s);
  if (const std::string src = GoalCurveSource(s); !src.empty()) j["goal_curve"] = src;
  if (const std::string note = GoalCurveNote(s); !note.empty()) j["notes"].push_back(note);
}

// An array answer: each row for which `uses_goal(row)` holds gets
// `goal_curve_is_illustrative`, `goal_curve` and `note`.
inline void FlagGoalRows(nlohmann::json& rows, const Scenario& s,
                         const std::function<bool(const nlohmann::json&)>& uses_goal) {
  const bool illustrative = RestsOnIllustrativeCurve(s);
  const std::string src = GoalCurveSource(s);
  const std::string note = GoalCurveNote(s);
  for (auto& r : rows) {
    if (!uses_goal(r)) continue;
    r["goal_curve_is_illustrative"] = illustrative;
    if (!src.empty()) r["goal_curve"] = src;
    if (!note.empty()) r["note"] = note;
  }
}

// The notes of a sweep's answer, given the `goal_curve` of its rows (each
// row's own label; "" for rows without one): one note per kind of curve the
// rows rest on, said once whatever the number of rows. None when no row has a
// goal figure or every row's curve is the user's own ("given").
// `marked_by` says where each row's own label is shown.
inline std::vector<std::string> SweepCurveNotes(const std::set<std::string>& row_curves,
                                                std::string_view marked_by = "the goal_curve column marks each row") {
  std::vector<std::string> notes;
  if (row_curves.count("illustrative")) {
    notes.push_back(std::string(kIllustrativeCurveNote) + "; " + std::string(marked_by));
  }
  std::string published;
  for (const auto& c : row_curves) {
    if (c.rfind("published:", 0) == 0) published += (published.empty() ? "" : ", ") + c.substr(10);
  }
  if (!published.empty()) {
    notes.push_back("the goal figures marked goal_curve=published:NAME rest on a published learning curve (" +
                    published + "; catalog/curves.yaml), fitted to another run and converted to useful samples at "
                    "that run's own rate");
  }
  return notes;
}

// A claim whose figure counts dollars to the goal (its text names the goal).
inline bool ClaimUsesGoal(const nlohmann::json& c) {
  const std::string fig = c.value("rlcost", std::string()) + " " + c.value("why", std::string());
  return fig.find("goal") != std::string::npos;
}

// A tornado row whose metric is a goal figure.
inline bool RowMetricIsGoal(const nlohmann::json& r) { return MentionsGoal(r.value("metric", std::string())); }

}  // namespace rlcost::api
