// `rlcost compare A.yaml B.yaml ... [--with key=value ...] [--set key=value] [--json]`:
// scenarios side by side, the difference in cost per useful sample decomposed.
// --set applies to every file; each --with adds a variant of the first file
// with that one override ("key=value;key2=value2" for several at once).
#include <iostream>
#include <map>
#include <memory>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

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
// The inputs of one column as written: every scalar of its file by field path
// ("algorithm.group_size" -> "16"), then its --set / --with overrides.
using Inputs = std::map<std::string, std::string>;

void Flatten(const YAML::Node& n, const std::string& path, Inputs& out) {
  if (n.IsMap()) {
    for (const auto& kv : n) {
      const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : "?";
      Flatten(kv.second, path.empty() ? key : path + "." + key, out);
    }
  } else if (n.IsSequence()) {
    bool scalars = true;
    for (const auto& x : n) scalars = scalars && x.IsScalar();
    if (scalars) {
      std::string list;
      for (const auto& x : n) list += (list.empty() ? "" : ", ") + x.Scalar();
      out[path] = "[" + list + "]";
    } else {
      for (size_t i = 0; i < n.size(); ++i) Flatten(n[i], fmt::format("{}[{}]", path, i), out);
    }
  } else if (n.IsScalar()) {
    out[path] = n.Scalar();
  } else if (!path.empty()) {
    out[path] = "null";
  }
}

Inputs ReadInputs(const std::string& file, const std::vector<std::string>& sets) {
  Inputs out;
  try {
    Flatten(YAML::LoadFile(file), "", out);
  } catch (const std::exception&) {
    // The scenario loader has read this file already; a file it could not
    // read never gets here. Nothing to list then.
  }
  for (const auto& kv : sets) {
    const size_t eq = kv.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = kv.substr(0, eq);
    // A --set of a whole mapping replaces what was under it.
    for (auto it = out.lower_bound(key + "."); it != out.end() && it->first.starts_with(key + ".");) it = out.erase(it);
    out[key] = kv.substr(eq + 1);
  }
  return out;
}

struct InputDiff {
  size_t column;
  std::string path, a, b;
};

// Field paths whose value differs between the first column and each other one.
std::vector<InputDiff> DifferingInputs(const std::vector<Inputs>& in) {
  std::vector<InputDiff> out;
  for (size_t i = 1; i < in.size(); ++i) {
    std::map<std::string, std::pair<std::string, std::string>> both;
    for (const auto& [k, v] : in[0]) both[k].first = v;
    for (const auto& [k, v] : in[i]) both[k].second = v;
    for (const auto& [k, ab] : both) {
      const bool in_a = in[0].count(k), in_b = in[i].count(k);
      if (in_a && in_b && ab.first == ab.second) continue;
      out.push_back({i, k, in_a ? ab.first : "(not set: default)", in_b ? ab.second : "(not set: default)"});
    }
  }
  return out;
}

std::string DiffsToText(const std::vector<InputDiff>& diffs, size_t columns) {
  std::string out = "rlcost compare — inputs that differ from A (as written, with --set and --with applied; a field "
                    "left out takes its default)\n";
  for (size_t i = 1; i < columns; ++i) {
    bool any = false;
    for (const auto& d : diffs) {
      if (d.column != i) continue;
      out += fmt::format("  {}: {}: {} → {}\n", char('A' + i % 26), d.path, d.a, d.b);
      any = true;
    }
    if (!any) out += fmt::format("  {}: no input differs from A\n", char('A' + i % 26));
  }
  return out + "\n";
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
    std::vector<Inputs> inputs;
    for (const auto& f : args->files) inputs.push_back(ReadInputs(f, args->common.sets));
    for (const auto& w : args->with) {
      std::vector<std::string> sets = args->common.sets;
      for (const auto& kv : SplitSemicolons(w)) sets.push_back(kv);
      inputs.push_back(ReadInputs(args->files[0], sets));
    }
    const auto diffs = DifferingInputs(inputs);
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
      auto j = report::ComparisonToJson(cmp);
      // The inputs that differ from the first scenario, by field path.
      nlohmann::json d = nlohmann::json::array();
      for (const auto& x : diffs) {
        d.push_back({{"column", std::string(1, char('A' + x.column % 26))}, {"path", x.path}, {"a", x.a}, {"b", x.b}});
      }
      if (j.is_object()) j["differing_inputs"] = d;
      std::cout << Dump(j) << "\n";
    } else {
      std::cout << DiffsToText(diffs, inputs.size()) << report::ComparisonToTable(cmp);
    }
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
