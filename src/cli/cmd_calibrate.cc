// `rlcost calibrate LOG --scenario FILE`: fit the efficiency factors to a real
// training log (veRL console / JSONL, NeMo RL metrics) and write a calibration
// file that every command takes with --calibration (econ/calibrate.h).
#include <iostream>
#include <memory>

#include "api/fit_op.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

struct CalibrateArgs {
  Common common;
  std::string log;
  std::string scenario;
  std::string output;
};

int Run(const CalibrateArgs& a) {
  ops::CalibrateInput in;
  in.log = a.log;
  in.scenario = Input(a.scenario, a.common);
  in.output = a.output;
  auto r = ops::Calibrate(in);
  if (!r) return PrintError(r.error(), a.common.json);
  PrintWarnings(r->view.warnings);
  if (a.common.json) {
    std::cout << Dump(r->view.json) << "\n";
  } else {
    std::cout << r->view.text;
    std::cout << "\n  wrote " << r->written << " (use: rlcost estimate " << a.scenario << " --calibration " << r->written
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
