// Calibration: efficiency factors fitted to a user's own training log by
// `rlcost calibrate`, applied to any command with `--calibration FILE`.
//
//   auto cal = rlcost::LoadCalibrationFile("my-cluster.calibration.yaml");
//   rlcost::ApplyCalibration(*cal, scenario);   // scenario.hardware.gpu.efficiency
#pragma once

#include <string>

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
};

Result<Calibration> LoadCalibrationFile(const std::string& path);
// Replaces the scenario's GPU efficiency with the calibrated one.
void ApplyCalibration(const Calibration& cal, Scenario& s);

}  // namespace rlcost
