// plan: the layout a team would pick for the placement fields a scenario
// leaves out. Every layout that the stated fields allow is estimated (the
// analytic model, the signal summary computed once) and the one with the
// fewest dollars per step (or the shortest step) wins, among those that fit in
// GPU memory. docs/model.md, "The layout planner".
//
//   plan::Options o;                       // o.objective = plan::Objective::kTime for --plan-for time
//   auto p = plan::PlanLayout(scenario, o);
//   if (p) { Scenario run = p->scenario; PlanSummary why = p->summary; }
//
// Choices (each only when the scenario does not state it):
//   placement.mode           colocated | disaggregated
//   rollout_gpus/train_gpus  the split of a disaggregated run (whole nodes
//                            beyond two nodes, single GPUs below)
//   placement.rollout_tp     powers of two that the model's heads allow
//   placement.dp_attention   MoE models (and SGLang): data-parallel attention
//   gpu_memory_utilization   colocated: the engine takes 0.9 of each GPU and
//                            the training state waits in host memory (veRL,
//                            NeMo RL) vs the state resident beside the engine
// The trainer's Megatron layout stays ZeRO-3 data parallel when not stated:
// the memory accounting shards the whole training state over the training
// GPUs either way, so tensor/pipeline/expert parallel would only add their
// bubble and all-to-alls (perf/moe.cc). Async staleness is not planned: the
// model prices no quality cost for stale rollouts, so planning it would
// always pick the stalest.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/estimate.h"
#include "rlcost/scenario.h"
#include "rlcost/signal.h"

namespace rlcost::plan {

enum class Objective { kCost, kTime };
Result<Objective> ObjectiveFromString(std::string_view s);  // "cost" | "time"

struct Options {
  Objective objective = Objective::kCost;
  // Only the chosen layout is wanted (a sweep keeps nothing else): candidates
  // whose lower bound on the objective (sim AnalyticStepLowerBound) cannot
  // beat the best estimated so far are not estimated. The chosen layout is the
  // one the full search picks; the summary's runner-up and its count of
  // layouts that fit are left out (docs/model.md, "Bounds that prune layouts").
  // The candidates' estimates are then step time and dollars only (sim
  // StepTimeOnly: the rollout's FLOPs, tokens and mean batch are not computed).
  bool layout_only = false;
};

// One layout: the placement fields the planner chooses.
struct Layout {
  PlacementMode mode = PlacementMode::kColocated;
  int rollout_gpus = 0;
  int train_gpus = 0;
  int rollout_tp = 1;
  bool dp_attention = false;
  std::optional<double> gpu_memory_utilization;
  bool operator==(const Layout&) const = default;
};
Layout LayoutOf(const Scenario& s);
// `s` with the layout's fields written into its placement.
// Writes the layout's fields into a placement (in place: no scenario copy).
void ApplyLayout(PlacementSpec& p, const Layout& l);
Scenario WithLayout(const Scenario& s, const Layout& l);
// "colocated, rollout_tp 4 (8 engines)" / "disaggregated 24 rollout + 8 train GPUs, rollout_tp 2".
std::string Describe(const Layout& l);

// Every layout the scenario's stated fields allow (the literal one first).
std::vector<Layout> Candidates(const Scenario& s);

struct Planned {
  Scenario scenario;   // the scenario with the chosen layout
  PlanSummary summary;
  bool changed = false;  // the chosen layout differs from the literal reading
};
// Fails (kDoesNotFit) only when no candidate fits; the error is the literal
// layout's, with a line saying no other layout fits either.
Result<Planned> PlanLayout(const Scenario& s, const Options& opt = {});

// The layout PlanLayout(s, {objective, layout_only = true}) chooses, without
// its summary or a copy of the scenario (a sweep keeps only the layout);
// `sig` is signal::Analyze(s, TextDetail::kNumbers), which no layout field
// changes. Fails as PlanLayout does.
Result<Layout> ChooseLayout(const Scenario& s, const signal::Summary& sig, Objective objective);

// Lines for an estimate read literally (--no-plan): the KV cache below the
// batch the engines would run, and a layout the planner finds cheaper or
// faster by more than 5%, with its figures. Empty when nothing to say.
std::vector<std::string> LiteralNotes(const Scenario& s, const Estimate& literal, const Options& opt = {});

// No silent cliff: a note when the same run on fewer GPUs (one node fewer,
// three quarters or half of the nodes; half the GPUs within a node) has a
// shorter step, so that the extra GPUs cost both time and money. The smaller run keeps the layout rules
// of this one: `planned` re-plans its left-out fields (with `opt`), else its
// layout is read as written (rollout_tp kept, a disaggregated split scaled).
// The note says which phase grew and why (a KV cache below the batch), and
// the layout or GPU count that avoids it. Empty when more GPUs are faster.
std::vector<std::string> ScalingNotes(const Scenario& s, const Estimate& e, bool planned, const Options& opt = {});

// Sequences one engine is given at once: the step's rollouts over the engines
// (async: the same batch in flight). The running batch the KV notes compare with.
double RunningPerEngine(const Scenario& s, const Estimate& e);
// The short note of a sweep or optimize row whose KV cache holds fewer
// sequences per engine than it is given ("KV cache below the batch: 3.0 of 16
// sequences per engine fit, generation runs in waves"); empty otherwise.
std::string KvBelowBatchNote(const Scenario& s, const Estimate& e);

// Whether some layout that the stated fields allow fits in memory.
bool AnyLayoutFits(const Scenario& s);
// `s` on `gpus` GPUs (a disaggregated split: half each, then planned).
Scenario WithGpus(const Scenario& s, int gpus);
// The fewest GPUs (1, 2, 4, ... up to a node, then whole nodes) on which
// some allowed layout fits; nullopt when none up to `limit` does.
std::optional<int> SmallestFittingGpus(const Scenario& s, int limit = 8192);
// The catalog's largest model (by parameters) for which some allowed layout
// fits on the scenario's GPUs; nullopt when none does.
std::optional<std::string> LargestFittingModel(const Scenario& s, const Catalog& catalog);

// True when the scenario leaves at least one layout field to the planner.
bool AnythingToPlan(const Scenario& s);

}  // namespace rlcost::plan
