#include "plan/plan.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

#include <fmt/format.h>

#include "core/strings.h"
#include "econ/run.h"
#include "plan/memory.h"
#include "rlcost/perf.h"
#include "rlcost/signal.h"
#include "sim/analytic_rollout.h"

namespace rlcost::plan {
namespace {

// The engine's share of each GPU when the planner moves the training state
// out of the way while generating: vLLM's default gpu_memory_utilization.
constexpr double kEngineShare = 0.9;
// A rollout_tp beyond this many GPUs is not tried: no framework's examples
// shard one engine wider (DeepSeek-V3 bf16 on H100 needs 16).
constexpr int kMaxRolloutTp = 64;
// Splits of a disaggregated run tried at most (evenly spaced over the nodes).
constexpr int kMaxSplits = 15;
// A planned layout is worth a note over the literal one from this gain on.
constexpr double kWorthNoting = 0.05;

bool IsVllm(InferenceEngine e) { return e == InferenceEngine::kVllm || e == InferenceEngine::kVllmAsync; }

// The loader's rule (spec/scenario.cc, CheckTpAgainstModel): tensor-parallel
// attention splits the query and KV heads over the ranks.
bool TpAllowed(const ModelSpec& m, int tp, bool dp_attention) {
  if (dp_attention || tp <= 1 || m.heads <= 0 || m.kv_heads <= 0) return true;
  if (m.heads % tp != 0) return false;
  if (m.attention == Attention::kGqa && tp < m.kv_heads && m.kv_heads % tp != 0) return false;
  if (m.attention == Attention::kGqa && tp > m.kv_heads && tp % m.kv_heads != 0) return false;
  return true;
}

// The loader's rule for a stated trainer layout on `train_gpus` GPUs.
bool TrainLayoutAllowed(const PlacementSpec& p, const ModelSpec& m, int train_gpus) {
  const int mp = p.train_tp * p.train_cp * p.train_pp;
  if (mp < 1 || train_gpus % mp != 0) return false;
  if (p.train_ep > 1) {
    if (!m.is_moe() || m.experts % p.train_ep != 0) return false;
    if ((train_gpus / p.train_pp) % p.train_ep != 0) return false;
  }
  return true;
}

double Score(const Estimate& e, Objective o) { return o == Objective::kTime ? e.step.time_s : e.usd_per_step; }

std::string Money(double usd) { return usd >= 100 ? fmt::format("${:.0f}", usd) : fmt::format("${:.2f}", usd); }

std::string Figures(const Estimate& e) {
  return fmt::format("{} per step, {:.1f} s per step", Money(e.usd_per_step), e.step.time_s);
}

std::string Reason(const Error& e) {
  std::string out;
  for (const auto& p : e.problems) {
    if (!out.empty()) out += "; ";
    out += p.message;
  }
  return out;
}

double WantedPerEngine(const Scenario& s, const Estimate& e) { return RunningPerEngine(s, e); }

// A judge on GPUs (environment.reward.verifier: llm-judge, reward-model)
// changes the step after AnalyticStep (WithVerifier): no bound prunes then.
bool VerifierRunsOnGpu(const Scenario& s) {
  auto w = perf::VerifierCost(s, 1.0);
  return !w || w->on_gpu;
}

}  // namespace

// Sequences one engine would run at once if its cache held them all: the
// step's rollouts over the engines (async: the same batch in flight).
double RunningPerEngine(const Scenario& s, const Estimate& e) {
  const int tp = std::max(1, s.placement.rollout_tp);
  const double engines = std::max(1, s.placement.rollout_gpus / tp);
  return e.signal.rollouts_per_step / engines;
}

std::string KvBelowBatchNote(const Scenario& s, const Estimate& e) {
  const double cap = e.step.kv_capacity_sequences;
  const double wanted = RunningPerEngine(s, e);
  if (!(cap > 0) || !(cap < wanted)) return {};
  return fmt::format("KV cache below the batch: {:.1f} of {:.0f} sequences per engine fit, generation runs in waves",
                     cap, wanted);
}

Result<Objective> ObjectiveFromString(std::string_view s) {
  if (s == "cost") return Objective::kCost;
  if (s == "time") return Objective::kTime;
  return Fail(Error::Invalid("plan_for", fmt::format("'{}': expected cost or time", s)));
}

Layout LayoutOf(const Scenario& s) {
  const PlacementSpec& p = s.placement;
  return {p.mode, p.rollout_gpus, p.train_gpus, p.rollout_tp, p.dp_attention, p.gpu_memory_utilization};
}

void ApplyLayout(PlacementSpec& p, const Layout& l) {
  p.mode = l.mode;
  p.rollout_gpus = l.rollout_gpus;
  p.train_gpus = l.train_gpus;
  p.rollout_tp = l.rollout_tp;
  p.dp_attention = l.dp_attention;
  p.gpu_memory_utilization = l.gpu_memory_utilization;
}

Scenario WithLayout(const Scenario& s, const Layout& l) {
  Scenario c = s;
  ApplyLayout(c.placement, l);
  return c;
}

std::string Describe(const Layout& l) {
  const int engines = l.rollout_tp > 0 ? l.rollout_gpus / l.rollout_tp : 0;
  std::string out = l.mode == PlacementMode::kColocated
                        ? "colocated on " + GpuCount(l.rollout_gpus)
                        : fmt::format("disaggregated, {} rollout + {} training GPUs", l.rollout_gpus, l.train_gpus);
  out += fmt::format(", rollout_tp {} ({} engine{})", l.rollout_tp, engines, engines == 1 ? "" : "s");
  if (l.dp_attention) out += ", data-parallel attention";
  if (l.mode == PlacementMode::kColocated && l.gpu_memory_utilization)
    out += fmt::format(", engine takes {:g} of each GPU", *l.gpu_memory_utilization);
  return out;
}

bool AnyLayoutFits(const Scenario& s) {
  for (const Layout& l : Candidates(s)) {
    if (l.rollout_tp > l.rollout_gpus || l.rollout_gpus % l.rollout_tp != 0) continue;
    if (!TpAllowed(s.model, l.rollout_tp, l.dp_attention)) continue;
    if (Fits(WithLayout(s, l))) return true;
  }
  return false;
}

Scenario WithGpus(const Scenario& s, int gpus) {
  Scenario c = s;
  c.hardware.gpus = gpus;
  c.placement.stated.split = false;
  if (c.placement.mode == PlacementMode::kColocated) {
    c.placement.rollout_gpus = c.placement.train_gpus = gpus;
  } else {
    c.placement.train_gpus = std::max(1, gpus / 2);
    c.placement.rollout_gpus = gpus - c.placement.train_gpus;
  }
  return c;
}

std::optional<int> SmallestFittingGpus(const Scenario& s, int limit) {
  const int per_node = std::max(1, s.hardware.gpus_per_node);
  std::vector<int> counts;
  for (int n = 1; n < per_node; n *= 2) {
    if (per_node % n == 0) counts.push_back(n);
  }
  for (int n = per_node; n <= limit; n += per_node) counts.push_back(n);
  for (int n : counts) {
    if (AnyLayoutFits(WithGpus(s, n))) return n;
  }
  return std::nullopt;
}

std::optional<std::string> LargestFittingModel(const Scenario& s, const Catalog& catalog) {
  std::vector<const ModelSpec*> models;
  for (const auto& [id, m] : catalog.models()) models.push_back(&m);
  std::sort(models.begin(), models.end(), [](const ModelSpec* a, const ModelSpec* b) {
    return a->params_b != b->params_b ? a->params_b > b->params_b : a->id < b->id;
  });
  for (const ModelSpec* m : models) {
    Scenario c = s;
    c.model = *m;
    c.model_id = m->id;
    if (AnyLayoutFits(c)) return m->id;
  }
  return std::nullopt;
}

bool AnythingToPlan(const Scenario& s) {
  const auto& st = s.placement.stated;
  return !st.mode || !st.rollout_tp || !st.dp_attention || !st.split ||
         (!s.placement.gpu_memory_utilization && s.placement.mode == PlacementMode::kColocated);
}

std::vector<Layout> Candidates(const Scenario& s) {
  const PlacementSpec& p = s.placement;
  const auto& st = p.stated;
  const ModelSpec& m = s.model;
  const int gpus = s.hardware.gpus;
  const int per_node = std::max(1, s.hardware.gpus_per_node);
  std::vector<Layout> out;
  const Layout literal = LayoutOf(s);
  out.push_back(literal);
  auto add = [&](const Layout& l) {
    if (std::find(out.begin(), out.end(), l) == out.end()) out.push_back(l);
  };

  std::vector<PlacementMode> modes;
  if (st.mode) {
    modes = {p.mode};
  } else {
    modes = {PlacementMode::kColocated};
    if (gpus >= 2) modes.push_back(PlacementMode::kDisaggregated);
  }
  std::vector<std::pair<int, int>> splits_dis;
  if (st.split && p.mode == PlacementMode::kDisaggregated) {
    splits_dis.push_back({p.rollout_gpus, p.train_gpus});
  } else if (gpus >= 2) {
    // Whole nodes from two nodes on (a role per node, as the frameworks
    // place them), single GPUs below.
    const int unit = gpus >= 2 * per_node && gpus % per_node == 0 ? per_node : 1;
    const int n = gpus / unit;
    const int count = std::min(n - 1, kMaxSplits);
    for (int i = 1; i <= count; ++i) {
      const int k = count == n - 1 ? i : static_cast<int>(std::lround(double(i) * n / (count + 1)));
      const int r = std::clamp(k, 1, n - 1) * unit;
      if (splits_dis.empty() || splits_dis.back().first != r) splits_dis.push_back({r, gpus - r});
    }
  }
  std::vector<bool> dps;
  const bool dp_possible = m.is_moe() || !IsVllm(p.engine);
  if (st.dp_attention || !dp_possible) {
    dps = {p.dp_attention};
  } else {
    dps = {false, true};
  }
  for (PlacementMode mode : modes) {
    std::vector<std::pair<int, int>> splits =
        mode == PlacementMode::kColocated ? std::vector<std::pair<int, int>>{{gpus, gpus}} : splits_dis;
    std::vector<std::optional<double>> shares;
    if (mode == PlacementMode::kColocated && !p.gpu_memory_utilization) {
      shares = {std::nullopt, kEngineShare};
    } else {
      shares = {p.gpu_memory_utilization};
    }
    for (auto [r, t] : splits) {
      if (st.train_layout && !TrainLayoutAllowed(p, m, t)) continue;
      std::vector<int> tps;
      if (st.rollout_tp) {
        tps = {p.rollout_tp};
      } else {
        for (int tp = 1; tp <= std::min(r, kMaxRolloutTp); tp *= 2) tps.push_back(tp);
      }
      for (int tp : tps) {
        if (tp > r || r % tp != 0) continue;
        for (bool dp : dps) {
          if (dp && tp == 1 && !st.dp_attention) continue;  // one rank: the same engine
          if (!TpAllowed(m, tp, dp)) continue;
          for (const auto& share : shares) add({mode, r, t, tp, dp, share});
        }
      }
    }
  }
  return out;
}

namespace {

// A candidate estimated by Search.
struct Scored {
  Layout layout;
  Estimate e;
  double score;
  int tier;
  size_t index;
};

// The planner's search, shared by PlanLayout (which writes its summary) and
// ChooseLayout (the layout alone).
struct Searched {
  std::vector<Layout> cands;
  std::vector<Scored> scored;  // in index order
  const Scored* best = nullptr;
  const Scored* second = nullptr;
  std::optional<Estimate> literal_e;
  std::optional<Error> literal_err;
  int fitting = 0;
};

Result<void> Search(const Scenario& s, const Options& opt, const signal::Summary& sig_ref, Searched& out) {
  const signal::Summary* sig = &sig_ref;
  out.cands = Candidates(s);
  const std::vector<Layout>& cands = out.cands;
  std::vector<Scored>& scored = out.scored;  // the candidates estimated (any order; replayed in index order below)
  std::optional<Estimate>& literal_e = out.literal_e;
  std::optional<Error>& literal_err = out.literal_err;
  int& fitting = out.fitting;
  // One working copy whose placement each candidate rewrites (a Scenario
  // holds distributions and strings: copying it per candidate would cost more
  // than the estimate in a sweep).
  Scenario c = s;
  // The goal's steps do not depend on the layout and cost as much as a step
  // to count: left out of the candidates' estimates.
  c.goal.target_pass_rate.reset();
  // Estimates candidate i (its layout in c, `mp` its memory plan); an error
  // other than memory on the literal layout is the scenario's own (the literal
  // reading reports it): planning does not hide it.
  auto evaluate = [&](size_t i, const Result<perf::MemoryPlan>& mp) -> std::optional<Error> {
    // Tier 0: fits with the trainer's activations; tier 1: only the memory
    // plan the estimate runs with holds (used when no layout is tier 0).
    const int tier = !mp ? 2 : TrainerFits(c, *mp) ? 0 : 1;
    Result<Estimate> e = tier < 2 ? econ_internal::EstimateAnalyticWithSignal(c, *sig, TextDetail::kNumbers)
                                  : Result<Estimate>(Fail(mp.error()));
    if (!e) {
      if (i == 0) literal_err = e.error();
      if (i == 0 && e.error().code != ErrorCode::kDoesNotFit) return e.error();
      return std::nullopt;
    }
    if (tier == 0) ++fitting;
    if (i == 0) literal_e = *e;
    const double sc = Score(*e, opt.objective);
    if (std::isfinite(sc)) scored.push_back({cands[i], std::move(*e), sc, tier, i});
    return std::nullopt;
  };
  // With opt.layout_only, candidates are first bounded (their memory plan
  // and a lower bound on the objective), then estimated in order of their
  // bounds while a bound can still beat the best so far. Pruned candidates
  // are those whose bound is above the best estimated by more than the 1e-12
  // the choice below treats as a tie, so replaying the choice over the
  // estimated ones in index order picks what it picks over all.
  const bool prune = opt.layout_only && !VerifierRunsOnGpu(s);
  // Only the chosen layout is wanted: the candidates' estimates need their
  // step's time and dollars only (the score; the summary's figures are the
  // same two), so the mean engine's work figures are not run for them.
  std::optional<sim::analytic_internal::StepTimeOnly> time_only;
  if (prune) time_only.emplace();
  struct Pending {
    size_t index;
    int tier;
    double bound;
    perf::MemoryPlan mp;
  };
  std::vector<Pending> pending;
  // The last candidate's layout and whether its memory plan (PlanMemory of c
  // with that layout; c changes only by its layout here) moves the training
  // state to host memory.
  std::optional<std::pair<Layout, bool>> last_planned;
  for (size_t i = 0; i < cands.size(); ++i) {
    const Layout& l = cands[i];
    // The engine share 0.9 moves the training state to host memory while
    // generating; when the same layout without it does so anyway, the two
    // are the same run (or the share leaves no room): skip it.
    if (i > 0 && l.mode == PlacementMode::kColocated && l.gpu_memory_utilization &&
        !s.placement.gpu_memory_utilization) {
      Layout without = l;
      without.gpu_memory_utilization.reset();
      if (last_planned && last_planned->first == without) {
        // The candidate just planned is this one without the share (Candidates
        // adds the two in turn): its memory plan is the one asked for here.
        if (last_planned->second) continue;
      } else {
        ApplyLayout(c.placement, without);
        auto m = perf::PlanMemory(c);
        if (m && m->train_state_offloaded) continue;
      }
    }
    ApplyLayout(c.placement, l);
    // The memory plan the estimate runs with, and the trainer's activations
    // and logits beside its state (plan/memory.h).
    auto mp = perf::PlanMemory(c);
    last_planned.emplace(l, mp && mp->train_state_offloaded);
    if (!prune || (i == 0 && !mp)) {
      if (auto err = evaluate(i, mp)) return Fail(std::move(*err));
      continue;
    }
    if (!mp) continue;  // does not fit: no estimate (an error other than the literal's is not reported)
    const int tier = TrainerFits(c, *mp) ? 0 : 1;
    double bound = sim::analytic_internal::AnalyticStepLowerBound(c, *sig, &*mp);  // mp: PlanMemory(c) as it is
    if (opt.objective == Objective::kCost) bound *= econ_internal::PolicyUsdPerHour(c) / 3600.0;
    if (i == 0) {
      // The literal layout's own errors are reported, so it is pruned only
      // when its estimate cannot fail: the same estimate with the rollout's
      // fluid model replaced by its bound (RolloutBoundOnly) meets every
      // check the estimate makes. A bound of 0 (no bound for this kind of
      // step) would not prune it anyway: estimated at once.
      bool screened = false;
      if (bound > 0) {
        sim::analytic_internal::RolloutBoundOnly bounded;
        auto e = econ_internal::EstimateAnalyticWithSignal(c, *sig, TextDetail::kNumbers);
        screened = e.has_value();
      }
      if (!screened) {
        if (auto err = evaluate(i, mp)) return Fail(std::move(*err));
        continue;
      }
    }
    pending.push_back({i, tier, bound, std::move(*mp)});
  }
  if (prune) {
    std::sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
      return a.tier != b.tier ? a.tier < b.tier : a.bound != b.bound ? a.bound < b.bound : a.index < b.index;
    });
    for (const Pending& q : pending) {
      // The best so far: the lowest tier estimated, then the lowest score.
      const Scored* top = nullptr;
      for (const Scored& x : scored) {
        if (!top || x.tier < top->tier || (x.tier == top->tier && x.score < top->score)) top = &x;
      }
      if (top && (q.tier > top->tier || (q.tier == top->tier && q.bound > top->score * (1 + 1e-9)))) continue;
      ApplyLayout(c.placement, cands[q.index]);
      if (auto err = evaluate(q.index, Result<perf::MemoryPlan>(q.mp))) return Fail(std::move(*err));
    }
    std::sort(scored.begin(), scored.end(), [](const Scored& a, const Scored& b) { return a.index < b.index; });
  }
  // A lower tier first; ties keep the earlier layout (the literal one first).
  auto better = [](const Scored& a, const Scored& b) {
    return a.tier != b.tier ? a.tier < b.tier : a.score < b.score * (1 - 1e-12);
  };
  const Scored*& best = out.best;
  const Scored*& second = out.second;
  for (const Scored& cur : scored) {
    if (!best || better(cur, *best)) {
      second = best;
      best = &cur;
    } else if (!second || better(cur, *second)) {
      second = &cur;
    }
  }
  if (prune) second = nullptr;  // the runner-up may not have been estimated
  if (!best) {
    Error err = literal_err ? *literal_err : Error(ErrorCode::kDoesNotFit, "placement", "no layout fits");
    err.problems.push_back({"placement", fmt::format("no other layout fits either: the planner tried {} "
                                                     "(rollout_tp, colocated / disaggregated splits)",
                                                     cands.size())});
    return Fail(std::move(err));
  }
  return {};
}

}  // namespace

