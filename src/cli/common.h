// Internal to the CLI: options every command shares and the loading of a
// scenario with them.
#pragma once

#include <charconv>
#include <span>
#include <string_view>
#include <utility>
#include <cstdint>
#include <optional>
#include <system_error>

#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "api/ops.h"

namespace rlcost::cli {

struct Common {
  std::vector<std::string> catalog_files;  // --catalog FILE (repeatable)
  std::vector<std::string> sets;           // --set key=value (repeatable)
  std::string calibration;                 // --calibration FILE
  bool json = false;                       // --json
  std::vector<std::string> prices;         // --price GPU=USD (repeatable): the catalog's price per GPU-hour
  std::string grid;                        // --grid: energy.grid (a region of the table or g CO2e/kWh)
  // The layout planner (src/plan): on for the commands that AddPlanOptions.
  bool plans = false;                      // the command offers --no-plan / --plan-for
  bool no_plan = false;                    // --no-plan: read the placement literally
  std::string plan_for = "cost";           // --plan-for cost|time
};

// A repeatable option (`--set a=1 --set b=2`): each occurrence takes exactly one
// value, so `rlcost estimate --set a=1 FILE` reads FILE as the scenario instead of
// as a second override. Every option that collects values is added this way.
template <class T>
CLI::Option* AddRepeatable(CLI::App* sub, const std::string& name, std::vector<T>& into, const std::string& help) {
  return sub->add_option(name, into, help)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->expected(1)
      ->allow_extra_args(false);
}

// Adds --no-plan and --plan-for to a subcommand whose scenario is planned.
void AddPlanOptions(CLI::App* sub, Common& c);
// Adds --catalog, --set, --calibration, --json, --price and --grid to a subcommand.
void AddCommon(CLI::App* sub, Common& c);

// The request the options describe for scenario `file` ("" = the built-in
// default): what every command hands to an operation of src/api.
ops::ScenarioInput Input(const std::string& file, const Common& c);

// The operations' field names as this command line spells them: a problem's
// path "fp8_discount" is the flag --fp8-discount, and a field named in a
// message as `moe_model` reads --moe-model. Scenario paths are left as they are.
// `own`: a command's own spelling of a field where it is not the common one
// (`rlcost sweep` and `rlcost import` write "output" as -o).
using FlagName = std::pair<std::string_view, std::string_view>;
using FlagNames = std::span<const FlagName>;
Error AsFlags(Error e, FlagNames own = {});
std::string AsFlags(std::string text, FlagNames own = {});
// Prints an error (one line per problem; JSON on stdout when json), its fields
// named as flags, and returns the exit code (ops::ExitCode).
int PrintError(const Error& e, bool json, FlagNames own = {});
// Prints the warnings an operation returned, one "warning: " line each.
void PrintWarnings(const std::vector<std::string>& warnings);

// The built-in catalog plus the user's --catalog files and --price.
Result<Catalog> LoadCatalog(const Common& c);
// A scenario file (empty = the built-in default) with --set, --grid and
// --calibration applied, as written (not planned).
Result<Scenario> LoadScenario(const std::string& file, const Catalog& cat, const Common& c);
// Catalog + scenario in one call.
Result<Scenario> LoadAll(const std::string& file, const Common& c, Catalog* catalog_out = nullptr);
// The scenario planned as the options ask (ops::PlanOf).
struct PlannedScenario {
  Scenario scenario;
  std::optional<PlanSummary> plan;
};
Result<PlannedScenario> PlanIfAsked(Scenario s, const Common& c);
// The objective alternatives are re-planned with (ops::ReplanOf).
std::optional<plan::Objective> ReplanObjective(const Common& c);

// JSON text for stdout, indented 2. Inputs are checked to be UTF-8 where they
// are read; should a byte slip through anyway it prints as U+FFFD instead of
// aborting the program.
using ops::Dump;

// --seed: digits only, and within uint64_t. CLI11 would read "-1" into a
// uint64_t as 2^64 - 1, and 2^64 silently as 0.
inline CLI::Validator SeedValidator() {
  return CLI::Validator(
      [](std::string& v) -> std::string {
        uint64_t seed = 0;
        const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), seed);
        if (v.empty() || v.find_first_not_of("0123456789") != std::string::npos || ec != std::errc() ||
            end != v.data() + v.size())
          return "expected a whole number from 0 to 18446744073709551615, got '" + v + "'";
        return {};
      },
      "SEED >= 0", "seed");
}

// Each subcommand registers itself; `exit_code` receives its result.
void RegisterEstimate(CLI::App& app, int& exit_code);
void RegisterSimulate(CLI::App& app, int& exit_code);
void RegisterCatalog(CLI::App& app, int& exit_code);
void RegisterCompare(CLI::App& app, int& exit_code);
void RegisterWaterfall(CLI::App& app, int& exit_code);
void RegisterPrice(CLI::App& app, int& exit_code);
void RegisterReport(CLI::App& app, int& exit_code);
void RegisterValidate(CLI::App& app, int& exit_code);
void RegisterCalibrate(CLI::App& app, int& exit_code);
void RegisterImport(CLI::App& app, int& exit_code);
void RegisterSweep(CLI::App& app, int& exit_code);
void RegisterServe(CLI::App& app, int& exit_code);
void RegisterOptimize(CLI::App& app, int& exit_code);
void RegisterSensitivity(CLI::App& app, int& exit_code);
void RegisterClaims(CLI::App& app, int& exit_code);
void RegisterNoiseScale(CLI::App& app, int& exit_code);
void RegisterForecast(CLI::App& app, int& exit_code);
void RegisterMemory(CLI::App& app, int& exit_code);

}  // namespace rlcost::cli
