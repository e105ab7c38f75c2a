// The analytic step's generation models (analytic_rollout.cc), used by
// AnalyticStep (analytic.cc). Private to src/sim. Derivation: docs/model.md,
// "Analytic step" and "A full, preempting KV cache".
#pragma once

#include <array>

#include "rlcost/perf.h"
#include "rlcost/sim.h"
#include "rlcost/tail.h"

namespace rlcost::sim::analytic_internal {

inline constexpr int kMaxSlices = 48;

struct RolloutResult {
  double time_s = 0;       // wall time
  double flops = 0;        // per GPU of one engine
  double mean_batch = 0;   // time-weighted running sequences
  double decode_tokens = 0;
  double prefill_tokens = 0;
};

struct MultiTurnResult {
  RolloutResult roll;
  // Per trajectory: how long its sandbox is held, start-up to its last turn
  // (verification is added by the caller): the container lives for the whole
  // trajectory, not only during its tool calls.
  double sandbox_life_s = 0;
};

// Response lengths of an engine's n sequences (n_total in the step) as m
// quantile points `len`, ascending, the last at the expected maximum of the
// n_total draws (scenario_internal::ExpectedLongestDraw), and `alive[j]`, the share of the n still decoding between
// len[j - 1] and len[j]; with `single_top` that maximum is one sequence's
// (weight 1/n) rather than a slice's. Returns m. docs/model.md, "Length slices".
int LengthSlices(const Distribution& d, double n, double n_total, std::array<double, kMaxSlices>& len,
                 std::array<double, kMaxSlices>& alive, bool single_top);

// Equal-weight slices (m of them): alive[j] = (m - j) / m.
void EqualAlive(int m, std::array<double, kMaxSlices>& alive);

// The full, preempting KV cache's fluid model (docs/model.md, "A full,
// preempting KV cache") for n sequences of prompt p on one engine of
// kv_tokens: FullCache for `m` length slices `len` (its resolution: 1024 / m
// cohorts, re-evaluated every len_max / 512 iterations, at most ~20,000
// times), FullCacheFixed for one fixed length L at the resolution `res`.
struct FixedResolution {
  int max_cohorts = 2048;         // cohorts at most (kept apart: no lockstep)
  double steps_per_length = 32;   // a full cache re-evaluated every L / this iterations
  double max_steps = 1250;        // and at most about this many times
};
// FullCache's own resolution for one slice (fixed lengths took it until
// 2026-12-06, with 4,096 cohorts): FullCacheFixed at it gives FullCache's
// figures to rounding with the same cohorts (tests/sim/full_cache_fixed_test.cc).
inline constexpr FixedResolution kFineFixedResolution{4096, 512, 20000};
RolloutResult FullCache(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                        const std::array<double, kMaxSlices>& share_alive, int m, double kv_tokens, bool single_top);
RolloutResult FullCacheFixed(const perf::EngineConfig& e, double n, double p, double L, double kv_tokens,
                             const FixedResolution& res = {});

// Standard normal quantile (Acklam's rational approximation, |rel err| < 1.2e-9).
double NormalQuantile(double p);

// A flag that is on while a scope lives, on this thread only, and back to
// what it was when the scope ends (scopes nest). Tag: the mode it names.
template <class Tag>
class ThreadFlagScope {
 public:
  ThreadFlagScope() : was_(active_) { active_ = true; }
  ~ThreadFlagScope() { active_ = was_; }
  ThreadFlagScope(const ThreadFlagScope&) = delete;
  ThreadFlagScope& operator=(const ThreadFlagScope&) = delete;
  static bool Active() { return active_; }

