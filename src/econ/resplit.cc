// Elastic rollout/train pools (placement.resplit): docs/model.md, "Elastic
// pools". A fixed split of a disaggregated run's GPUs is chosen for one
// response length; as responses grow (environment.response_tokens_schedule)
// the rollout side needs more of the GPUs. Libra (arXiv 2606.03077) re-splits
// during the run; rlcost prices the run's steps phase by phase, each phase
// with the split that gives it the shortest step, plus a stop of the whole
// run at each change of split.
#include "econ/resplit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "rlcost/perf.h"
#include "rlcost/sim.h"

namespace rlcost::econ_internal {

double ResplitRestartS(const Scenario& s) {
  if (s.placement.resplit && s.placement.resplit->restart_s) return *s.placement.resplit->restart_s;
  const StartupSpec& st = s.run.startup;
  return perf::WeightBytes(s.model, Precision::kBf16) / 1e9 / std::max(st.storage_read_gb_per_s, 1e-9) +
         st.warmup_s;
}

// At most this many splits are tried per phase (evenly spaced, whole engines).
constexpr int kMaxSplits = 32;

Result<Estimate::Resplit> PriceResplit(const Scenario& s, const signal::Summary& sig, double usd_per_h) {
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
  const int stride = std::max(tp, tp * int(std::ceil(double(gpus / tp) / kMaxSplits)));
  Estimate::Resplit out;
  out.phases = K;
  out.resplit_s = ResplitRestartS(s);
  int prev = s.placement.rollout_gpus;
  for (int k = 0; k < K; ++k) {
    const int a = k * steps / K, b = (k + 1) * steps / K;
    double m = 0;
    for (int i = a; i < b; ++i) m += means[i] / (b - a);
    Scenario sk = s;
    auto d = sched->At(m);
    if (!d) return Fail(ErrorCode::kInvalidInput, "environment.response_tokens_schedule", d.error());
    sk.environment.response_tokens = *d;
    sk.environment.response_tokens_schedule.reset();
    sk.placement.resplit.reset();
    auto fixed = sim::AnalyticStep(sk, sig, TextDetail::kNumbers);
    if (!fixed) return Fail(fixed.error());
    double best_t = fixed->time_s;
    int best_r = s.placement.rollout_gpus;
    for (int r = stride; r < gpus; r += stride) {
      if (r == s.placement.rollout_gpus) continue;
      Scenario c = sk;
      c.placement.rollout_gpus = r;
      c.placement.train_gpus = gpus - r;
      auto t = sim::AnalyticStep(c, sig, TextDetail::kNumbers);
      if (t && t->time_s < best_t) {
        best_t = t->time_s;
        best_r = r;
      }
    }
    // A change of split stops the run; starting at a split other than the
    // scenario's costs nothing (the run starts there).
    if (k > 0 && best_r != prev) ++out.resplits;
    prev = best_r;
    out.rollout_gpus.push_back(best_r);
    out.phase_mean_tokens.push_back(m);
    out.fixed_steps_h += (b - a) * fixed->time_s / 3600.0;
    out.steps_h += (b - a) * best_t / 3600.0;
  }
  out.steps_h += out.resplits * out.resplit_s / 3600.0;
  out.fixed_usd = out.fixed_steps_h * usd_per_h;
  out.usd = out.steps_h * usd_per_h;
  return out;
}

}  // namespace rlcost::econ_internal
