// Generation models of the analytic step: the draining batch of one engine
// (length slices), the admission-ordered fluid model of a full, preempting
// KV cache (FullCache), multi-turn trajectories, steady state and tail rounds.
// Derivation: docs/model.md, "Analytic step".
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "rlcost/tail.h"
#include "core/count.h"
#include "core/slices.h"
#include "perf/decode_arms_kept.h"
#include "scenario/longest_draw.h"
#include "sim/kv_cache.h"

#include "sim/analytic_rollout.h"

namespace rlcost::sim::analytic_internal {

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

// Response lengths of an engine's n sequences as quantile points,
// ascending, and the share of the n still decoding up to each
// (alive[j]: between len[j - 1] and len[j]). The last point sits at the
// expected maximum of all n_total draws of the step (ExpectedLongestDraw; the
// grid below it at the quantiles top (j + 1) / m, top = n_total / (n_total +
// 1)): the step ends when the slowest engine — the one holding the longest
// sequence — finishes. Up to kMaxSlices sequences, one point each; more,
// m = kMaxSlices equal slices of n / m sequences each. With `single_top`
// (more than kMaxSlices sequences) the maximum is one sequence's (weight
// 1/n), not a whole slice's: m - 1 equal slices of the other n - 1 at the
// midpoints of their quantile bands, then the longest alone. SingleTurn asks
// for it where the equal grid's top slice, n / m sequences at the maximum,
// would not fit in the KV cache together: there the grid itself, not the
// draws, would make the tail run them in turn (DeepSeek-V3 on 96 H20: 5.3 of
// an engine's 256 sequences at 9,632 tokens against a 36k-token cache, 9%
// above the simulator, which draws each length). docs/model.md, "Length
// slices".
namespace {
double KeptLongestDraw(const Distribution& d, double n);  // below, with its memo

int ComputeLengthSlices(const Distribution& d, double n, double n_total, std::array<double, kMaxSlices>& out,
                        std::array<double, kMaxSlices>& alive, bool single_top) {
  if (d.is_fixed()) {
    out[0] = d.mean();
    alive[0] = 1.0;
    return 1;
  }
  int m = CeilCount(n, 1, kMaxSlices);
  double top = n_total / (n_total + 1.0);
  const double longest = KeptLongestDraw(d, n_total);
  if (n <= double(kMaxSlices) || !single_top) {
    for (int j = 0; j + 1 < m; ++j) out[j] = d.Quantile(top * (j + 1.0) / m);
    out[m - 1] = longest;
    EqualAlive(m, alive);
    // Rescale the body so the slices' mean equals the distribution's mean
    // (the grid under-samples the body when the tail point is pinned).
    KeepMeanWithTopPinned(std::span<double>(out.data(), m), d.mean());
    return m;
  }
  const double w_top = 1.0 / n, body_u = 1.0 - w_top, w = body_u / (m - 1);
  double body = 0;
  for (int j = 0; j + 1 < m; ++j) {
    out[j] = d.Quantile(body_u * (j + 0.5) / (m - 1));
    alive[j] = 1.0 - j * w;
    body += w * out[j];
  }
  out[m - 1] = longest;
  alive[m - 1] = w_top;
  // Rescale the body so the weighted mean equals the distribution's mean.
  if (body > 0) {
    const double scale = std::max(0.0, d.mean() - w_top * out[m - 1]) / body;
    for (int j = 0; j + 1 < m; ++j) out[j] = std::min(out[j] * scale, out[m - 1]);
  }
  return m;
}
}  // namespace

// LengthSlices is a pure function of (d, n, n_total, single_top), and the
// layout planner asks it the same question for many candidates (the bound
// and the estimate of each; every engine count with more than kMaxSlices
// sequences gives the same equal grid): while a StepTimeOnly lives (one
// PlanLayout, whose candidates share the scenario's distribution) this
// thread's last answers are kept (issue #41: the slices' 48 quantiles were
// ~13% of a sweep point whose every point plans its own layout). An answer is
// reused only for the same distribution object with the same figures (kind,
// mean, cv, bounds, clipped share, second moment: a copy made inside the
// scope at a reused address differs in them) and the arguments it depends
// on: the equal grid on (m, n_total), the single-top one on (n, n_total).
namespace {
struct SlicesMemo {
  const Distribution* d = nullptr;
  DistKind kind = DistKind::kFixed;
  std::array<double, 6> figures{};
  bool equal_grid = false;
  int m = 0;
  double n = 0, n_total = 0;
  std::array<double, kMaxSlices> out{}, alive{};
  int count = 0;
};
constexpr size_t kSlicesMemo = 8;
thread_local std::array<SlicesMemo, kSlicesMemo> slices_memo;
thread_local size_t slices_used = 0, slices_next = 0;
std::array<double, 6> FiguresOf(const Distribution& d) {
  return {d.mean(), d.cv(), d.min(), d.max(), d.clipped(), d.SecondMoment()};
}
bool SameBits(double a, double b) { return std::memcmp(&a, &b, sizeof(double)) == 0; }
}  // namespace

// ExpectedLongestDraw's (scenario/longest_draw.h) 16 quantiles, asked twice
// per single-turn engine model (SliceSingleTurn's KV check and LengthSlices),
// are kept while a StepTimeOnly lives, as LengthSlices' answers are: the last
// answer, reused for the same distribution object with the same figures and
// the same n (samples, whose figures do not name them, are not kept).
namespace {
struct LongestMemo {
  const Distribution* d = nullptr;
  DistKind kind = DistKind::kFixed;
  std::array<double, 6> figures{};
  double n = 0, value = 0;
  bool valid = false;
};
thread_local LongestMemo longest_memo;

double KeptLongestDraw(const Distribution& d, double n) {
  if (d.is_fixed() || !StepTimeOnly::Active() || d.kind() == DistKind::kEmpirical) {
    return scenario_internal::ExpectedLongestDraw(d, n);
  }
  LongestMemo& k = longest_memo;
  const std::array<double, 6> figures = FiguresOf(d);
  if (k.valid && k.d == &d && k.kind == d.kind() && SameBits(k.n, n) &&
      std::equal(figures.begin(), figures.end(), k.figures.begin(), SameBits)) {
    return k.value;
  }
  k = {&d, d.kind(), figures, n, scenario_internal::ExpectedLongestDraw(d, n), true};
  return k.value;
}
}  // namespace

// The flag is on (ThreadFlagScope) before the memo is cleared and back off
// after it is cleared again: the memo lives only inside the scope.
StepTimeOnly::StepTimeOnly() {
  slices_used = slices_next = 0;
  longest_memo.valid = false;
}

StepTimeOnly::~StepTimeOnly() {
  slices_used = slices_next = 0;
  longest_memo.valid = false;
}

int LengthSlices(const Distribution& d, double n, double n_total, std::array<double, kMaxSlices>& out,
                 std::array<double, kMaxSlices>& alive, bool single_top) {
  if (!StepTimeOnly::Active() || d.is_fixed() || d.kind() == DistKind::kEmpirical) {
    return ComputeLengthSlices(d, n, n_total, out, alive, single_top);
  }
  const bool equal_grid = n <= double(kMaxSlices) || !single_top;
  const int m = CeilCount(n, 1, kMaxSlices);
  const std::array<double, 6> figures = FiguresOf(d);
  for (size_t i = 0; i < slices_used; ++i) {
    const SlicesMemo& k = slices_memo[i];
    if (k.d != &d || k.kind != d.kind() || k.equal_grid != equal_grid || k.m != m || !SameBits(k.n_total, n_total)) {
      continue;
    }
    if (!equal_grid && !SameBits(k.n, n)) continue;
    if (!std::equal(figures.begin(), figures.end(), k.figures.begin(), SameBits)) continue;
    std::copy_n(k.out.begin(), k.count, out.begin());
    std::copy_n(k.alive.begin(), k.count, alive.begin());
    return k.count;
  }
  SlicesMemo& k = slices_memo[slices_next];
  slices_next = (slices_next + 1) % kSlicesMemo;
  slices_used = std::max(slices_used, slices_next == 0 ? kSlicesMemo : slices_next);
  k.count = ComputeLengthSlices(d, n, n_total, k.out, k.alive, single_top);
  k.d = &d;
  k.kind = d.kind();
  k.figures = figures;
  k.equal_grid = equal_grid;
  k.m = m;
  k.n = n;
  k.n_total = n_total;
  std::copy_n(k.out.begin(), k.count, out.begin());
  std::copy_n(k.alive.begin(), k.count, alive.begin());
  return k.count;
}

// Equal-weight slices (m of them): the share alive up to each.
void EqualAlive(int m, std::array<double, kMaxSlices>& alive) {
  for (int j = 0; j < m; ++j) alive[j] = double(m - j) / m;
}

namespace {

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

// The engine's decode arms (perf::DecodeArmsKept: the maker's, its quotients
// kept and the per-batch part inline) with the last batch's arms kept: the
// full-cache models' events often repeat a batch exactly (the engine's seats
// full, or the same cohorts running between two finishes), and an MoE model's
// arms cost a pow (perf::ExpertsTouched) each. The same function of the same
// bits (compared as bits, so -0.0 and NaN are never taken for another batch)
// gives the same arms: bit for bit the maker's.
namespace {
class LastDecodeArms {
 public:
  explicit LastDecodeArms(const perf::EngineConfig& e) : maker_(e) {}
  const perf::DecodeArms& operator()(double batch) const {
    const uint64_t bits = std::bit_cast<uint64_t>(batch);
    if (!has_ || bits != bits_) {
      arms_ = maker_(batch);
      bits_ = bits;
      has_ = true;
    }
    return arms_;
  }

