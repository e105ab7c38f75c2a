// The cost levers: their names, the headline figures, and the helpers every
// lever family shares (decide/levers_internal.h lists the files).
// Rules and formulas: docs/model.md (levers section).
#include "decide/levers.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "decide/levers_internal.h"

namespace rlcost::levers {
namespace internal {

std::optional<double> OptRatio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || !(*b > 0) || !std::isfinite(*a) || !std::isfinite(*b)) return std::nullopt;
  return *a / *b;
}

bool Has(const std::vector<Lever>& v, Lever l) { return std::find(v.begin(), v.end(), l) != v.end(); }

int TenantsFor(const Scenario& user, const Options& opt) {
  if (opt.tenants > 0) return opt.tenants;
  if (user.algorithm.lora && user.algorithm.lora->tenants > 1) return user.algorithm.lora->tenants;
  return kDefaultTenants;
}

int RankFor(const Scenario& user, const Options& opt) {
  if (opt.lora_rank > 0) return opt.lora_rank;
  if (user.algorithm.lora) return user.algorithm.lora->rank;
  return kDefaultLoraRank;
}

std::vector<std::optional<double>> ValuesOf(const Estimate& e, const Estimate* goal_steps_from,
                                            int tenants) {
  std::vector<std::optional<double>> v(kHeadlineCount);
  const double t = tenants > 0 ? tenants : 1;
  v[kStepTime] = MetricValue(e, "step.time_s");
  if (auto x = MetricValue(e, "cost.usd_per_step")) v[kUsdPerStep] = *x / t;
  v[kUsdPerUsefulSample] = MetricValue(e, "cost.usd_per_useful_sample");
  v[kUsdPerRewardBit] = MetricValue(e, "cost.usd_per_reward_bit");
  if (auto x = MetricValue(e, "run.usd")) v[kUsdRun] = *x / t;
  // One tenant reaches the goal in the steps its own batch needs (each tenant's
  // adapter learns only from its own rollouts), paying 1/T of each step.
  const Estimate& g = goal_steps_from ? *goal_steps_from : e;
  auto steps = MetricValue(g, "goal.steps");
  auto usd_step = MetricValue(e, "cost.usd_per_step");
  if (steps && usd_step) v[kUsdToGoal] = *steps * *usd_step / t;
  return v;
}

Config Failed(std::string id, std::string title, const Error& e, std::vector<Lever> levers) {
  Config c;
  c.id = std::move(id);
  c.title = std::move(title);
  c.ok = false;
  c.error = e;
  c.levers = std::move(levers);
  c.values.assign(kHeadlineCount, std::nullopt);
  c.factor_prev.assign(kHeadlineCount, std::nullopt);
  c.factor_base.assign(kHeadlineCount, std::nullopt);
  return c;
}

}  // namespace internal

using internal::Has;

// --- Names -------------------------------------------------------------------

const std::vector<Lever>& AllLevers() {
  static const std::vector<Lever> all = {Lever::kAsync, Lever::kQuantize, Lever::kHardware, Lever::kFp4,
                                         Lever::kGrpo2, Lever::kBatch,    Lever::kLora,     Lever::kMoe};
  return all;
}

std::string AllLeversCsv() {
  std::string s;
  for (Lever l : AllLevers()) s += (s.empty() ? "" : ",") + std::string(ToString(l));
  return s;
}

std::string_view ToString(Lever l) {
  switch (l) {
    case Lever::kAsync: return "async";
    case Lever::kQuantize: return "fp8";
    case Lever::kHardware: return "hardware";
    case Lever::kGrpo2: return "grpo2";
    case Lever::kLora: return "lora";
    case Lever::kMoe: return "moe";
    case Lever::kFp4: return "fp4";
    case Lever::kBatch: return "batch";
    case Lever::kSpeculative: return "speculative";
    case Lever::kSpot: return "spot";
    case Lever::kTail: return "tail";
    case Lever::kResplit: return "resplit";
    case Lever::kLayout: return "layout";
  }
  return "?";
}

std::string_view Title(Lever l) {
  switch (l) {
    case Lever::kAsync: return "Async RL";
    case Lever::kQuantize: return "FP8 rollout";
    case Lever::kHardware: return "Newer GPU";
    case Lever::kGrpo2: return "2-GRPO";
    case Lever::kLora: return "LoRA multi-tenancy";
    case Lever::kMoe: return "MoE model";
    case Lever::kFp4: return "FP4 rollout";
    case Lever::kBatch: return "Bigger batch";
    case Lever::kSpeculative: return "Speculative decoding";
    case Lever::kSpot: return "Spot GPUs";
    case Lever::kTail: return "Tail handling";
    case Lever::kResplit: return "Elastic pools";
    case Lever::kLayout: return "Planned layout";
  }
  return "?";
}

std::optional<Lever> LeverFromString(std::string_view s) {
  if (s == "async") return Lever::kAsync;
  if (s == "fp8" || s == "quant" || s == "quantize") return Lever::kQuantize;
  if (s == "fp4" || s == "nvfp4") return Lever::kFp4;
  if (s == "hardware" || s == "gpu" || s == "hw") return Lever::kHardware;
  if (s == "grpo2" || s == "2-grpo" || s == "2grpo") return Lever::kGrpo2;
  if (s == "batch") return Lever::kBatch;
  if (s == "lora") return Lever::kLora;
  if (s == "moe") return Lever::kMoe;
  if (s == "speculative" || s == "spec" || s == "mtp") return Lever::kSpeculative;
  if (s == "spot" || s == "preemptible") return Lever::kSpot;
  if (s == "tail" || s == "tail_batching" || s == "partial_rollout" || s == "over_provision") return Lever::kTail;
  if (s == "layout" || s == "plan") return Lever::kLayout;
  if (s == "resplit" || s == "elastic" || s == "elastic_pools") return Lever::kResplit;
  return std::nullopt;
}

Result<std::vector<Lever>> ParseLeverList(std::string_view csv, std::string_view path) {
  std::vector<Lever> out;
  Error err;
  size_t start = 0;
  while (start <= csv.size()) {
    size_t comma = csv.find(',', start);
    std::string item(csv.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) {
      auto l = LeverFromString(item);
      if (!l) {
        err.problems.push_back({std::string(path), fmt::format("'{}': unknown lever; expected one of {}, "
                                                               "speculative, spot, tail, resplit or layout", item, AllLeversCsv())});
      } else if (Has(out, *l)) {
        err.problems.push_back({std::string(path), fmt::format("'{}': lever given twice", item)});
      } else {
        out.push_back(*l);
      }
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (!err.problems.empty()) return Fail(err);
  return out;
}

const std::vector<Headline>& Headlines() {
  static const std::vector<Headline> h = {
      {"step.time_s", "step_time_s", "step time", "s"},
      {"cost.usd_per_step", "usd_per_step", "$ per step (per tenant)", "USD"},
      {"cost.usd_per_useful_sample", "usd_per_useful_sample", "$ per useful sample", "USD"},
      {"cost.usd_per_reward_bit", "usd_per_reward_bit", "$ per reward bit", "USD"},
      {"goal.usd", "usd_to_goal", "$ to goal (per tenant)", "USD"},
      {"run.usd", "usd_run", "$ per run (per tenant)", "USD"},
  };
  return h;
}

std::optional<double> MetricValue(const Estimate& e, std::string_view key) {
  const MetricDef* m = FindMetric(key);
  if (!m) return std::nullopt;
  auto v = m->get(e);
  if (!v || !std::isfinite(*v)) return std::nullopt;
  return v;
}

}  // namespace rlcost::levers
