// The levers that change how the GPUs are laid out and how the pipeline runs:
// the planned layout, async RL (disaggregated, one step off), tail handling,
// elastic pools; and the re-planning of every alternative's layout
// (Options::replan). Rules and formulas: docs/model.md (levers section).
#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "decide/levers_internal.h"

namespace rlcost::levers {
namespace internal {
namespace {

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

Result<void> ApplyLayoutAndAsync(Building& b) {
  Scenario& s = b.s;
  const Options& opt = b.opt;
  b.layout_freed = Has(b.levers, Lever::kLayout) && opt.replan;
  if (Has(b.levers, Lever::kLayout) && !opt.replan) {
    b.said.push_back("layout: no effect, every configuration keeps the layout as written (layouts read as written)");
  }
  if (b.layout_freed) {
    FreeLayout(s);
    b.said.push_back("the stated layout fields (placement mode, split, rollout_tp, data-parallel attention, engine "
                     "memory share) left to the planner");
  }
  if (!Has(b.levers, Lever::kAsync)) return {};
  s.pipeline.mode = PipelineMode::kAsync;
  if (b.base.placement.mode == PlacementMode::kColocated &&
      FrameworkSupplied(b.base, "placement.gpu_memory_utilization")) {
    // A colocated engine's share of GPU memory that the scenario left out
    // and its framework supplied is that framework's colocated default (veRL
    // rollout.yaml gpu_memory_utilization 0.5: room for the trainer on the
    // same GPU). The async lever's engines own their GPUs: the share is left
    // to the layout, as veRL's own disaggregated scripts raise it
    // (verl/experimental/fully_async_policy/shell/dapo_7b_math_fsdp2_16_16.sh:120
    // @ b178a3c: 0.80). docs/model.md, "The built-in default".
    s.placement.gpu_memory_utilization.reset();
  }
  if (b.base.pipeline.mode != PipelineMode::kAsync) {
    // One-step-off with partial (interruptible) rollouts: the configuration
    // behind the seed's 1.5-3.5x (AReaL v0.3 reports 2.77x with
    // interruptible generation; veRL's fully-async recipe uses partial
    // rollouts too).
    s.pipeline.max_staleness = 1;
    s.pipeline.partial_rollouts = true;
  }
  if (opt.replan) {
    // The split (and rollout_tp, when not stated) planned below, with the rest.
    if (auto r = AsyncPlacement(s, b.base, b.layout_freed); !r) return Fail(r.error());
    b.said.push_back(fmt::format("async, staleness {:g}", s.pipeline.max_staleness));
  } else {
    std::string d;
    auto best = BestAsyncSplit(s, &d);
    if (!best) return Fail(best.error());
    s = *best;
    b.said.push_back("async, " + d);
  }
  return {};
}

Result<void> ApplyReplan(Building& b) {
  if (!b.opt.replan) return {};
  auto r = Replanned(std::move(b.s), *b.opt.replan, b.said);
  if (!r) return Fail(r.error());
  b.s = std::move(*r);
  if (b.one_tenant) b.one_tenant->placement = b.s.placement;
  return {};
}

void ApplyTail(Building& b) {
  if (!Has(b.levers, Lever::kTail)) return;
  // docs/model.md, "Tail handling": the scenario's pipeline.tail, else
  // APRIL's partial rollouts at their published over-launch (f = 1).
  Scenario& s = b.s;
  const TailSpec tail = b.opt.tail ? *b.opt.tail : TailSpec{TailMode::kPartialRollout, kAprilOverLaunch};
  if (s.pipeline.mode == PipelineMode::kAsync && s.placement.mode != PlacementMode::kColocated) {
    b.said.push_back("tail handling: not applied, the asynchronous pipeline already overlaps the tail");
  } else {
    s.pipeline.tail = tail;
    b.said.push_back(fmt::format("tail handling: {}, {:g}x launched per step{}", ToString(tail.mode),
                                 1 + tail.over_launch,
                                 b.opt.tail ? " (the scenario's pipeline.tail)"
                                            : " (APRIL's partial rollouts, over-sampling 64 for a batch of 32)"));
  }
}

Result<void> ApplyResplit(Building& b) {
  if (!Has(b.levers, Lever::kResplit)) return {};
  // docs/model.md, "Elastic pools": the configuration's own split as the
  // starting point, re-chosen per phase of the response-length schedule.
  Scenario& s = b.s;
  const ResplitSpec rs = b.opt.resplit.value_or(ResplitSpec{});
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
  b.said.push_back(fmt::format("elastic pools: the {} + {} split re-chosen at the start of each of {} phases of the "
                               "run, a change stopping the run {}{}",
                               s.placement.rollout_gpus, s.placement.train_gpus, rs.phases,
                               rs.restart_s ? fmt::format("{:.0f} s", *rs.restart_s)
                                            : std::string("for one start-up (ASSUMED)"),
                               b.opt.resplit ? " (the scenario's placement.resplit)" : ""));
  return {};
}

}  // namespace internal

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

}  // namespace rlcost::levers
