#include "cli/common.h"

#include <cmath>
#include <cstdlib>
#include <iostream>


namespace rlcost::cli {

void AddCommon(CLI::App* sub, Common& c) {
  AddRepeatable(sub, "--catalog", c.catalog_files, "extra catalog file (GPUs, models, efficiency); repeatable");
  AddRepeatable(sub, "--set", c.sets, "override a scenario field, e.g. --set model=qwen3-32b; repeatable");
  sub->add_option("--calibration", c.calibration, "calibration file written by `rlcost calibrate`");
  sub->add_flag("--json", c.json, "print JSON instead of a table");
  AddRepeatable(sub, "--price", c.prices,
                  "price of a GPU in USD per GPU-hour, e.g. --price h100-sxm=3.00; repeatable; sets the catalog's "
                  "default (a scenario's own hardware.price_per_gpu_hour still wins)");
  sub->add_option("--grid", c.grid,
                  "electricity grid for energy.co2e_kg: world (default), china, india, australia, germany, ireland, "
                  "canada, denmark, brazil, finland, france, or grams CO2e per kWh; same as --set energy.grid=...");
}

void AddPlanOptions(CLI::App* sub, Common& c) {
  c.plans = true;
  sub->add_flag("--no-plan", c.no_plan,
                "read the placement literally: fields the scenario leaves out keep their defaults "
                "(rollout_tp 1, colocated) instead of being planned");
  sub->add_option("--plan-for", c.plan_for,
                  "what the planner minimises for the placement fields the scenario leaves out: cost (dollars "
                  "per step, default) or time (step wall time)")
      ->check(CLI::IsMember({"cost", "time"}));
}

ops::ScenarioInput Input(const std::string& file, const Common& c) {
  ops::ScenarioInput in;
  in.file = file;
  in.sets = c.sets;
  in.catalog_files = c.catalog_files;
  in.prices = c.prices;
  in.calibration = c.calibration;
  in.grid = c.grid;
  // A command without --no-plan / --plan-for reads the placement literally.
  in.plan_for = c.plans && !c.no_plan ? c.plan_for : "";
  return in;
}

namespace {

// The fields of the operations' requests (src/api/ops.h) that are flags here,
// where the flag is not the field with '_' -> '-'. Scenario paths ("model",
// "hardware.gpu") are not in it and stay as they are.
constexpr std::pair<std::string_view, std::string_view> kFlags[] = {
    {"catalog", "--catalog"}, {"prices", "--price"}, {"calibration", "--calibration"}, {"grid", "--grid"},
    {"set", "--set"}, {"plan_for", "--plan-for"}, {"order", "--order"}, {"gpu", "--gpu"},
    {"tenants", "--tenants"}, {"rank", "--rank"}, {"moe_model", "--moe-model"}, {"dense_model", "--dense-model"},
    {"moe_pass_rate", "--moe-pass-rate"}, {"dense_pass_rate", "--dense-pass-rate"},
    {"staleness_discount", "--staleness-discount"}, {"fp8_discount", "--fp8-discount"},
    {"fp4_discount", "--fp4-discount"}, {"baseline", "--baseline"}, {"models", "--models"}, {"gpus", "--gpus"},
    {"stack", "--stack"}, {"vary", "--vary"}, {"sample", "--sample"}, {"seed", "--seed"}, {"metrics", "--metric"},
    {"steps", "--steps"}, {"span", "--span"}, {"ranges", "--range"}, {"metric", "--metric"},
    {"target", "--target"}, {"progress", "--progress"}, {"output", "--output"}, {"with", "--with"},
    {"scenario", "--scenario"}, {"fit_until", "--fit-until"}, {"jobs", "--jobs"}, {"backtest", "--backtest"},
    {"curve", "--curve"}, {"range", "--range"}, {"no_plan", "--no-plan"}, {"subject_to", "--subject-to"},
    {"full", "--full"}, {"json", "--json"}, {"price", "--price"}, {"level", "--level"}, {"replicates", "--replicates"},
    {"usd_per_gpu_hour", "--usd-per-gpu-hour"}, {"trace", "--trace"}, {"simulate", "--simulate"},
    {"useful_per_step", "--useful-per-step"}, {"group_size", "--group-size"}, {"learning", "--learning"},
    {"batch", "--batch"}, {"grad_norm_sq", "--grad-norm-sq"}, {"gain_per_step", "--gain-per-step"},
    {"minimize", "--minimize"}, {"over", "--over"}, {"top", "--top"}, {"csv", "--csv"}, {"jsonl", "--jsonl"},
    {"markdown", "--markdown"}, {"sim_steps", "--sim-steps"}, {"sim_measure", "--sim-measure"},
};

std::optional<std::string_view> FlagOf(std::string_view field, FlagNames own = {}) {
  for (const auto& [f, flag] : own) {
    if (f == field) return flag;
  }
  for (const auto& [f, flag] : kFlags) {
    if (f == field) return flag;
  }
  return std::nullopt;
}

// "fp8_discount" -> "--fp8-discount"; "set[2]" -> "--set[2]"; "vary.model" -> "--vary model".
std::string PathAsFlag(const std::string& path, FlagNames own) {
  const size_t end = path.find_first_of(".[ ");
  auto flag = FlagOf(std::string_view(path).substr(0, end), own);
  if (!flag) return path;
  if (end == std::string::npos) return std::string(*flag);
  if (path[end] == '.') return std::string(*flag) + " " + path.substr(end + 1);
  return std::string(*flag) + path.substr(end);
}

}  // namespace

std::string AsFlags(std::string text, FlagNames own) {
  // `field` in a message: the request's field, spelled as this command line's flag.
  std::string out;
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('`', i);
    const size_t close = open == std::string::npos ? std::string::npos : text.find('`', open + 1);
    if (close == std::string::npos) {
      out += text.substr(i);
      break;
    }
    const std::string name = text.substr(open + 1, close - open - 1);
    auto flag = FlagOf(name, own);
    out += text.substr(i, open - i);
    out += flag ? std::string(*flag) : text.substr(open, close - open + 1);
    i = close + 1;
  }
  return out;
}

