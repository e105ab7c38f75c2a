// GPU memory per role, the fewest GPUs that fit, the largest model (api/memory_op.h).
#include "api/memory_op.h"

#include <fmt/format.h>

#include "core/strings.h"
#include "plan/memory.h"
#include "plan/plan.h"

namespace rlcost::ops {
namespace {

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
  out += largest ? fmt::format("  largest catalog model that fits on {}: {}\n", GpuCount(largest_at), *largest)
                 : fmt::format("  no catalog model fits on {}\n", GpuCount(largest_at));
  return out;
}

}  // namespace

Result<void> MemoryInput::Validate() const {
  if (gpus < 0 || gpus > 1'000'000) return Fail(Error::Invalid("gpus", fmt::format("{}; expected 1..1000000", gpus)));
  return {};
}

Result<MemoryOutcome> MemoryView(const ScenarioInput& in, const MemoryInput& m) {
  if (auto ok = m.Validate(); !ok) return Fail(ok.error());
  auto cat = CatalogOf(in);
  if (!cat) return Fail(cat.error());
  MemoryOutcome out;
  auto loaded = LoadScenarioOf(in, **cat, &out.view.warnings);
  if (!loaded) return Fail(loaded.error());
  // A layout that does not fit is the answer here, not an error: the
  // planner's failure leaves the scenario as written.
  std::optional<PlanSummary> summary;
  Scenario s = *loaded;
  if (!in.plan_for.empty() && plan::AnythingToPlan(s)) {
    if (auto obj = plan::ObjectiveFromString(in.plan_for)) {
      if (auto p = plan::PlanLayout(s, {*obj})) {
        s = p->scenario;
        summary = p->summary;
      }
    }
  }
  const plan::MemoryReport r = plan::MemoryOf(s);
  const auto smallest = plan::SmallestFittingGpus(*loaded);
  const int at = m.gpus > 0 ? m.gpus : s.hardware.gpus;
  const auto largest = plan::LargestFittingModel(plan::WithGpus(*loaded, at), **cat);
  out.view.json = ToJson(s, r, smallest, largest, at, summary);
  out.view.text = ToTable(s, r, smallest, largest, at, summary);
  out.fits = r.fits;
  return out;
}

}  // namespace rlcost::ops
