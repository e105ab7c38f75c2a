// plan/memory: GPU memory per GPU for each role of a run (`rlcost memory`),
// on top of the memory plan the estimate runs with (perf::PlanMemory): the
// inference engine's weights, KV cache and the reserve for activations and
// CUDA graphs; the trainer's parameters, gradients, optimizer states (or
// their offload), reference and critic, and its activations for the longest
// micro-batch with and without recompute, plus the fp32 logits of the loss.
// docs/model.md, "Memory per role".
//
//   auto m = plan::MemoryOf(scenario);
//   m->fits; m->trainer.total_gb;
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "rlcost/catalog.h"
#include "rlcost/error.h"
#include "rlcost/perf.h"
#include "rlcost/scenario.h"

namespace rlcost::plan {

struct MemoryPart {
  std::string name;  // "weights", "KV cache", ...
  double gb = 0;     // per GPU
  std::string note;  // what it rests on, in words
};

struct RoleMemory {
  std::string role;  // "rollout engine" | "trainer" | "colocated GPU (generating)" ...
  std::vector<MemoryPart> parts;
  double total_gb = 0;
  double capacity_gb = 0;
  bool fits = true;
};

// Activations of one micro-batch of `tokens` tokens per GPU of the trainer
// (Korthikanti et al. 2022, "Reducing Activation Recomputation in Large
// Transformer Models", sec. 4: 34 s h bytes per layer with flash attention,
// 2 s h per layer with full recompute plus one layer recomputed, 4 s v bytes
// of fp32 logits; tensor/sequence/context parallel divide them).
struct TrainActivations {
  double tokens = 0;          // the longest micro-batch
  double no_recompute_gb = 0; // every layer's activations kept
  double recompute_gb = 0;    // full recompute (activation checkpointing)
  double logits_gb = 0;       // fp32 logits of the loss
};
TrainActivations TrainActivationMemory(const Scenario& s);

struct MemoryReport {
  bool fits = false;
  std::string verdict;            // in words
  std::optional<perf::MemoryPlan> plan;  // the estimate's memory plan (when it has one)
  std::vector<RoleMemory> roles;
  TrainActivations activations;
};
// The memory of `s` as laid out (plan it first for the planner's layout).
MemoryReport MemoryOf(const Scenario& s);
// True when the layout fits: the estimate's memory plan holds and the
// trainer's activations (with recompute) and logits fit beside its state.
bool Fits(const Scenario& s);
// Of Fits: the trainer's state, activations and logits, given the memory plan.
bool TrainerFits(const Scenario& s, const perf::MemoryPlan& mem);

}  // namespace rlcost::plan
