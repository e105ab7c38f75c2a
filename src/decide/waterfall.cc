// The waterfall: the levers applied one at a time from the user's run (or
// the essay's naive baseline), each alone, and the 20-50x claim judged.
// Rules and formulas: docs/model.md (levers section).
#include <limits>
#include <set>

#include <fmt/format.h>

#include "decide/levers_internal.h"
#include "rlcost/signal.h"

namespace rlcost::levers {
namespace {

using namespace internal;

void SetFactors(Config& c, const Config* prev, const Config& base) {
  c.factor_prev.assign(kHeadlineCount, std::nullopt);
  c.factor_base.assign(kHeadlineCount, std::nullopt);
  if (!c.ok) return;
  for (int i = 0; i < kHeadlineCount; ++i) {
    if (prev && prev->ok) c.factor_prev[i] = OptRatio(prev->values[i], c.values[i]);
    if (base.ok) c.factor_base[i] = OptRatio(base.values[i], c.values[i]);
  }
}

// Whether the scenario states any field the layout planner would choose.
bool StatesLayout(const Scenario& s) {
  const auto& st = s.placement.stated;
  return st.mode || st.split || st.rollout_tp || st.dp_attention || s.placement.gpu_memory_utilization.has_value();
}

// The options' own checks, before anything is priced: every bad field named.
Result<void> CheckOptions(const Catalog& cat, const Options& opt) {
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
  return {};
}

// The rule the MoE lever follows, said in the waterfall's rules; sets the
// lever's model and pass rate in `eopt` when the scenario's own model is MoE.
void AddMoeRule(const Scenario& user, const Scenario& base_s, const Catalog& cat, const Options& opt, Options& eopt,
                std::vector<std::string>& rules) {
  const auto& eff = base_s.hardware.gpu.efficiency;
  std::string mfu = fmt::format("an MoE trains at the catalog's MoE MFU {:.3g} against {:.3g} for a dense model "
                                "(docs/model.md, \"MoE and the training layout\")",
                                eff.train_mfu_moe, eff.train_mfu);
  if (user.model.is_moe()) {
    eopt.moe_model = user.model_id;
    // The scenario's pass rates are the MoE's own.
    if (opt.dense_pass_rate) eopt.moe_pass_rate = user.environment.pass_rate.mean();
    rules.push_back(fmt::format("MoE lever: back to the scenario's own MoE model {} at the scenario's pass rates; {}",
                                   user.model_id, mfu));
  } else if (opt.moe_model.empty()) {
    auto paired = PairedMoe(user.model_id, cat);
    rules.push_back(
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
    rules.push_back(fmt::format(
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

// The baseline row, the reference row, the cumulative stages and each lever
// alone. Fails only when the baseline itself cannot run.
Result<void> EvaluateRows(Waterfall& wf, const Scenario& user, const Result<Scenario>& naive_s, const Catalog& cat,
                          const Options& opt, const Options& eopt) {
  const bool from_run = opt.baseline == Baseline::kRun;
  const Scenario* base_s = from_run ? &user : &*naive_s;
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
  return {};
}

// The product of the solo factors beside the combined factor (interactions
// show as the gap between the two), and the 20-50x claim judged per cost
// metric, on the like-for-like ones.
void JudgeClaim(Waterfall& wf, bool from_run) {
  // The essay's 20-50x is against its naive baseline, whichever row that is.
  const Config& naive = from_run ? wf.reference : wf.baseline;
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
}

// What each lever assumes, said once in the waterfall's rules.
void AddLeverRules(Waterfall& wf, const Scenario& user, const Scenario& base_s, const Options& opt) {
  // 2-GRPO, exactly.
  const int group_large = base_s.algorithm.group_size;  // 16 from the naive baseline, else the run's
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
  if (auto r = CheckOptions(cat, opt); !r) return Fail(r.error());

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
  if (Has(opt.order, Lever::kMoe)) AddMoeRule(user, *base_s, cat, opt, eopt, wf.rules);
  if (auto r = EvaluateRows(wf, user, naive_s, cat, opt, eopt); !r) return Fail(r.error());
  JudgeClaim(wf, from_run);

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

  AddLeverRules(wf, user, *base_s, opt);
  return wf;
}

}  // namespace rlcost::levers
