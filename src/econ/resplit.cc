// Elastic rollout/train pools (placement.resplit): docs/model.md, "Elastic
// pools". A fixed split of a disaggregated run's GPUs is chosen for one
// response length; as responses grow (environment.response_tokens_schedule)
// the rollout side needs more of the GPUs. Libra (arXiv 2606.03077) re-splits
// during the run; rlcost prices the run's steps phase by phase: the run
// starts at the split as written and, at the start of each later phase, moves
// to the split that gives that phase the shortest step when the phase's saving
// outweighs the stop of the whole run that a change costs.
#include "econ/resplit.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "econ/run.h"
#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "core/cancel.h"

namespace rlcost::econ_internal {

double ResplitRestartS(const Scenario& s) {
  if (s.placement.resplit && s.placement.resplit->restart_s) return *s.placement.resplit->restart_s;
  const StartupSpec& st = s.run.startup;
  return perf::WeightBytes(s.model, Precision::kBf16) / 1e9 / std::max(st.storage_read_gb_per_s, 1e-9) +
         st.warmup_s;
}

// At most this many splits are tried per phase (evenly spaced, whole engines).
constexpr int kMaxSplits = 32;

Result<ResplitPricing> PriceResplit(const Scenario& s, const signal::Summary& sig, double usd_per_h) {
  const auto& sched = s.environment.response_tokens_schedule;
  if (!s.placement.resplit || !sched || sched->mean_per_step.empty()) {
    return Fail(ErrorCode::kInvalidInput, "placement.resplit",
                "re-splitting needs a response-length schedule (environment.response_tokens_schedule)");
  }
  const auto& means = sched->mean_per_step;
  const int steps = int(means.size());
  const int K = std::min(s.placement.resplit->phases, steps);
  const int gpus = s.hardware.gpus;
  const int tp = std::max(1, s.placement.rollout_tp);
  // The splits tried are those the layout planner tries (src/plan/plan.cc):
  // whole nodes from two nodes on (a role per node, as the frameworks place
  // them), single GPUs below; each a whole number of engines. So the lever is
  // not credited with a finer split than a fixed run would be given.
  const int per_node = std::max(1, s.hardware.gpus_per_node);
  const int unit = gpus >= 2 * per_node && gpus % per_node == 0 ? per_node : 1;
  const int stride = unit * std::max(1, int(std::ceil(double(gpus / unit) / kMaxSplits)));
  ResplitPricing out;
  Estimate::Resplit& sum = out.summary;
  sum.phases = K;
  sum.resplit_s = ResplitRestartS(s);
  double mean_rollout_gpus = 0;
  StepTiming rep;
  double rep_gap = std::numeric_limits<double>::infinity();
  int prev = s.placement.rollout_gpus;
  for (int k = 0; k < K; ++k) {
    if (CancelRequested()) return Fail(CancelledError());  // a request no longer wanted (rlcost serve)
    const int a = k * steps / K, b = (k + 1) * steps / K;
    double m = 0;
    for (int i = a; i < b; ++i) m += means[i] / (b - a);
    // The phase as a run of its own: its part of the schedule, its mean length.
    Scenario sk = s;
    auto d = sched->At(m);
    if (!d) return Fail(ErrorCode::kInvalidInput, "environment.response_tokens_schedule", d.error());
    sk.environment.response_tokens = *d;
    sk.environment.response_tokens_schedule->mean_per_step.assign(means.begin() + a, means.begin() + b);
    sk.placement.resplit.reset();
    // The split is chosen on the step at the phase's mean length.
    Scenario at_mean = sk;
    at_mean.environment.response_tokens_schedule.reset();
    std::map<int, double> step_s;  // rollout GPUs -> step time at the phase's mean length
    auto time_at = [&](int r) -> std::optional<double> {
      if (auto it = step_s.find(r); it != step_s.end()) return it->second;
      Scenario c = at_mean;
      c.placement.rollout_gpus = r;
      c.placement.train_gpus = gpus - r;
      auto t = sim::AnalyticStep(c, sig, TextDetail::kNumbers);
      if (!t) return std::nullopt;
      step_s[r] = t->time_s;
      return t->time_s;
    };
    auto fixed_here = time_at(s.placement.rollout_gpus);
    if (!fixed_here) {
      auto t = sim::AnalyticStep(at_mean, sig, TextDetail::kNumbers);  // the error, as the run as written gives it
      return t ? Fail(ErrorCode::kInvalidInput, "placement.resplit", "the split as written does not run")
               : Fail(t.error());
    }
    int best_r = s.placement.rollout_gpus;
    double best_t = *fixed_here;
    for (int r = stride; r < gpus; r += stride) {
      if (r % tp != 0) continue;
      // A split is a full-cache pass or more (milliseconds each, 32 a phase):
      // a request no longer wanted stops between two of them.
      if (CancelRequested()) return Fail(CancelledError());
      auto t = time_at(r);
      if (t && *t < best_t) {
        best_t = *t;
        best_r = r;
      }
    }
    // The run starts at the split as written. At the start of each later
    // phase it moves to that phase's best split when the phase's steps save
    // more than the stop a change costs (at the phase's mean length).
    int chosen = prev;
    if (k > 0 && best_r != prev) {
      auto t_prev = time_at(prev);
      if (!t_prev || (b - a) * (*t_prev - best_t) > sum.resplit_s) chosen = best_r;
    }
    if (k > 0 && chosen != prev) ++sum.resplits;
    prev = chosen;
    // The phase's steps at the split chosen, integrated over its part of the schedule.
    Scenario chosen_s = sk;
    chosen_s.placement.rollout_gpus = chosen;
    chosen_s.placement.train_gpus = gpus - chosen;
    auto tc = ScheduledAnalyticStep(chosen_s, sig, TextDetail::kNumbers);
    if (!tc) return Fail(tc.error());
    const double w = double(b - a) / steps;
    AddWeightedStep(out.mean_step, *tc, w);
    // Counts, flags and notes (what is not blended) from the phase nearest the run's mean length.
    if (double gap = std::abs(m - sched->RunMean()); gap < rep_gap) {
      rep_gap = gap;
      rep = *tc;
    }
    mean_rollout_gpus += w * chosen;
    sum.rollout_gpus.push_back(chosen);
    sum.phase_mean_tokens.push_back(m);
    sum.steps_h += (b - a) * tc->time_s / 3600.0;
  }
  CopyBlendedFields(rep, out.mean_step);
  out.mean_step = std::move(rep);
  // The split as written is the run without placement.resplit, integrated
  // over the whole schedule as that run is (phase by phase, the two
  // integrations differ by the interpolation, ~0.3% on
  // scenarios/levers/resplit-lengths-grow.yaml); a run that never changes
  // its split is that run.
  Scenario as_written = s;
  as_written.placement.resplit.reset();
  auto whole = ScheduledAnalyticStep(as_written, sig, TextDetail::kNumbers);
  if (!whole) return Fail(whole.error());
  sum.fixed_steps_h = steps * whole->time_s / 3600.0;
  bool moved = false;
  for (int g : sum.rollout_gpus) moved = moved || g != s.placement.rollout_gpus;
  if (!moved) {
    out.mean_step = *whole;
    sum.steps_h = sum.fixed_steps_h;
  }
  // The stops, spread over the run's steps: every GPU idle.
  const double stop_per_step_s = sum.resplits * sum.resplit_s / std::max(1, steps);
  StepTiming& t = out.mean_step;
  t.time_s += stop_per_step_s;
  t.other_s += stop_per_step_s;
  t.overhead_s += stop_per_step_s;
  t.gpu_s_idle += stop_per_step_s * gpus;
  t.rollout_gpus = int(std::lround(mean_rollout_gpus));
  sum.steps_h += sum.resplits * sum.resplit_s / 3600.0;
  sum.fixed_usd = sum.fixed_steps_h * usd_per_h;
  sum.usd = sum.steps_h * usd_per_h;
  return out;
}

}  // namespace rlcost::econ_internal
