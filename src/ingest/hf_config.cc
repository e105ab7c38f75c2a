#include "ingest/hf_config.h"

#include "core/file.h"
#include "core/nesting.h"
#include "core/yaml.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "core/count.h"

namespace rlcost::ingest {
namespace {

int LineOf(const YAML::Node& n) {
  if (!n.IsDefined()) return 0;
  const int line = n.Mark().line;
  return line >= 0 ? line + 1 : 0;
}

// Reads the fields of one config object, collecting every problem.
class Fields {
 public:
  Fields(const YAML::Node& root, std::string origin) : root_(root), origin_(std::move(origin)) {}

  bool Has(const char* key) const {
    YAML::Node v = root_[key];
    return v.IsDefined() && !v.IsNull();
  }

  // A whole number >= `min`; nullopt when absent (or null) or bad (reported).
  std::optional<int> Int(const char* key, int min = 1) {
    YAML::Node v = root_[key];
    if (!v.IsDefined() || v.IsNull()) return std::nullopt;
    double d = 0;
    std::optional<int> n;
    if (!v.IsScalar() || !YAML::convert<double>::decode(v, d) || !(n = WholeNumber(d, min, 2000000000))) {
      Bad(v, key, fmt::format("expected a whole number >= {}, got {}", min, Describe(v)));
    }
    return n;
  }

  int Required(const char* key, const char* what, int min = 1) {
    if (!Has(key)) {
      Missing(key, what);
      return 0;
    }
    return Int(key, min).value_or(0);
  }

  bool Bool(const char* key, bool fallback) {
    YAML::Node v = root_[key];
    if (!v.IsDefined() || v.IsNull()) return fallback;
    bool b = false;
    if (!v.IsScalar() || !YAML::convert<bool>::decode(v, b)) {
      Bad(v, key, "expected true or false, got " + Describe(v));
      return fallback;
    }
    return b;
  }

  std::string String(const char* key) {
    YAML::Node v = root_[key];
    if (!v.IsDefined() || v.IsNull()) return "";
    if (!v.IsScalar()) {
      Bad(v, key, "expected text, got " + Describe(v));
      return "";
    }
    return v.Scalar();
  }

  // A list of whole numbers (layer indices).
  std::vector<int> IntList(const char* key) {
    std::vector<int> out;
    YAML::Node v = root_[key];
    if (!v.IsDefined() || v.IsNull()) return out;
    if (!v.IsSequence()) {
      Bad(v, key, "expected a list of layer numbers, got " + Describe(v));
      return out;
    }
    for (size_t i = 0; i < v.size(); ++i) {
      double d = 0;
      std::optional<int> n;
      if (!v[i].IsScalar() || !YAML::convert<double>::decode(v[i], d) || !(n = WholeNumber(d, 0, 2000000000))) {
        Bad(v[i], fmt::format("{}[{}]", key, i), "expected a layer number >= 0, got " + Describe(v[i]));
        continue;
      }
      out.push_back(*n);
    }
    return out;
  }

  void Missing(const char* key, const std::string& what) {
    problems_.push_back(Problem{key, "missing (" + what + ")", 0, origin_});
  }
  void Bad(const YAML::Node& at, const std::string& key, std::string msg) {
    problems_.push_back(Problem{key, std::move(msg), LineOf(at), origin_});
  }
  void Fail(const std::string& key, std::string msg) { problems_.push_back(Problem{key, std::move(msg), 0, origin_}); }
  std::vector<Problem>& problems() { return problems_; }

 private:
  static std::string Describe(const YAML::Node& n) {
    if (n.IsMap()) return "an object";
    if (n.IsSequence()) return "a list";
    return "'" + n.Scalar() + "'";
  }