 private:
  const perf::DecodeArmsKept maker_;
  mutable perf::DecodeArms arms_;
  mutable uint64_t bits_ = 0;
  mutable bool has_ = false;
};
}  // namespace

// perf::DecodeIterations(e, batch, ctx, n), bit for bit, with the engine's
// batch-independent arms computed once per model run (the fluid models below
// change their batch at every event).
// Inlined into the fluid models' event loops (a call there spilled their state
// at every event).
[[gnu::always_inline]] inline perf::Work Decode(const LastDecodeArms& arms, double batch, double ctx, double n) {
  if (n <= 0 || batch <= 0) return perf::Work{};
  return perf::DecodeIterations(arms(batch), batch, ctx, n);
}

// The full-cache models' run of `dt` iterations at `batch` running sequences
// of `ctx` tokens of context in all: its time, FLOPs and tokens into `r`, its
// batch-weighted time into `batch_time` (for the mean batch).
void DecodeRun(const LastDecodeArms& arms, double batch, double ctx, double dt, RolloutResult& r,
               double& batch_time) {
  auto w = Decode(arms, batch, ctx, dt);
  r.time_s += w.time_s;
  r.flops += w.flops;
  r.decode_tokens += batch * dt;
  batch_time += batch * w.time_s;
}

// The full-cache models' prefill (the n prompts, and the tokens of preempted
// sequences recomputed) and mean batch, once their decoding is summed in `r`.
void FinishFullCache(const perf::EngineConfig& e, double n, double p, double recompute_tokens, double recompute_seqs,
                     double batch_time, RolloutResult& r) {
  auto pre = perf::Prefill(e, n * p, 0, n);
  auto re = perf::Prefill(e, recompute_tokens, 0, std::max(recompute_seqs, 1.0));
  r.time_s += pre.time_s + re.time_s;
  r.flops += pre.flops + re.flops;
  r.prefill_tokens = n * p + recompute_tokens;
  r.mean_batch = r.time_s > 0 ? batch_time / r.time_s : 0;
}

// A batch of `n` sequences, each with `ctx0` tokens of context already cached,
// decoding lengths given by `slices`, all admitted at once: the draining batch.
RolloutResult Drain(const perf::EngineConfig& e, double n, double ctx0, const std::array<double, kMaxSlices>& len,
                    const std::array<double, kMaxSlices>& share_alive, int m) {
  RolloutResult r;
  double done = 0;  // iterations so far
  double batch_time = 0;
  const LastDecodeArms arms(e);
  for (int j = 0; j < m; ++j) {
    double alive = n * share_alive[j];
    double iters = len[j] - done;
    if (iters <= 0) continue;
    auto w = Decode(arms, alive, alive * (ctx0 + done), iters);
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
// the sweep benchmark's time per point (bench/sweep_bench.cc).
constexpr int kMaxCohortSlices = 1024;
// Fixed lengths (one slice): FullCacheFixed at its FixedResolution
// (analytic_rollout.h).

// The full-cache models' longest run between two re-evaluations of the
// running set: len_max / steps_per_length iterations, and no fewer than the
// run's estimated iterations (at the batch of whole sequences of mean length
// the cache or the engine's seats hold) over max_steps. FullCache re-evaluates
// at kFineFixedResolution's steps for any number of slices, FullCacheFixed at
// its own resolution, and SingleTurnOnLowerBound bounds both with the same.
double FullCacheStepMax(double n, double p, double len_mean, double len_max, double kv_tokens, double seats,
                        const FixedResolution& res) {
  const double iters_est = n * len_mean / std::max(1.0, std::min(seats, kv_tokens / (p + len_mean + kFragTokens)));
  return std::max({1.0, len_max / res.steps_per_length, iters_est / res.max_steps});
}

// Generation of n sequences whose all-at-once drain does not fit in the KV
// cache: the admission-ordered fluid model of a vLLM-style scheduler (FCFS
// admission, the most recently admitted running sequence preempted when a
// block is missing, recompute on resume, the preempted one first in line).
// Derivation: docs/model.md, "A full, preempting KV cache".
//
// The engine's sequences are C = min(n, 1024 / m, or 4096 for fixed lengths) cohorts in admission order, c = n / C each,
// every cohort with the lengths `len` and shares alive (as Drain). Cohort
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
}  // namespace

// FullCache for fixed lengths (one slice, up to 2,048 cohorts, ~50 of them
// running at once): the same model, its sums over the running cohorts kept
// up to date instead of redone at every event, O(1) per event, and its own
// resolution (FixedResolution in sim/analytic_rollout.h).
// The running set is a prefix of the admission order whose cohorts but the
// last (the boundary) run whole, so they age together: cohort k's age is
// G - off[k], G the iterations so far, off[k] set when it started to run
// whole. At FullCache's resolution only the order of the floating-point sums
// differs (figures within 1e-10 relative).
RolloutResult FullCacheFixed(const perf::EngineConfig& e, double n, double p, double L, double kv_tokens,
                             const FixedResolution& res) {
  const int C = CeilCount(n, 1, res.max_cohorts);
  const double c = n / C;
  const double full_kv = kv_tokens, admit_kv = kv_tokens * (1.0 - kWatermarkFraction);
  const double seats = e.max_num_seqs > 0 ? e.max_num_seqs : INFINITY;  // engine.max_num_seqs
  const double step_max = FullCacheStepMax(n, p, L, L, kv_tokens, seats, res);
  // age[k]: of the boundary and the cohorts after it (preempted ones keep
  // theirs); off[k]: of the cohorts running whole (first..b-1).
  // This thread's buffers, kept from one run to the next (a sweep runs
  // thousands: an allocation per run showed as ~9% of one, issue #41).
  // Neither is filled: off[k] is written (forward) before any read, and
  // age[k] is zeroed when the boundary first reaches cohort k (`reached`).
  thread_local std::vector<double> age_buf, off_buf;
  if (age_buf.size() < size_t(C)) {
    age_buf.resize(C);
    off_buf.resize(C);
  }
  double* const age = age_buf.data();
  double* const off = off_buf.data();
  age[0] = 0;
  int reached = 0;  // the highest cohort whose age is set
  const LastDecodeArms arms(e);
  int first = 0, b = 0;            // first cohort not done; the boundary cohort
  double phi = 0;                  // the boundary's running share
  double G = 0;                    // iterations so far
  int whole = 0;                   // cohorts running whole: first..b-1
  double sum_off = 0;              // their off[k] summed
  double recompute_tokens = 0, recompute_seqs = 0, batch_time = 0;
  double used = 0;
  RolloutResult r;
  // The boundary moves one cohort back (its share gone) or forward (whole).
  auto back = [&] {
    --b;
    --whole;
    sum_off -= off[b];
    age[b] = G - off[b];
    phi = 1.0;
  };
  // The boundary's next cohort (b + 1 <= C): its age, 0 when first reached.
  auto next_boundary = [&] {
    ++b;
    if (b > reached && b < C) {
      reached = b;
      age[b] = 0;
    }
  };
  auto forward = [&] {
    off[b] = G - age[b];
    sum_off += off[b];
    ++whole;
    next_boundary();
    phi = 0;
  };
  while (first < C) {
    // A block missing: preempt from the back (the most recently admitted).
    bool preempted = false;
    while (used > full_kv) {
      if (phi <= 0) {
        if (b == first) break;
        back();
      }
      const double mem = c * (p + age[b] + kFragTokens);
      const double drop = std::min(phi, (used - full_kv) / mem);
      if (drop <= 0) break;
      phi -= drop;
      used -= drop * mem;
      preempted = true;
    }
    // No preemption: admit in order while the watermark stays free, the
    // boundary cohort first (resumed: its context is prefilled again).
    if (!preempted) {
      // A whole cohort that fits is admitted without a division (the
      // common case: a finish frees room for the next cohorts).
      double seat_room = seats - c * (whole + phi);
      while (b < C) {
        if (phi >= 1.0) {
          forward();
          continue;
        }
        const double mem = c * (p + age[b] + kFragTokens);
        const double want = 1.0 - phi, room = admit_kv - used;
        double add = want;
        if (!(want * mem <= room && want * c <= seat_room)) {
          add = std::min({want, room / mem, seat_room / c});
          if (add <= 0) break;
        }
        seat_room -= add * c;
        if (age[b] > 0) {
          recompute_tokens += add * c * (p + age[b]);
          recompute_seqs += add * c;
        }
        used += add * mem;
        if (add < want) {
          phi += add;
          break;
        }
        forward();  // admitted whole
      }
      if (b >= C) back();  // every cohort admitted (b == C): the last one is the boundary
    }
    // The first cohort always runs.
    if (b == first && phi <= 0) {
      const double mem = c * (p + age[first] + kFragTokens);
      phi = std::min({1.0, full_kv / std::max(mem, 1e-9), seats / std::max(c, 1e-9)});
    }
    // Run until the next event: the oldest whole cohort's finish, the
    // boundary's, or step_max iterations while the cache could outgrow itself.
    const double sum_age = whole * G - sum_off;
    const double batch = c * (whole + phi);
    const double ctx = c * (whole * p + sum_age) + phi * c * (p + age[b]);
    const double growth = c * (whole + phi * phi);
    double dt = phi > 0 ? (L - age[b]) / phi : INFINITY;
    if (whole > 0) dt = std::min(dt, L - (G - off[first]));
    if (!(used + growth * dt <= full_kv)) dt = std::min(dt, step_max);
    dt = std::max(dt, 1e-9);
    DecodeRun(arms, batch, ctx, dt, r, batch_time);
    // Advance; the cohorts that reached L are done.
    G += dt;
    age[b] += phi * dt;
    while (whole > 0 && L <= (G - off[first]) + 1e-9) {
      sum_off -= off[first];
      --whole;
      ++first;
    }
    if (whole == 0 && first == b && phi > 0 && L <= age[b] + 1e-9) {
      ++first;
      next_boundary();  // b = first
      phi = 0;
    }
    used = c * (whole * (p + kFragTokens) + (whole * G - sum_off)) + phi * c * (p + age[b < C ? b : C - 1] + kFragTokens);
  }
  FinishFullCache(e, n, p, recompute_tokens, recompute_seqs, batch_time, r);
  return r;
}

RolloutResult FullCache(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                        const std::array<double, kMaxSlices>& share_alive, int m, double kv_tokens, bool single_top) {
  const int C = CeilCount(n, 1, m == 1 ? kFineFixedResolution.max_cohorts : kMaxCohortSlices / m);
  const double c = n / C;
  // With a single longest sequence (LengthSlices' single_top) only one cohort
  // holds it: the middle one, the expected place of one sequence in a queue
  // whose order does not depend on length. Every cohort holding a sliver of
  // it would end the step L_max after the last admission.
  const int top_cohort = single_top && m > 1 ? C / 2 : -1;
  // Preemption when the cache is full; admission only while a watermark of
  // blocks stays free (kv_cache.h).
  const double full_kv = kv_tokens, admit_kv = kv_tokens * (1.0 - kWatermarkFraction);
  // Re-evaluate the prefix every len_max / 512 iterations, and at most ~20,000
  // times over the run (huge batches per engine: the whole run's iterations,
  // estimated at the batch of whole sequences the cache holds).
  double mean_len = 0;
  for (int j = 0; j < m; ++j) mean_len += (len[j] - (j > 0 ? len[j - 1] : 0.0)) * share_alive[j];
  const double seats = e.max_num_seqs > 0 ? e.max_num_seqs : INFINITY;  // engine.max_num_seqs
  const double step_max = FullCacheStepMax(n, p, mean_len, len[m - 1], kv_tokens, seats, kFineFixedResolution);
  // Per cohort: age, running share, first slice still alive; and, updated
  // only when that slice changes, the sequences alive (c * (m - next) / m)
  // and the length that ends the slice (len[next], infinity when done).
  // This thread's buffers, kept from one run to the next (FullCacheFixed's note).
  thread_local std::vector<double> age, share, alive, ends;
  thread_local std::vector<int> next;
  age.assign(C, 0.0);
  share.assign(C, 0.0);
  alive.assign(C, c);
  ends.assign(C, len[0]);
  next.assign(C, 0);
  const LastDecodeArms arms(e);
  int first = 0;                        // first cohort with sequences alive
  double recompute_tokens = 0, recompute_seqs = 0, batch_time = 0;
  // The running prefix: cohorts first..last, the last one possibly in part,
  // and the cache it uses (summed where the ages advance, below).
  double used = 0;
  // The running sequences, summed over the running prefix with `used` where
  // the ages advance (below): the admission's count when nothing was preempted
  // since, the same terms in the same order (the cohorts done before `first`
  // add +0.0, which changes no bit).
  double running_now = 0;
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
      // The engine's cap on running sequences (engine.max_num_seqs): no
      // admission while that many run, whatever the cache has free.
      double running = running_now;
      for (int k = first; k < C; ++k) {
        if (share[k] >= 1.0) continue;
        if (alive[k] <= 0) continue;
        double mem = alive[k] * (p + age[k] + kFragTokens);
        double add = std::min({1.0 - share[k], (admit_kv - used) / mem, (seats - running) / alive[k]});
        if (add <= 0) break;
        running += add * alive[k];
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
      share[first] = std::min({1.0, full_kv / std::max(mem, 1e-9), seats / std::max(alive[first], 1e-9)});
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
    DecodeRun(arms, batch, ctx, dt, r, batch_time);
    // Advance the running cohorts and sum the cache they now use.
    used = 0;
    running_now = 0;
    last = first;
    for (int k = first; k < C && share[k] > 0; ++k) {
      last = k;
      if (next[k] >= m) continue;
      age[k] += share[k] * dt;
      if (ends[k] <= age[k] + 1e-9) {
        while (next[k] < m && len[next[k]] <= age[k] + 1e-9) ++next[k];
        if (top_cohort >= 0 && next[k] == m - 1 && k != top_cohort) next[k] = m;  // the longest is elsewhere
        alive[k] = next[k] >= m ? 0.0 : k == top_cohort && next[k] == m - 1 ? c * share_alive[m - 1] * C
                                                                           : c * share_alive[next[k]];
        ends[k] = next[k] < m ? len[next[k]] : INFINITY;
      }
      const double seqs = share[k] * alive[k];
      running_now += seqs;
      used += seqs * (p + age[k] + kFragTokens);
    }
    while (first < C && next[first] >= m) ++first;
    if (last < first) last = first;
  }
  FinishFullCache(e, n, p, recompute_tokens, recompute_seqs, batch_time, r);
  return r;
}

namespace {

// One engine's n sequences with response lengths `len` (m slices): all at
// once when their peak KV fits, else the full, preempting cache.
RolloutResult SingleTurnOn(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                           const std::array<double, kMaxSlices>& alive, int m, double kv_tokens,
                           bool single_top = false) {
  // Peak KV use of the all-at-once drain: max over slices of alive * (P + L),
  // each sequence charged as in the full-cache model below.
  double peak = 0;
  for (int j = 0; j < m; ++j) peak = std::max(peak, n * alive[j] * (p + len[j] + kFragTokens));
  RolloutResult r;
  // All at once only when the engine also lets them all run (engine.max_num_seqs).
  if (peak <= kv_tokens && (e.max_num_seqs <= 0 || n <= e.max_num_seqs)) {
    auto pre = perf::Prefill(e, n * p, 0, n);
    r = Drain(e, n, p, len, alive, m);
    r.time_s += pre.time_s;
    r.flops += pre.flops;
    r.prefill_tokens = n * p;
    return r;
  }
  if (m == 1) return FullCacheFixed(e, n, p, len[0], kv_tokens);
  return FullCache(e, n, p, len, alive, m, kv_tokens, single_top);
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

}  // namespace

// Lower bound on SingleTurnOn's time_s (docs/model.md, "Bounds that prune
// layouts"). Both of its paths decode every sequence through its slices:
// n mu tokens, mu = sum_j alive_j (len_j - len_{j-1}), in I iterations at
// batches b_e (I = sum of the events' dt), each iteration costing
// weights_s(b) + fixed_s(b) + s_att C (DecodeIterations: the attention arms
// are s C with no constant, s the larger slope once C > 0), and the prompts'
// prefill (recomputation only adds). Then, with W0, F0 the arms at batch 0
// (weights_s and fixed_s do not fall as the batch grows) and kappa the
// linear layers' compute time per token:
//   sum dt weights_s(b) >= max(I W0, n mu kappa),  sum dt fixed_s(b) >= I F0,
//   sum of the attention's C >= n (p mu + q / 2 - mu / 2), q = sum_j alive_j (len_j^2 - len_{j-1}^2)
// (exact for the all-at-once drain; the full-cache models' context at an
// event's start is the running cohorts' own and grows by at least their
// true growth, less half a token per sequence-iteration of discreteness);
// and I is at least each of: len_max (the longest sequence ages at most one
// token an iteration), n mu / max_num_seqs, and the KV cache's
// token-iterations n ((p + frag) mu + q / 2) over the most the cache holds:
// kv_tokens at each event's start (preemption), plus the growth of one event
// where it could overflow (at most step_max iterations of at most
// kv_tokens / (p + frag) sequences).
double SingleTurnOnLowerBound(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                              const std::array<double, kMaxSlices>& alive, int m, double kv_tokens) {
  if (e.speculative || !(n > 0) || m < 1 || !(kv_tokens > 0)) return 0;
  double mu = 0, q = 0, done = 0;
  for (int j = 0; j < m; ++j) {
    if (!(len[j] >= done) || !(alive[j] >= 0)) return 0;
    mu += alive[j] * (len[j] - done);
    q += alive[j] * (len[j] * len[j] - done * done);
    done = len[j];
  }
  const double len_max = len[m - 1];
  const double tokens = n * mu;
  const double seats = e.max_num_seqs > 0 ? e.max_num_seqs : INFINITY;
  // The full-cache models' longest run between re-evaluations (their own formulas).
  const double step_max = m == 1 ? FullCacheStepMax(n, p, len_max, len_max, kv_tokens, seats, FixedResolution{})
                                 : FullCacheStepMax(n, p, mu, len_max, kv_tokens, seats, kFineFixedResolution);
  const double most_held = kv_tokens * (1.0 + step_max / (p + kFragTokens));
  const double iters =
      std::max({len_max, tokens / seats, n * ((p + kFragTokens) * mu + q / 2) / most_held});
  const perf::DecodeArmsKept maker(e);
  const perf::DecodeArms a0 = maker(0.0), a1 = maker(1.0);
  const double kappa = a0.flops.b > 0 && a0.compute_s.b > 0 ? a1.flops.a * a0.compute_s.b / a0.flops.b : 0.0;
  const double s_att = p > 0 ? std::max(a0.mem_s.b, a0.compute_s.b) : std::min(a0.mem_s.b, a0.compute_s.b);
  const double ctx = std::max(0.0, n * (p * mu + q / 2 - mu / 2));
  // Every batch is at most b_max (the sequences, the engine's cap, and the
  // cache at an event's start). The weights' read time is concave in the
  // batch (an MoE model's experts touched; a dense model's: constant), so it
  // lies above its chord from 0 to b_max; the all-reduces' time lies above
  // its line-rate floor, affine in it (AllReduceLineRateTime: the custom
  // kernel's time steps down to NCCL's at 8 MiB).
  const double b_max = std::min({n, seats, kv_tokens / (p + kFragTokens)}) * (1 + 1e-9);
  double w_slope = 0, f_slope = 0;
  if (a0.bytes.b > 0 && a0.mem_s.b > 0 && b_max > 0) {
    const double to_s = a0.mem_s.b / a0.bytes.b;  // 1 / bandwidth
    w_slope = std::max(0.0, (maker(b_max).bytes.a - a0.bytes.a) * to_s / b_max);
  }
  if (perf::RunsEagerly(e, 1.0) == perf::RunsEagerly(e, 0.0)) {
    const double h2 = e.model->hidden * 2.0, calls = 2.0 * e.model->layers;
    const double ar_floor = perf::AllReduceLineRateTime(e, h2, calls) - perf::AllReduceLineRateTime(e, 0.0, calls);
    f_slope = std::max(0.0, std::min(a1.fixed_s - a0.fixed_s, ar_floor));
  }
  const double decode = std::max(iters * a0.weights_s + tokens * w_slope, tokens * kappa) + iters * a0.fixed_s +
                        tokens * f_slope + s_att * ctx;
  const double prefill = perf::Prefill(e, n * p, 0, n).time_s;
  // Rounding in the models' sums (ages reach a slice within 1e-9, dt >= 1e-9).
  return (1.0 - 1e-6) * (decode + prefill);
}

// A single-turn step's length slices: the equal grid, or the weighted one
// when its top slice (n / kMaxSlices sequences at the step's longest length,
// with their prompts and half a block each) would not fit in the KV cache.
struct TurnSlices {
  std::array<double, kMaxSlices> len{}, alive{};
  int m = 0;
  bool single_top = false;
  double prompt = 0;
};

TurnSlices SliceSingleTurn(const Scenario& s, double n, double n_total, double kv_tokens) {
  const auto& resp = s.environment.response_tokens;
  TurnSlices t;
  t.prompt = s.environment.prompt_tokens.mean();
  const double top_kv = n / kMaxSlices * (t.prompt + KeptLongestDraw(resp, n_total) + kFragTokens);
  t.single_top = top_kv > kv_tokens && n > kMaxSlices;
  t.m = LengthSlices(resp, n, n_total, t.len, t.alive, t.single_top);
  return t;
}

// Single-turn generation of n sequences on one engine with a KV budget: the
// work (tokens, FLOPs, mean batch) of the mean engine, the wall time of the
// busiest (BusiestEngineLengths).
RolloutResult SingleTurn(const perf::EngineConfig& e, const Scenario& s, double n, double n_total,
                         double kv_tokens) {
  if (RolloutBoundOnly::Active()) {
    RolloutResult r;
    r.time_s = SingleTurnLowerBound(e, s, n, n_total, kv_tokens);
    return r;
  }
  TurnSlices t = SliceSingleTurn(s, n, n_total, kv_tokens);
  if (StepTimeOnly::Active()) {
    // The busiest engine's lengths (the mean engine's where they are the same).
    BusiestEngineLengths(s.environment.response_tokens, n, n_total, t.len, t.m);
    RolloutResult r;
    r.time_s = SingleTurnOn(e, n, t.prompt, t.len, t.alive, t.m, kv_tokens, t.single_top).time_s;
    return r;
  }
  RolloutResult r = SingleTurnOn(e, n, t.prompt, t.len, t.alive, t.m, kv_tokens, t.single_top);
  if (BusiestEngineLengths(s.environment.response_tokens, n, n_total, t.len, t.m) > 1.0) {
    r.time_s = SingleTurnOn(e, n, t.prompt, t.len, t.alive, t.m, kv_tokens, t.single_top).time_s;
  }
  return r;
}

// SingleTurn's lengths (the busiest engine's where it differs), bounded.
double SingleTurnLowerBound(const perf::EngineConfig& e, const Scenario& s, double n, double n_total,
                            double kv_tokens) {
  TurnSlices t = SliceSingleTurn(s, n, n_total, kv_tokens);
  BusiestEngineLengths(s.environment.response_tokens, n, n_total, t.len, t.m);
  return SingleTurnOnLowerBound(e, n, t.prompt, t.len, t.alive, t.m, kv_tokens);
}

double AnalyticStepLowerBound(const Scenario& s, const signal::Summary& sig, const perf::MemoryPlan* mem) {
  const auto& env = s.environment;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  const bool async = s.pipeline.mode == PipelineMode::kAsync && !colocated;
  if (env.turns.mean() > 1.0 + 1e-9 || (async && s.pipeline.partial_rollouts) || s.pipeline.tail.Active() ||
      env.response_tokens_schedule || (s.placement.resplit && !colocated)) {
    return 0;
  }
  auto t = AnalyticStepOf(s, sig, TextDetail::kNumbers, true, mem);
  return t ? t->time_s : 0.0;
}


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
  double cap = std::max(1.0, std::floor(kv_tokens / final_ctx));
  if (e.max_num_seqs > 0) cap = std::min(cap, e.max_num_seqs);  // engine.max_num_seqs
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
      std::array<double, kMaxSlices> len{}, share_alive{};
      int m = LengthSlices(env.response_tokens, alive, alive * n_total / n, len, share_alive, false);
      auto pre = perf::Prefill(e, alive * (k == 0 ? p : o_mean), k == 0 ? 0 : ctx0 - o_mean, alive);
      auto d = Drain(e, alive, ctx0, len, share_alive, m);
      // A pool of C tool workers (environment.tool_concurrency) serves the
      // round's calls of all N trajectories in waves: at least N alive tau / C.
      const double pool = env.tool_concurrency > 0 ? n_total * std::min(1.0, alive_frac) * tau / env.tool_concurrency
                                                   : 0.0;
      const double round_s = pre.time_s + d.time_s + (k + 1 < rounds ? std::max(tool_max, pool) : 0.0);
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
  // A pool of C tool workers (environment.tool_concurrency) serves all N
  // trajectories' calls: the step lasts at least their seconds over C, plus
  // one trajectory's decoding (its first turn before any call, its last after).
  const double tool_pool_s =
      env.tool_concurrency > 0 ? n_total * calls * tau / env.tool_concurrency + 2 * turn_decode_s : 0.0;
  r.time_s = std::max({makespan, throughput_s, tool_pool_s}) + prefill_total.time_s;
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
  if (e.max_num_seqs > 0) cap = std::min(cap, e.max_num_seqs);  // engine.max_num_seqs
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
    std::array<double, kMaxSlices> len{}, alive{};
    const int m = std::min<int>(kMaxSlices, int(rd.slices.size()));
    EqualAlive(m, alive);
    double mean = 0, sq = 0;
    for (int j = 0; j < m; ++j) {
      len[j] = rd.slices[j];
      mean += len[j] / m;
      sq += len[j] * len[j] / m;
    }
    RolloutResult r = SingleTurnOn(e, n, p, len, alive, m, kv_tokens);
    const double cv = mean > 0 ? std::sqrt(std::max(0.0, sq / (mean * mean) - 1.0)) : 0.0;
    const double f = BusiestEngineFactor(engines, n, cv);
    if (f > 1.0 && m > 1) {
      for (int j = 0; j < m - 1; ++j) len[j] = std::min(len[j] * f, len[m - 1]);
      r.time_s = SingleTurnOn(e, n, p, len, alive, m, kv_tokens).time_s;
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

}  // namespace rlcost::sim::analytic_internal
