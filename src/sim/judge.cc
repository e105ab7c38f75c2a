// Judge engines of the simulator (judge.h; docs/model.md, "Judges in the simulator").
#include "sim/judge.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace rlcost::sim {
namespace {

bool OnGpu(VerifierKind k) { return k == VerifierKind::kLlmJudge || k == VerifierKind::kRewardModel; }

}  // namespace

Result<void> Judges::Setup(const Scenario& s, double rollouts_per_step, bool pipelined) {
  pools_.clear();
  engine_ref_.clear();
  shared_order_.clear();
  not_simulated_.clear();
  auto w = perf::VerifierCost(s, rollouts_per_step);
  if (!w) return Fail(w.error());
  if (!w->on_gpu) return {};
  const auto& reward = s.environment.reward;
  const auto& v = reward.verifier;
  // Each model verifier beside the plan perf::VerifierCost made for it.
  std::vector<std::pair<const RewardSpec::Verifier*, const perf::VerifierWork*>> parts;
  if (v.kind == VerifierKind::kEnsemble) {
    size_t j = 0;
    for (const auto& m : v.members) {
      if (!OnGpu(m.kind)) continue;
      if (j >= w->members.size()) break;
      parts.emplace_back(&m, &w->members[j++]);
    }
  } else {
    parts.emplace_back(&v, &*w);
  }
  if (pipelined) {
    for (const auto& [spec, plan] : parts) {
      if (plan->shared) {
        not_simulated_ = fmt::format(
            "{} shares the rollout GPUs of a disaggregated pipeline: the simulator does not yet run it as engine "
            "work there; its cost is added in closed form (as the analytic estimate does)",
            plan->what);
        return {};
      }
    }
  }
  for (const auto& [spec, plan] : parts) {
    Pool p;
    p.plan = *plan;
    p.ec = perf::EngineConfig{&spec->model, &s.hardware.gpu, perf::RolloutEfficiency(s), plan->tp,
                              Precision::kBf16, Precision::kBf16};
    p.input_tokens = spec->input_tokens;
    p.calls_per_rollout = spec->calls_per_rollout;
    if (spec == &v && !reward.rubric.empty() && v.kind == VerifierKind::kLlmJudge) {
      // A rubric: one call per judged criterion, each its own verdict length.
      for (const auto& it : reward.rubric)
        if (it.judged) p.shapes.push_back({it.output_tokens > 0 ? it.output_tokens : v.output_tokens});
    } else {
      p.shapes.push_back({spec->output_tokens});
    }
    if (p.shapes.empty()) continue;
    p.engines.resize(std::max(1, plan->engines));
    p.first_engine = static_cast<int>(engine_ref_.size());
    const int index = static_cast<int>(pools_.size());
    for (int e = 0; e < static_cast<int>(p.engines.size()); ++e) engine_ref_.emplace_back(index, e);
    p.open = !plan->shared;
    if (plan->shared) shared_order_.push_back(index);
    pools_.push_back(std::move(p));
  }
  return {};
}

bool Judges::any_shared() const { return !shared_order_.empty(); }

int Judges::dedicated_gpus() const {
  int g = 0;
  for (const auto& p : pools_)
    if (!p.plan.shared) g += p.plan.gpus;
  return g;
}

bool Judges::Fits(const Pool& p, const Engine& en, const Call& c) const {
  if (en.running.empty() && en.admitted.empty()) return true;  // one call always runs (VerifierCost checked its fit)
  return en.kv_used + c.input + double(c.left) <= p.plan.kv_tokens;
}

