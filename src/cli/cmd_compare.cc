// STUB — replaced by the issue-5 implementation.
#include "cli/common.h"
namespace rlcost::cli {
void RegisterCompare(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("compare", "not yet built");
  sub->allow_extras();
  sub->callback([&exit_code] { exit_code = PrintError(Error(ErrorCode::kNotImplemented, "compare", "not yet: this command is not built yet"), false); });
}
}  // namespace rlcost::cli
