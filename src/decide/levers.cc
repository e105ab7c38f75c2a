// The cost levers, the waterfall, the price card and the comparison.
// Rules and formulas: docs/model.md (levers section).
#include "decide/levers.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "catalog/price_tag.h"
#include "rlcost/signal.h"
#include "sim/cancel.h"

namespace rlcost::levers {
namespace {

// The seed's baseline: "naive H100 + synchronous veRL" (seed/motivation.txt).
constexpr std::string_view kBaselineGpu = "h100-sxm";
constexpr int kBaselineGroup = 16;
constexpr int kDefaultTenants = 4;
constexpr int kDefaultLoraRank = 32;
// The seed's claim: "Combined, these could yield 20-50x cost reductions".
constexpr double kClaimLow = 20;
constexpr double kClaimHigh = 50;

std::optional<double> OptRatio(const std::optional<double>& a, const std::optional<double>& b) {
  if (!a || !b || !(*b > 0) || !std::isfinite(*a) || !std::isfinite(*b)) return std::nullopt;
  return *a / *b;
}

bool SetModel(Scenario& s, const Catalog& cat, const std::string& id, Error* err) {
  const ModelSpec* m = cat.FindModel(id);
  if (!m) {
    *err = Error(ErrorCode::kNotFound, "model", fmt::format("'{}' is not in the catalog", id));
    return false;
  }
  s.model = *m;
  s.model_id = id;
  return true;
}

bool SetGpu(Scenario& s, const Catalog& cat, const std::string& id, Error* err) {
  const GpuSpec* g = cat.FindGpu(id);
  if (!g) {
    *err = Error(ErrorCode::kNotFound, "hardware.gpu", fmt::format("'{}' is not in the catalog", id));
    return false;
  }
  // Everything else the scenario says stays: the engine (its defaults are
  // derived where used, perf::RolloutEngine) and the efficiency factors the
  // user calibrated or set, which carry to the new GPU as the user's figures.
  GpuSpec next = *g;
  for (const auto& f : EfficiencyFields()) {
    const std::string key = "efficiency." + std::string(f.name);
    auto it = s.hardware.gpu.sources.find(key);
    if (it == s.hardware.gpu.sources.end()) continue;
    if (it->second.rfind("calibrated", 0) != 0 && it->second.rfind("set", 0) != 0) continue;
    next.efficiency.*(f.member) = s.hardware.gpu.efficiency.*(f.member);
    next.sources[key] = it->second + " (on " + s.hardware.gpu.id + ")";
  }
  s.hardware.gpu = std::move(next);
  s.hardware.price_per_gpu_hour = g->price_per_hour;
  return true;
}

// " (MARKET, 2026-03-11)": what the GPU's default price is and its date, so a
// lever that changes the GPU says whose price it pays.
std::string PriceTag(const GpuSpec& g) {
  std::string t = catalog_internal::PriceTag(g);
  return t.empty() ? "" : " (" + t + ")";
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

}  // namespace

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

// --- Baseline ------------------------------------------------------------------

Result<std::string> DenseCounterpart(const ModelSpec& moe, const Catalog& cat) {
  const double target = std::sqrt(moe.params_b * moe.active_params_b);
  const std::string family = moe.id.substr(0, moe.id.find('-'));
  std::string best;
  double best_d = std::numeric_limits<double>::infinity();
  bool best_same_family = false;
  for (const auto& [id, m] : cat.models()) {
    if (m.is_moe() || m.params_b <= 0) continue;
    const bool same = id.substr(0, id.find('-')) == family;
    const double d = std::fabs(std::log(m.params_b / target));
    // Same family first, then nearest size.
    if ((same && !best_same_family) || (same == best_same_family && d < best_d)) {
      best = id;
      best_d = d;
      best_same_family = same;
    }
  }
  if (best.empty()) return Fail(ErrorCode::kNotFound, "model", "no dense model in the catalog for the baseline");
  return best;
}

Result<std::string> PairedMoe(const std::string& dense_id, const Catalog& cat) {
  const ModelSpec* dense = cat.FindModel(dense_id);
  std::string best;
  double best_d = std::numeric_limits<double>::infinity();
  for (const auto& [id, m] : cat.models()) {
    if (!m.is_moe() || m.params_b <= 0 || m.active_params_b <= 0) continue;
    auto d = DenseCounterpart(m, cat);
    if (!d || *d != dense_id) continue;
    const double gap = dense ? std::fabs(std::log(std::sqrt(m.params_b * m.active_params_b) / dense->params_b)) : 0;
    if (gap < best_d) {
      best = id;
      best_d = gap;
    }
  }
  if (best.empty()) {
    return Fail(ErrorCode::kNotFound, "moe_model",
                fmt::format("no catalog MoE model pairs with {} by quality (rule: the dense model nearest to "
                            "sqrt(total x active) of the MoE, same family first); name one with `moe_model`",
                            dense_id));
  }
  return best;
}

PassRateSpec WithMeanPassRate(const PassRateSpec& pr, double mean) {
  const double m = std::clamp(mean, 1e-6, 1 - 1e-6);
  double kappa = 0;
  if (pr.kind == PassRateSpec::Kind::kBeta) {
    kappa = pr.a + pr.b;
  } else {
    // Moments of the listed pass rates (histogram weights, or each pilot task once).
    double m1 = 0, m2 = 0, w_sum = 0;
    auto add = [&](double p, double w) { m1 += w * p; m2 += w * p * p; w_sum += w; };
    if (pr.kind == PassRateSpec::Kind::kHistogram) {
      for (const auto& [p, w] : pr.histogram) add(p, w);
    } else {
      for (double p : pr.task_pass_rates) add(p, 1);
    }
    if (w_sum > 0) { m1 /= w_sum; m2 /= w_sum; }
    const double var = m2 - m1 * m1;
    const double mu = std::clamp(m1, 1e-6, 1 - 1e-6);
    kappa = var > 1e-12 ? mu * (1 - mu) / var - 1 : 1e4;
  }
  kappa = std::clamp(kappa, 1e-3, 1e6);
  PassRateSpec out;
  out.kind = PassRateSpec::Kind::kBeta;
  out.a = m * kappa;
  out.b = (1 - m) * kappa;
  return out;
}

Result<double> CheckDiscount(double v, std::string_view field) {
  if (!std::isfinite(v) || v < 0 || v >= 1) {
    return Fail(ErrorCode::kInvalidInput, std::string(field),
                fmt::format("{}: a quality discount is the fraction of a rollout's worth lost, a number in [0, 1) "
                            "(0 = worth a full on-policy bf16 rollout)",
                            v));
  }
  return v;
}

Result<Scenario> MakeBaseline(const Scenario& user, const Catalog& cat, const Options& opt, std::string* rule) {
  Scenario b = user;
  b.engine.speculative.reset();  // the naive baseline decodes plainly
  b.hardware.spot = SpotSpec{};  // and pays on-demand prices
  b.pipeline.tail = TailSpec{};  // and waits for its longest response
  b.placement.resplit.reset();   // and keeps one split (colocated: none)
  Error err;
  if (user.model.is_moe()) {
    std::string id = opt.dense_model;
    std::string why;
    if (id.empty()) {
      auto d = DenseCounterpart(user.model, cat);
      if (!d) return Fail(d.error());
      id = *d;
      why = fmt::format("the catalog dense model nearest on a log scale to sqrt(total x active) = "
                        "sqrt({:g}B x {:g}B) = {:.1f}B, same family first (rule of thumb, an ASSUMPTION); "
                        "`dense_model` overrides",
                        user.model.params_b, user.model.active_params_b,
                        std::sqrt(user.model.params_b * user.model.active_params_b));
    } else {
      why = "dense_model";
    }
    if (!SetModel(b, cat, id, &err)) return Fail(err);
    std::string pr;
    if (opt.dense_pass_rate) {
      b.environment.pass_rate = WithMeanPassRate(user.environment.pass_rate, *opt.dense_pass_rate);
      pr = fmt::format("its own mean pass rate {:.3g} (`dense_pass_rate`)", *opt.dense_pass_rate);
    } else {
      pr = fmt::format("the scenario's pass rates (mean {:.3g}): ASSUMPTION that a dense model of matching quality "
                       "solves the same tasks as often; `dense_pass_rate` sets its own",
                       user.environment.pass_rate.mean());
    }
    if (rule) {
      *rule = fmt::format("baseline model: {} is MoE, so the dense baseline is {} ({}), at {}", user.model_id, id,
                          why, pr);
    }
  } else {
    if (opt.dense_pass_rate) {
      return Fail(ErrorCode::kInvalidInput, "dense_pass_rate",
                  fmt::format("the scenario's model {} is dense, so the baseline is that model at the scenario's own "
                              "pass rates (environment.pass_rate); `dense_pass_rate` is for an MoE scenario",
                              user.model_id));
    }
    if (rule) *rule = fmt::format("baseline model: {} (the scenario's, dense)", user.model_id);
  }
  if (user.hardware.gpu.id != kBaselineGpu) {
    if (!SetGpu(b, cat, std::string(kBaselineGpu), &err)) return Fail(err);
  }
  b.placement.mode = PlacementMode::kColocated;
  b.placement.rollout_gpus = b.hardware.gpus;
  b.placement.train_gpus = b.hardware.gpus;
  // Re-planned (Options::replan), the naive baseline stays colocated (veRL's
  // default); its other left-out layout fields are planned.
  if (opt.replan) b.placement.stated.mode = true;
  b.pipeline.mode = PipelineMode::kSync;
  b.pipeline.partial_rollouts = false;
  b.precision = PrecisionSpec{};  // bf16 rollout, KV cache and training
  // One tenant's batch: a multi-tenant scenario's prompts are split over its tenants.
  if (user.algorithm.lora && user.algorithm.lora->tenants > 1) {
    b.algorithm.prompts_per_step = std::max(1, user.algorithm.prompts_per_step / user.algorithm.lora->tenants);
  }
  b.algorithm.lora.reset();
  b.algorithm.group_size = kBaselineGroup;
  b.name = user.name + " [baseline]";
  return b;
}

// --- Levers ----------------------------------------------------------------------

Result<Scenario> BestAsyncSplit(const Scenario& s, std::string* detail) {
  const int gpus = s.hardware.gpus;
  const int step = std::max(1, s.placement.rollout_tp);
  std::optional<Scenario> best;
  double best_t = std::numeric_limits<double>::infinity();
  int tried = 0;
  Error last;
  for (int r = step; r < gpus; r += step) {
    Scenario c = s;
    c.placement.mode = PlacementMode::kDisaggregated;
    c.placement.rollout_gpus = r;
    c.placement.train_gpus = gpus - r;
    ++tried;
    auto e = EstimateAnalytic(c);
    if (!e) {
      last = e.error();
      continue;
    }
    auto t = MetricValue(*e, "step.time_s");
    if (t && *t < best_t) {
      best_t = *t;
      best = c;
    }
  }
  if (!best) {
    if (tried == 0) {
      return Fail(ErrorCode::kInvalidInput, "hardware.gpus",
                  fmt::format("async needs at least {} GPUs to split into rollout and train sides; has {}",
                              step + 1, gpus));
    }
    Error e = last;
    e.problems.insert(e.problems.begin(),
                      Problem{"placement", fmt::format("no rollout/train split of {} GPUs fits", gpus)});
    return Fail(e);
  }
  if (detail) {
    *detail = fmt::format("{} rollout + {} train GPUs (fastest of {} splits by the analytic model), staleness {:g}",
                          best->placement.rollout_gpus, best->placement.train_gpus, tried,
                          best->pipeline.max_staleness);
  }
  return *best;
}

namespace {

// The quality discounts of a configuration: async staleness, and the mismatch
// between a low-precision rollout engine and the bf16 trainer.
std::vector<Discount> DiscountsOf(const Scenario& s, const QualityDiscounts& q) {
  std::vector<Discount> out;
  if (s.pipeline.mode == PipelineMode::kAsync && s.pipeline.max_staleness > 0) {
    Discount d;
    d.id = "staleness";
    d.label = fmt::format("staleness {:g} (async)", s.pipeline.max_staleness);
    const double per = q.staleness.value_or(kDefaultStalenessDiscount);
    d.value = 1 - std::pow(1 - per, s.pipeline.max_staleness);
    d.user_set = q.staleness.has_value();
    d.assumed = !d.user_set;
    d.source = d.user_set
                   ? fmt::format("set by the user: {:g} per policy version of lag (`staleness_discount`)", per)
                   : fmt::format(
                         "ASSUMPTION (not measured): {:g} of a rollout's worth per policy version of lag, "
                         "1 - (1 - {:g})^staleness. AReaL (arXiv 2505.24298, abstract) reports matched final "
                         "accuracy at bounded staleness with its staleness-aware PPO objective (near 0); VCPO "
                         "(arXiv 2602.17616, Fig. 1) shows a run at a two-step lag with plain truncated importance "
                         "sampling collapse; `staleness_discount` sets it",
                         per, per);
    out.push_back(std::move(d));
  }
  const Precision r = s.precision.rollout;
  if (r != s.precision.train && (r == Precision::kFp8 || r == Precision::kFp4)) {
    const bool fp8 = r == Precision::kFp8;
    Discount d;
    d.id = fp8 ? "fp8_mismatch" : "fp4_mismatch";
    d.label = fmt::format("{} rollout, {} trainer", ToString(r), ToString(s.precision.train));
    const auto& given = fp8 ? q.fp8 : q.fp4;
    d.value = given.value_or(fp8 ? kDefaultFp8Discount : kDefaultFp4Discount);
    d.user_set = given.has_value();
    d.assumed = !d.user_set;
    d.source =
        d.user_set
            ? fmt::format("set by the user ({})", fp8 ? "fp8_discount" : "fp4_discount")
            : fmt::format(
                  "ASSUMPTION (not measured): {:g}. A rollout engine at lower precision than the trainer samples "
                  "from a slightly different policy (Yao et al. 2025, \"Your Efficient RL Framework Secretly Brings "
                  "You Off-Policy RL Training\", fengyao.notion.site/off-policy-rl: truncated importance sampling "
                  "corrects most of it); AIS (arXiv 2605.13907, abstract) reports fp8 rollout with a bf16 trainer "
                  "collapsing uncorrected and matching bf16 on most tasks corrected{}; {} sets it",
                  d.value, fp8 ? "" : "; fp4 quantises coarser than fp8 and no RL comparison was found, hence more",
                  fp8 ? "fp8_discount" : "fp4_discount");
    out.push_back(std::move(d));
  }
  return out;
}

// The scenario's spot roles with each price as a fraction of its on-demand price.
SpotSpec SpotAsRatios(const Scenario& user) {
  SpotSpec sp = user.hardware.spot;
  const double od = user.hardware.price_per_gpu_hour;
  for (auto* r : {&sp.rollout, &sp.train}) {
    if (!*r || !(*r)->price) continue;
    (*r)->price_ratio = od > 0 ? *(*r)->price / od : 1.0;
    (*r)->price.reset();
  }
  return sp;
}

std::string SpotDetail(const Scenario& s) {
  const SpotSpec& sp = s.hardware.spot;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  std::string d = "spot GPUs (the scenario's hardware.spot):";
  const double od = s.hardware.price_per_gpu_hour;
  if (sp.Rollout()) {
    d += colocated ? " rollout role not used, colocated (the rollout GPUs are the trainer's)"
                   : fmt::format(" rollout at ${:.2f}/GPU-h, {:g} preemptions per node-hour",
                                 sp.rollout->PricePerGpuHour(od), sp.rollout->preemptions_per_hour);
  }
  if (sp.Train()) {
    d += fmt::format("{} training at ${:.2f}/GPU-h, {:g} preemptions per node-hour", sp.Rollout() ? ";" : "",
                     sp.train->PricePerGpuHour(od), sp.train->preemptions_per_hour);
  }
  return d;
}

// --- Re-planning the layout of an alternative (Options::replan) -------------------

// Frees the placement fields the layout lever plans: the user's literal layout
// becomes the planner's to choose.
void FreeLayout(Scenario& s) {
  auto& st = s.placement.stated;
  st.mode = st.split = st.rollout_tp = st.dp_attention = false;
  s.placement.gpu_memory_utilization.reset();
}

// Whether the scenario's framework, not its file, supplied `field`.
bool FrameworkSupplied(const Scenario& s, const std::string& field) {
  for (const auto& d : s.framework_defaults) {
    if (d.path == field) return true;
  }
  return false;
}

// The async lever's placement when re-planning: disaggregated, the split left
// to the planner (the user's own split kept when the run already was
// disaggregated with a stated split). The starting split is half the GPUs
// for rollout, in whole engines; the planner tries the others.
Result<void> AsyncPlacement(Scenario& s, const Scenario& base, bool layout_freed) {
  auto& p = s.placement;
  const bool keep_split = base.placement.mode == PlacementMode::kDisaggregated && base.placement.stated.split &&
                          !layout_freed;
  p.mode = PlacementMode::kDisaggregated;
  p.stated.mode = true;
  if (keep_split) return {};
  p.stated.split = false;
  const int gpus = s.hardware.gpus;
  const int tp = std::max(1, p.stated.rollout_tp ? p.rollout_tp : 1);
  if (gpus < tp + 1) {
    return Fail(ErrorCode::kInvalidInput, "hardware.gpus",
                fmt::format("async needs at least {} GPUs to split into rollout and train sides; has {}", tp + 1,
                            gpus));
  }
  p.rollout_gpus = std::max(tp, gpus / 2 / tp * tp);
  p.train_gpus = gpus - p.rollout_gpus;
  if (!p.stated.rollout_tp) p.rollout_tp = 1;
  return {};
}

// The alternative with its left-out layout fields planned for `obj` (stated
// ones kept). `said` receives the layout chosen.
Result<Scenario> Replanned(Scenario s, plan::Objective obj, std::vector<std::string>& said) {
  if (!plan::AnythingToPlan(s)) return s;
  auto p = plan::PlanLayout(s, {obj});
  if (!p) return Fail(p.error());
  said.push_back("layout planned for it: " + p->summary.layout);
  return std::move(p->scenario);
}

}  // namespace

Result<Config> Evaluate(const Scenario& base, const std::vector<Lever>& levers, const Catalog& cat,
                        const Options& opt) {
  Config c;
  c.levers = levers;
  Scenario s = base;
  Error err;
  std::vector<std::string> said;
  // Build order: what the hardware is, then how it runs, then the pipeline
  // split (which depends on all the rest).
  if (Has(levers, Lever::kMoe)) {
    if (!s.model.is_moe()) {
      std::string id = opt.moe_model;
      if (id.empty()) {
        auto paired = PairedMoe(base.model_id, cat);
        if (!paired) return Fail(paired.error());
        id = *paired;
      }
      if (!SetModel(s, cat, id, &err)) return Fail(err);
      if (!s.model.is_moe()) {
        return Fail(ErrorCode::kInvalidInput, "moe_model", fmt::format("'{}' is not an MoE model", id));
      }
    }
    if (opt.moe_pass_rate) s.environment.pass_rate = WithMeanPassRate(base.environment.pass_rate, *opt.moe_pass_rate);
    const auto& eff = s.hardware.gpu.efficiency;
    said.push_back(fmt::format("model {} ({:g}B total, {:g}B active), mean pass rate {:.3g}{}, trains at MoE MFU {:.3g} "
                               "(dense {:.3g})",
                               s.model_id, s.model.params_b, s.model.active_params_b, s.environment.pass_rate.mean(),
                               opt.moe_pass_rate ? " (its own)" : "",
                               eff.train_mfu_moe, eff.train_mfu));
  }
  if (Has(levers, Lever::kHardware)) {
    if (!SetGpu(s, cat, opt.gpu_id, &err)) return Fail(err);
    said.push_back(fmt::format("{} at ${:.2f}/GPU-h{}", s.hardware.gpu.id, s.hardware.price_per_gpu_hour,
                               PriceTag(s.hardware.gpu)));
  }
  const bool fp4_here = Has(levers, Lever::kFp4) && s.hardware.gpu.Supports(Precision::kFp4);
  if (Has(levers, Lever::kQuantize) && !fp4_here) {  // fp4, where it runs, replaces fp8
    if (s.hardware.gpu.Supports(Precision::kFp8)) {
      s.precision.rollout = Precision::kFp8;
      s.precision.kv_cache = Precision::kFp8;
      said.push_back(fmt::format("fp8 rollout weights, fp8 KV cache on {}", s.hardware.gpu.id));
    } else {
      said.push_back(fmt::format("fp8: no effect, {} has no FP8 tensor cores", s.hardware.gpu.id));
    }
  }
  if (Has(levers, Lever::kFp4)) {
    if (s.hardware.gpu.Supports(Precision::kFp4)) {
      s.precision.rollout = Precision::kFp4;
      s.precision.kv_cache = Precision::kFp8;
      said.push_back(fmt::format("fp4 rollout weights, fp8 KV cache on {}", s.hardware.gpu.id));
    } else {
      said.push_back(fmt::format("fp4: no effect, {} has no FP4 tensor cores", s.hardware.gpu.id));
    }
  }
  if (Has(levers, Lever::kGrpo2)) {
    // Prompts per step kept: 8x fewer rollouts, as in arXiv 2510.00977's claim.
    s.algorithm.group_size = opt.grpo2_group_size;
    said.push_back(fmt::format("G = {} with {} prompts/step (prompts kept, rollouts / {:g})",
                               opt.grpo2_group_size, s.algorithm.prompts_per_step,
                               double(base.algorithm.group_size) / opt.grpo2_group_size));
  }
  const int t_count = TenantsFor(base, opt);
  if (Has(levers, Lever::kBatch)) {
    // The batch LoRA tenancy brings (T tenants x the baseline's prompts), on one
    // fully fine-tuned model: the batch-size part of the tenancy lever.
    s.algorithm.prompts_per_step = base.algorithm.prompts_per_step * t_count;
    said.push_back(fmt::format("{} prompts/step ({} x {}), one model", s.algorithm.prompts_per_step, t_count,
                               base.algorithm.prompts_per_step));
  }
  int tenants = 1;
  std::optional<Scenario> one_tenant;  // the same run carrying one tenant's batch, for goal steps
  if (Has(levers, Lever::kLora)) {
    tenants = t_count;
    LoraSpec l{RankFor(base, opt), tenants};
    s.algorithm.lora = l;
    // The step's prompts are shared out over the tenants: each tenant's adapter
    // learns from its own share only.
    one_tenant = s;
    one_tenant->algorithm.lora = LoraSpec{l.rank, 1};
    one_tenant->algorithm.prompts_per_step = std::max(1, s.algorithm.prompts_per_step / tenants);
    said.push_back(fmt::format("LoRA rank {}, {} tenants x {} prompts on one base; cost per tenant = step cost / {}",
                               l.rank, tenants, one_tenant->algorithm.prompts_per_step, tenants));
  }
  if (Has(levers, Lever::kSpeculative)) {
    // docs/model.md, "Speculative decoding in rollout".
    const bool own = opt.speculative.has_value();
    SpeculativeSpec sp = own ? *opt.speculative : SpeculativeSpec{};
    s.engine.speculative = sp;
    const bool has_mtp = s.model_id.rfind("deepseek", 0) == 0;
    said.push_back(fmt::format(
        "speculative decoding: {} drafts {} token{} per step, acceptance {:g} -> {:.3g} tokens per verification{}",
        ToString(sp.method), sp.draft_tokens, sp.draft_tokens == 1 ? "" : "s", sp.acceptance,
        sp.ExpectedTokensPerStep(),
        own ? " (the scenario's engine.speculative)"
            : has_mtp ? " (DeepSeek-V3 report: 85-90% second-token acceptance)"
                      : " (ASSUMED: a one-layer draft at DeepSeek-V3's MTP acceptance; set engine.speculative)"));
  }
  const bool layout_freed = Has(levers, Lever::kLayout) && opt.replan;
  if (Has(levers, Lever::kLayout) && !opt.replan) {
    said.push_back("layout: no effect, every configuration keeps the layout as written (layouts read as written)");
  }
  if (layout_freed) {
    FreeLayout(s);
    said.push_back("the stated layout fields (placement mode, split, rollout_tp, data-parallel attention, engine "
                   "memory share) left to the planner");
  }
  if (Has(levers, Lever::kAsync)) {
    s.pipeline.mode = PipelineMode::kAsync;
    if (base.placement.mode == PlacementMode::kColocated &&
        FrameworkSupplied(base, "placement.gpu_memory_utilization")) {
      // A colocated engine's share of GPU memory that the scenario left out
      // and its framework supplied is that framework's colocated default (veRL
      // rollout.yaml gpu_memory_utilization 0.5: room for the trainer on the
      // same GPU). The async lever's engines own their GPUs: the share is left
      // to the layout, as veRL's own disaggregated scripts raise it
      // (verl/experimental/fully_async_policy/shell/dapo_7b_math_fsdp2_16_16.sh:120
      // @ b178a3c: 0.80). docs/model.md, "The built-in default".
      s.placement.gpu_memory_utilization.reset();
    }
    if (base.pipeline.mode != PipelineMode::kAsync) {
      // One-step-off with partial (interruptible) rollouts: the configuration
      // behind the seed's 1.5-3.5x (AReaL v0.3 reports 2.77x with
      // interruptible generation; veRL's fully-async recipe uses partial
      // rollouts too).
      s.pipeline.max_staleness = 1;
      s.pipeline.partial_rollouts = true;
    }
    if (opt.replan) {
      // The split (and rollout_tp, when not stated) planned below, with the rest.
      if (auto r = AsyncPlacement(s, base, layout_freed); !r) return Fail(r.error());
      said.push_back(fmt::format("async, staleness {:g}", s.pipeline.max_staleness));
    } else {
      std::string d;
      auto best = BestAsyncSplit(s, &d);
      if (!best) return Fail(best.error());
      s = *best;
      said.push_back("async, " + d);
    }
  }
  if (opt.replan) {
    auto r = Replanned(std::move(s), *opt.replan, said);
    if (!r) return Fail(r.error());
    s = std::move(*r);
    if (one_tenant) one_tenant->placement = s.placement;
  }
  if (Has(levers, Lever::kTail)) {
    // docs/model.md, "Tail handling": the scenario's pipeline.tail, else
    // APRIL's partial rollouts at their published over-launch (f = 1).
    const TailSpec tail = opt.tail ? *opt.tail : TailSpec{TailMode::kPartialRollout, kAprilOverLaunch};
    if (s.pipeline.mode == PipelineMode::kAsync && s.placement.mode != PlacementMode::kColocated) {
      said.push_back("tail handling: not applied, the asynchronous pipeline already overlaps the tail");
    } else {
      s.pipeline.tail = tail;
      said.push_back(fmt::format("tail handling: {}, {:g}x launched per step{}", ToString(tail.mode),
                                 1 + tail.over_launch,
                                 opt.tail ? " (the scenario's pipeline.tail)"
                                          : " (APRIL's partial rollouts, over-sampling 64 for a batch of 32)"));
    }
  }
  if (Has(levers, Lever::kResplit)) {
    // docs/model.md, "Elastic pools": the configuration's own split as the
    // starting point, re-chosen per phase of the response-length schedule.
    const ResplitSpec rs = opt.resplit.value_or(ResplitSpec{});
    if (s.placement.mode != PlacementMode::kDisaggregated) {
      return Fail(ErrorCode::kInvalidInput, "placement.resplit",
                  "elastic pools re-split a disaggregated run's GPUs between rollout and training; this configuration "
                  "is colocated (every GPU does both): put the async lever (or a disaggregated placement) before it");
    }
    if (!s.environment.response_tokens_schedule) {
      return Fail(ErrorCode::kInvalidInput, "placement.resplit",
                  "elastic pools follow the response lengths over the run: the scenario has no "
                  "environment.response_tokens_schedule, so every phase wants the same split");
    }
    s.placement.resplit = rs;
    said.push_back(fmt::format("elastic pools: the {} + {} split re-chosen at the start of each of {} phases of the "
                               "run, a change stopping the run {}{}",
                               s.placement.rollout_gpus, s.placement.train_gpus, rs.phases,
                               rs.restart_s ? fmt::format("{:.0f} s", *rs.restart_s)
                                            : std::string("for one start-up (ASSUMED)"),
                               opt.resplit ? " (the scenario's placement.resplit)" : ""));
  }
  if (Has(levers, Lever::kSpot)) {
    // docs/model.md, "Spot GPUs": applied last, to the layout the other levers chose.
    if (!opt.spot) {
      return Fail(ErrorCode::kInvalidInput, "hardware.spot",
                  "the spot lever needs the scenario's spot price and preemption rate (hardware.spot.rollout or "
                  ".train: {price_ratio, preemptions_per_hour}); they have no default, spot markets move by the hour");
    }
    s.hardware.spot = *opt.spot;
    said.push_back(SpotDetail(s));
  }
  for (size_t i = 0; i < said.size(); ++i) c.detail += (i ? "; " : "") + said[i];
  auto e = EstimateAnalytic(s);
  c.scenario = s;
  c.tenants = tenants;
  if (!e) return Fail(e.error());
  c.estimate = *e;
  std::optional<Estimate> goal_est;
  if (one_tenant && e->goal.requested) {
    // Goal steps depend on one tenant's useful samples per step only.
    auto g = EstimateAnalytic(*one_tenant);
    if (g) goal_est = *g;
  }
  c.values = ValuesOf(c.estimate, goal_est ? &*goal_est : nullptr, tenants);
  // What the rollouts are worth: a discounted rollout counts as (1 - d) of a
  // useful sample, so the figures per unit of learning are divided by the worth
  // (the goal's steps scale as 1 / useful samples per step).
  c.discounts = DiscountsOf(s, opt.discounts);
  for (const auto& d : c.discounts) c.worth *= 1 - d.value;
  for (int i : {kUsdPerUsefulSample, kUsdPerRewardBit, kUsdToGoal}) {
    if (c.values[i]) c.values[i] = *c.values[i] / c.worth;
  }
  c.ok = true;
  return c;
}

// --- Waterfall ----------------------------------------------------------------

namespace {

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

void SetFactors(Config& c, const Config* prev, const Config& base) {
  c.factor_prev.assign(kHeadlineCount, std::nullopt);
  c.factor_base.assign(kHeadlineCount, std::nullopt);
  if (!c.ok) return;
  for (int i = 0; i < kHeadlineCount; ++i) {
    if (prev && prev->ok) c.factor_prev[i] = OptRatio(prev->values[i], c.values[i]);
    if (base.ok) c.factor_base[i] = OptRatio(base.values[i], c.values[i]);
  }
}

}  // namespace

namespace {
// Whether the scenario states any field the layout planner would choose.
bool StatesLayout(const Scenario& s) {
  const auto& st = s.placement.stated;
  return st.mode || st.split || st.rollout_tp || st.dp_attention || s.placement.gpu_memory_utilization.has_value();
}
}  // namespace

Result<Waterfall> BuildWaterfall(const Scenario& user, const Catalog& cat, const Options& opt) {
  // Re-planning, a layout the user wrote is a lever of its own, first: the
  // literal layout -> the planned one.
  if (opt.replan && StatesLayout(user) && !Has(opt.order, Lever::kLayout)) {
    Options o = opt;
    o.order.insert(o.order.begin(), Lever::kLayout);
    return BuildWaterfall(user, cat, o);
  }
  Waterfall wf;
  wf.scenario_name = user.name;
  wf.options = opt;
  if (opt.order.empty()) return Fail(ErrorCode::kInvalidInput, "order", "no levers to apply");
  if (!cat.FindGpu(opt.gpu_id)) {
    return Fail(ErrorCode::kNotFound, "gpu", fmt::format("'{}' is not in the catalog", opt.gpu_id));
  }
  if (Has(opt.order, Lever::kMoe) && !opt.moe_model.empty()) {
    const ModelSpec* m = cat.FindModel(opt.moe_model);
    if (!m) return Fail(ErrorCode::kNotFound, "moe_model", fmt::format("'{}' is not in the catalog", opt.moe_model));
    if (!m->is_moe()) return Fail(ErrorCode::kInvalidInput, "moe_model", fmt::format("'{}' is not an MoE model", opt.moe_model));
  }
  if (opt.tenants < 0) return Fail(ErrorCode::kInvalidInput, "tenants", "must be >= 1");
  {
    Error bad;
    auto check = [&](const std::optional<double>& v, const char* field) {
      if (!v) return;
      if (auto r = CheckDiscount(*v, field); !r) bad.problems.push_back(r.error().problems.front());
    };
    check(opt.discounts.staleness, "staleness_discount");
    check(opt.discounts.fp8, "fp8_discount");
    check(opt.discounts.fp4, "fp4_discount");
    auto rate = [&](const std::optional<double>& v, const char* field) {
      if (v && !(*v > 0 && *v < 1)) {
        bad.problems.push_back({field, fmt::format("{}: a mean pass rate is a number in (0, 1)", *v)});
      }
    };
    rate(opt.moe_pass_rate, "moe_pass_rate");
    rate(opt.dense_pass_rate, "dense_pass_rate");
    if (!bad.problems.empty()) {
      bad.code = ErrorCode::kInvalidInput;
      return Fail(bad);
    }
  }

  // The levers start from the user's run (as the caller planned it: its
  // figures are `estimate`'s) or from the essay's naive baseline; the other
  // is the labelled reference row.
  const bool from_run = opt.baseline == Baseline::kRun;
  std::string rule;
  auto naive_s = MakeBaseline(user, cat, opt, &rule);
  if (!naive_s && !from_run) return Fail(naive_s.error());
  if (naive_s) {
    wf.rules.push_back(rule);
    wf.rules.push_back(fmt::format(
        "naive baseline (the essay's): {} x {}, colocated, synchronous, bf16 rollout/KV/train, full fine-tuning, G = "
        "{}, {} prompts/step{}",
        naive_s->hardware.gpus, naive_s->hardware.gpu.id, kBaselineGroup, naive_s->algorithm.prompts_per_step,
        from_run ? "; shown as a reference row, the levers start from your run (`baseline` naive starts them there)"
                 : ""));
  }
  if (from_run) {
    wf.rules.insert(wf.rules.begin(),
                    fmt::format("the levers start from your run as given: {} on {} x {}, G = {}, {} prompts/step (its "
                                "step time and dollars are those of `estimate`)",
                                user.model_id, user.hardware.gpus, user.hardware.gpu.id, user.algorithm.group_size,
                                user.algorithm.prompts_per_step));
  }
  const Scenario* base_s = from_run ? &user : &*naive_s;
  Options eopt = opt;
  if (!eopt.speculative && user.engine.speculative) eopt.speculative = user.engine.speculative;
  if (!eopt.spot && (user.hardware.spot.Rollout() || user.hardware.spot.Train())) eopt.spot = SpotAsRatios(user);
  if (!eopt.tail && user.pipeline.tail.Active()) eopt.tail = user.pipeline.tail;
  if (!eopt.resplit && user.placement.resplit) eopt.resplit = user.placement.resplit;
  if (Has(opt.order, Lever::kMoe)) {
    const auto& eff = base_s->hardware.gpu.efficiency;
    std::string mfu = fmt::format("an MoE trains at the catalog's MoE MFU {:.3g} against {:.3g} for a dense model "
                                  "(docs/model.md, \"MoE and the training layout\")",
                                  eff.train_mfu_moe, eff.train_mfu);
    if (user.model.is_moe()) {
      eopt.moe_model = user.model_id;
      // The scenario's pass rates are the MoE's own.
      if (opt.dense_pass_rate) eopt.moe_pass_rate = user.environment.pass_rate.mean();
      wf.rules.push_back(fmt::format("MoE lever: back to the scenario's own MoE model {} at the scenario's pass rates; {}",
                                     user.model_id, mfu));
    } else if (opt.moe_model.empty()) {
      auto paired = PairedMoe(user.model_id, cat);
      wf.rules.push_back(
          paired ? fmt::format("MoE lever: {} is the catalog MoE paired with {} by quality (sqrt(total x active) "
                               "nearest to its size, same family first: a rule of thumb, an ASSUMPTION; `moe_model` "
                               "names another); {}; {}",
                               *paired, user.model_id,
                               opt.moe_pass_rate ? fmt::format("its own mean pass rate {:.3g} (`moe_pass_rate`)", *opt.moe_pass_rate)
                                                 : std::string("at the dense model's pass rates, ASSUMPTION that matching "
                                                               "quality means solving the same tasks as often "
                                                               "(`moe_pass_rate` sets its own)"),
                               mfu)
                 : fmt::format("MoE lever: {}", paired.error().problems.front().message));
    } else {
      auto dense_of = [&]() -> std::string {
        const ModelSpec* m = cat.FindModel(opt.moe_model);
        auto d = m ? DenseCounterpart(*m, cat) : Result<std::string>(std::string());
        return d ? *d : std::string();
      }();
      wf.rules.push_back(fmt::format(
          "MoE lever: {} (`moe_model`){}; {}; {}", opt.moe_model,
          dense_of == user.model_id ? fmt::format(", paired with {} by quality by the catalog rule", user.model_id)
                                    : fmt::format(", which the catalog rule pairs with {}, not {}: the two differ in "
                                                  "quality unless `moe_pass_rate` gives its own pass rate",
                                                  dense_of.empty() ? "no dense model" : dense_of, user.model_id),
          opt.moe_pass_rate ? fmt::format("its own mean pass rate {:.3g} (`moe_pass_rate`)", *opt.moe_pass_rate)
                            : std::string("at the dense model's pass rates (ASSUMPTION)"),
          mfu));
    }
  }

  // The user's run is priced as given (the caller planned it); the naive
  // baseline gets its own layout when re-planning.
  Options as_given = opt;
  as_given.replan.reset();
  auto evaluate_naive = [&]() -> Result<Config> {
    if (!naive_s) return Fail(naive_s.error());
    auto c = Evaluate(*naive_s, {}, cat, opt);
    if (!c) return c;
    c->title = "Naive H100 + sync (the essay's baseline)";
    c->detail = fmt::format("{} on {} x {}", naive_s->model_id, naive_s->hardware.gpus, naive_s->hardware.gpu.id);
    if (opt.replan) c->detail += "; " + plan::Describe(plan::LayoutOf(c->scenario));
    return c;
  };
  auto evaluate_run = [&]() -> Result<Config> {
    auto c = Evaluate(user, {}, cat, as_given);
    if (!c) return c;
    c->title = "Your run";
    c->detail = fmt::format("{} on {} x {}; {}", user.model_id, user.hardware.gpus, user.hardware.gpu.id,
                            plan::Describe(plan::LayoutOf(user)));
    return c;
  };
  auto b = from_run ? evaluate_run() : evaluate_naive();
  if (!b) return Fail(b.error());  // the baseline itself must run
  wf.baseline = *b;
  wf.baseline.id = "baseline";
  SetFactors(wf.baseline, nullptr, wf.baseline);
  auto ref = from_run ? evaluate_naive() : evaluate_run();
  wf.reference = ref ? *ref
                     : Failed(from_run ? "naive" : "run",
                              from_run ? "Naive H100 + sync (the essay's baseline)" : "Your run", ref.error(), {});
  wf.reference.id = from_run ? "naive" : "run";
  SetFactors(wf.reference, nullptr, wf.baseline);
  // The essay's 20-50x is against its naive baseline, whichever row that is.
  const Config& naive = from_run ? wf.reference : wf.baseline;

  std::vector<Lever> applied;
  wf.stages.reserve(opt.order.size());
  int prev = -1;  // index of the last stage that ran; -1 = baseline
  for (Lever l : opt.order) {
    std::vector<Lever> want = applied;
    want.push_back(l);
    auto c = Evaluate(*base_s, want, cat, eopt);  // from the baseline, whichever it is
    Config st = c ? *c : Failed(std::string(ToString(l)), std::string(Title(l)), c.error(), want);
    st.id = std::string(ToString(l));
    st.title = "+ " + std::string(Title(l));
    SetFactors(st, prev < 0 ? &wf.baseline : &wf.stages[prev], wf.baseline);
    wf.stages.push_back(std::move(st));
    if (wf.stages.back().ok) {
      applied = want;  // a lever that cannot run is skipped; the next stage builds on the last that ran
      prev = static_cast<int>(wf.stages.size()) - 1;
    }
  }
  for (Lever l : opt.order) {
    auto c = Evaluate(*base_s, {l}, cat, eopt);
    Config so = c ? *c : Failed("solo:" + std::string(ToString(l)), std::string(Title(l)), c.error(), {l});
    so.id = "solo:" + std::string(ToString(l));
    so.title = std::string(Title(l)) + " alone";
    SetFactors(so, &wf.baseline, wf.baseline);
    wf.solo.push_back(std::move(so));
  }

  // Product of the solo factors beside the combined factor: interactions show
  // as the gap between the two.
  const Config* combined = nullptr;
  for (auto it = wf.stages.rbegin(); it != wf.stages.rend(); ++it) {
    if (it->ok) { combined = &*it; break; }
  }
  wf.solo_product.assign(kHeadlineCount, std::nullopt);
  for (int i = 0; i < kHeadlineCount; ++i) {
    double prod = 1;
    bool any = false, missing = false;
    for (const auto& so : wf.solo) {
      if (!so.ok) continue;  // the lever was skipped in the cumulative chain too
      if (!so.factor_base[i]) { missing = true; break; }
      prod *= *so.factor_base[i];
      any = true;
    }
    if (any && !missing) wf.solo_product[i] = prod;
  }

  // The 20-50x claim, per cost metric; judged on the like-for-like ones.
  std::vector<std::string> fair_items, other_items;
  std::string bit_item;
  std::set<std::string> fair_verdicts;
  for (int i : {kUsdPerUsefulSample, kUsdToGoal, kUsdPerStep, kUsdRun, kUsdPerRewardBit}) {
    if (!combined || !combined->factor_base[i]) continue;
    ClaimVerdict v;
    v.metric_id = std::string(Headlines()[i].id);
    // Against the naive baseline: when the levers start from the run, the
    // naive -> run step is one more factor in both products.
    const std::optional<double> naive_to_base = from_run ? OptRatio(naive.values[i], wf.baseline.values[i])
                                                         : std::optional<double>(1.0);
    if (!naive.ok || !naive_to_base) continue;
    v.combined_factor = *combined->factor_base[i] * *naive_to_base;
    v.solo_product = wf.solo_product[i] ? *wf.solo_product[i] * *naive_to_base
                                        : std::numeric_limits<double>::quiet_NaN();
    v.verdict = v.combined_factor < kClaimLow ? "falls short" : v.combined_factor > kClaimHigh ? "exceeds" : "holds";
    v.like_for_like = i == kUsdPerUsefulSample || i == kUsdToGoal;
    std::string item = fmt::format("{} {:.3g}x{}", Headlines()[i].label, v.combined_factor,
                                   v.combined_factor < 1 ? " (dearer than the baseline)" : "");
    if (v.like_for_like) {
      fair_verdicts.insert(v.verdict);
      fair_items.push_back(item + ": " + v.verdict);
    } else if (i == kUsdPerRewardBit) {
      bit_item = item;
    } else {
      other_items.push_back(item);
    }
    wf.verdicts.push_back(std::move(v));
  }
  auto join = [](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i];
    return s;
  };
  if (fair_verdicts.empty()) {
    wf.verdict_summary = "The 20-50x claim cannot be judged: no lever stage gave a cost per useful sample or to the goal.";
  } else {
    wf.verdict = fair_verdicts.size() == 1 ? *fair_verdicts.begin() : "mixed";
    std::string s = fmt::format(
        "The often-quoted claim that these levers together make RL post-training 20-50x cheaper than naive H100 + "
        "synchronous veRL (post-training economics essay), judged on what the money buys: {} for this scenario "
        "({}).",
        wf.verdict == "mixed" ? "mixed" : wf.verdict, join(fair_items));
    if (!other_items.empty()) {
      s += fmt::format(" Not judged on {}: those count a step with fewer rollouts (2-GRPO's 8x fewer) or rollouts "
                       "worth less (stale, low precision) as a pure saving.",
                       join(other_items));
    }
    if (!bit_item.empty()) {
      s += fmt::format(" {} measures reward information bought, not progress to the goal.", bit_item);
    }
    wf.verdict_summary = s;
  }

