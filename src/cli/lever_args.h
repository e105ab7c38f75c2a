// Internal to the CLI: the lever options `waterfall` and `report` share.
#pragma once

#include <string>

#include <CLI/CLI.hpp>

#include "econ/levers.h"

namespace rlcost::cli {

struct LeverArgs {
  std::string order = "async,fp8,hardware,grpo2,lora,moe";
  std::string gpu = "b200";
  int tenants = 0;
  int rank = 0;
  std::string moe_model = "qwen3-30b-a3b";
  std::string dense_model;
};

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

inline Result<levers::Options> ToOptions(const LeverArgs& a) {
  auto order = levers::ParseLeverList(a.order, "--order");
  if (!order) return Fail(order.error());
  if (a.tenants < 0) return Fail(ErrorCode::kInvalidInput, "--tenants", "must be >= 1");
  if (a.rank < 0) return Fail(ErrorCode::kInvalidInput, "--rank", "must be >= 1");
  levers::Options o;
  o.order = *order;
  o.gpu_id = a.gpu;
  o.tenants = a.tenants;
  o.lora_rank = a.rank;
  o.moe_model = a.moe_model;
  o.dense_model = a.dense_model;
  return o;
}

}  // namespace rlcost::cli
