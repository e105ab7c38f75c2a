// STUB — replaced by the calibration implementation (issue 6).
#include "rlcost/calibration.h"
namespace rlcost {
Result<Calibration> LoadCalibrationFile(const std::string& path) {
  return Fail(ErrorCode::kNotImplemented, "--calibration", "calibration files are not supported yet");
}
void ApplyCalibration(const Calibration& cal, Scenario& s) { s.hardware.gpu.efficiency = cal.efficiency; }
}  // namespace rlcost
