#include <cmath>

#include "catalog/efficiency_origin.h"
#include "report/intervals.h"
#include "report/report.h"
#include "report/sim_json.h"

namespace rlcost::report {
namespace {

// Sets a dotted key ("a.b.c") in a nested object.
void SetPath(nlohmann::json& root, std::string_view key, nlohmann::json value) {
  nlohmann::json* node = &root;
  size_t start = 0;
  while (true) {
    size_t dot = key.find('.', start);
    std::string part(key.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
    if (dot == std::string_view::npos) {
      (*node)[part] = std::move(value);
      return;
    }
    node = &(*node)[part];
    start = dot + 1;
  }
}

// Why a metric has no finite value: most often nothing carries signal, so a
// cost per useful sample divides by zero.
std::string NotAvailableReason(const Estimate& e, std::string_view key) {
  const bool per_signal = key.find("useful") != std::string_view::npos || key.find("reward_bit") != std::string_view::npos;
  if (per_signal && !(e.signal.useful_samples_per_step > 0)) {
    return "no rollout carries a learning signal (signal.useful_samples_per_step is 0), so there is nothing to "
           "divide by";
  }
  return "not a finite number for this scenario (a division by zero or an overflow)";
}

}  // namespace

nlohmann::json EstimateToJson(const Scenario& s, const Estimate& e) {
  nlohmann::json j = nlohmann::json::object();
  j["scenario"] = s.name;
  // `framework`: which one, and each default it supplied with its source
  // (an explicit field always wins, so these are only the ones it filled).
  if (!s.framework.empty()) {
    nlohmann::json d = nlohmann::json::array();
    for (const auto& f : s.framework_defaults) d.push_back({{"field", f.path}, {"value", f.value}, {"source", f.source}});
    j["framework"] = {{"name", s.framework}, {"defaults_supplied", d}};
  }
  j["method"] = e.method;
  for (const auto& m : Metrics()) {
    auto v = m.get(e);
    if (!v) continue;
    // JSON has no infinity or NaN: a figure that is not a finite number is
    // "n/a", and "not_available" says why (docs/model.md, "Loading").
    if (std::isfinite(*v)) {
      SetPath(j, m.key, *v);
    } else {
      SetPath(j, m.key, "n/a");
      j["not_available"][std::string(m.key)] = NotAvailableReason(e, m.key);
    }
  }
  if (e.goal.requested) {
    j["goal"]["target_pass_rate"] = e.goal.target_pass_rate;
    j["goal"]["reachable"] = e.goal.reachable;
    if (!e.goal.reachable) j["goal"]["reason"] = e.goal.reason;
    j["goal"]["curve_is_illustrative"] = e.goal.curve_is_illustrative;
    j["goal"]["curve"] = e.goal.curve;
    if (e.goal.reachable) {
      j["goal"]["steps_view"] = e.goal.steps_view;
      // The learning model the steps rest on: an ASSUMPTION (docs/model.md, sec. 7d).
      j["goal"]["learning_model"] = e.goal.learning_model;
      j["goal"]["learning_model_is_assumption"] = true;
      if (e.goal.learning_model == "noise_scale") {
        j["goal"]["learning_factor"] = e.goal.learning_factor;
        j["goal"]["learning_group_size_ref"] = e.goal.learning_group_ref;
        j["goal"]["steps_at_group_size_ref"] = e.goal.learning_steps_ref;
      }
      if (!e.goal.learning_note.empty()) j["goal"]["learning_note"] = e.goal.learning_note;
    }
    if (!e.goal.noise_scale_reason.empty()) j["goal"]["noise_scale_reason"] = e.goal.noise_scale_reason;
  }
  if (e.plan) {
    const PlanSummary& p = *e.plan;
    nlohmann::json& jp = j["plan"];
    jp["objective"] = p.objective;
    jp["chosen_fields"] = p.chosen_fields;
    jp["layout"] = p.layout;
    if (!p.runner_up.empty()) jp["runner_up"] = p.runner_up;
    jp["literal"] = p.literal;
    if (!p.literal_error.empty()) jp["literal_error"] = p.literal_error;
    jp["why"] = p.why;
  }
  j["signal"]["full_batch_impractical"] = e.signal.full_batch_impractical;
  if (e.signal.pilot.present) {
    const auto& p = e.signal.pilot;
    j["signal"]["pilot"] = {{"tasks", p.tasks},
                            {"samples_per_task", p.samples_per_task},
                            {"observed_mean", p.observed_mean},
                            {"never_solved", p.never_solved},
                            {"always_solved", p.always_solved},
                            {"fit_a", p.fit_a},
                            {"fit_b", p.fit_b},
                            {"fit_mean", p.fit_a / (p.fit_a + p.fit_b)},
                            {"method", p.method},
                            {"fit_mass_below_1_over_n", p.fit_mass_below_1_over_n}};
  }
  j["signal"]["notes"] = e.signal.notes;
  if (e.sim) j["sim"] = SimExtrasToJson(*e.sim);
  j["notes"] = e.step.notes;
  j["assumptions"] = e.assumptions;
  // Whose efficiency figures priced this GPU: its own catalog row, or one
  // borrowed from another GPU (docs/model.md, "Efficiency defaults").
  {
    const GpuSpec& g = s.hardware.gpu;
    nlohmann::json& je = j["efficiency"];
    je["gpu"] = g.id;
    const EfficiencyOrigin origin = OriginOfEfficiency(g);  // catalog/efficiency_origin.h
    je["borrowed"] = origin.whole_row;
    // Only a borrowed figure names its donor: the contract has no nulls.
    if (!origin.borrowed_from.empty()) {
      je["borrowed_from"] = origin.borrowed_from;
      je["borrowed_fields"] = origin.borrowed_fields;
    }
    je["derived_fields"] = DerivedEfficiencyFields(g);  // own figures derived, not measured on it
    je["fitted_fields"] = FittedEfficiencyFields(g);    // named fits to measured runs, not published figures
    je["tuning"] = std::string(ToString(s.run.tuning));  // typical: the update at typical_update_share
    nlohmann::json& src = je["sources"];
    src = nlohmann::json::object();
    for (const auto& [k, v] : g.sources) {
      if (k.rfind("efficiency.", 0) == 0 && !IsEfficiencyOriginKey(k)) src[k.substr(11)] = v;
    }
  }
  // The likely range of the headline figures: part of every estimate's JSON
  // (command line, `rlcost serve`, Python) from this one place.
  j["interval"] = IntervalsToJson(e);
  j["interval_source"] = IntervalSource(e);
  return j;
}

nlohmann::json ErrorToJson(const Error& e) {
  nlohmann::json problems = nlohmann::json::array();
  for (const auto& p : e.problems) {
    nlohmann::json q = {{"path", p.path}, {"message", p.message}};
    if (p.line > 0) q["line"] = p.line;
    if (!p.file.empty()) q["file"] = p.file;
    problems.push_back(std::move(q));
  }
  return {{"error", {{"code", std::string(ToString(e.code))}, {"problems", problems}}}};
}

}  // namespace rlcost::report
