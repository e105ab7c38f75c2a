// econ/levers: the seed's stack of cost levers as functions Scenario -> Scenario,
// the waterfall that applies them one at a time to the seed's baseline, the
// price card (model x GPU x stack) and the side-by-side comparison of scenarios.
// Formulas, rules and sources: docs/model.md (levers section).
//
//   levers::Options opt;                       // order, target GPU, tenants, MoE model
//   auto wf = levers::BuildWaterfall(scenario, catalog, opt);
//   for (const auto& st : wf->stages) st.values[levers::kUsdPerUsefulSample];
//
// Every figure is read from an Estimate through rlcost::Metrics(); the only
// arithmetic here is the per-tenant split (cost / T) and the ratios between
// configurations.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"

namespace rlcost::levers {

enum class Lever { kAsync, kQuantize, kHardware, kGrpo2, kLora, kMoe };

std::string_view ToString(Lever l);        // async | fp8 | hardware | grpo2 | lora | moe
std::string_view Title(Lever l);           // "Async RL", ...
std::optional<Lever> LeverFromString(std::string_view s);  // also accepts "fp4", "quant", "moe"...
// "async,fp8,..." -> levers; an unknown or repeated name is an error naming `path`.
Result<std::vector<Lever>> ParseLeverList(std::string_view csv, std::string_view path);
const std::vector<Lever>& AllLevers();     // the seed's order: async, fp8, hardware, grpo2, lora, moe

struct Options {
  std::vector<Lever> order = AllLevers();
  std::string gpu_id = "b200";            // hardware lever's target
  int tenants = 0;                        // LoRA tenants; 0 = scenario's when > 1, else 4
  int lora_rank = 0;                      // 0 = scenario's, else 32
  std::string moe_model = "qwen3-30b-a3b";
  std::string dense_model;                // baseline dense model when the scenario's is MoE; "" = rule
  int grpo2_group_size = 2;
};

// The figures every lever view shows, per tenant. Index into Config::values.
enum HeadlineIndex {
  kStepTime = 0,          // step.time_s
  kUsdPerStep,            // cost.usd_per_step / tenants
  kUsdPerUsefulSample,    // cost.usd_per_useful_sample
  kUsdPerRewardBit,       // cost.usd_per_reward_bit
  kUsdToGoal,             // goal.usd for one tenant (see levers.md)
  kUsdRun,                // run.usd / tenants: the whole run as configured
  kHeadlineCount
};
struct Headline {
  std::string_view key;     // metric key of rlcost::Metrics() it is read from
  std::string_view id;      // short id for JSON ("usd_per_useful_sample")
  std::string_view label;   // for tables and charts
  std::string_view unit;
};
const std::vector<Headline>& Headlines();

// One configuration of the run: the baseline, a cumulative stage, a lever alone.
struct Config {
  std::string id;                       // "baseline", "async", ..., or "solo:async"
  std::string title;
  std::string detail;                   // what was changed, in words (split chosen, precision, ...)
  std::vector<Lever> levers;            // applied, in order
  bool ok = false;
  Error error;                          // when !ok (does not fit, not applicable, ...)
  Scenario scenario;
  Estimate estimate;
  int tenants = 1;                      // cost is split over this many tenants
  std::vector<std::optional<double>> values;        // Headlines() order
  std::vector<std::optional<double>> factor_prev;   // previous / this (> 1: cheaper)
  std::vector<std::optional<double>> factor_base;   // baseline / this
};

struct ClaimVerdict {
  std::string metric_id;
  double combined_factor = 0;
  double solo_product = 0;
  std::string verdict;                  // "holds" | "falls short" | "exceeds"
};

// 2-GRPO, exactly: the informative-group probabilities over the scenario's
// pass-rate distribution and the paper's claim.
struct Grpo2Detail {
  int group_large = 16;
  int group_small = 2;
  double p_informative_large = 0;       // E[1 - p^16 - (1-p)^16]
  double p_informative_small = 0;       // E[2 p (1-p)]
  double claim_quality = 0.976;         // arXiv 2510.00977 v1 abstract
  double claim_rollout_share = 0.125;
  std::string claim_source;
};

struct Waterfall {
  std::string scenario_name;
  Options options;
  Config baseline;
  std::vector<Config> stages;           // cumulative, in options.order
  std::vector<Config> solo;             // each lever alone on the baseline
  std::vector<std::optional<double>> solo_product;   // product of the solo factors vs baseline
  std::vector<ClaimVerdict> verdicts;   // the seed's 20-50x claim, per metric
  std::string verdict_summary;          // one sentence
  Grpo2Detail grpo2;
  std::vector<std::string> rules;       // the stated rules (dense model, split, tenants, G)
};

Result<Waterfall> BuildWaterfall(const Scenario& user, const Catalog& cat, const Options& opt);

// The seed's baseline for this scenario's model and environment: same GPU
// count on H100s, colocated, sync, bf16, full fine-tuning, dense, G = 16.
// `rule` receives the sentence saying how the dense model was chosen.
Result<Scenario> MakeBaseline(const Scenario& user, const Catalog& cat, const Options& opt,
                              std::string* rule = nullptr);
// The dense catalog model of quality closest to an MoE: the one whose total
// parameters are nearest, on a log scale, to sqrt(total * active) of the MoE
// (a common rule of thumb, an ASSUMPTION), same family (id prefix) first.
Result<std::string> DenseCounterpart(const ModelSpec& moe, const Catalog& cat);
// Applies levers to a scenario (in a fixed build order, so the result does
// not depend on the order given) and estimates it. `detail` receives what was done.
Result<Config> Evaluate(const Scenario& base, const std::vector<Lever>& levers, const Catalog& cat,
                        const Options& opt);
// Evaluate every rollout/train split of an async disaggregated scenario (the
// split `rollout_gpus` in steps of rollout_tp) and keep the fastest step.
Result<Scenario> BestAsyncSplit(const Scenario& s, std::string* detail = nullptr);

// --- Price card ------------------------------------------------------------
struct PriceMetric {
  std::string_view id;
  std::string_view label;
  std::string_view unit;
};
const std::vector<PriceMetric>& PriceMetrics();  // $/M trained tok, $/M generated tok, $/useful, $/bit, $ goal, step s
struct PriceRow {
  std::string model_id;
  std::string gpu_id;
  Config config;                        // ok = false: does not fit (error says why, with numbers)
  std::vector<std::optional<double>> values;     // PriceMetrics() order
};
struct PriceCard {
  std::string scenario_name;
  std::vector<Lever> stack;
  std::vector<PriceRow> rows;
  std::vector<std::string> notes;
};
Result<PriceCard> BuildPriceCard(const Scenario& user, const Catalog& cat,
                                 const std::vector<std::string>& models,
                                 const std::vector<std::string>& gpus,
                                 const std::vector<Lever>& stack, const Options& opt);

// --- Comparison ------------------------------------------------------------
struct CompareEntry {
  std::string label;
  Config config;
};
// One factor of a ratio B/A: B/A = product of factors (a residual factor
// makes the product exact when the parts do not multiply out).
struct Factor {
  std::string name;
  double ratio = 1;
};
struct CompareDiff {
  std::vector<std::optional<double>> ratios;   // this / first, per CompareMetrics()
  std::vector<Factor> per_useful_sample;       // decomposition of $/useful sample ratio
  std::vector<Factor> per_reward_bit;
  std::vector<Factor> per_step;
  std::string explains;                        // the factor that moves $/useful sample most, in words
};
struct Comparison {
  std::vector<CompareEntry> entries;
  std::vector<CompareDiff> diffs;              // diffs[i] compares entries[i] with entries[0]; diffs[0] empty
};
const std::vector<std::string_view>& CompareMetrics();  // metric keys of rlcost::Metrics()
Comparison BuildComparison(std::vector<CompareEntry> entries);
// Estimates one scenario as a compare entry (errors become a not-ok entry).
CompareEntry MakeEntry(std::string label, const Scenario& s);

// --- Cost per useful sample against pass rate ------------------------------
struct PassRateCurve {
  int group_size = 0;
  std::vector<double> pass_rate;
  std::vector<std::optional<double>> usd_per_useful_sample;
};
// Every task at pass rate p (a one-point histogram), the scenario otherwise as is.
std::vector<PassRateCurve> CostVsPassRate(const Scenario& s, const std::vector<int>& groups,
                                          const std::vector<double>& pass_rates);

// Reads one headline value from an estimate (per tenant where it is a cost).
std::optional<double> MetricValue(const Estimate& e, std::string_view key);

}  // namespace rlcost::levers
