// Hugging Face `config.json`: a model's architecture as transformers writes it
// (Llama, Qwen2/Qwen3, Qwen2-MoE/Qwen3-MoE, Mixtral, DeepSeek-V2/V3), read into
// the fields the estimate needs, with the parameter counts computed from the
// shapes (docs/model.md, "Parameters from a Hugging Face config").
//
//   auto arch = rlcost::ingest::ReadHfConfig("models/Qwen3-8B");  // folder or file
//   if (!arch) { std::cerr << arch.error().ToString(); return 2; }
//   rlcost::ModelSpec m = rlcost::ingest::ToModelSpec(*arch, "qwen3-8b");
#pragma once

#include <string>
#include <string_view>

#include "rlcost/catalog.h"
#include "rlcost/error.h"

namespace rlcost::ingest {

// The architecture fields of a config.json (names as there in comments).
struct HfArchitecture {
  std::string file;             // where it was read from, for sources
  std::string model_type;       // model_type ("llama", "qwen3", "qwen3_moe", "deepseek_v3", ...); "" = absent
  std::string name_or_path;     // _name_or_path, when present
  int layers = 0;               // num_hidden_layers
  int hidden = 0;               // hidden_size
  int intermediate = 0;         // intermediate_size (dense MLP)
  int heads = 0;                // num_attention_heads
  int kv_heads = 0;             // num_key_value_heads (default: heads)
  int head_dim = 0;             // head_dim (default: hidden / heads)
  int vocab = 0;                // vocab_size
  bool tied_embeddings = false; // tie_word_embeddings (default false)
  bool qkv_bias = false;        // attention_bias; Qwen2's q/k/v projections always have one
  bool qk_norm = false;         // Qwen3's per-head RMSNorm on queries and keys
  // MoE
  int experts = 0;              // num_experts | n_routed_experts | num_local_experts
  int experts_per_token = 0;    // num_experts_per_tok
  int moe_intermediate = 0;     // moe_intermediate_size (Mixtral: intermediate_size)
  int shared_experts = 0;       // n_shared_experts (DeepSeek); Qwen2-MoE: 1 when shared_expert_intermediate_size
  int shared_intermediate = 0;  // width of one shared expert
  bool shared_expert_gate = false;  // Qwen2-MoE: a hidden -> 1 gate on the shared expert
  bool router_bias = false;     // DeepSeek-V3 noaux_tc: e_score_correction_bias, one per expert
  int moe_layers = 0;           // layers whose MLP is the MoE block
  // MLA (DeepSeek-V2/V3)
  bool mla = false;
  int q_lora_rank = 0;          // q_lora_rank; 0 = queries projected directly (null in config.json)
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  int mtp_layers = 0;           // num_nextn_predict_layers: not counted (docs/model.md)
};

struct ParamCounts {
  double total = 0;   // every weight of the model as served (no multi-token-prediction module)
  double active = 0;  // weights one token passes through (top-k routed experts only)
};

// Parses config.json text; problems name `origin`, the line and the field.
Result<HfArchitecture> ParseHfConfig(std::string_view json_text, const std::string& origin);
// Reads `path`: a config.json, or a folder holding one.
Result<HfArchitecture> ReadHfConfig(const std::string& path);
ParamCounts CountParams(const HfArchitecture& a);
// A catalog model with the counts above; every field's source names the file.
ModelSpec ToModelSpec(const HfArchitecture& a, const std::string& id);

}  // namespace rlcost::ingest
