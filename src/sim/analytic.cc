// The analytic (closed-form) step model. Derivation: docs/model.md, "Analytic step".
//
// Rollout time per engine models the draining batch, not just the mean: the
// response-length distribution is cut into quantile slices; while the batch
// drains, each slice runs DecodeIterations with the sequences still alive.
// When the step's sequences do not all fit in the KV cache, an
// admission-ordered fluid model of the scheduler (FullCache) follows the
// cache as it fills, preempts, resumes and drains.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "rlcost/tail.h"
#include "core/count.h"
#include "core/slices.h"
#include "sim/kv_cache.h"

namespace rlcost::sim {
namespace {

constexpr int kMaxSlices = 48;

struct RolloutResult {
  double time_s = 0;       // wall time
  double flops = 0;        // per GPU of one engine
  double mean_batch = 0;   // time-weighted running sequences
  double decode_tokens = 0;
  double prefill_tokens = 0;
};

// Standard normal quantile (Acklam's rational approximation, |rel err| < 1.2e-9).
double NormalQuantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549671010115819e+00, 4.374664141464968e+00, 2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  p = std::clamp(p, 1e-12, 1 - 1e-12);
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - 0.02425) return -NormalQuantile(1 - p);
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

// Mean generated context of a sequence running in a continuously batched
// engine at a random moment: its age. Renewal theory (length-biased sampling):
// a sequence of length L is in the batch for L iterations, so the one found
// running has length density L f(L) / E[L], and its age is uniform on [0, L]:
// E[age] = E[L^2] / (2 E[L]).
double MeanAge(const Distribution& resp) {
  return resp.SecondMoment() / (2.0 * std::max(resp.mean(), 1e-9));
}

// Running sequences a full, preempting KV cache holds on average (vLLM-style:
// admit while the prompt's blocks fit above the watermark, preempt when a
// running sequence needs a block that is not free). Each running sequence
// holds its prompt, its age (MeanAge) and on average half a block of
// fragmentation; the cache swings between 1 - watermark (admission stops)
// and full (preemption starts): mean use 1 - watermark / 2 (an assumption).
// Derivation: docs/model.md, "The analytic step".
double FullCacheBatch(double kv_tokens, double prompt, double age) {
  double held = prompt + age + 0.5 * double(kBlockTokens);
  return std::max(1.0, kv_tokens * (1.0 - 0.5 * kWatermarkFraction) / held);
}

// Response lengths of an engine's n sequences as equal-weight quantile
// points, ascending. The last sits at the expected maximum of all n_total
// draws of the step (u = n_total / (n_total + 1)): the step ends when the
// slowest engine — the one holding the longest sequence — finishes.
int LengthSlices(const Distribution& d, double n, double n_total, std::array<double, kMaxSlices>& out) {
  if (d.is_fixed()) {
    out[0] = d.mean();
    return 1;
  }
  int m = CeilCount(n, 1, kMaxSlices);
  double top = n_total / (n_total + 1.0);
  for (int j = 0; j < m; ++j) out[j] = d.Quantile(top * (j + 1.0) / m);
  // Rescale the body so the slices' mean equals the distribution's mean (the
  // grid under-samples the body when the tail point is pinned).
  KeepMeanWithTopPinned(std::span<double>(out.data(), m), d.mean());
  return m;
}

// A batch of `n` sequences, each with `ctx0` tokens of context already cached,
// decoding lengths given by `slices`, all admitted at once: the draining batch.
RolloutResult Drain(const perf::EngineConfig& e, double n, double ctx0,
                    const std::array<double, kMaxSlices>& len, int m) {
  RolloutResult r;
  double done = 0;  // iterations so far
  double batch_time = 0;
  for (int j = 0; j < m; ++j) {
    double alive = n * (m - j) / m;
    double iters = len[j] - done;
    if (iters <= 0) continue;
    auto w = perf::DecodeIterations(e, alive, alive * (ctx0 + done), iters);
    r.time_s += w.time_s;
    r.flops += w.flops;
    batch_time += alive * w.time_s;
    r.decode_tokens += alive * iters;
    done = len[j];
  }
  r.mean_batch = r.time_s > 0 ? batch_time / r.time_s : 0;
  return r;
}

// Half a block of fragmentation per sequence (its last block is on average
// half full).
constexpr double kFragTokens = 0.5 * double(kBlockTokens);

// Cohorts of the admission-ordered fluid model (FullCache). Its cost is
// O(cohorts x slices) events. A spread of lengths (48 slices) gets 1024 / 48
// = 21 cohorts: the slices already spread the finishes, and 85 cohorts (4096
// cohort-slices) moved the KV-limit sweep of default.yaml by at most 0.016 of
// the simulator's rollout time (tests/sim/kv_limit_sweep_test.cc) at 1.4x
// the sweep benchmark's time per point (bench/sweep_bench.cc). Fixed lengths (one slice) get 4096 cohorts, so that cohorts
// admitted apart do not finish in lockstep (1024 put TensorRT-LLM 1000/1000
// 1.8% further from the simulator).
constexpr int kMaxCohortSlices = 1024;
constexpr int kMaxCohortsFixedLength = 4096;

// Generation of n sequences whose all-at-once drain does not fit in the KV
// cache: the admission-ordered fluid model of a vLLM-style scheduler (FCFS
// admission, the most recently admitted running sequence preempted when a
// block is missing, recompute on resume, the preempted one first in line).
// Derivation: docs/model.md, "A full, preempting KV cache".
//
// The engine's sequences are C = min(n, 1024 / m, or 4096 for fixed lengths) cohorts in admission order, c = n / C each,
// every cohort with the lengths `len` (equal-weight slices, as Drain). Cohort
// k has run a_k iterations; c * S(a_k) of it is alive, each holding P + a_k
// tokens (+ half a block). Under FCFS admission and last-in-first-out
// preemption the running set is always a prefix of the admission order: the
// cohorts, taken in order, that fit in the cache, the last one running a
// share phi of its sequences (the boundary, where the scheduler admits and
// preempts). As the running sequences grow, the cache overflows and the
// boundary share falls (preemption, from the back); once sequences finish and
// more than the watermark is free, it rises again (admission, which vLLM
// skips in an iteration that preempted). The two thresholds — full to
// preempt, full less the watermark to admit — are the scheduler's hysteresis:
// without it the boundary would be preempted and resumed at every finish.
// Between two events (a running cohort reaching a length slice, or a
// re-evaluation every len_max / 512 iterations) the running set is fixed:
// DecodeIterations with its batch and growing context. A cohort whose share
// rises after it has run is resumed: its sequences' whole context (P + a_k)
// is prefilled again (recompute preemption).
//
// This one mechanism gives all three regimes: every sequence admitted at
// once while the cache fills (the batch starts at n, not at the equilibrium);
// the full cache, whose mean context per running sequence tends to the
// renewal value P + E[L^2]/(2E[L]) (MeanAge); and the tail, where the last
// cohorts admitted drain with the cache no longer full.
RolloutResult FullCache(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                        int m, double kv_tokens) {
  const int C = CeilCount(n, 1, m == 1 ? kMaxCohortsFixedLength : kMaxCohortSlices / m);
  const double c = n / C;
  // Preemption when the cache is full; admission only while a watermark of
  // blocks stays free (kv_cache.h).
  const double full_kv = kv_tokens, admit_kv = kv_tokens * (1.0 - kWatermarkFraction);
  // Re-evaluate the prefix every len_max / 512 iterations, and at most ~20,000
  // times over the run (huge batches per engine: the whole run's iterations,
  // estimated at the batch of whole sequences the cache holds).
  double mean_len = 0;
  for (int j = 0; j < m; ++j) mean_len += len[j] / m;
  const double iters_est = n * mean_len / std::max(1.0, kv_tokens / (p + mean_len + kFragTokens));
  const double step_max = std::max({1.0, len[m - 1] / 512.0, iters_est / 20000.0});
  // Per cohort: age, running share, first slice still alive; and, updated
  // only when that slice changes, the sequences alive (c * (m - next) / m)
  // and the length that ends the slice (len[next], infinity when done).
  std::vector<double> age(C, 0.0), share(C, 0.0), alive(C, c), ends(C, len[0]);
  std::vector<int> next(C, 0);
  int first = 0;                        // first cohort with sequences alive
  double recompute_tokens = 0, recompute_seqs = 0, batch_time = 0;
  // The running prefix: cohorts first..last, the last one possibly in part,
  // and the cache it uses (summed where the ages advance, below).
  double used = 0;
  int last = first;
  RolloutResult r;
  while (first < C) {
    // A block missing: preempt from the back (the most recently admitted).
    bool preempted = false;
    for (int k = last; k >= first && used > full_kv; --k) {
      double mem = alive[k] * (p + age[k] + kFragTokens);
      if (mem <= 0) continue;
      double drop = std::min(share[k], (used - full_kv) / mem);
      if (drop <= 0) break;
      share[k] -= drop;
      used -= drop * mem;
      preempted = true;
    }
    // No preemption: admit in order while the watermark stays free, the
    // boundary cohort first (resumed: its context is prefilled again).
    if (!preempted) {
      for (int k = first; k < C; ++k) {
        if (share[k] >= 1.0) continue;
        if (alive[k] <= 0) continue;
        double mem = alive[k] * (p + age[k] + kFragTokens);
        double add = std::min(1.0 - share[k], (admit_kv - used) / mem);
        if (add <= 0) break;
        if (age[k] > 0) {
          recompute_tokens += add * alive[k] * (p + age[k]);
          recompute_seqs += add * alive[k];
        }
        share[k] += add;
        used += add * mem;
        if (share[k] < 1.0) break;
      }
    }
    // The first cohort always runs: alone it takes what the cache holds (a
    // single sequence larger than the cache is ruled out by PlanMemory).
    if (share[first] <= 0) {
      double mem = alive[first] * (p + age[first] + kFragTokens);
      share[first] = std::min(1.0, full_kv / std::max(mem, 1e-9));
    }
    // Run until the next event.
    // Events: a running cohort reaching its next length slice (a finish,
    // which may let more in), and every step_max iterations while the cache
    // could outgrow itself (preemption). Until the next finish the running
    // set only grows its cache, by `growth` tokens an iteration: when that
    // cannot pass the cache before the finish, nothing changes in between.
    double dt = INFINITY, batch = 0, ctx = 0, growth = 0;
    for (int k = first; k < C && share[k] > 0; ++k) {
      if (next[k] >= m) continue;  // done
      batch += share[k] * alive[k];
      ctx += share[k] * alive[k] * (p + age[k]);
      growth += share[k] * share[k] * alive[k];
      dt = std::min(dt, (ends[k] - age[k]) / share[k]);
    }
    if (!(used + growth * dt <= full_kv)) dt = std::min(dt, step_max);
    dt = std::max(dt, 1e-9);
    auto w = perf::DecodeIterations(e, batch, ctx, dt);
    r.time_s += w.time_s;
    r.flops += w.flops;
    r.decode_tokens += batch * dt;
    batch_time += batch * w.time_s;
    // Advance the running cohorts and sum the cache they now use.
    used = 0;
    last = first;
    for (int k = first; k < C && share[k] > 0; ++k) {
      last = k;
      if (next[k] >= m) continue;
      age[k] += share[k] * dt;
      if (ends[k] <= age[k] + 1e-9) {
        while (next[k] < m && len[next[k]] <= age[k] + 1e-9) ++next[k];
        alive[k] = c * (m - next[k]) / m;
        ends[k] = next[k] < m ? len[next[k]] : INFINITY;
      }
      used += share[k] * alive[k] * (p + age[k] + kFragTokens);
    }
    while (first < C && next[first] >= m) ++first;
    if (last < first) last = first;
  }
  auto pre = perf::Prefill(e, n * p, 0, n);
  auto re = perf::Prefill(e, recompute_tokens, 0, std::max(recompute_seqs, 1.0));
  r.time_s += pre.time_s + re.time_s;
  r.flops += pre.flops + re.flops;
  r.prefill_tokens = n * p + recompute_tokens;
  r.mean_batch = r.time_s > 0 ? batch_time / r.time_s : 0;
  return r;
}

// One engine's n sequences with response lengths `len` (m slices): all at
// once when their peak KV fits, else the full, preempting cache.
RolloutResult SingleTurnOn(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                           int m, double kv_tokens) {
  // Peak KV use of the all-at-once drain: max over slices of alive * (P + L),
  // each sequence charged as in the full-cache model below.
  double peak = 0;
  for (int j = 0; j < m; ++j) peak = std::max(peak, n * (m - j) / m * (p + len[j] + kFragTokens));
  RolloutResult r;
  if (peak <= kv_tokens) {
    auto pre = perf::Prefill(e, n * p, 0, n);
    r = Drain(e, n, p, len, m);
    r.time_s += pre.time_s;
    r.flops += pre.flops;
    r.prefill_tokens = n * p;
    return r;
  }
  return FullCache(e, n, p, len, m, kv_tokens);
}

// The step waits for its slowest engine, and with random lengths that is the
// one whose n draws add up to the most work, not the mean engine. Engine i's
// total response tokens S_i = sum of its n lengths is about normal (central
// limit), mean n E[L], sd sqrt(n) sd(L); the largest of E engines' sums is
// E[max] = n E[L] (1 + z_E cv(L) / sqrt(n)), z_E the expected largest of E
// standard normals, Blom's approximation z_E = Phi^-1((E - 0.375) / (E +
// 0.25)) (G. Blom, "Statistical Estimates and Transformed Beta-Variables",
// 1958; 1.434 for E = 8, the tabulated 1.4236). The busiest engine's slices
// are the mean engine's scaled by that factor, the last (the step's expected
// longest sequence) kept, none past it. Returns the factor (1: one engine or
// fixed lengths). docs/model.md, "The busiest engine".
double BusiestEngineLengths(const Distribution& d, double n, double n_total, std::array<double, kMaxSlices>& len,
                            int m) {
  if (d.is_fixed() || m <= 1 || n <= 0) return 1.0;
  const double mean = std::max(d.mean(), 1e-12);
  const double cv = std::sqrt(std::max(0.0, d.SecondMoment() / (mean * mean) - 1.0));
  const double f = BusiestEngineFactor(n_total / n, n, cv);
  if (f <= 1.0) return 1.0;
  for (int j = 0; j < m - 1; ++j) len[j] = std::min(len[j] * f, len[m - 1]);
  return f;
}

// Single-turn generation of n sequences on one engine with a KV budget: the
// work (tokens, FLOPs, mean batch) of the mean engine, the wall time of the
// busiest (BusiestEngineLengths).
RolloutResult SingleTurn(const perf::EngineConfig& e, const Scenario& s, double n, double n_total,
                         double kv_tokens) {
  const auto& env = s.environment;
  const double p = env.prompt_tokens.mean();
  const auto& resp = env.response_tokens;
  std::array<double, kMaxSlices> len{};
  int m = LengthSlices(resp, n, n_total, len);
  RolloutResult r = SingleTurnOn(e, n, p, len, m, kv_tokens);
  if (BusiestEngineLengths(resp, n, n_total, len, m) > 1.0) r.time_s = SingleTurnOn(e, n, p, len, m, kv_tokens).time_s;
  return r;
}

struct MultiTurnResult {
  RolloutResult roll;
  // Per trajectory: how long its sandbox is held, start-up to its last turn
  // (verification is added by the caller): the container lives for the whole
  // trajectory, not only during its tool calls.
  double sandbox_life_s = 0;
};

// Multi-turn generation of n trajectories per engine (N in all), tool calls
// between turns. Tool calls per trajectory = turns - 1 (the last turn ends
// the episode).
MultiTurnResult MultiTurn(const perf::EngineConfig& e, const Scenario& s, double n, double n_total,
                          double kv_tokens) {
  const auto& env = s.environment;
  const double p = env.prompt_tokens.mean();
  const double t_mean = env.turns.mean();
  const double r_mean = env.response_tokens.mean();
  const double o_mean = env.tool_output_tokens.mean();
  const double tau = env.tool_latency_s.mean();
  const double calls = std::max(0.0, t_mean - 1.0);
  const double startup = env.sandbox ? env.sandbox->startup_s : 0.0;
  // Mean context of a decoding sequence: prompt + half the trajectory's growth.
  const double final_ctx = p + t_mean * r_mean + calls * o_mean;
  const double ctx = p + (final_ctx - p) / 2.0;
  const double cap = std::max(1.0, std::floor(kv_tokens / final_ctx));
  MultiTurnResult out;
  RolloutResult& r = out.roll;

  if (s.pipeline.dispatch == Dispatch::kLockstep) {
    // Every turn waits for the slowest tool call of the batch: rounds are
    // synchronous drains over the trajectories still active.
    double rounds = env.turns.is_fixed() ? t_mean : env.turns.Quantile(n_total / (n_total + 1.0));
    double tool_max = env.tool_latency_s.is_fixed() ? tau : env.tool_latency_s.Quantile(n_total / (n_total + 1.0));
    double batch_time = 0;
    double life = startup;  // a trajectory alive in round k holds its sandbox through it
    const int last_round = CeilCount(rounds, 0, std::numeric_limits<int>::max());
    for (int k = 0; k < last_round; ++k) {
      double alive_frac = env.turns.is_fixed() ? 1.0 : 1.0 - env.turns.Cdf(k + 0.5);
      double alive = std::min(n * alive_frac, cap);
      if (alive <= 0) break;
      double ctx0 = p + k * (r_mean + o_mean);
      std::array<double, kMaxSlices> len{};
      int m = LengthSlices(env.response_tokens, alive, alive * n_total / n, len);
      auto pre = perf::Prefill(e, alive * (k == 0 ? p : o_mean), k == 0 ? 0 : ctx0 - o_mean, alive);
      auto d = Drain(e, alive, ctx0, len, m);
      const double round_s = pre.time_s + d.time_s + (k + 1 < rounds ? tool_max : 0.0);
      r.time_s += round_s;
      life += std::min(1.0, alive_frac) * round_s;
      r.flops += pre.flops + d.flops;
      r.decode_tokens += d.decode_tokens;
      r.prefill_tokens += alive * (k == 0 ? p : o_mean);
      batch_time += d.mean_batch * d.time_s;
    }
    r.time_s += startup;
    r.mean_batch = r.time_s > 0 ? batch_time / r.time_s : 0;
    out.sandbox_life_s = life;
    return out;
  }

  // Async dispatch: each trajectory alternates decode on the engine and tool
  // calls off it. Fixed point for the running batch B = n * f, where f is the
  // share of a trajectory's time spent decoding.
  double batch = std::min(n, cap);
  double iter_s = 0, turn_decode_s = 0;
  for (int it = 0; it < 20; ++it) {
    iter_s = perf::DecodeIteration(e, batch, batch * ctx).time_s;
    turn_decode_s = r_mean * iter_s;
    double f = turn_decode_s * t_mean / (turn_decode_s * t_mean + calls * tau + startup);
    double next = std::clamp(n * f, 1.0, std::min(n, cap));
    if (std::fabs(next - batch) < 1e-3 * batch) { batch = next; break; }
    batch = 0.5 * (batch + next);
  }
  auto prefill_total = perf::Prefill(e, n * (p + calls * o_mean), ctx - p, n * (1 + calls));
  // One trajectory: T turns of decode, T-1 tool calls, start-up.
  double traj_mean = startup + t_mean * turn_decode_s + calls * tau;
  out.sandbox_life_s = traj_mean;
  // Its variance: a compound sum over turns (Wald): Var = E[T] Var(X) + Var(T) E[X]^2,
  // X = one turn's decode + tool time.
  double var_r = env.response_tokens.SecondMoment() - r_mean * r_mean;
  double var_tau = env.tool_latency_s.SecondMoment() - tau * tau;
  double var_t = env.turns.SecondMoment() - t_mean * t_mean;
  double x_mean = turn_decode_s + tau * (calls / std::max(t_mean, 1.0));
  double var_x = iter_s * iter_s * std::max(0.0, var_r) + std::max(0.0, var_tau);
  double sd = std::sqrt(std::max(0.0, t_mean * var_x + std::max(0.0, var_t) * x_mean * x_mean));
  // The step waits for the slowest of N trajectories: E[max] ~ mean + sd * z.
  double z = NormalQuantile(n_total / (n_total + 1.0));
  double makespan = traj_mean + sd * z;
  // Throughput bound: all decode work at the capped batch.
  double total_iters = n * t_mean * r_mean / batch;
  double throughput_s = total_iters * iter_s;
  r.time_s = std::max(makespan, throughput_s) + prefill_total.time_s;
  auto w = perf::DecodeIteration(e, batch, batch * ctx);
  r.flops = w.flops * total_iters + prefill_total.flops;
  r.decode_tokens = n * t_mean * r_mean;
  r.prefill_tokens = n * (p + calls * o_mean);
  r.mean_batch = batch * (total_iters * iter_s) / std::max(r.time_s, 1e-12);
  return out;
}

// Sequences one engine keeps in flight in a steady-state (partial-rollout)
// pipeline with staleness k: the rollout side may run k steps ahead of the
// trainer, so up to k steps' sequences are generating at once, not just the
// step's own n. NeMo RL's trajectory collector limits its in-flight requests
// to num_prompts_per_step x max_trajectory_age_steps prompt groups
// (nemo_rl/algorithms/async_utils.py @ r0.6.0, AsyncTrajectoryCollector:
// _inflight_sema); the simulator lets trajectory j start once
// j < (version + k + 1) G (sim/pipeline.cc, CanStart), k G to (k + 1) G in
// flight. A staleness under one step still keeps the step's own n.
// docs/model.md, "Sequences in flight under bounded staleness".
double InFlightPerEngine(double n, double max_staleness) { return n * std::max(1.0, max_staleness); }

// Steady-state (no drain tail) generation: continuous generation across
// steps, as with partial rollouts in an async pipeline. `n` is the step's
// sequences per engine, `in_flight` how many of them (and of the steps ahead)
// the engine may hold at once (InFlightPerEngine).
RolloutResult SteadyState(const perf::EngineConfig& e, const Scenario& s, double n, double in_flight,
                          double kv_tokens) {
  const auto& env = s.environment;
  const double p = env.prompt_tokens.mean();
  const double t_mean = env.turns.mean();
  const double calls = std::max(0.0, t_mean - 1.0);
  const double tokens = t_mean * env.response_tokens.mean();
  const double final_ctx = p + tokens + calls * env.tool_output_tokens.mean();
  const double age = MeanAge(env.response_tokens);
  const double ctx = env.turns.mean() > 1 ? p + (final_ctx - p) / 2 : p + age;
  double cap = env.turns.mean() > 1 ? std::max(1.0, std::floor(kv_tokens / final_ctx))
                                    : FullCacheBatch(kv_tokens, p, age);
  double batch = std::min(cap, std::max(n, in_flight));
  auto w = perf::DecodeIteration(e, batch, batch * ctx);
  double iters = n * tokens / batch;
  auto pre = perf::Prefill(e, n * (p + calls * env.tool_output_tokens.mean()), 0, n * (1 + calls));
  // The step's weight sync lands on running sequences whose KV was computed
  // with the old weights: each is recomputed once per step, its prompt and
  // what it has generated (ctx) prefilled again (AReaL's interruptible
  // generation; the simulator does the same, sim/engines.cc ResumeEngine).
  // docs/model.md, "Sequences in flight under bounded staleness".
  auto redo = perf::Prefill(e, batch * ctx, 0, batch);
  RolloutResult r;
  r.time_s = w.time_s * iters + pre.time_s + redo.time_s;
  r.flops = w.flops * iters + pre.flops + redo.flops;
  r.decode_tokens = n * tokens;
  r.prefill_tokens = n * (p + calls * env.tool_output_tokens.mean()) + batch * ctx;
  r.mean_batch = batch;
  return r;
}


// pipeline.tail (docs/model.md, "Tail handling"): the step's rounds as the
// closed form gives them (perf::TailRounds), each decoded by the engines as a
// batch of its own (SingleTurnOn, the busiest engine's share of work scaled
// as BusiestEngineLengths does), averaged over the rounds' shares of steps.
Result<RolloutResult> TailRollout(const perf::EngineConfig& e, const Scenario& s, double n_total, double engines,
                                  double kv_tokens, perf::TailStep* out) {
  auto ts = perf::TailRounds(s.environment.response_tokens, n_total, s.algorithm.group_size, s.pipeline.tail,
                             kMaxSlices);
  if (!ts) return Fail(ts.error());
  const double p = s.environment.prompt_tokens.mean();
  RolloutResult sum;
  double batch_time = 0;
  for (const perf::TailRound& rd : ts->rounds) {
    const double n = rd.sequences / engines;
    std::array<double, kMaxSlices> len{};
    const int m = std::min<int>(kMaxSlices, int(rd.slices.size()));
    double mean = 0, sq = 0;
    for (int j = 0; j < m; ++j) {
      len[j] = rd.slices[j];
      mean += len[j] / m;
      sq += len[j] * len[j] / m;
    }
    RolloutResult r = SingleTurnOn(e, n, p, len, m, kv_tokens);
    const double cv = mean > 0 ? std::sqrt(std::max(0.0, sq / (mean * mean) - 1.0)) : 0.0;
    const double f = BusiestEngineFactor(engines, n, cv);
    if (f > 1.0 && m > 1) {
      for (int j = 0; j < m - 1; ++j) len[j] = std::min(len[j] * f, len[m - 1]);
      r.time_s = SingleTurnOn(e, n, p, len, m, kv_tokens).time_s;
    }
    if (rd.carried > 0) {
      // Carried responses come back to new weights: their prompt and what they
      // generated is prefilled again (APRIL resumes from the saved tokens).
      auto re = perf::Prefill(e, rd.carried_context / engines, 0, std::max(1.0, rd.carried / engines));
      r.time_s += re.time_s;
      r.flops += re.flops;
      r.prefill_tokens += rd.carried_context / engines;
    }
    sum.time_s += rd.share * r.time_s;
    sum.flops += rd.share * r.flops;
    sum.decode_tokens += rd.share * r.decode_tokens;
    sum.prefill_tokens += rd.share * r.prefill_tokens;
    batch_time += rd.share * r.mean_batch * r.time_s;
  }
  sum.mean_batch = sum.time_s > 0 ? batch_time / sum.time_s : 0;
  *out = *ts;
  return sum;
}

}  // namespace

