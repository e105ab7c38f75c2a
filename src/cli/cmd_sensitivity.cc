// `rlcost sensitivity FILE [--metric goal.usd] [--span 0.5] [--range INPUT=LOW:HIGH]
// [--path analytic|simulated] [--json]`: which input the figure hangs on (a tornado).
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "api/views.h"
#include "cli/common.h"

namespace rlcost::cli {
namespace {

struct SensitivityArgs {
  Common common;
  std::string file;
  std::string metric;
  double span = 0.5;
  std::vector<std::string> ranges;
  std::string path = "analytic";
  uint64_t seed = 1;
  int steps = 0;
};

std::optional<double> ParseNumber(const std::string& s) {
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

// --range INPUT=LOW:HIGH, every bad flag reported at once.
Result<std::map<std::string, std::pair<double, double>>> ParseRanges(const std::vector<std::string>& flags) {
  std::map<std::string, std::pair<double, double>> out;
  Error bad;
  for (const auto& f : flags) {
    const auto eq = f.find('=');
    const auto colon = eq == std::string::npos ? std::string::npos : f.find(':', eq);
    if (eq == std::string::npos || eq == 0 || colon == std::string::npos) {
      bad.problems.push_back({"--range", "'" + f + "': expected INPUT=LOW:HIGH, e.g. environment.response_tokens.mean=6000:16000"});
      continue;
    }
    auto lo = ParseNumber(f.substr(eq + 1, colon - eq - 1));
    auto hi = ParseNumber(f.substr(colon + 1));
    if (!lo || !hi) {
      bad.problems.push_back({"--range", "'" + f + "': LOW and HIGH must be numbers"});
      continue;
    }
    out[f.substr(0, eq)] = {*lo, *hi};
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));
  return out;
}

}  // namespace

void RegisterSensitivity(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<SensitivityArgs>();
  auto* sub = app.add_subcommand(
      "sensitivity", "which input a figure hangs on: each input moved over a stated range, sorted by the swing (a tornado)");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--metric", args->metric,
                  "figure to explain, a key of `estimate --json` (default: goal.usd when the scenario has a goal, else run.usd)");
  sub->add_option("--span", args->span, "default range of every input: its value x (1 - SPAN) .. x (1 + SPAN) (default 0.5 = ±50%)")
      ->check(CLI::Range(0.01, 0.99));
  AddRepeatable(sub, "--range", args->ranges,
                  "your own range for one input, INPUT=LOW:HIGH (absolute values; repeatable), e.g. "
                  "environment.response_tokens.mean=6000:16000");
  sub->add_option("--path", args->path, "analytic (closed form, default) or simulated (each point simulated, same seed)")
      ->check(CLI::IsMember({"analytic", "simulated"}));
  sub->add_option("--seed", args->seed, "simulation seed (--path simulated)")->check(SeedValidator());
  sub->add_option("--steps", args->steps, "steps to simulate per point (--path simulated; default: the scenario's)")
      ->check(CLI::Range(1, 1'000'000'000));
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    const bool json = args->common.json;
    auto ranges = ParseRanges(args->ranges);
    if (!ranges) { exit_code = PrintError(ranges.error(), json); return; }
    ops::SensitivityInput si;
    si.metric = args->metric;
    si.span = args->span;
    si.ranges = *ranges;
    si.path = args->path;
    si.seed = args->seed;
    si.steps = args->steps;
    // Every point (the base too) with its left-out layout fields planned (--no-plan: as written),
    // each the user's scenario with one more --set, loaded as theirs is.
    auto v = ops::SensitivityView(Input(args->file, args->common), si);
    if (!v) { exit_code = PrintError(v.error(), json); return; }
    PrintWarnings(v->warnings);
    std::cout << (json ? Dump(v->json) + "\n" : AsFlags(v->text));
    exit_code = 0;
  });
}

}  // namespace rlcost::cli