  const YAML::Node& root_;
  std::string origin_;
  std::vector<Problem> problems_;
};

}  // namespace

Result<HfArchitecture> ParseHfConfig(std::string_view json_text, const std::string& origin) {
  if (int d = NestingDepth(json_text); d > kMaxFileNesting) {
    Error err;
    err.problems.push_back(Problem{"", fmt::format("nested {} deep; a Hugging Face config nests a few levels (at most {} "
                                                   "accepted)", d, kMaxFileNesting), 0, origin});
    return Fail(std::move(err));
  }
  // Read by yaml-cpp (JSON is YAML): aliases, which JSON has not, are bounded
  // before the tree is walked (core/yaml.h).
  if (std::string why = YamlAliasProblem(json_text); !why.empty()) {
    Error err;
    err.problems.push_back(Problem{"", "not a Hugging Face config: " + why, 0, origin});
    return Fail(std::move(err));
  }
  YAML::Node root;
  try {
    root = YAML::Load(std::string(json_text));
  } catch (const YAML::Exception& e) {
    Error err;
    err.problems.push_back(Problem{"", "not valid JSON: " + e.msg, e.mark.is_null() ? 0 : e.mark.line + 1, origin});
    return Fail(std::move(err));
  }
  if (!root.IsMap()) {
    Error err;
    err.problems.push_back(Problem{"", "expected a JSON object (a Hugging Face config.json)", 0, origin});
    return Fail(std::move(err));
  }
  // Multimodal configs keep the language model under text_config.
  if (!root["hidden_size"] && root["text_config"] && root["text_config"].IsMap()) root = root["text_config"];

  Fields f(root, origin);
  HfArchitecture a;
  a.file = origin;
  a.model_type = f.String("model_type");
  a.name_or_path = f.String("_name_or_path");
  a.layers = f.Required("num_hidden_layers", "number of transformer layers");
  a.hidden = f.Required("hidden_size", "hidden size");
  a.heads = f.Required("num_attention_heads", "attention heads");
  a.vocab = f.Required("vocab_size", "vocabulary size");
  a.kv_heads = f.Int("num_key_value_heads").value_or(a.heads);
  if (auto hd = f.Int("head_dim")) {
    a.head_dim = *hd;
  } else if (a.heads > 0 && a.hidden > 0) {
    if (a.hidden % a.heads != 0) {
      f.Fail("head_dim", fmt::format("missing, and hidden_size {} is not a multiple of num_attention_heads {}",
                                     a.hidden, a.heads));
    }
    a.head_dim = a.hidden / a.heads;
  }
  if (a.heads > 0 && a.kv_heads > 0 && a.heads % a.kv_heads != 0) {
    f.Fail("num_key_value_heads", fmt::format("{} must divide num_attention_heads {}", a.kv_heads, a.heads));
  }
  a.tied_embeddings = f.Bool("tie_word_embeddings", false);
  const bool qwen2_family = a.model_type == "qwen2" || a.model_type == "qwen2_moe";
  a.qkv_bias = f.Bool("attention_bias", qwen2_family);
  a.qk_norm = a.model_type == "qwen3" || a.model_type == "qwen3_moe";

  // MoE: the key names of each family.
  const char* experts_key = f.Has("n_routed_experts") ? "n_routed_experts"
                            : f.Has("num_local_experts") ? "num_local_experts"
                                                         : "num_experts";
  a.experts = f.Int(experts_key, 0).value_or(0);
  const bool mixtral = std::string(experts_key) == "num_local_experts";
  std::vector<bool> moe_layer(std::max(a.layers, 0), false);
  if (a.experts > 0) {
    a.experts_per_token = f.Required("num_experts_per_tok", "routed experts per token");
    if (a.experts_per_token > a.experts) {
      f.Fail("num_experts_per_tok", fmt::format("{} exceeds {} {}", a.experts_per_token, experts_key, a.experts));
    }
    a.moe_intermediate = mixtral ? f.Required("intermediate_size", "expert MLP width")
                                 : f.Required("moe_intermediate_size", "width of one routed expert's MLP");
    if (f.Has("n_shared_experts")) {  // DeepSeek: shared experts as wide as the routed ones
      a.shared_experts = f.Int("n_shared_experts", 0).value_or(0);
      a.shared_intermediate = a.moe_intermediate;
    } else if (auto w = f.Int("shared_expert_intermediate_size", 0); w && *w > 0) {  // Qwen2-MoE
      a.shared_experts = 1;
      a.shared_intermediate = *w;
      a.shared_expert_gate = true;
    }
    a.router_bias = f.String("topk_method") == "noaux_tc";
    // Which layers route: DeepSeek (first_k_dense_replace, moe_layer_freq),
    // Qwen-MoE (decoder_sparse_step, mlp_only_layers); Mixtral: all.
    const int first_dense = f.Int("first_k_dense_replace", 0).value_or(0);
    const int freq = f.Int("moe_layer_freq", 1).value_or(1);
    const int sparse_step = f.Int("decoder_sparse_step", 1).value_or(1);
    const std::vector<int> mlp_only = f.IntList("mlp_only_layers");
    for (int i = 0; i < a.layers; ++i) {
      bool moe = i >= first_dense && i % freq == 0 && (i + 1) % sparse_step == 0;
      for (int d : mlp_only) moe = moe && d != i;
      moe_layer[i] = moe;
      a.moe_layers += moe ? 1 : 0;
    }
  }
  if (a.moe_layers < a.layers || mixtral) {
    a.intermediate = f.Required("intermediate_size", "the dense MLP's width");
  } else {
    a.intermediate = f.Int("intermediate_size").value_or(0);
  }

  // MLA: DeepSeek-V2/V3 name kv_lora_rank.
  if (f.Has("kv_lora_rank")) {
    a.mla = true;
    a.kv_lora_rank = f.Required("kv_lora_rank", "compressed KV width");
    a.q_lora_rank = f.Int("q_lora_rank", 0).value_or(0);  // null: queries projected directly
    a.qk_nope_head_dim = f.Required("qk_nope_head_dim", "query/key head width without rotary part");
    a.qk_rope_head_dim = f.Required("qk_rope_head_dim", "rotary part of query/key heads");
    a.v_head_dim = f.Required("v_head_dim", "value head width");
    a.mtp_layers = f.Int("num_nextn_predict_layers", 0).value_or(0);
  }
  if (!f.problems().empty()) {
    Error err;
    err.problems = std::move(f.problems());
    return Fail(std::move(err));
  }
  return a;
}

Result<HfArchitecture> ReadHfConfig(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p(path);
  if (fs::is_directory(p, ec)) p /= "config.json";
  if (!fs::exists(p, ec)) {
    Error e(ErrorCode::kNotFound, "", "Hugging Face config not found (expected a config.json or a folder holding one)");
    e.problems.back().file = p.string();
    return Fail(std::move(e));
  }
  // Regular files only, read bounded (a link to /dev/zero, a FIFO: refused with the path).
  auto text = ReadBoundedFile(p.string(), kMaxScenarioBytes, "Hugging Face config");
  if (!text) return Fail(text.error());
  return ParseHfConfig(*text, p.string());
}

ParamCounts CountParams(const HfArchitecture& a) {
  const double h = a.hidden;
  // Attention, per layer: projections (+ biases and norms inside attention).
  double attn = 0;
  if (a.mla) {
    const double qk_head = a.qk_nope_head_dim + a.qk_rope_head_dim;
    attn += a.q_lora_rank > 0 ? h * a.q_lora_rank + a.q_lora_rank /* q_a_layernorm */ +
                                    double(a.q_lora_rank) * a.heads * qk_head
                              : h * a.heads * qk_head;
    attn += h * (a.kv_lora_rank + a.qk_rope_head_dim) + a.kv_lora_rank;  // kv_a_proj_with_mqa, kv_a_layernorm
    attn += double(a.kv_lora_rank) * a.heads * (a.qk_nope_head_dim + a.v_head_dim);  // kv_b_proj
    attn += double(a.heads) * a.v_head_dim * h;                                      // o_proj
  } else {
    const double q = double(a.heads) * a.head_dim, kv = double(a.kv_heads) * a.head_dim;
    attn += h * (q + 2 * kv) + q * h;
    if (a.qkv_bias) attn += q + 2 * kv;
    if (a.qk_norm) attn += 2.0 * a.head_dim;
  }
  const double norms = 2 * h;  // input and post-attention RMSNorm
  const double dense_mlp = 3 * h * a.intermediate;  // gate, up, down
  const double expert = 3 * h * a.moe_intermediate;
  const double shared = a.shared_experts * 3 * h * a.shared_intermediate + (a.shared_expert_gate ? h : 0);
  const double router = a.experts * h + (a.router_bias ? a.experts : 0);

  const int dense_layers = a.layers - a.moe_layers;
  const double per_layer_common = attn + norms;
  const double embeddings = double(a.vocab) * h * (a.tied_embeddings ? 1 : 2) + h /* final norm */;

  ParamCounts c;
  c.total = embeddings + a.layers * per_layer_common + dense_layers * dense_mlp +
            a.moe_layers * (a.experts * expert + shared + router);
  c.active = embeddings + a.layers * per_layer_common + dense_layers * dense_mlp +
             a.moe_layers * (a.experts_per_token * expert + shared + router);
  return c;
}

ModelSpec ToModelSpec(const HfArchitecture& a, const std::string& id) {
  ModelSpec m;
  m.id = id;
  m.name = a.name_or_path.empty() ? id : a.name_or_path;
  const ParamCounts c = CountParams(a);
  m.params_b = c.total / 1e9;
  m.active_params_b = c.active / 1e9;
  m.layers = a.layers;
  m.hidden = a.hidden;
  m.heads = a.heads;
  m.vocab = a.vocab;
  m.experts = a.experts;
  m.experts_per_token = a.experts_per_token;
  m.shared_experts = a.shared_experts;
  const std::string from = a.file + ": ";
  if (a.mla) {
    // As the catalog's DeepSeek-V3: MLA caches the latent; heads are qk_nope wide.
    m.attention = Attention::kMla;
    m.kv_heads = a.heads;
    m.head_dim = a.qk_nope_head_dim;
    m.kv_lora_rank = a.kv_lora_rank;
    m.rope_head_dim = a.qk_rope_head_dim;
    m.v_head_dim = a.v_head_dim;
    m.sources["kv_lora_rank"] = from + "kv_lora_rank";
    m.sources["rope_head_dim"] = from + "qk_rope_head_dim";
    m.sources["v_head_dim"] = from + "v_head_dim";
    m.sources["head_dim"] = from + "qk_nope_head_dim";
  } else {
    m.attention = Attention::kGqa;  // MHA and MQA are the kv_heads = heads and = 1 cases
    m.kv_heads = a.kv_heads;
    m.head_dim = a.head_dim;
    m.sources["head_dim"] = from + "head_dim (or hidden_size / num_attention_heads)";
  }
  m.sources["params_b"] = "computed from " + a.file +
                          " (docs/model.md, \"Parameters from a Hugging Face config\"): embeddings, attention, MLP "
                          "or experts, router and norms";
  m.sources["active_params_b"] = "computed likewise, counting num_experts_per_tok routed experts";
  m.sources["layers"] = from + "num_hidden_layers";
  m.sources["hidden"] = from + "hidden_size";
  m.sources["heads"] = from + "num_attention_heads";
  m.sources["kv_heads"] = from + "num_key_value_heads";
  m.sources["vocab"] = from + "vocab_size";
  if (a.experts > 0) {
    m.sources["experts"] = from + "routed experts";
    m.sources["experts_per_token"] = from + "num_experts_per_tok";
    m.sources["shared_experts"] = from + "shared experts";
  }
  return m;
}

}  // namespace rlcost::ingest
