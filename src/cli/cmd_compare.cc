// `rlcost compare A.yaml B.yaml ... [--with key=value ...] [--set key=value] [--json]`:
// scenarios side by side, the difference in cost per useful sample decomposed.
// --set applies to every file; each --with adds a variant of the first file
// with that one override ("key=value;key2=value2" for several at once).
#include <iostream>
#include <memory>

#include "api/views.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {
struct CompareArgs {
  Common common;
  std::vector<std::string> files;
  std::vector<std::string> with;
};

std::vector<std::string> SplitSemicolons(const std::string& s) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t p = s.find(';', start);
    std::string item = s.substr(start, p == std::string::npos ? std::string::npos : p - start);
    if (!item.empty()) out.push_back(item);
    if (p == std::string::npos) break;
    start = p + 1;
  }
  return out;
}

}  // namespace

void RegisterCompare(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<CompareArgs>();
  auto* sub = app.add_subcommand("compare", "scenarios side by side, with what explains the difference in cost per useful sample");
  sub->add_option("files", args->files, "scenario files (the first is the reference)")->required();
  AddRepeatable(sub, "--with", args->with, "a variant of the first file with this override, e.g. --with model=qwen3-32b "
                                        "(repeatable; 'k=v;k2=v2' for several)");
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    // Each scenario as `estimate` prices it: planned (--no-plan: literally).
    ops::CompareInput c;
    for (const auto& f : args->files) {
      c.scenarios.push_back(Input(f, args->common));
      c.labels.push_back(f);
    }
    for (const auto& w : args->with) {
      c.with.push_back(SplitSemicolons(w));
      c.with_labels.push_back(args->files.empty() ? w : args->files[0] + " with " + w);
    }
    if (args->files.size() + args->with.size() < 2) {
      exit_code = PrintError(Error::Invalid("compare", "needs two scenarios, or one file and a --with variant"),
                             args->common.json);
      return;
    }
    auto v = ops::CompareView(c);
    if (!v) { exit_code = PrintError(v.error(), args->common.json); return; }
    PrintWarnings(v->warnings);
    std::cout << (args->common.json ? Dump(v->json) + "\n" : v->text);
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
