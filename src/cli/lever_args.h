// Internal to the CLI: the lever options `waterfall` and `report` share (and
// the quality discounts, which `price` takes too).
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "api/ops.h"

namespace rlcost::cli {

// The command line's lever flags fill the same knobs as a request does.
using LeverArgs = ops::LeverInput;

inline void AddDiscountOptions(CLI::App* sub, LeverArgs& a);

inline void AddLeverOptions(CLI::App* sub, LeverArgs& a) {
  sub->add_option("--order", a.order,
                  "levers in the order applied: async,fp8,hardware,fp4,grpo2,batch,lora,moe (any subset; speculative, spot, tail and resplit on request)");
  sub->add_option("--gpu", a.gpu, "newer-hardware lever's GPU (catalog id)");
  // Bounds: 1e4 adapters per base is far past any multi-LoRA server's slots;
  // a rank above 65536 exceeds every model's hidden size (a full-rank update).
  sub->add_option("--tenants", a.tenants, "LoRA tenants sharing one base (default: the scenario's, else 4)")
      ->check(CLI::Range(1, 10'000));
  sub->add_option("--rank", a.rank, "LoRA rank (default: the scenario's, else 32)")->check(CLI::Range(1, 65'536));
  sub->add_option("--moe-model", a.moe_model,
                  "MoE lever's model (catalog id; default: the catalog MoE paired with the scenario's model by quality)");
  sub->add_option("--dense-model", a.dense_model, "dense baseline model when the scenario's model is MoE (default: by rule)");
  sub->add_option("--moe-pass-rate", a.moe_pass_rate,
                  "the MoE model's own mean pass rate on these tasks (default: the dense model's, an assumption)");
  sub->add_option("--dense-pass-rate", a.dense_pass_rate,
                  "the dense baseline's own mean pass rate when the scenario's model is MoE (default: the scenario's)");
  sub->add_option("--baseline", a.baseline,
                  "what the levers start from: run (your run as planned, the figures of `rlcost estimate`; default) or "
                  "naive (the essay's naive H100 + synchronous baseline, G = 16); the other is shown as a reference row")
      ->check(CLI::IsMember({"run", "naive"}));
  AddDiscountOptions(sub, a);
}

// The quality discounts alone (`price` applies them to a stack's per-sample
// columns); range checks are ops::ToOptions's, so that a request and the
// command line get the same message.
inline void AddDiscountOptions(CLI::App* sub, LeverArgs& a) {
  sub->add_option("--staleness-discount", a.staleness_discount,
                  "fraction of a rollout's worth lost per policy version of lag in async RL, in [0, 1) (default 0.05, an assumption)");
  sub->add_option("--fp8-discount", a.fp8_discount,
                  "fraction of a rollout's worth lost to fp8 rollout vs the bf16 trainer, in [0, 1) (default 0.02, an assumption)");
  sub->add_option("--fp4-discount", a.fp4_discount,
                  "fraction of a rollout's worth lost to fp4 rollout vs the bf16 trainer, in [0, 1) (default 0.05, an assumption)");
}

}  // namespace rlcost::cli