  if (from_run) {
    // The essay's 20-50x is about its levers on its naive baseline: judged on
    // that chain, so the verdict is the one `claims` gives (one answer).
    Options n = opt;
    n.baseline = Baseline::kNaive;
    if (auto naive_wf = BuildWaterfall(user, cat, n)) {
      wf.verdicts = naive_wf->verdicts;
      wf.verdict = naive_wf->verdict;
      wf.verdict_summary = naive_wf->verdict_summary + " (the levers applied to the naive baseline, as `claims` "
                                                       "checks them; the rows above start from your run)";
    }
  }

  // 2-GRPO, exactly.
  const int group_large = base_s->algorithm.group_size;  // 16 from the naive baseline, else the run's
  wf.grpo2.group_large = group_large;
  wf.grpo2.group_small = opt.grpo2_group_size;
  wf.grpo2.p_informative_large = signal::InformativeGroupProbability(user.environment.pass_rate, group_large);
  wf.grpo2.p_informative_small = signal::InformativeGroupProbability(user.environment.pass_rate, opt.grpo2_group_size);
  wf.grpo2.claim_source =
      "arXiv 2510.00977 v1 (Wu et al., \"It Takes Two: Your GRPO Is Secretly DPO\"), abstract: 2-GRPO retains "
      "97.6% of 16-GRPO's performance with 12.5% of the rollouts (v2 says 98.1%) — the paper's CLAIM, on math "
      "with clean rewards, not a model result";
  wf.rules.push_back(fmt::format(
      "2-GRPO: G {} -> {} keeping prompts per step, so a step has 1/{:g} of the rollouts (the paper ran G = 2 with "
      "256 prompts a step against 32 at G = 16: the same rollouts a step, 1/8 the steps; its Appendix C.1). A group of 2 "
      "is informative with E[2p(1-p)] = {:.4f}, a group of {} with E[1-p^{}-(1-p)^{}] = {:.4f}, over this scenario's "
      "pass-rate distribution. '$ to goal' uses rlcost's learning curve and its learning model ({}, an ASSUMPTION: "
      "docs/model.md sec. 7d, chosen by the published ablations of validation/learning/); '$ per useful sample' "
      "counts rollouts with a gradient whatever their group; '$ per run' at equal steps is the cost at {:.1f}% of "
      "16-GRPO's quality only under the paper's claim",
      group_large, opt.grpo2_group_size, double(group_large) / opt.grpo2_group_size,
      wf.grpo2.p_informative_small, group_large, group_large, group_large, wf.grpo2.p_informative_large,
      wf.baseline.ok && wf.baseline.estimate.goal.requested ? wf.baseline.estimate.goal.learning_model
                                                            : std::string("noise_scale where it applies"),
      wf.grpo2.claim_quality * 100));
  if (opt.replan) {
    wf.rules.push_back(fmt::format(
        "layouts: every configuration gets its own best layout for {} (the layout planner: rollout_tp, "
        "data-parallel attention, engine memory share, the rollout/train split of a disaggregated run), keeping "
        "the placement fields the scenario states, so that no lever is credited with what a better layout alone "
        "would give; the baseline stays colocated{}",
        *opt.replan == plan::Objective::kTime ? "the shortest step" : "the fewest dollars per step",
        Has(opt.order, Lever::kLayout) ? "; 'Planned layout' frees the stated layout fields: the scenario's layout "
                                         "as written -> the planned one"
                                       : ""));
  }
  if (Has(opt.order, Lever::kAsync) && opt.replan) {
    wf.rules.push_back("async: disaggregated, the rollout/train split planned with the rest of the layout; "
                       "staleness 1 with partial (interruptible) rollouts unless the scenario is already async");
  } else if (Has(opt.order, Lever::kAsync)) {
    wf.rules.push_back("async: disaggregated; the rollout/train split is the one with the shortest step time "
                       "by the analytic model over every split in steps of rollout_tp; staleness 1 with partial "
                       "(interruptible) rollouts unless the scenario is already async");
  }
  const int t_count = TenantsFor(user, opt);
  if (Has(opt.order, Lever::kBatch)) {
    wf.rules.push_back(fmt::format(
        "bigger batch: {} x the prompts per step on one fully fine-tuned model (the batch that {} LoRA tenants "
        "would bring), so the batch-size gain shows apart from the tenancy",
        t_count, t_count));
  }
  if (Has(opt.order, Lever::kLora)) {
    wf.rules.push_back(fmt::format(
        "LoRA: {} tenants share one base model on the same GPUs and share out the step's prompts; '$ per step', "
        "'$ to goal' and '$ per run' are per tenant (/ {}), each tenant's goal reached on its own share of the batch",
        t_count, t_count));
  }
  if (Has(opt.order, Lever::kQuantize) || Has(opt.order, Lever::kFp4)) {
    wf.rules.push_back("FP8 rollout: fp8 weights and KV cache where the GPU has FP8 tensor cores; FP4 rollout: fp4 "
                       "weights, fp8 KV cache where it has FP4 tensor cores (no effect elsewhere, said so); training "
                       "stays bf16. The newer GPU keeps the rollout precision it is given, so FP4 shows as its own row");
  }
  wf.rules.push_back(fmt::format(
      "quality discounts: a rollout that is stale (async) or sampled at lower precision than the trainer is worth "
      "less than an on-policy bf16 one; each discount is a labelled input (defaults: staleness {:g} per policy "
      "version, fp8 {:g}, fp4 {:g}; ASSUMPTION unless set with `staleness_discount`, `fp8_discount`, "
      "`fp4_discount`), and '$ per useful sample', '$ per reward bit' and '$ to goal' are divided by the worth "
      "(1 - d1)(1 - d2)",
      opt.discounts.staleness.value_or(kDefaultStalenessDiscount), opt.discounts.fp8.value_or(kDefaultFp8Discount),
      opt.discounts.fp4.value_or(kDefaultFp4Discount)));
  wf.rules.push_back("factors are previous / this and baseline / this: above 1 means cheaper (or faster)");
  return wf;
}

// --- Price card ---------------------------------------------------------------------

const std::vector<PriceMetric>& PriceMetrics() {
  static const std::vector<PriceMetric> m = {
      {"usd_per_million_trained_tokens", "$/M trained tokens", "USD"},
      {"usd_per_million_generated_tokens", "$/M generated tokens", "USD"},
      {"usd_per_useful_sample", "$/useful sample", "USD"},
      {"usd_per_reward_bit", "$/reward bit", "USD"},
      {"usd_to_goal", "$ to goal (per tenant)", "USD"},
      {"step_time_s", "step time", "s"},
  };
  return m;
}

Result<PriceCard> BuildPriceCard(const Scenario& user, const Catalog& cat, const std::vector<std::string>& models,
                                 const std::vector<std::string>& gpus, const std::vector<Lever>& stack,
                                 const Options& opt) {
  PriceCard card;
  card.scenario_name = user.name;
  card.stack = stack;
  Error bad;
  for (Lever l : stack) {
    if (l == Lever::kHardware || l == Lever::kMoe) {
      bad.problems.push_back({"stack", fmt::format("'{}' picks the model or GPU; the card's `models` and `gpus` do that",
                                                     ToString(l))});
    }
  }
  std::vector<std::string> ms = models.empty() ? std::vector<std::string>{user.model_id} : models;
  std::vector<std::string> gs = gpus.empty() ? std::vector<std::string>{user.hardware.gpu.id} : gpus;
  for (const auto& m : ms) {
    if (!cat.FindModel(m)) bad.problems.push_back({"models", fmt::format("'{}' is not in the catalog", m)});
  }
  for (const auto& g : gs) {
    if (!cat.FindGpu(g)) bad.problems.push_back({"gpus", fmt::format("'{}' is not in the catalog", g)});
  }
  if (!bad.problems.empty()) return Fail(bad);
  for (const auto& m : ms) {
    for (const auto& g : gs) {
      // A request whose answer is no longer wanted (rlcost serve) stops between rows.
      if (sim::CancelRequested()) return Fail(sim::CancelledError());
      Scenario s = user;
      Error err;
      SetModel(s, cat, m, &err);
      // Spot prices travel as fractions of the list price (SpotAsRatios).
      if (g != user.hardware.gpu.id) {
        s.hardware.spot = SpotAsRatios(user);
        SetGpu(s, cat, g, &err);
      }
      s.name = fmt::format("{} [{} on {}]", user.name, m, g);
      PriceRow row;
      row.model_id = m;
      row.gpu_id = g;
      Options popt = opt;
      if (!popt.speculative && user.engine.speculative) popt.speculative = user.engine.speculative;
      if (!popt.spot && (user.hardware.spot.Rollout() || user.hardware.spot.Train())) popt.spot = SpotAsRatios(user);
      if (!popt.tail && user.pipeline.tail.Active()) popt.tail = user.pipeline.tail;
      if (!popt.resplit && user.placement.resplit) popt.resplit = user.placement.resplit;
      auto c = Evaluate(s, stack, cat, popt);
      row.config = c ? *c : Failed(m + "@" + g, m + " on " + g, c.error(), stack);
      row.config.id = m + "@" + g;
      row.values.assign(PriceMetrics().size(), std::nullopt);
      if (row.config.ok) {
        const Estimate& e = row.config.estimate;
        const auto& v = row.config.values;
        row.values[0] = MetricValue(e, "cost.usd_per_million_trained_tokens");
        // Generated (decoded) tokens: the figure an inference price per output token compares with.
        auto usd_step = MetricValue(e, "cost.usd_per_step");
        auto gen = MetricValue(e, "rollout.generated_tokens_per_step");
        if (usd_step && gen && *gen > 0) row.values[1] = *usd_step / *gen * 1e6;
        row.values[2] = v[kUsdPerUsefulSample];
        row.values[3] = v[kUsdPerRewardBit];
        row.values[4] = v[kUsdToGoal];
        row.values[5] = v[kStepTime];
      }
      card.rows.push_back(std::move(row));
    }
  }
  card.notes.push_back("each row is the scenario with its model and GPU replaced (GPU at its catalog price, same GPU "
                       "count and placement), then the stack applied");
  card.notes.push_back("$/useful, $/reward bit and $ to goal are divided by what a rollout is worth after the quality "
                       "discounts (stale or low-precision rollouts), as in `rlcost waterfall`");
  card.notes.push_back("$/M trained tokens: GPU + sandbox dollars per million prompt + response tokens in the policy "
                       "update; $/M generated tokens: per million decoded tokens (compare with inference output prices)");
  return card;
}

// --- Comparison ------------------------------------------------------------------------

const std::vector<std::string_view>& CompareMetrics() {
  static const std::vector<std::string_view> k = {
      "step.time_s",           "step.rollout_s",          "step.train_s",
      "step.other_s",          "cost.usd_per_step",       "signal.rollouts_per_step",
      "signal.informative_fraction", "signal.useful_samples_per_step", "signal.reward_bits_per_rollout",
      "cost.usd_per_useful_sample",  "cost.usd_per_reward_bit",  "cost.usd_per_million_trained_tokens",
      "goal.usd",              "run.usd",                 "run.wall_time_h"};
  return k;
}

CompareEntry MakeEntry(std::string label, const Scenario& s) {
  CompareEntry ce;
  ce.label = std::move(label);
  ce.config.id = ce.label;
  ce.config.title = s.name;
  ce.config.scenario = s;
  auto e = EstimateAnalytic(s);
  if (!e) {
    ce.config.ok = false;
    ce.config.error = e.error();
    ce.config.values.assign(kHeadlineCount, std::nullopt);
    return ce;
  }
  ce.config.ok = true;
  ce.config.estimate = *e;
  ce.config.values = ValuesOf(*e, nullptr, 1);
  return ce;
}

namespace {

// B/A of one metric.
std::optional<double> MetricRatio(const Estimate& b, const Estimate& a, std::string_view key) {
  return OptRatio(MetricValue(b, key), MetricValue(a, key));
}

// Factors whose product is `total`; the residual closes the gap.
std::vector<Factor> Close(std::optional<double> total, std::vector<std::pair<std::string, std::optional<double>>> parts) {
  std::vector<Factor> out;
  if (!total) return out;
  double prod = 1;
  for (auto& [name, r] : parts) {
    if (!r) continue;
    out.push_back({name, *r});
    prod *= *r;
  }
  double resid = *total / prod;
  if (std::fabs(std::log(resid)) > 1e-3) out.push_back({"other (residual)", resid});
  return out;
}

// Rollouts trained on per step = useful samples / (informative fraction x
// reward signal factor) (signal::Summary's definition), read through the metrics.
std::optional<double> TrainedRollouts(const Estimate& e) {
  auto u = MetricValue(e, "signal.useful_samples_per_step");
  auto f = MetricValue(e, "signal.informative_fraction");
  auto k = MetricValue(e, "signal.reward_signal_factor");
  if (!u || !f || !(*f > 0) || !k || !(*k > 0)) return std::nullopt;
  return *u / (*f * *k);
}

std::optional<double> Inv(std::optional<double> r) {
  if (!r || !(*r > 0)) return std::nullopt;
  return 1.0 / *r;
}

}  // namespace

Comparison BuildComparison(std::vector<CompareEntry> entries) {
  Comparison cmp;
  cmp.entries = std::move(entries);
  cmp.diffs.resize(cmp.entries.size());
  if (cmp.entries.empty() || !cmp.entries[0].config.ok) return cmp;
  const Estimate& a = cmp.entries[0].config.estimate;
  for (size_t i = 1; i < cmp.entries.size(); ++i) {
    if (!cmp.entries[i].config.ok) continue;
    const Estimate& b = cmp.entries[i].config.estimate;
    CompareDiff& d = cmp.diffs[i];
    for (auto k : CompareMetrics()) d.ratios.push_back(MetricRatio(b, a, k));
    // $/step = step time x dollars per second of the run (GPUs x price + sandbox).
    auto step_usd = MetricRatio(b, a, "cost.usd_per_step");
    auto time = MetricRatio(b, a, "step.time_s");
    d.per_step = Close(step_usd, {{"step time", time}, {"$ per second of run (GPUs x price, sandbox)", OptRatio(step_usd, time)}});
    // $/useful sample = $/step / (rollouts trained x informative fraction).
    auto useful = MetricRatio(b, a, "cost.usd_per_useful_sample");
    auto trained = OptRatio(TrainedRollouts(b), TrainedRollouts(a));
    // Verifier errors enter only where the two runs' reward noise differs.
    auto noise = Inv(MetricRatio(b, a, "signal.reward_signal_factor"));
    if (noise && *noise == 1.0) noise.reset();
    d.per_useful_sample = Close(useful, {{"$ per step", step_usd},
                                         {"1 / rollouts trained per step", Inv(trained)},
                                         {"1 / informative fraction", Inv(MetricRatio(b, a, "signal.informative_fraction"))},
                                         {"1 / reward signal factor (verifier errors)", noise}});
    // $/reward bit = $/step / (rollouts x bits per rollout).
    d.per_reward_bit = Close(MetricRatio(b, a, "cost.usd_per_reward_bit"),
                             {{"$ per step", step_usd},
                              {"1 / rollouts per step", Inv(MetricRatio(b, a, "signal.rollouts_per_step"))},
                              {"1 / reward bits per rollout", Inv(MetricRatio(b, a, "signal.reward_bits_per_rollout"))}});
    // The factor that explains most: largest |log|; $/step is opened into its parts.
    std::vector<Factor> flat;
    for (const auto& f : d.per_useful_sample) {
      if (f.name == "$ per step") {
        for (const auto& g : d.per_step) flat.push_back(g);
      } else {
        flat.push_back(f);
      }
    }
    const Factor* big = nullptr;
    for (const auto& f : flat) {
      if (!big || std::fabs(std::log(f.ratio)) > std::fabs(std::log(big->ratio))) big = &f;
    }
    if (big && useful) {
      d.explains = fmt::format("{} costs {:.2f}x per useful sample of {}; the largest factor is {} ({:.2f}x)",
                               cmp.entries[i].label, *useful, cmp.entries[0].label, big->name, big->ratio);
    }
  }
  return cmp;
}

// --- Cost against pass rate -----------------------------------------------------------

std::vector<PassRateCurve> CostVsPassRate(const Scenario& s, const std::vector<int>& groups,
                                          const std::vector<double>& pass_rates) {
  std::vector<PassRateCurve> out;
  for (int g : groups) {
    PassRateCurve c;
    c.group_size = g;
    for (double p : pass_rates) {
      Scenario v = s;
      v.algorithm.group_size = g;
      v.environment.pass_rate = PassRateSpec{};
      v.environment.pass_rate.kind = PassRateSpec::Kind::kHistogram;
      v.environment.pass_rate.histogram = {{p, 1.0}};
      auto e = EstimateAnalytic(v);
      c.pass_rate.push_back(p);
      c.usd_per_useful_sample.push_back(e ? MetricValue(*e, "cost.usd_per_useful_sample") : std::nullopt);
    }
    out.push_back(std::move(c));
  }
  return out;
}

}  // namespace rlcost::levers
