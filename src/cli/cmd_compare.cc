// `rlcost compare A.yaml B.yaml ... [--with key=value ...] [--set key=value] [--json]`:
// scenarios side by side, the difference in cost per useful sample decomposed.
// --set applies to every file; each --with adds a variant of the first file
// with that one override ("key=value;key2=value2" for several at once).
#include <iostream>
#include <memory>

#include "cli/common.h"
#include "report/levers_table.h"

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
  sub->add_option("--with", args->with, "a variant of the first file with this override, e.g. --with model=qwen3-32b "
                                        "(repeatable; 'k=v;k2=v2' for several)");
  AddCommon(sub, args->common);
  sub->callback([args, &exit_code] {
    auto cat = LoadCatalog(args->common);
    if (!cat) { exit_code = PrintError(cat.error(), args->common.json); return; }
    if (args->files.size() + args->with.size() < 2) {
      exit_code = PrintError(Error::Invalid("compare", "needs two scenarios, or one file and a --with variant"),
                             args->common.json);
      return;
    }
    std::vector<levers::CompareEntry> entries;
    for (const auto& f : args->files) {
      auto s = LoadScenario(f, *cat, args->common);
      if (!s) { exit_code = PrintError(s.error(), args->common.json); return; }
      entries.push_back(levers::MakeEntry(f, *s));
    }
    for (const auto& w : args->with) {
      Common c = args->common;
      for (const auto& kv : SplitSemicolons(w)) c.sets.push_back(kv);
      auto s = LoadScenario(args->files[0], *cat, c);
      if (!s) { exit_code = PrintError(s.error(), args->common.json); return; }
      entries.push_back(levers::MakeEntry(args->files[0] + " with " + w, *s));
    }
    auto cmp = levers::BuildComparison(std::move(entries));
    if (args->common.json) {
      std::cout << Dump(report::ComparisonToJson(cmp)) << "\n";
    } else {
      std::cout << report::ComparisonToTable(cmp);
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