Error AsFlags(Error e, FlagNames own) {
  for (auto& p : e.problems) {
    p.path = PathAsFlag(p.path, own);
    if (auto flag = FlagOf(p.file, own)) p.file = std::string(*flag);  // "set: ..." -> "--set: ..."
    p.message = AsFlags(std::move(p.message), own);
  }
  return e;
}

void PrintWarnings(const std::vector<std::string>& warnings) {
  for (const auto& w : warnings) std::cerr << "warning: " << AsFlags(w) << "\n";
}

Result<PlannedScenario> PlanIfAsked(Scenario s, const Common& c) {
  auto p = ops::PlanOf(Input("", c), std::move(s));
  if (!p) return Fail(p.error());
  return PlannedScenario{std::move(p->first), std::move(p->second)};
}

std::optional<plan::Objective> ReplanObjective(const Common& c) { return ops::ReplanOf(Input("", c)); }

Result<Catalog> LoadCatalog(const Common& c) {
  auto cat = ops::CatalogOf(Input("", c));
  if (!cat) return Fail(cat.error());
  return Catalog(**cat);
}

Result<Scenario> LoadScenario(const std::string& file, const Catalog& cat, const Common& c) {
  std::vector<std::string> warnings;
  auto s = ops::LoadScenarioOf(Input(file, c), cat, &warnings);
  PrintWarnings(warnings);
  return s;
}

Result<Scenario> LoadAll(const std::string& file, const Common& c, Catalog* catalog_out) {
  auto cat = LoadCatalog(c);
  if (!cat) return Fail(cat.error());
  auto sc = LoadScenario(file, *cat, c);
  if (catalog_out) *catalog_out = std::move(*cat);
  return sc;
}

int PrintError(const Error& e, bool json, FlagNames own) { return ops::PrintError(AsFlags(e, own), json); }

}  // namespace rlcost::cli
