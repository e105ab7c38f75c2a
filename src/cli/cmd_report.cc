// STUB — replaced by the issue-5 implementation.
#include "cli/common.h"
namespace rlcost::cli {
void RegisterReport(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("report", "not yet built");
  sub->allow_extras();
  sub->callback([&exit_code] { exit_code = PrintError(Error(ErrorCode::kNotImplemented, "report", "not yet: this command is not built yet"), false); });
}
}  // namespace rlcost::cli
