// `rlcost memory [FILE] [--json] [--gpus N]`: GPU memory per GPU for each role
// of the run (planned layout unless --no-plan), the fewest GPUs on which it
// fits and the catalog's largest model that fits on N GPUs.
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "plan/memory.h"
#include "plan/plan.h"

namespace rlcost::cli {
namespace {

struct MemoryArgs {
  Common common;
  std::string file;
  int gpus = 0;
};

nlohmann::json ToJson(const Scenario& s, const plan::MemoryReport& r, std::optional<int> smallest,
                      std::optional<std::string> largest, int largest_at, const std::optional<PlanSummary>& plan) {
  nlohmann::json j;
  j["scenario"] = s.name;
  j["layout"] = plan::Describe(plan::LayoutOf(s));
  if (plan) j["plan"] = {{"layout", plan->layout}, {"chosen_fields", plan->chosen_fields}, {"why", plan->why}};
  j["fits"] = r.fits;
  j["verdict"] = r.verdict;
  j["gpu"] = {{"id", s.hardware.gpu.id}, {"memory_gb", s.hardware.gpu.memory_gb}};
  nlohmann::json roles = nlohmann::json::array();
  for (const auto& role : r.roles) {
    nlohmann::json parts = nlohmann::json::array();
    for (const auto& p : role.parts) parts.push_back({{"name", p.name}, {"gb", p.gb}, {"note", p.note}});
    roles.push_back({{"role", role.role}, {"total_gb", role.total_gb}, {"capacity_gb", role.capacity_gb},
                     {"fits", role.fits}, {"parts", parts}});
  }
  j["roles"] = roles;
  j["activations"] = {{"tokens", r.activations.tokens},
                      {"no_recompute_gb", r.activations.no_recompute_gb},
                      {"recompute_gb", r.activations.recompute_gb},
                      {"logits_gb", r.activations.logits_gb}};
  j["smallest_gpus"] = smallest ? nlohmann::json(*smallest) : nlohmann::json(nullptr);
  j["largest_model"] = {{"gpus", largest_at},
                        {"model", largest ? nlohmann::json(*largest) : nlohmann::json(nullptr)}};
  return j;
}

std::string ToTable(const Scenario& s, const plan::MemoryReport& r, std::optional<int> smallest,
                    std::optional<std::string> largest, int largest_at, const std::optional<PlanSummary>& plan) {
  std::string out = fmt::format("rlcost memory — {}\n  {} on {} x {} ({:.0f} GB each)\n  layout: {}{}\n", s.name,
                                s.model.id, s.hardware.gpus, s.hardware.gpu.id, s.hardware.gpu.memory_gb,
                                plan::Describe(plan::LayoutOf(s)), plan ? " (planned)" : " (as written)");
  for (const auto& role : r.roles) {
    out += fmt::format("\n  {:<40} {:>9}\n", role.role, "GB/GPU");
    for (const auto& p : role.parts) out += fmt::format("    {:<38} {:>9.1f}  {}\n", p.name, p.gb, p.note);
    out += fmt::format("    {:<38} {:>9.1f}  of {:.0f} GB{}\n", "total", role.total_gb, role.capacity_gb,
                       role.fits ? "" : "  DOES NOT FIT");
  }
  out += fmt::format("\n  verdict: {}\n", r.verdict);
  out += smallest ? fmt::format("  fewest GPUs that fit: {}\n", *smallest)
                  : std::string("  fewest GPUs that fit: none up to 8192\n");
  out += largest ? fmt::format("  largest catalog model that fits on {} GPUs: {}\n", largest_at, *largest)
                 : fmt::format("  no catalog model fits on {} GPUs\n", largest_at);
  return out;
}

}  // namespace

void RegisterMemory(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<MemoryArgs>();
  auto* sub = app.add_subcommand(
      "memory", "GPU memory per GPU for each role (engine, trainer), the fewest GPUs that fit, the largest model");
  sub->add_option("file", args->file, "scenario YAML or JSON; omitted = built-in default");
  sub->add_option("--gpus", args->gpus, "GPU count for the largest model that fits (default: the scenario's)")
      ->check(CLI::Range(1, 1'000'000));
  AddCommon(sub, args->common);
  AddPlanOptions(sub, args->common);
  sub->callback([args, &exit_code] {
    Catalog cat;
    auto loaded = LoadAll(args->file, args->common, &cat);
    if (!loaded) { exit_code = PrintError(loaded.error(), args->common.json); return; }
    // A layout that does not fit is the answer here, not an error: the
    // planner's failure leaves the scenario as written.
    std::optional<PlanSummary> summary;
    Scenario s = *loaded;
    if (!args->common.no_plan && plan::AnythingToPlan(s)) {
      auto obj = plan::ObjectiveFromString(args->common.plan_for);
      if (obj) {
        if (auto p = plan::PlanLayout(s, {*obj})) {
          s = p->scenario;
          summary = p->summary;
        }
      }
    }
    const plan::MemoryReport r = plan::MemoryOf(s);
    const auto smallest = plan::SmallestFittingGpus(*loaded);
    const int at = args->gpus > 0 ? args->gpus : s.hardware.gpus;
    const auto largest = plan::LargestFittingModel(plan::WithGpus(*loaded, at), cat);
    if (args->common.json) {
      std::cout << Dump(ToJson(s, r, smallest, largest, at, summary)) << "\n";
    } else {
      std::cout << ToTable(s, r, smallest, largest, at, summary);
    }
    exit_code = r.fits ? 0 : 3;
  });
}

}  // namespace rlcost::cli