Result<Layout> ChooseLayout(const Scenario& s, const signal::Summary& sig, Objective objective) {
  Searched found;
  if (auto r = Search(s, {objective, /*layout_only=*/true}, sig, found); !r) return Fail(r.error());
  return found.best->layout;
}

Result<Planned> PlanLayout(const Scenario& s, const Options& opt) {
  auto sig = signal::Analyze(s, TextDetail::kNumbers);
  if (!sig) return Fail(sig.error());
  Searched found;
  if (auto r = Search(s, opt, *sig, found); !r) return Fail(r.error());
  const std::vector<Layout>& cands = found.cands;
  const Scored* best = found.best;
  const Scored* second = found.second;
  const std::optional<Estimate>& literal_e = found.literal_e;
  const std::optional<Error>& literal_err = found.literal_err;
  const int fitting = found.fitting;
  Planned out;
  out.scenario = WithLayout(s, best->layout);
  out.changed = !(best->layout == cands.front());
  PlanSummary& sum = out.summary;
  sum.objective = opt.objective == Objective::kTime ? "time" : "cost";
  const auto& st = s.placement.stated;
  if (!st.mode) sum.chosen_fields.push_back("placement.mode");
  if (!st.split && best->layout.mode == PlacementMode::kDisaggregated) {
    sum.chosen_fields.push_back("placement.rollout_gpus");
    sum.chosen_fields.push_back("placement.train_gpus");
  }
  if (!st.rollout_tp) sum.chosen_fields.push_back("placement.rollout_tp");
  if (!st.dp_attention && (s.model.is_moe() || !IsVllm(s.placement.engine)))
    sum.chosen_fields.push_back("placement.dp_attention");
  if (!s.placement.gpu_memory_utilization && best->layout.mode == PlacementMode::kColocated)
    sum.chosen_fields.push_back("placement.gpu_memory_utilization");
  sum.layout = Describe(best->layout);
  sum.candidates = static_cast<int>(cands.size());
  sum.fitting = fitting;
  sum.literal = Describe(cands.front());
  if (literal_e) {
    sum.literal_usd_per_step = literal_e->usd_per_step;
    sum.literal_step_s = literal_e->step.time_s;
  } else if (literal_err) {
    sum.literal_error = Reason(*literal_err);
  }
  const char* goal = opt.objective == Objective::kTime ? "the shortest step" : "the fewest dollars per step";
  sum.why.push_back(fmt::format("layout planned for {}: {}: {} ({} layout{} tried, {} fit{} in memory)", goal,
                                sum.layout, Figures(best->e), sum.candidates, sum.candidates == 1 ? "" : "s",
                                sum.fitting, sum.fitting == 1 ? "s" : ""));
  if (second) {
    sum.runner_up = Describe(second->layout);
    sum.runner_up_usd_per_step = second->e.usd_per_step;
    sum.runner_up_step_s = second->e.step.time_s;
    sum.why.push_back(fmt::format("runner-up: {}: {} ({:+.1f}%)", sum.runner_up, Figures(second->e),
                                  100.0 * (second->score / best->score - 1.0)));
  }
  if (out.changed) {
    sum.why.push_back(literal_e     ? fmt::format("as written (`no_plan`): {}: {}", sum.literal, Figures(*literal_e))
                      : literal_err ? fmt::format("as written (`no_plan`): {}: does not run: {}", sum.literal,
                                                  sum.literal_error)
                                    : fmt::format("as written (`no_plan`): {}: not estimated (its lower bound "
                                                  "is above the planned layout's figure)",
                                                  sum.literal));
  }
  if (best->tier > 0) {
    sum.why.push_back(fmt::format("no layout holds the trainer's activations for the longest trajectory ({:.0f} "
                                  "tokens, {:.1f} GB with recompute + {:.1f} GB of logits per GPU): the estimate "
                                  "assumes the framework splits it (sequence packing limits, chunked logits); "
                                  "`rlcost memory` shows the parts",
                                  TrainActivationMemory(out.scenario).tokens,
                                  TrainActivationMemory(out.scenario).recompute_gb,
                                  TrainActivationMemory(out.scenario).logits_gb));
  }
  if (!st.train_layout && (best->layout.mode == PlacementMode::kDisaggregated || s.model.is_moe())) {
    sum.why.push_back("trainer: ZeRO-3 data parallel (its memory is the whole training state sharded over the "
                      "training GPUs either way; Megatron tensor/pipeline/expert parallel would add a pipeline "
                      "bubble and all-to-alls here; state placement.train_* to price one)");
  }
  if (s.pipeline.mode == PipelineMode::kAsync) {
    sum.why.push_back("async staleness is not planned (kept as written): the estimate prices no quality cost "
                      "for stale rollouts, so planning it would always choose the stalest");
  }
  // No silent cliff: the chosen layout's cache below the batch it is given.
  const double wanted = WantedPerEngine(out.scenario, best->e);
  if (best->e.step.kv_capacity_sequences > 0 && best->e.step.kv_capacity_sequences < wanted) {
    sum.why.push_back(fmt::format("even the planned layout's KV cache holds {:.1f} sequences per engine, below "
                                  "the {:.0f} each would run at once: generation runs in waves; more GPUs or "
                                  "an fp8 KV cache raise it",
                                  best->e.step.kv_capacity_sequences, wanted));
  }
  return out;
}

