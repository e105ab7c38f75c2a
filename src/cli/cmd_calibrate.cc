// STUB — replaced by the issue-6 implementation.
#include "cli/common.h"
namespace rlcost::cli {
void RegisterCalibrate(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("calibrate", "not yet built");
  sub->allow_extras();
  sub->callback([&exit_code] { exit_code = PrintError(Error(ErrorCode::kNotImplemented, "calibrate", "not yet: this command is not built yet"), false); });
}
}  // namespace rlcost::cli
