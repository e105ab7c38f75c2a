// libFuzzer target: calibrate's log parsers (veRL console lines, JSONL,
// NeMo RL / TensorBoard JSON; the format is sniffed from the text) and the
// phase extraction, plus the calibration file reader.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ingest/training_log.h"
#include "rlcost/calibration.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto log = rlcost::calib::ParseTrainingLogText(text, "fuzz.log");
  if (log) (void)rlcost::calib::ExtractPhases(*log);
  (void)rlcost::ParseCalibrationText(text, "fuzz.calibration.yaml");
  return 0;
}
