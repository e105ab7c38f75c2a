// The model against measurements: `calibrate` (efficiency factors fitted to a
// training log, written as a calibration file) and `validate` (every case of
// a folder, predicted vs measured). Fields are named by their own names in
// errors ("output", "markdown"); a front end says them its way.
//
//   ops::CalibrateInput c;
//   c.log = "run.jsonl";  c.scenario.file = "run.yaml";
//   auto fit = ops::Calibrate(c);          // fit->written: the calibration file
//
//   ops::ValidateInput v;  v.dir = "validation";
//   auto rep = ops::RunValidation(v);      // rep->view.text, rep->all_pass
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "api/views.h"
#include "fit/validate.h"

namespace rlcost::ops {

struct CalibrateInput {
  std::string log;          // veRL console / JSONL, NeMo RL JSONL or metrics JSON, wandb CSV
  ScenarioInput scenario;   // the logged run, read as written
  std::string output;       // the calibration file to write; "" = LOGNAME.calibration.yaml here
  Result<void> Validate() const;  // a log and a scenario file are named
};
struct CalibrateOutcome {
  View view;                // text: the fit; json: the fit with "written"
  std::string written;      // the file written
};
// The output may not be one of the inputs (checked before any work); the
// file is written whole or not at all.
Result<CalibrateOutcome> Calibrate(const CalibrateInput& in);

struct ValidateInput {
  std::string dir;                    // a folder of scenarios with `expect` blocks
  std::string path = "both";          // analytic | simulated | both
  std::string markdown;               // also write the report here as markdown ("" = not)
  std::string facts;                  // a YAML of facts the case files leave out, each with its source
  uint64_t seed = 1;                  // of the simulated path
  int sim_steps = 0;                  // steps simulated per case; 0 = the scenario's
  int sim_measure = validate::kValidateMeasureSteps;  // steady steps measured; 0 = every step
  bool intervals = false;             // the likely-range bands read off these runs instead of the report
  bool fits = false;                  // the catalog's named fits recomputed from these runs instead of the report
  std::string learning;               // also the learning side: a folder of published ablations
  std::vector<std::string> sets;      // "key=value" applied to every case
  std::vector<std::string> catalog_files;
  std::vector<std::string> prices;
  std::string calibration;            // a calibration file applied to every case
  Result<void> Validate() const;      // path, sim_steps, sim_measure
};
struct ValidateOutcome {
  View view;              // with `intervals`: text is the bands' YAML and json is null; with `fits`: text only
  bool all_pass = false;  // every metric within its tolerance
};
Result<ValidateOutcome> RunValidation(const ValidateInput& in);

}  // namespace rlcost::ops
