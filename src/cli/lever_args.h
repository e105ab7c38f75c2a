// Internal to the CLI: the lever options `waterfall` and `report` share.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "cli/ops.h"
#include "econ/levers.h"

namespace rlcost::cli {

// The command line's lever flags fill the same knobs as a request does.
using LeverArgs = ops::LeverInput;

inline void AddLeverOptions(CLI::App* sub, LeverArgs& a) {
  sub->add_option("--order", a.order, "levers in the order applied: async,fp8,hardware,grpo2,lora,moe (any subset)");
  sub->add_option("--gpu", a.gpu, "newer-hardware lever's GPU (catalog id)");
  // Bounds: 1e4 adapters per base is far past any multi-LoRA server's slots;
  // a rank above 65536 exceeds every model's hidden size (a full-rank update).
  sub->add_option("--tenants", a.tenants, "LoRA tenants sharing one base (default: the scenario's, else 4)")
      ->check(CLI::Range(1, 10'000));
  sub->add_option("--rank", a.rank, "LoRA rank (default: the scenario's, else 32)")->check(CLI::Range(1, 65'536));
  sub->add_option("--moe-model", a.moe_model, "MoE lever's model (catalog id)");
  sub->add_option("--dense-model", a.dense_model, "dense baseline model when the scenario's model is MoE (default: by rule)");
}

inline Result<levers::Options> ToOptions(const LeverArgs& a) { return ops::ToOptions(a, "--"); }

}  // namespace rlcost::cli