std::vector<std::string> ScalingNotes(const Scenario& s, const Estimate& e, bool planned, const Options& opt) {
  std::vector<std::string> notes;
  const int gpus = s.hardware.gpus;
  const int per_node = std::max(1, s.hardware.gpus_per_node);
  // The smaller counts compared: one node fewer, three quarters and half of the
  // GPUs (whole nodes beyond one node; halves within one).
  std::vector<int> counts;
  auto add = [&](int n) {
    if (n >= 1 && n < gpus && std::find(counts.begin(), counts.end(), n) == counts.end()) counts.push_back(n);
  };
  if (gpus > per_node && gpus % per_node == 0) {
    const int nodes = gpus / per_node;
    add((nodes - 1) * per_node);
    add(std::max(1, nodes * 3 / 4) * per_node);
    add(std::max(1, nodes / 2) * per_node);
  } else if (gpus <= per_node && gpus % 2 == 0) {
    add(gpus / 2);
  }
  std::optional<Scenario> best_c;
  std::optional<Estimate> best_e;
  for (int fewer : counts) {
    Scenario c = s;
    c.hardware.gpus = fewer;
    PlacementSpec& p = c.placement;
    const int tp = std::max(1, p.rollout_tp);
    if (p.mode == PlacementMode::kColocated) {
      p.rollout_gpus = p.train_gpus = fewer;
    } else {
      // The split scaled to the smaller count, in whole engines, one GPU left to train.
      const int r = static_cast<int>(std::lround(double(p.rollout_gpus) * fewer / gpus / tp)) * tp;
      p.rollout_gpus = std::clamp(r, tp, std::max(tp, (fewer - 1) / tp * tp));
      p.train_gpus = fewer - p.rollout_gpus;
      if (p.train_gpus < 1) continue;
    }
    if (p.rollout_gpus % tp != 0 || tp > p.rollout_gpus) continue;
    if (planned && AnythingToPlan(c)) {
      auto pl = PlanLayout(c, opt);
      if (!pl) continue;
      c = std::move(pl->scenario);
    }
    auto small = econ_internal::EstimateAnalyticWithSignal(c, e.signal, TextDetail::kNumbers);
    if (!small || !(small->step.time_s < e.step.time_s * 0.99)) continue;
    if (!best_e || small->step.time_s < best_e->step.time_s) {
      best_e = std::move(*small);
      best_c = std::move(c);
    }
  }
  if (!best_e) return notes;
  const int fewer = best_c->hardware.gpus;
  const Scenario& c = *best_c;
  const Estimate* small = &*best_e;
  // The phase that grew the most with the extra GPUs.
  struct Part {
    const char* name;
    double here, there;
  };
  const Part parts[] = {{"generation", e.step.rollout_s, small->step.rollout_s},
                        {"training", e.step.train_s, small->step.train_s},
                        {"the other phases (log-prob passes, weight sync, offload)", e.step.other_s,
                         small->step.other_s}};
  const Part* grew = &parts[0];
  for (const Part& q : parts) {
    if (q.here - q.there > grew->here - grew->there) grew = &q;
  }
  std::string why = fmt::format("{} takes {:.1f} s here against {:.1f} s on {}", grew->name, grew->here,
                                grew->there, GpuCount(fewer));
  const double wanted = WantedPerEngine(s, e);
  const double cap = e.step.kv_capacity_sequences;
  if (grew == &parts[0] && cap > 0 && cap < wanted) {
    why += fmt::format(": each engine's KV cache holds {:.1f} sequences here ({:.1f} there), below the {:.0f} each is "
                       "given at once, so generation runs in waves",
                       cap, small->step.kv_capacity_sequences, wanted);
  }
  std::string fix;
  if (!planned) {
    // The layout the planner picks with every layout field free (the written ones too).
    Scenario free = s;
    auto& st = free.placement.stated;
    st.mode = st.split = st.rollout_tp = st.dp_attention = false;
    free.placement.gpu_memory_utilization.reset();
    if (auto pl = PlanLayout(free, opt); pl && !(LayoutOf(pl->scenario) == LayoutOf(s))) {
      auto better = econ_internal::EstimateAnalyticWithSignal(pl->scenario, e.signal, TextDetail::kNumbers);
      if (better && better->step.time_s < small->step.time_s) {
        fix = fmt::format("; {} avoids it: {}", Describe(LayoutOf(pl->scenario)), Figures(*better));
      }
    }
  }
  if (fix.empty()) fix = fmt::format("; {} run the step faster and cheaper", GpuCount(fewer));
  notes.push_back(fmt::format("more GPUs, slower step: on {} ({}) this run takes {} (here {}); {}{}", GpuCount(fewer),
                              Describe(LayoutOf(c)), Figures(*small), Figures(e), why, fix));
  return notes;
}