 private:
  bool was_;
  static inline thread_local bool active_ = false;
};

// Only the step's time and dollars are wanted from the analytic step on this
// thread while a StepTimeOnly lives (the layout planner's candidates when only
// the chosen layout is kept, plan::Options::layout_only): SingleTurn then runs
// only the busiest engine's lengths, whose time is the step's, and leaves the
// mean engine's work figures (FLOPs, tokens, mean batch) at 0. Where the two
// differ, each is a fluid-model run of its own (FullCache when the cache is
// below the batch). Every time and dollar figure is the same bits. Its scope
// also keeps LengthSlices' last answers (analytic_rollout.cc).
class StepTimeOnly : public ThreadFlagScope<StepTimeOnly> {
 public:
  StepTimeOnly();
  ~StepTimeOnly();
};

// While a RolloutBoundOnly lives on this thread, SingleTurn's result is its
// lower bound (SingleTurnLowerBound) as the time, every other figure 0: the
// layout planner runs a candidate's whole estimate this way to learn whether
// it fails (the rollout's own model has no error path), without the fluid
// model's run (plan.cc: the literal layout, pruned like the others when its
// estimate cannot fail and its bound cannot win).
class RolloutBoundOnly : public ThreadFlagScope<RolloutBoundOnly> {};

// Single-turn generation of n sequences on one engine with a KV budget (n_total in all).
RolloutResult SingleTurn(const perf::EngineConfig& e, const Scenario& s, double n, double n_total, double kv_tokens);

// Lower bounds for the layout planner's pruning (plan::Options::layout_only;
// docs/model.md, "Bounds that prune layouts"): cheap (no event loop), never
// above the figure they bound. SingleTurnOnLowerBound: SingleTurnOn's time_s
// for the same arguments, whichever of its paths (all at once, FullCache,
// FullCacheFixed) it takes; 0 where no bound is derived (speculative decoding,
// lengths not ascending). SingleTurnLowerBound: SingleTurn's time_s.
double SingleTurnOnLowerBound(const perf::EngineConfig& e, double n, double p, const std::array<double, kMaxSlices>& len,
                              const std::array<double, kMaxSlices>& alive, int m, double kv_tokens);
double SingleTurnLowerBound(const perf::EngineConfig& e, const Scenario& s, double n, double n_total,
                            double kv_tokens);
// AnalyticStep (analytic.cc), or with `rollout_bound` the same step with its
// single-turn rollout's time replaced by SingleTurnLowerBound (its other
// rollout figures 0): every other part of the step as AnalyticStep has it.
// `mem`, when given, is perf::PlanMemory(s) already computed by the caller
// (the same function of the same scenario: not computed again).
Result<StepTiming> AnalyticStepOf(const Scenario& s, const signal::Summary& sig, TextDetail detail,
                                  bool rollout_bound, const perf::MemoryPlan* mem = nullptr);
// A lower bound on AnalyticStep(s, sig).time_s, and so on the estimate's step
// (a verifier on the policy's GPUs aside, which the caller rules out: the goal
// and the evaluation passes do not change it): AnalyticStepOf with the
// rollout bounded, the step's time monotone in the rollout's (sync: a sum;
// async: max + (1 - k) min). 0 where the step is not a plain single-turn one
// (multi-turn, steady state, tail handling, a length schedule, re-split
// pools), or does not run.
// `mem`: as AnalyticStepOf's.
double AnalyticStepLowerBound(const Scenario& s, const signal::Summary& sig, const perf::MemoryPlan* mem = nullptr);

// Multi-turn generation of n trajectories per engine (n_total in all), tool calls between turns.
MultiTurnResult MultiTurn(const perf::EngineConfig& e, const Scenario& s, double n, double n_total, double kv_tokens);

// Sequences one engine keeps in flight in a steady-state (partial-rollout) pipeline.
double InFlightPerEngine(double n, double max_staleness);

// Steady-state (no drain tail) generation across steps, as with partial rollouts.
RolloutResult SteadyState(const perf::EngineConfig& e, const Scenario& s, double n, double in_flight,
                          double kv_tokens);

// Generation with a tail policy (perf::TailRounds): rounds of the step's sequences; fills *out.
Result<RolloutResult> TailRollout(const perf::EngineConfig& e, const Scenario& s, double n_total, double engines,
                                  double kv_tokens, perf::TailStep* out);

}  // namespace rlcost::sim::analytic_internal
