// `rlcost report FILE -o report.html [--simulate] [lever options]`: one
// self-contained HTML file (inline SVG, CSS and JS; works offline).
#include <iostream>
#include <memory>

#include "api/ops.h"
#include "cli/common.h"
#include "cli/lever_args.h"
#include "core/file.h"

namespace rlcost::cli {
namespace {
struct ReportArgs {
  Common common;
  ops::ReportInput report;
  std::string file;
  std::string out = "report.html";
};
}  // namespace

void RegisterReport(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<ReportArgs>();
  auto* sub = app.add_subcommand("report", "write a self-contained HTML report with charts (works offline)");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("-o,--output", args->out, "HTML file to write");
  sub->add_flag("--simulate", args->report.simulate, "also run the discrete-event simulator (timeline of one simulated step)");
  sub->add_option("--seed", args->report.seed, "simulation seed")->check(SeedValidator());
  sub->add_option("--progress", args->report.progress,
                  "the run's progress log (any log rlcost forecast reads): its points, the fitted learning curve and its "
                  "band are drawn in the report");
  sub->add_option("--target", args->report.target,
                  "with --progress: the metric's value to forecast the steps to (default: the scenario's goal.target_pass_rate)");
  sub->add_option("--metric", args->report.metric, "with --progress: the column or key to fit (default: as rlcost forecast)");
  AddLeverOptions(sub, args->report.levers);
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // Refused before any work: an output that is one of the inputs.
    std::vector<std::string> inputs = args->common.catalog_files;
    inputs.push_back(args->file);
    inputs.push_back(args->common.calibration);
    inputs.push_back(args->report.progress);
    if (auto ok = CheckOutputNotInput(args->out, "--output", inputs); !ok) {
      exit_code = PrintError(ok.error(), args->common.json);
      return;
    }
    // The run as `estimate` prices it, the levers as `waterfall` builds them,
    // the claims as `claims` checks them: one operation (ops::Report).
    auto r = ops::Report(Input(args->file, args->common), args->report);
    if (!r) { exit_code = PrintError(r.error(), args->common.json); return; }
    PrintWarnings(r->warnings);
    if (auto ok = WriteFileAtomic(args->out, r->html, "--output"); !ok) {
      exit_code = PrintError(ok.error(), args->common.json);
      return;
    }
    if (args->common.json) {
      nlohmann::json j = {{"output", args->out}, {"simulated", r->simulated}, {"waterfall", r->waterfall}};
      if (!r->simulate_error.empty()) j["simulate_error"] = r->simulate_error;
      if (!r->waterfall_error.empty()) j["waterfall_error"] = r->waterfall_error;
      std::cout << Dump(j) << "\n";
    } else {
      std::cout << "wrote " << args->out << "\n";
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
