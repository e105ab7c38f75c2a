// Internal to econ: fitting the efficiency factors to a training log
// (`rlcost calibrate`). Method and bounds: docs/model.md (validation section).
//
//   auto log = calib::ParseTrainingLogFile("run.log");
//   auto steps = calib::ExtractPhases(*log);
//   auto fit = calib::FitCalibration(scenario, *steps, "run.log");
//   fit->calibration.efficiency.train_mfu;   // fitted, within (0, 1]
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "ingest/training_log.h"
#include "rlcost/calibration.h"
#include "rlcost/estimate.h"

namespace rlcost::calib {

// The Efficiency fields by name (one table, in the catalog).
using ::rlcost::EfficiencyField;
using ::rlcost::EfficiencyFields;
const EfficiencyField* FindEfficiencyField(std::string_view name);

// The model's prediction for one logged step (the scenario with that step's
// mean lengths), in the log's phases.
struct PhasePrediction {
  double step_s = 0;
  double gen_s = 0;
  double update_s = 0;
  double logprob_s = 0;
  double sync_s = 0;
};

struct PhaseReport {
  std::string phase;     // generation | update | logprob | weight_sync | step
  std::string field;     // efficiency field fitted from it ("" = none)
  int points = 0;        // logged steps carrying this phase
  double error_before = 0;  // relative RMS, catalog factors
  double error_after = 0;   // relative RMS, fitted factors
  double logged_mean_s = 0;
  double predicted_before_mean_s = 0;
  double predicted_after_mean_s = 0;
};

struct FitResult {
  Calibration calibration;
  Efficiency before;                 // the scenario's factors (catalog)
  std::vector<PhaseReport> phases;   // step first
  std::vector<PhasePrediction> predicted_after;  // per logged step
  double logged_step_mean_s = 0;
  double predicted_step_mean_after_s = 0;  // mean over the logged steps
};

// Predicts one logged step with the given factors. Fails when the scenario
// cannot be estimated (the estimate's error, with the log line added).
Result<PhasePrediction> PredictStep(const Scenario& s, const Efficiency& eff, const LoggedStep& step);

// Least-squares fit of the factors to the logged steps, bounded to (0, 1] and
// >= 0 s. `source` names the log in the calibration.
// A log of more than `exact_up_to` steps is predicted at a grid of lengths
// spanning it and interpolated (docs/model.md, "The fit"); up to it, each
// step on its own.
inline constexpr size_t kExactFitSteps = 64;
Result<FitResult> FitCalibration(const Scenario& s, const std::vector<LoggedStep>& steps,
                                 const std::string& source, size_t exact_up_to = kExactFitSteps);

}  // namespace rlcost::calib