std::vector<std::string> LiteralNotes(const Scenario& s, const Estimate& literal, const Options& opt) {
  std::vector<std::string> notes;
  const double wanted = WantedPerEngine(s, literal);
  const double cap = literal.step.kv_capacity_sequences;
  std::optional<Planned> p;
  if (auto r = PlanLayout(s, opt)) p = std::move(*r);
  if (cap > 0 && cap < wanted) {
    std::string fix;
    if (p && p->changed) {
      auto e = econ_internal::EstimateAnalyticWithSignal(p->scenario, literal.signal, TextDetail::kNumbers);
      if (e) fix = fmt::format("; {} holds {:.1f}", Describe(LayoutOf(p->scenario)), e->step.kv_capacity_sequences);
    }
    std::string cause;
    if (s.placement.mode == PlacementMode::kColocated && !literal.layout.train_state_offloaded) {
      if (auto mem = perf::PlanMemory(s)) {
        cause = fmt::format(" (the training state, {:.1f} GB per GPU, stays on the GPU beside the engine because it "
                            "fits; placement.gpu_memory_utilization: 0.9 moves it to host memory while generating)",
                            mem->train_state_gb + mem->critic_state_gb + mem->reference_gb);
      }
    }
    notes.push_back(fmt::format("KV cache below the batch: rollout_tp {} leaves room for {:.1f} sequences per "
                                "engine, but each engine is given {:.0f} at once, so generation runs in waves{}{}",
                                s.placement.rollout_tp, cap, wanted, cause, fix));
  }
  if (p && p->changed) {
    const double lit = Score(literal, opt.objective);
    auto e = econ_internal::EstimateAnalyticWithSignal(p->scenario, literal.signal, TextDetail::kNumbers);
    if (e && Score(*e, opt.objective) < lit * (1 - kWorthNoting)) {
      notes.push_back(fmt::format("layout: {} would give {} (as written: {}); rlcost plans the fields a scenario "
                                  "leaves out unless `no_plan`",
                                  Describe(LayoutOf(p->scenario)), Figures(*e), Figures(literal)));
    }
  }
  return notes;
}

}  // namespace rlcost::plan