int Judges::Submit(double now, int32_t traj, double tokens, EventQueue& q) {
  int sent = 0;
  for (Pool& p : pools_) {
    // Fractional calls per rollout: carried over, so N trajectories make
    // N x calls_per_rollout calls give or take one.
    p.carry += p.calls_per_rollout;
    const int k = static_cast<int>(std::floor(p.carry + 1e-9));
    p.carry -= k;
    for (int j = 0; j < k; ++j) {
      for (const CallShape& sh : p.shapes) {
        Call c;
        c.traj = traj;
        c.input = p.input_tokens > 0 ? p.input_tokens : tokens;
        c.left = std::max<int64_t>(0, std::llround(sh.output));
        c.t_submit = now;
        // The engine with the fewest calls (running, being prefilled or
        // queued), the lowest index on ties.
        int best = 0;
        size_t best_load = SIZE_MAX;
        for (int e = 0; e < static_cast<int>(p.engines.size()); ++e) {
          const Engine& en = p.engines[e];
          const size_t load = en.queue.size() + en.running.size() + en.admitted.size();
          if (load < best_load) {
            best = e;
            best_load = load;
          }
        }
        Engine& en = p.engines[best];
        en.queue.push_back(c);
        ++p.queued;
        ++sent;
        totals_.max_queue = std::max(totals_.max_queue, double(p.queued));
        if (!p.open) continue;
        if (en.seg == Seg::kNone) {
          Plan(p, best, now, q);
        } else if (en.seg == Seg::kDecode && en.queue.size() == 1 && Fits(p, en, en.queue.front())) {
          // It joins the batch at the end of the iteration in flight
          // (continuous batching).
          Truncate(p, best, now, q);
        }
      }
    }
  }
  return sent;
}

void Judges::Truncate(Pool& p, int e, double now, EventQueue& q) {
  Engine& en = p.engines[e];
  // The smallest m with t0 + time(m iterations) >= now: the iteration in flight ends then.
  int64_t lo = 1, hi = en.n;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (en.t0 + perf::DecodeIterations(p.ec, en.batch, en.ctx, double(mid)).time_s >= now)
      hi = mid;
    else
      lo = mid + 1;
  }
  if (lo >= en.n) return;
  en.n = lo;
  en.t1 = en.t0 + perf::DecodeIterations(p.ec, en.batch, en.ctx, double(lo)).time_s;
  ++en.version;
  q.Push(en.t1, EventType::kJudgeSegmentEnd, p.first_engine + e, en.version);
}

void Judges::Plan(Pool& p, int e, double now, EventQueue& q) {
  Engine& en = p.engines[e];
  if (en.seg != Seg::kNone || !p.open) return;
  while (!en.queue.empty() && Fits(p, en, en.queue.front())) {
    Call c = en.queue.front();
    en.queue.pop_front();
    --p.queued;
    c.left_at_admission = c.left;
    en.kv_used += c.input + double(c.left);
    const double wait = now - c.t_submit;
    p.queue_wait_s += wait;
    totals_.queue_wait_s += wait;
    en.admitted.push_back(c);
  }
  if (!en.admitted.empty()) {
    double tokens = 0;
    for (const Call& c : en.admitted) tokens += c.input;
    const perf::Work w = perf::Prefill(p.ec, tokens, 0, double(en.admitted.size()));
    en.seg = Seg::kPrefill;
    en.t0 = now;
    en.t1 = now + w.time_s;
    en.ctx = tokens;
    ++en.version;
    q.Push(en.t1, EventType::kJudgeSegmentEnd, p.first_engine + e, en.version);
    return;
  }
  if (!en.running.empty()) {
    int64_t n = en.running.front().left;
    double ctx = 0;
    for (const Call& c : en.running) {
      n = std::min(n, c.left);
      ctx += c.ctx;
    }
    en.seg = Seg::kDecode;
    en.batch = double(en.running.size());
    en.ctx = ctx;
    en.n = std::max<int64_t>(1, n);
    en.t0 = now;
    en.t1 = now + perf::DecodeIterations(p.ec, en.batch, en.ctx, double(en.n)).time_s;
    ++en.version;
    q.Push(en.t1, EventType::kJudgeSegmentEnd, p.first_engine + e, en.version);
    return;
  }
  // Idle. A shared pool with nothing left hands the GPUs to the next one.
  if (shared_phase_ && p.plan.shared && p.queued == 0 && next_shared_ > 0 &&
      &pools_[shared_order_[next_shared_ - 1]] == &p) {
    for (const Engine& o : p.engines)
      if (o.seg != Seg::kNone) return;
    OpenNextShared(now, q);
  }
}