double BusiestEngineFactor(double engines, double sequences, double length_cv) {
  if (engines < 2.0 - 1e-9 || sequences <= 0 || length_cv <= 0) return 1.0;
  const double z = NormalQuantile((engines - 0.375) / (engines + 0.25));
  return 1.0 + z * length_cv / std::sqrt(sequences);
}

Result<StepTiming> AnalyticStep(const Scenario& s, const signal::Summary& sig, TextDetail detail) {
  const bool text = detail == TextDetail::kFull;
  auto mem = perf::PlanMemory(s);
  if (!mem) return Fail(mem.error());
  const auto& env = s.environment;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  const bool async = s.pipeline.mode == PipelineMode::kAsync && !colocated;
  const int gpus = s.hardware.gpus;
  const int rollout_gpus = colocated ? gpus : s.placement.rollout_gpus;
  const int train_gpus = colocated ? gpus : s.placement.train_gpus;
  const int tp = std::max(1, s.placement.rollout_tp);
  const double engines = std::max(1, rollout_gpus / tp);
  const Efficiency eff = perf::RolloutEfficiency(s);  // the engine's defaults derived here

  const perf::EngineConfig e = perf::RolloutEngine(s);

  StepTiming t;
  // Dynamic sampling generates in rounds, as veRL's DAPO trainer loops
  // (recipe/dapo/dapo_ray_trainer.py): each round is a batch of its own that
  // drains with its own length tail and then computes its rewards, and a step
  // runs sig.gen_rounds_per_step of them (expected). Without dynamic sampling,
  // and in a steady-state (partial-rollout) pipeline, one round of the step's rollouts.
  const bool steady = async && s.pipeline.partial_rollouts;
  const bool in_rounds = !steady && sig.rollouts_per_round > 0;
  const double rounds = in_rounds ? std::max(1.0, sig.gen_rounds_per_step) : 1.0;
  const double n_total = in_rounds ? sig.rollouts_per_round : sig.rollouts_per_step;  // one round
  const double n = n_total / engines;
  const bool multi_turn = env.turns.mean() > 1.0 + 1e-9;
  const double startup_s = env.sandbox ? env.sandbox->startup_s : 0.0;
  RolloutResult roll;
  // How long one trajectory holds its sandbox before its verification: a
  // multi-turn trajectory's container lives from its start-up to its last turn
  // (tool calls and decoding alike); a single-turn one uses a sandbox only for
  // its reward.
  double sandbox_life_s = startup_s;
  if (steady) {
    roll = SteadyState(e, s, n, InFlightPerEngine(n, s.pipeline.max_staleness), mem->kv_tokens_per_engine);
    if (multi_turn) {
      // Decode wall time of one trajectory at the steady batch: time * batch / n.
      sandbox_life_s = startup_s + std::max(0.0, env.turns.mean() - 1) * env.tool_latency_s.mean() +
                       roll.time_s * roll.mean_batch / std::max(n, 1e-9);
      // Tool time still bounds a trajectory, but other trajectories fill the batch.
      if (text) t.notes.push_back("partial rollouts: generation modelled as steady state, no length tail");
    }
  } else if (multi_turn) {
    auto mt = MultiTurn(e, s, n, n_total, mem->kv_tokens_per_engine);
    roll = mt.roll;
    sandbox_life_s = mt.sandbox_life_s;
  } else {
    roll = SingleTurn(e, s, n, n_total, mem->kv_tokens_per_engine);
  }
  perf::TailStep tail;
  if (s.pipeline.tail.Active()) {
    // docs/model.md, "Tail handling": synchronous single-turn steps only.
    const char* why = async ? "an asynchronous pipeline (pipeline.mode async already overlaps the tail)"
                      : multi_turn ? "multi-turn trajectories"
                      : in_rounds && s.algorithm.dynamic_sampling ? "dynamic sampling's generation rounds"
                                  : nullptr;
    if (why) {
      return Fail(ErrorCode::kNotImplemented, "pipeline.tail",
                  fmt::format("not yet: tail handling ({}) is priced for synchronous single-turn steps, not for {}; "
                              "use pipeline.tail: none",
                              ToString(s.pipeline.tail.mode), why));
    }
    auto tr = TailRollout(e, s, n_total, engines, mem->kv_tokens_per_engine, &tail);
    if (!tr) return Fail(tr.error());
    t.tail_active = true;
    t.tail_rollout_saved_s = roll.time_s - tr->time_s;
    roll = *tr;
    t.tail_cut_tokens = tail.cut_tokens;
    t.tail_wasted_tokens = tail.wasted_tokens;
    t.tail_dropped_share = tail.dropped_share;
    t.tail_deferred_share = tail.deferred_share;
    t.tail_long_round_share = tail.long_round_share;
    t.tail_carried_share = tail.carried_share;
    t.tail_mean_staleness = tail.mean_staleness;
    t.tail_trained_mean_tokens = tail.trained_mean_tokens;
    t.tail_launched = tail.launched;
    if (text) {
      t.notes.push_back(fmt::format(
          "tail handling {} (launch {:g}x): rounds stop at {:.0f} response tokens, {:.1f} s of generation per step "
          "saved against waiting for the longest; {:.0f} tokens per step decoded and not trained on",
          ToString(s.pipeline.tail.mode), 1 + s.pipeline.tail.over_launch, tail.cut_tokens, t.tail_rollout_saved_s,
          tail.wasted_tokens));
    }
  }
  double round_s = roll.time_s;

  // Sandbox pool: every trajectory holds a sandbox from start-up to the end of
  // its verification; at most max_concurrent are in flight, so a round lasts at
  // least its sandbox-seconds / max_concurrent, its last verification included
  // (which reward_s counts: subtracted here so that it is counted once).
  const double verify_s = env.reward.verify_s.mean();
  double sandbox_held_s = 0;  // sandbox-seconds per step
  if (env.sandbox) {
    const int slots = std::max(1, env.sandbox->max_concurrent);
    const double held_round_s = n_total * (sandbox_life_s + verify_s);
    double pool_bound_s = held_round_s / slots - verify_s;
    if (pool_bound_s > round_s) {
      if (text) t.notes.push_back(fmt::format("sandbox-bound: {} sandboxes, each held for a whole trajectory ({:.0f} s), "
                                    "need {:.0f} s per round, more than generation ({:.0f} s)",
                                    slots, sandbox_life_s + verify_s, pool_bound_s, round_s));
      round_s = pool_bound_s;
    }
    sandbox_held_s = rounds * held_round_s;
    t.sandbox_cpu_s = sandbox_held_s * env.sandbox->cpus_per_rollout;
    // Analytic: a round's trajectories may all be in flight at once (they start together).
    t.sandbox_peak_in_use = std::min<double>(slots, std::ceil(n_total));
  }
  if (rounds != 1.0) {
    roll.time_s *= rounds;
    roll.flops *= rounds;
    roll.decode_tokens *= rounds;
    roll.prefill_tokens *= rounds;
    if (text) t.notes.push_back(fmt::format("dynamic sampling: {:.2f} generation rounds of {:.0f} rollouts per step, each a "
                                  "batch with its own length tail and rewards",
                                  rounds, n_total));
  }
  double rollout_side_s = rounds * round_s;
  // Spot rollout GPUs (docs/model.md, "Spot GPUs"): preemptions take u of the
  // pool's capacity, so its work takes 1 / (1 - u) as long. A rollout is in
  // flight for the whole batch when the batch starts together; in a steady
  // pipeline, for its own decode time (time x batch / n, as the sandbox's life).
  if (s.hardware.spot.Rollout() && !colocated) {
    const double in_flight_s = steady ? roll.time_s * roll.mean_batch / std::max(n, 1e-9) : round_s;
    const double u = perf::SpotRolloutLostShare(s, in_flight_s);
    if (!(u < 1.0)) {
      return Fail(ErrorCode::kInvalidInput, "hardware.spot.rollout.preemptions_per_hour",
                  fmt::format("{:g} preemptions per node-hour with {:.0f} s lost to each (restart {:.0f} s + half a "
                              "rollout of {:.0f} s) leave the rollout pool no time to work; expected fewer "
                              "preemptions or a shorter restart_s",
                              s.hardware.spot.rollout->preemptions_per_hour, perf::SpotRolloutRestartS(s) + in_flight_s / 2,
                              perf::SpotRolloutRestartS(s), in_flight_s));
    }
    t.spot_lost_share = u;
    t.spot_lost_s = rollout_side_s * u / (1.0 - u);
    rollout_side_s += t.spot_lost_s;
    if (text) t.notes.push_back(fmt::format(
        "spot rollout GPUs: {:g} preemptions per node-hour, each losing {:.0f} s of restart and half a rollout in "
        "flight ({:.0f} s): {:.2f}% of the pool's time redone, +{:.1f} s of generation per step",
        s.hardware.spot.rollout->preemptions_per_hour, perf::SpotRolloutRestartS(s), in_flight_s, u * 100,
        t.spot_lost_s));
  }
  // Rewards overlap generation except for each round's last verification.
  t.reward_s = rounds * verify_s;

  // Trainer side.
  const double traj_tokens = perf::MeanTrajectoryTokens(s);
  t.rollouts_generated = n_total * rounds;
  t.rollouts_trained = sig.rollouts_trained_per_step;
  t.trained_tokens = t.rollouts_trained * traj_tokens;
  if (t.tail_active) {
    // over_provision trains on the responses that finished first (shorter).
    t.rollouts_generated = tail.launched;
    t.trained_tokens = t.rollouts_trained * (traj_tokens - tail.none_mean_tokens + tail.trained_mean_tokens);
  }
  t.generated_tokens = roll.decode_tokens * engines;
  t.prefill_tokens = roll.prefill_tokens * engines;
  auto logprob = s.algorithm.recompute_logprobs ? perf::ForwardPass(s, t.trained_tokens, traj_tokens, train_gpus)
                                                : perf::Work{};
  auto reference = s.algorithm.reference_model ? perf::ForwardPass(s, t.trained_tokens, traj_tokens, train_gpus)
                                               : perf::Work{};
  auto update = perf::TrainStep(s, t.trained_tokens, traj_tokens, train_gpus);
  double critic_s = 0, critic_flops = 0;
  if (s.algorithm.critic) {
    // PPO with a critic of the policy's size: a value forward and a critic update.
    auto v = perf::ForwardPass(s, t.trained_tokens, traj_tokens, train_gpus);
    critic_s = update.time_s + v.time_s;
    critic_flops = (update.flops + v.flops) * train_gpus;
  }
  perf::WeightSyncParts sync = perf::WeightSync(s);
  perf::ChargeRefitOffloadOut(s, *mem, sync);
  double sync_s = sync.total_s;
  t.sync_parts = sync;
  if (text) t.notes.push_back(perf::DescribeWeightSync(s, sync));
  t.overhead_s = eff.step_overhead_s;
  t.offload_s = perf::OffloadTime(s, *mem);
  t.refit_offload_s = perf::RefitOffloadTime(s, *mem);
  if (t.refit_offload_s > 0) {
    if (text) t.notes.push_back(fmt::format("the optimizer states ({:.1f} GB per GPU) go to host memory inside each weight sync "
                                  "({:.1f} s, part of step.weight_sync_s) and come back before the update ({:.1f} s), {} "
                                  "(placement.refit_offload: none keeps them on the GPU)",
                                  perf::RefitOffloadGb(s, *mem), sync.offload_s, t.refit_offload_s,
                                  s.placement.refit_offload == RefitOffload::kPinned
                                      ? "over PCIe from pinned memory"
                                      : "tensor by tensor through pageable memory (NeMo RL)"));
  }
  if ((s.placement.offload.params || s.placement.offload.optimizer) && !mem->train_state_offloaded) {
    if (text) t.notes.push_back(fmt::format("placement.offload: {} moved to host memory between phases and back, {:.2f} s per "
                                  "step over PCIe",
                                  s.placement.offload.params && s.placement.offload.optimizer
                                      ? "parameters and optimizer states"
                                      : (s.placement.offload.params ? "parameters" : "optimizer states"),
                                  t.offload_s - perf::HostTransferTime(*mem) - t.refit_offload_s));
  }
  if (mem->train_state_offloaded) {
    if (text) t.notes.push_back(fmt::format("the training state ({:.1f} GB per GPU{}) does not fit beside the inference "
                                  "engine: it is moved to host memory while generating ({:.1f} s per step over PCIe)",
                                  mem->train_state_gb + mem->critic_state_gb + mem->reference_gb,
                                  std::string(mem->critic_state_gb > 0 ? ", critic included" : "") +
                                      (mem->reference_gb > 0 ? ", reference included" : ""),
                                  t.offload_s - t.refit_offload_s));
  }
  if (mem->optimizer_offloaded) {
    if (text) t.notes.push_back("optimizer states do not fit on the training GPUs: kept in host memory (ZeRO-Offload)");
  }
  t.train_busy_s = logprob.time_s + reference.time_s + update.time_s + critic_s;

  t.rollout_flops = roll.flops * tp * engines;
  t.train_flops = (update.flops * train_gpus) + critic_flops;
  t.other_flops = (logprob.flops + reference.flops) * train_gpus;
  t.rollout_gpus = rollout_gpus;
  t.mean_batch = roll.mean_batch;
  t.kv_capacity_sequences = mem->kv_tokens_per_engine / std::max(traj_tokens, 1.0);

  if (!async) {
    // Sync: rollout, rewards, log-prob and reference passes, update, sync, in turn.
    t.rollout_s = rollout_side_s;
    t.logprob_s = logprob.time_s;
    t.reference_s = reference.time_s;
    t.train_s = update.time_s + critic_s;
    t.weight_sync_s = sync_s;
    t.other_s = t.logprob_s + t.reference_s + t.weight_sync_s + t.reward_s + t.overhead_s + t.offload_s;
    t.time_s = t.rollout_s + t.train_s + t.other_s;
    t.rollout_busy_s = rollout_side_s;
    if (colocated) {
      t.gpu_s_rollout = t.rollout_s * gpus;
      t.gpu_s_train = t.train_s * gpus;
      t.gpu_s_other = t.other_s * gpus;
      t.gpu_s_idle = 0;
    } else {
      // Disaggregated but synchronous: each side waits while the other works.
      t.gpu_s_rollout = t.rollout_s * rollout_gpus;
      t.gpu_s_train = t.train_s * train_gpus;
      t.gpu_s_other = (t.logprob_s + t.reference_s) * train_gpus + (t.weight_sync_s) * gpus;
      t.gpu_s_idle = t.time_s * gpus - t.gpu_s_rollout - t.gpu_s_train - t.gpu_s_other;
    }
  } else {
    // Async, staleness k: the two sides overlap; the step is set by the slower
    // side plus the weight sync that pauses generation. k < 1 overlaps only
    // part of the faster side: step = max + (1 - k) * min.
    double k = std::clamp(s.pipeline.max_staleness, 0.0, 1.0);
    double rside = rollout_side_s + t.reward_s;
    double tside = t.train_busy_s + t.overhead_s + t.offload_s;
    double slow = std::max(rside, tside), fast = std::min(rside, tside);
    t.time_s = slow + (1.0 - k) * fast + sync_s;
    t.weight_sync_s = sync_s;
    t.rollout_busy_s = rollout_side_s;
    if (rside >= tside) {
      t.rollout_s = rollout_side_s;
      t.train_s = (1.0 - k) * (update.time_s + critic_s);
      t.logprob_s = (1.0 - k) * logprob.time_s;
      t.reference_s = (1.0 - k) * reference.time_s;
      if (text) t.notes.push_back(fmt::format("rollout-bound: the trainer is busy {:.1f} s of each {:.1f} s step", tside,
                                    t.time_s));
    } else {
      t.rollout_s = (1.0 - k) * rollout_side_s;
      t.reward_s = (1.0 - k) * t.reward_s;
      t.train_s = update.time_s + critic_s;
      t.logprob_s = logprob.time_s;
      t.reference_s = reference.time_s;
      if (text) t.notes.push_back(fmt::format("train-bound: rollout GPUs generate {:.1f} s of each {:.1f} s step",
                                    rside, t.time_s));
    }
    t.other_s = t.time_s - t.rollout_s - t.train_s;
    t.overhead_s = std::max(0.0, t.other_s - t.logprob_s - t.reference_s - t.weight_sync_s - t.reward_s);
    t.gpu_s_rollout = rollout_side_s * rollout_gpus;
    t.gpu_s_train = (update.time_s + critic_s) * train_gpus;
    t.gpu_s_other = (logprob.time_s + reference.time_s) * train_gpus + sync_s * gpus;
    t.gpu_s_idle = std::max(0.0, t.time_s * gpus - t.gpu_s_rollout - t.gpu_s_train - t.gpu_s_other);
  }
  if (env.sandbox) t.sandbox_mean_in_use = t.time_s > 0 ? sandbox_held_s / t.time_s : 0;
  if (s.pipeline.mode == PipelineMode::kAsync && colocated) {
    if (text) t.notes.push_back("pipeline.mode async with colocated placement runs synchronously: rollout and training "
                      "share the same GPUs");
  }
  return t;
}

}  // namespace rlcost::sim
