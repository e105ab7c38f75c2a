// What the files of the levers share (decide/levers.h is the interface):
// the essay's constants, the helpers every lever family uses, and the steps
// of building one configuration (Evaluate), one function per lever family:
//   lever_model.cc      MoE, newer GPU, spot (what runs, on what, at what price)
//   lever_precision.cc  fp8 / fp4 rollout, speculative decoding, the quality discounts
//   lever_batch.cc      2-GRPO, bigger batch, LoRA tenancy
//   lever_layout.cc     planned layout, async, tail handling, elastic pools
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "decide/levers.h"

namespace rlcost::levers::internal {

// The seed's baseline: "naive H100 + synchronous veRL" (seed/motivation.txt).
inline constexpr std::string_view kBaselineGpu = "h100-sxm";
inline constexpr int kBaselineGroup = 16;
inline constexpr int kDefaultTenants = 4;
inline constexpr int kDefaultLoraRank = 32;
// The seed's claim: "Combined, these could yield 20-50x cost reductions".
inline constexpr double kClaimLow = 20;
inline constexpr double kClaimHigh = 50;

// a / b, or nothing when either is missing, not finite, or b is not positive.
std::optional<double> OptRatio(const std::optional<double>& a, const std::optional<double>& b);
bool Has(const std::vector<Lever>& v, Lever l);
int TenantsFor(const Scenario& user, const Options& opt);
int RankFor(const Scenario& user, const Options& opt);
// The headline values of an estimate (kHeadlineCount of them), per tenant;
// the goal's steps from `goal_steps_from` when given (one tenant's batch).
std::vector<std::optional<double>> ValuesOf(const Estimate& e, const Estimate* goal_steps_from, int tenants);
// A configuration that could not be priced, with the reason.
Config Failed(std::string id, std::string title, const Error& e, std::vector<Lever> levers);

// lever_model.cc
bool SetModel(Scenario& s, const Catalog& cat, const std::string& id, Error* err);
bool SetGpu(Scenario& s, const Catalog& cat, const std::string& id, Error* err);
std::string PriceTag(const GpuSpec& g);
SpotSpec SpotAsRatios(const Scenario& user);
// lever_precision.cc
std::vector<Discount> DiscountsOf(const Scenario& s, const QualityDiscounts& q);

// One configuration being built from `base` with `levers` (Evaluate): the
// scenario as changed so far and what each step said it did.
struct Building {
  Scenario s;
  const Scenario& base;
  const Catalog& cat;
  const Options& opt;
  const std::vector<Lever>& levers;
  std::vector<std::string> said;
  int tenants = 1;
  std::optional<Scenario> one_tenant;  // the same run carrying one tenant's batch, for goal steps
  bool layout_freed = false;           // the layout lever, re-planning: the stated layout left to the planner
};

// The steps of Evaluate, in its build order: what the hardware is, then how
// it runs, then the pipeline split (which depends on all the rest). Each does
// nothing unless its lever is in `b.levers`.
Result<void> ApplyMoe(Building& b);
Result<void> ApplyHardware(Building& b);
void ApplyLowPrecision(Building& b);
void ApplyGrpo2(Building& b);
void ApplyBatchAndLora(Building& b);
void ApplySpeculative(Building& b);
Result<void> ApplyLayoutAndAsync(Building& b);
Result<void> ApplyReplan(Building& b);
void ApplyTail(Building& b);
Result<void> ApplyResplit(Building& b);
Result<void> ApplySpot(Building& b);

}  // namespace rlcost::levers::internal