void Judges::OpenShared(double now, EventQueue& q) {
  if (shared_order_.empty()) return;
  shared_phase_ = true;
  next_shared_ = 0;
  OpenNextShared(now, q);
}

void Judges::OpenNextShared(double now, EventQueue& q) {
  if (next_shared_ >= shared_order_.size()) return;
  const int index = shared_order_[next_shared_++];
  Pool& p = pools_[index];
  // The policy's engine holds the GPUs while generating: the judge's
  // tensor-parallel shard comes in from host memory first (perf::VerifierCost).
  const double load_gpu_s = p.plan.weight_load_s * p.plan.gpus;
  totals_.shared_gpu_s += load_gpu_s;
  p.busy_gpu_s += load_gpu_s;
  q.Push(now + p.plan.weight_load_s, EventType::kJudgeOpen, index);
}

void Judges::CloseShared() {
  shared_phase_ = false;
  next_shared_ = 0;
  for (int index : shared_order_) pools_[index].open = false;
}

double Judges::TakeSharedGpuS() {
  const double d = totals_.shared_gpu_s - shared_gpu_s_taken_;
  shared_gpu_s_taken_ = totals_.shared_gpu_s;
  return d;
}

void Judges::OnEvent(double now, const Event& ev, EventQueue& q, std::vector<int32_t>& done) {
  if (ev.type == EventType::kJudgeOpen) {
    Pool& p = pools_[ev.a];
    p.open = true;
    for (int e = 0; e < static_cast<int>(p.engines.size()); ++e) Plan(p, e, now, q);
    return;
  }
  const auto [pi, e] = engine_ref_[ev.a];
  Pool& p = pools_[pi];
  Engine& en = p.engines[e];
  if (ev.b != en.version || en.seg == Seg::kNone) return;  // a segment cut short since
  const double tp = p.plan.tp;
  const double dur = en.t1 - en.t0;
  en.busy_s += dur;
  p.busy_gpu_s += dur * tp;
  (p.plan.shared ? totals_.shared_gpu_s : totals_.dedicated_gpu_s) += dur * tp;
  auto complete = [&](const Call& c) {
    en.kv_used -= c.input + double(c.left_at_admission);
    p.calls += 1;
    totals_.calls += 1;
    done.push_back(c.traj);
  };
  if (en.seg == Seg::kPrefill) {
    totals_.flops += perf::Prefill(p.ec, en.ctx, 0, double(en.admitted.size())).flops * tp;
    for (Call& c : en.admitted) {
      c.ctx = c.input;
      if (c.left <= 0)
        complete(c);  // a reward model: one scoring pass
      else
        en.running.push_back(c);
    }
    en.admitted.clear();
  } else {
    totals_.flops += perf::DecodeIterations(p.ec, en.batch, en.ctx, double(en.n)).flops * tp;
    size_t kept = 0;
    for (size_t i = 0; i < en.running.size(); ++i) {
      Call& c = en.running[i];
      c.left -= en.n;
      c.ctx += double(en.n);
      if (c.left <= 0) {
        c.left = 0;
        complete(c);
      } else {
        en.running[kept++] = c;
      }
    }
    en.running.resize(kept);
  }
  if (en.running.empty() && en.admitted.empty()) en.kv_used = 0;  // no rounding drift
  en.seg = Seg::kNone;
  Plan(p, e, now, q);
}

std::vector<Judges::PoolInfo> Judges::Pools() const {
  std::vector<PoolInfo> out;
  for (const Pool& p : pools_) {
    PoolInfo i;
    i.what = p.plan.what;
    i.shared = p.plan.shared;
    i.gpus = p.plan.gpus;
    i.tp = p.plan.tp;
    i.engines = static_cast<int>(p.engines.size());
    i.kv_tokens = p.plan.kv_tokens;
    i.weight_load_s = p.plan.weight_load_s;
    i.calls = p.calls;
    i.busy_gpu_s = p.busy_gpu_s;
    i.queue_wait_s = p.queue_wait_s;
    out.push_back(std::move(i));
  }
  return out;
}

}  // namespace rlcost::sim
