// decide/levers: the often-quoted stack of cost levers as functions Scenario ->
// Scenario, the waterfall that applies them one at a time to a naive baseline
// (H100, synchronous, bf16, G = 16), the price card (model x GPU x stack) and
// the side-by-side comparison of scenarios.
// Formulas, rules and sources: docs/model.md (levers section).
//
//   levers::Options opt;                       // order, target GPU, tenants, MoE model
//   auto wf = levers::BuildWaterfall(scenario, catalog, opt);
//   for (const auto& st : wf->stages) st.values[levers::kUsdPerUsefulSample];
//
// Every figure is read from an Estimate through rlcost::Metrics(); the only
// arithmetic here is the per-tenant split (cost / T), the quality discounts
// (what a stale or low-precision rollout is worth, a labelled input) and the
// ratios between configurations.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "plan/plan.h"
#include "rlcost/scenario.h"

namespace rlcost::levers {

// kQuantize is the fp8 rollout; kFp4 the fp4 rollout on a GPU with FP4 tensor
// cores (no effect elsewhere); kBatch multiplies prompts per step by the LoRA
// tenant count (one tenant, full fine-tuning), so that LoRA tenancy at a bigger
// batch shows as two rows: the batch-size gain and the tenancy itself.
// kSpeculative (speculative decoding in rollout, docs/model.md) is not in the
// default order: name it (`--order ...,speculative`) to see its row.
// kSpot (spot GPUs at the scenario's hardware.spot prices and preemption
// rates, docs/model.md "Spot GPUs") is opt-in the same way (`--order ...,spot`).
// kLayout frees the placement fields the user stated (mode, split, rollout_tp,
// data-parallel attention, engine memory share) and plans them: the user's
// literal layout -> the planned one. Not in the default order: BuildWaterfall
// puts it first when re-planning (Options::replan) and the user stated a layout.
// kTail (pipeline.tail: the scenario's, else APRIL's partial rollouts;
// docs/model.md "Tail handling") is opt-in too (`--order ...,tail`).
// kResplit (elastic pools, placement.resplit: the scenario's, else 4 phases;
// docs/model.md "Elastic pools") is opt-in too (`--order async,resplit`): it
// re-splits a disaggregated configuration's GPUs along the scenario's
// response-length schedule, the row before it the same run at a fixed split.
enum class Lever { kAsync, kQuantize, kHardware, kGrpo2, kLora, kMoe, kFp4, kBatch, kSpeculative, kSpot, kLayout, kTail, kResplit };

std::string_view ToString(Lever l);        // async | fp8 | hardware | grpo2 | lora | moe | fp4 | batch
std::string_view Title(Lever l);           // "Async RL", ...
std::optional<Lever> LeverFromString(std::string_view s);  // also accepts "quant", "gpu", "2-grpo"...
// "async,fp8,..." -> levers; an unknown or repeated name is an error naming `path`.
Result<std::vector<Lever>> ParseLeverList(std::string_view csv, std::string_view path);
// The default order: async, fp8, hardware, fp4, grpo2, batch, lora, moe.
const std::vector<Lever>& AllLevers();
std::string AllLeversCsv();                // "async,fp8,hardware,fp4,grpo2,batch,lora,moe"

// What a rollout is worth relative to an on-policy bf16 one: each quality
// discount is a fraction in [0, 1) of a rollout's worth lost. A value not given
// by the user takes the default below, labelled ASSUMPTION where it is not
// measured (docs/model.md, "Quality discounts").
struct QualityDiscounts {
  std::optional<double> staleness;   // per policy version of lag (async); d(s) = 1 - (1 - d)^s
  std::optional<double> fp8;         // fp8 rollout, bf16 trainer (precision mismatch)
  std::optional<double> fp4;         // fp4 rollout, bf16 trainer
};
inline constexpr double kDefaultStalenessDiscount = 0.05;
inline constexpr double kDefaultFp8Discount = 0.02;
inline constexpr double kDefaultFp4Discount = 0.05;
// One discount applied to a configuration.
struct Discount {
  std::string id;        // "staleness" | "fp8_mismatch" | "fp4_mismatch"
  std::string label;     // "staleness 1 (async)"
  double value = 0;      // fraction of a rollout's worth lost, in [0, 1)
  bool user_set = false;
  bool assumed = false;  // true: an ASSUMPTION (not measured)
  std::string source;    // where the default comes from, or "set by the user (--fp8-discount)"
};
// [0, 1) or an error naming `field`.
Result<double> CheckDiscount(double v, std::string_view field);

// What the levers start from: the user's run as given (planned by the caller,
// so that its step time and dollars are `estimate`'s), or the essay's naive
// baseline (MakeBaseline). The other is shown beside as Waterfall::reference.
enum class Baseline { kRun, kNaive };

struct Options {
  // The library's default is the essay's baseline (what the claims check); the
  // front ends (api::LeverInput) start from the user's run.
  Baseline baseline = Baseline::kNaive;
  std::vector<Lever> order = AllLevers();
  std::string gpu_id = "b200";            // hardware lever's target
  int tenants = 0;                        // LoRA tenants (and the batch lever's factor); 0 = scenario's when > 1, else 4
  int lora_rank = 0;                      // 0 = scenario's, else 32
  // MoE lever's model for a dense scenario; "" = the catalog MoE paired with the
  // scenario's model by quality (DenseCounterpart of the MoE is that model).
  std::string moe_model;
  std::string dense_model;                // baseline dense model when the scenario's is MoE; "" = rule
  // Each model's own mean pass rate on the scenario's tasks (capability); unset:
  // the scenario's (the pairing is by quality, an ASSUMPTION said so).
  std::optional<double> moe_pass_rate;
  std::optional<double> dense_pass_rate;
  QualityDiscounts discounts;
  int grpo2_group_size = 2;
  // The speculative lever's settings: the user's engine.speculative when the
  // scenario has one (BuildWaterfall fills it), else MTP-style, one drafted
  // token at DeepSeek-V3's MTP acceptance (an ASSUMPTION for other models).
  std::optional<SpeculativeSpec> speculative;
  // The spot lever's settings: the scenario's hardware.spot (BuildWaterfall
  // fills it), each price kept as a fraction of the scenario's on-demand
  // price so that it carries to another GPU. No default: without it the
  // lever's row says so.
  std::optional<SpotSpec> spot;
  // The tail lever's settings: the scenario's pipeline.tail (BuildWaterfall
  // fills it), else partial_rollout at APRIL's f = 1.
  std::optional<TailSpec> tail;
  // The elastic-pools lever's settings: the scenario's placement.resplit
  // (BuildWaterfall fills it), else ResplitSpec's defaults (4 phases, a
  // start-up per change).
  std::optional<ResplitSpec> resplit;
  // Re-plan the layout of every configuration (baseline, stages, solo rows):
  // the placement fields the user left out are chosen again for each
  // alternative by the layout planner (src/plan) with this objective, so that
  // an fp8 rollout, a B200 or another model gets its own best layout and a
  // lever is not credited with what a better layout alone would give. Fields
  // the user stated are kept, unless the lever is that field (async: the
  // split; layout: all of them). nullopt: every alternative keeps the layout
  // it is given (--no-plan).
  std::optional<plan::Objective> replan;
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
  std::vector<Discount> discounts;      // quality discounts applied (none: worth 1)
  double worth = 1;                     // product of (1 - discount): what a rollout is worth
  std::vector<std::optional<double>> values;        // Headlines() order; per useful sample,
                                                    // per reward bit and to goal divided by worth
  std::vector<std::optional<double>> factor_prev;   // previous / this (> 1: cheaper)
  std::vector<std::optional<double>> factor_base;   // baseline / this
};

struct ClaimVerdict {
  std::string metric_id;
  double combined_factor = 0;
  double solo_product = 0;
  std::string verdict;                  // "holds" | "falls short" | "exceeds"
  // $ per useful sample and $ to goal compare like with like; $ per step and
  // per run count a step with fewer (2-GRPO) or worse (stale, low-precision)
  // rollouts as a pure saving.
  bool like_for_like = false;
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
  Config baseline;                      // what the levers start from (Options::baseline)
  // The other starting point, labelled: the essay's naive H100 + synchronous
  // run when the levers start from the user's run, and the other way round.
  // Its factors are against `baseline`. ok = false when it cannot run.
  Config reference;
  std::vector<Config> stages;           // cumulative, in options.order
  std::vector<Config> solo;             // each lever alone on the baseline
  std::vector<std::optional<double>> solo_product;   // product of the solo factors vs baseline
  std::vector<ClaimVerdict> verdicts;   // the 20-50x claim, per metric
  // The verdict on the like-for-like metrics: "holds" | "falls short" |
  // "exceeds" when both agree, else "mixed"; "" when it cannot be judged.
  std::string verdict;
  std::string verdict_summary;          // the verdict in words
  Grpo2Detail grpo2;
  std::vector<std::string> rules;       // the stated rules (dense model, split, tenants, G)
};

Result<Waterfall> BuildWaterfall(const Scenario& user, const Catalog& cat, const Options& opt);

// The naive baseline for this scenario's model and environment: same GPU
// count on H100s, colocated, sync, bf16, full fine-tuning, dense, G = 16.
// `rule` receives the sentence saying how the dense model was chosen.
Result<Scenario> MakeBaseline(const Scenario& user, const Catalog& cat, const Options& opt,
                              std::string* rule = nullptr);
// The dense catalog model of quality closest to an MoE: the one whose total
// parameters are nearest, on a log scale, to sqrt(total * active) of the MoE
// (a common rule of thumb, an ASSUMPTION), same family (id prefix) first.
Result<std::string> DenseCounterpart(const ModelSpec& moe, const Catalog& cat);
// The catalog MoE paired with a dense model: among the MoE models whose
// DenseCounterpart is `dense_id`, the one whose sqrt(total x active) is nearest
// to its size; an error (naming --moe-model) when none pairs.
Result<std::string> PairedMoe(const std::string& dense_id, const Catalog& cat);
// The pass-rate distribution moved to mean `mean` (a Beta keeps its
// concentration; a histogram or pilot becomes the Beta of the same variance).
PassRateSpec WithMeanPassRate(const PassRateSpec& pr, double mean);
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
