// Published learning-curve fits (catalog/curves.yaml, compiled in), chosen in
// a scenario as `goal.curve: NAME` (docs/model.md, sec. 7c).
//
//   auto p = rlcost::scenario_internal::FindCurvePreset("scalerl-8b-math-14k");
//   // p->curve.midpoint_useful_samples == 2542 * 7400 / 100000 * 768
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost::scenario_internal {

struct CurvePreset {
  std::string name;
  std::string label;          // the run it was measured on: model, task, batch, compute unit
  std::string source;         // paper, table and row
  std::string catalog_model;  // the catalog model it trained, "" when not in the catalog
  double asymptote = 0;       // A
  double exponent = 0;        // B
  double midpoint_gpu_hours = 0;  // C_mid as published, in GPU-hours
  // The run's own rate, to convert C_mid to useful samples; absent when the
  // paper does not state it (the preset then cannot be used: "not yet").
  std::optional<double> run_steps, run_gpu_hours, samples_per_step;
  // C_mid in useful samples = midpoint_gpu_hours x run_steps / run_gpu_hours x samples_per_step.
  std::optional<double> midpoint_useful_samples() const;
};

// Every preset in catalog/curves.yaml, in file order.
Result<std::vector<CurvePreset>> CurvePresets();
Result<CurvePreset> FindCurvePreset(std::string_view name);

// The scenario's curve for `goal.curve: NAME` on a run of `model_id`: the
// preset's A, B and converted C_mid, its batch, label, and whether it is
// borrowed (measured on another model). Errors name `path`.
Result<LearningCurveSpec> CurveFromPreset(std::string_view name, const std::string& model_id, const std::string& path);

}  // namespace rlcost::scenario_internal
