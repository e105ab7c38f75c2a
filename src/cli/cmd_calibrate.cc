// `rlcost calibrate LOG --scenario FILE`: fit the efficiency factors to a real
// training log (veRL console / JSONL, NeMo RL metrics) and write a calibration
// file that every command takes with --calibration (econ/calibrate.h).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "core/file.h"
#include "api/validate_render.h"
#include "fit/calibrate.h"
#include "ingest/training_log.h"

namespace rlcost::cli {
namespace {

struct CalibrateArgs {
  Common common;
  std::string log;
  std::string scenario;
  std::string output;
};

int Run(const CalibrateArgs& a) {
  const bool json = a.common.json;
  std::string out_path = a.output;
  if (out_path.empty()) out_path = std::filesystem::path(a.log).stem().string() + ".calibration.yaml";
  // Refused before any work: an output that is one of the inputs.
  std::vector<std::string> inputs = a.common.catalog_files;
  inputs.push_back(a.log);
  inputs.push_back(a.scenario);
  inputs.push_back(a.common.calibration);
  if (auto ok = CheckOutputNotInput(out_path, "--output", inputs); !ok) return PrintError(ok.error(), json);
  auto log = calib::ParseTrainingLogFile(a.log);
  if (!log) return PrintError(log.error(), json);
  auto steps = calib::ExtractPhases(*log);
  if (!steps) return PrintError(steps.error(), json);
  auto s = LoadAll(a.scenario, a.common);
  if (!s) return PrintError(s.error(), json);
  auto fit = calib::FitCalibration(*s, *steps, a.log);
  if (!fit) return PrintError(fit.error(), json);
  if (auto ok = WriteFileAtomic(out_path, CalibrationToYaml(fit->calibration), "--output"); !ok) {
    return PrintError(ok.error(), json);
  }
  if (json) {
    auto j = api::CalibrationFitToJson(*fit, *log);
    j["written"] = out_path;
    std::cout << Dump(j) << "\n";
  } else {
    std::cout << api::CalibrationFitToText(*fit, *log);
    std::cout << "\n  wrote " << out_path << " (use: rlcost estimate " << a.scenario << " --calibration " << out_path
              << ")\n";
  }
  return 0;
}

}  // namespace

void RegisterCalibrate(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CalibrateArgs>();
  auto* sub = app.add_subcommand("calibrate", "fit the efficiency factors to a training log (veRL, NeMo RL) and write a calibration file");
  sub->add_option("log", args->log, "training log: veRL console lines or file-logger JSONL, NeMo RL JSONL or metrics JSON, or a wandb CSV export")->required();
  sub->add_option("--scenario", args->scenario, "the scenario of the logged run (model, GPUs, batch, lengths)")->required();
  sub->add_option("-o,--output", args->output, "calibration file to write (default: LOGNAME.calibration.yaml here)");
  AddCommon(sub, args->common);
  sub->callback([args, &exit_code] { exit_code = Run(*args); });
}

}  // namespace rlcost::cli
