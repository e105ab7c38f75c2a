// Calibration: efficiency factors fitted to a user's own training log by
// `rlcost calibrate`, applied to any command with `--calibration FILE`.
//
//   auto cal = rlcost::LoadCalibrationFile("my-cluster.calibration.yaml");
//   rlcost::ApplyCalibration(*cal, scenario);   // scenario.hardware.gpu.efficiency
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost {

struct Calibration {
  std::string gpu_id;        // the GPU the factors were fitted on ("" = any)
  Efficiency efficiency;     // fitted factors (unfitted ones keep the catalog default)
  std::string source;        // log file it came from
  double error_before = 0;   // relative RMS error of step time before the fit
  double error_after = 0;
  // Efficiency fields the fit set (names as in catalog/efficiency.yaml). Only
  // these replace the scenario's factors; empty = all fields of `efficiency`.
  std::vector<std::string> fitted;
  std::string scenario;    // scenario file the fit used
  int steps = 0;           // logged steps fitted
  std::map<std::string, double> phase_error_before;  // relative RMS per phase
  std::map<std::string, double> phase_error_after;
  std::vector<std::string> notes;  // bounds hit, fields left unfitted and why
  // Mean over the logged steps of the share of responses that stopped at the
  // maximum length (veRL response_length/clip_ratio); nullopt when the log
  // has none. Measured, not fitted.
  std::optional<double> response_clip_ratio;
};

Result<Calibration> LoadCalibrationFile(const std::string& path);
Result<Calibration> ParseCalibrationText(std::string_view text, const std::string& origin);
// The calibration file `rlcost calibrate` writes (YAML, deterministic).
std::string CalibrationToYaml(const Calibration& cal);
// Replaces the scenario's GPU efficiency factors with the calibrated ones
// (only the fitted fields when `fitted` is set).
void ApplyCalibration(const Calibration& cal, Scenario& s);

}  // namespace rlcost
