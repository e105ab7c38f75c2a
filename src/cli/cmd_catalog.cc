// `rlcost catalog [--json] [--catalog FILE]`: the GPUs and models rlcost knows.
#include <iostream>
#include <memory>

#include "api/views.h"
#include "cli/common.h"

namespace rlcost::cli {

void RegisterCatalog(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<Common>();
  auto* sub = app.add_subcommand("catalog", "list the built-in GPUs and models (and your --catalog additions)");
  AddRepeatable(sub, "--catalog", args->catalog_files, "extra catalog file; repeatable");
  sub->add_flag("--json", args->json, "print JSON");
  sub->callback([args, &exit_code] {
    auto cat = LoadCatalog(*args);
    if (!cat) { exit_code = PrintError(cat.error(), args->json); return; }
    std::cout << ops::CatalogListing(*cat, args->json);
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
