#include "catalog/parse.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "catalog/efficiency_origin.h"
#include "core/count.h"
#include "rlcost/types.h"

namespace rlcost::catalog_internal {
namespace {

const std::vector<std::string> kModelNumericKeys = {
    "params_b", "active_params_b", "layers", "hidden", "heads", "kv_heads", "head_dim", "vocab",
    "experts", "experts_per_token", "shared_experts", "kv_lora_rank", "rope_head_dim", "v_head_dim"};
const std::vector<std::string> kGpuNumericKeys = {
    "memory_gb", "hbm_tb_per_s", "tflops_bf16", "tflops_fp8", "tflops_fp4",
    "intra_node_gb_per_s", "inter_node_gb_per_s", "price_per_hour", "nvlink_domain",
    "matmul_tflops_bf16", "matmul_tflops_fp8", "tdp_w"};

std::vector<std::string> With(std::vector<std::string> base, std::initializer_list<const char*> more) {
  for (const char* m : more) base.emplace_back(m);
  return base;
}

std::string Join(const std::string& path, const std::string& key) {
  return path.empty() ? key : path + "." + key;
}

void Add(std::vector<Problem>& problems, std::string path, std::string message, const YAML::Node& at) {
  Problem p;
  p.path = std::move(path);
  p.message = std::move(message);
  p.line = LineOf(at);
  problems.push_back(std::move(p));
}

// How a node looks, for "expected X, got Y" messages.
std::string Describe(const YAML::Node& n) {
  if (!n.IsDefined() || n.IsNull()) return "nothing";
  if (n.IsMap()) return "a mapping";
  if (n.IsSequence()) return "a list";
  return "'" + n.Scalar() + "'";
}

// Every key of `map` must be one of `known`; a near miss gets a did-you-mean.
void CheckKeys(const YAML::Node& map, const std::vector<std::string>& known, const std::string& path,
               std::vector<Problem>& problems) {
  for (auto it = map.begin(); it != map.end(); ++it) {
    if (!it->first.IsScalar()) {
      Add(problems, path, "keys must be plain names, got " + Describe(it->first), it->first);
      continue;
    }
    const std::string& key = it->first.Scalar();
    bool ok = false;
    for (const auto& k : known) ok = ok || k == key;
    if (ok) continue;
    std::string msg = "unknown key '" + key + "'";
    std::string near = ClosestMatch(key, known);
    if (!near.empty()) msg += " (did you mean '" + near + "'?)";
    Add(problems, Join(path, key), msg, it->first);
  }
}

std::optional<double> ReadDouble(const YAML::Node& n, const std::string& path, std::vector<Problem>& problems) {
  double v = 0;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !std::isfinite(v)) {
    Add(problems, path, "expected a number, got " + Describe(n), n);
    return std::nullopt;
  }
  return v;
}

std::optional<int> ReadInt(const YAML::Node& n, const std::string& path, std::vector<Problem>& problems) {
  double v = 0;
  std::optional<int> i;
  if (!n.IsScalar() || !YAML::convert<double>::decode(n, v) || !(i = WholeNumber(v, -2000000000, 2000000000))) {
    Add(problems, path, "expected a whole number, got " + Describe(n), n);
  }
  return i;
}

std::optional<std::string> ReadString(const YAML::Node& n, const std::string& path,
                                      std::vector<Problem>& problems) {
  if (!n.IsScalar()) {
    Add(problems, path, "expected text, got " + Describe(n), n);
    return std::nullopt;
  }
  return n.Scalar();
}

// `sources:` is a mapping of field name -> text; `source:` one text for the entry.
void ReadSources(const YAML::Node& node, const std::string& path, const std::vector<std::string>& fields,
                 std::map<std::string, std::string>& out, std::vector<Problem>& problems) {
  if (auto s = node["source"]) {
    if (auto text = ReadString(s, Join(path, "source"), problems)) out["source"] = *text;
  }
  auto s = node["sources"];
  if (!s) return;
  if (!s.IsMap()) {
    Add(problems, Join(path, "sources"), "expected a mapping of field -> source, got " + Describe(s), s);
    return;
  }
  CheckKeys(s, fields, Join(path, "sources"), problems);
  for (auto it = s.begin(); it != s.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    if (auto text = ReadString(it->second, Join(path, "sources." + it->first.Scalar()), problems)) {
      out[it->first.Scalar()] = *text;
    }
  }
}

std::string Num(double v) { return fmt::format("{:g}", v); }

// `aliases:` is a list of non-empty names.
std::vector<std::string> ReadAliases(const YAML::Node& node, const std::string& path,
                                     std::vector<Problem>& problems) {
  std::vector<std::string> out;
  YAML::Node a = node["aliases"];
  if (!a) return out;
  const std::string p = Join(path, "aliases");
  if (!a.IsSequence()) {
    Add(problems, p, "expected a list of names (e.g. [h100, H100-80GB]), got " + Describe(a), a);
    return out;
  }
  for (size_t i = 0; i < a.size(); ++i) {
    const std::string pi = p + "[" + std::to_string(i) + "]";
    if (!a[i].IsScalar() || a[i].Scalar().empty()) {
      Add(problems, pi, "expected a non-empty name, got " + Describe(a[i]), a[i]);
      continue;
    }
    out.push_back(a[i].Scalar());
  }
  return out;
}

}  // namespace

int LineOf(const YAML::Node& node) {
  if (!node.IsDefined()) return 0;
  const int line = node.Mark().line;
  return line >= 0 ? line + 1 : 0;
}

std::vector<std::string> EfficiencyFieldNames() {
  std::vector<std::string> names;
  for (const auto& f : EfficiencyFields()) names.emplace_back(f.name);
  return names;
}

void EfficiencyPatch::ApplyTo(Efficiency& eff, std::map<std::string, std::string>* sources_out) const {
  for (const auto& [member, value] : values) eff.*member = value;
  if (sources_out) {
    for (const auto& [k, v] : sources) (*sources_out)[k] = v;
  }
}

EfficiencyPatch ParseEfficiencyPatch(const YAML::Node& node, const std::string& path,
                                     std::vector<Problem>& problems) {
  EfficiencyPatch patch;
  if (!node.IsDefined() || !node.IsMap()) {
    Add(problems, path, "expected a mapping of efficiency fields (" + EfficiencyFieldNames().front() +
                            ", ...), got " + Describe(node), node);
    return patch;
  }
  const std::vector<std::string> fields = EfficiencyFieldNames();
  CheckKeys(node, With(fields, {"sources", "source", "measured_on"}), path, problems);
  if (YAML::Node v = node["measured_on"]) {
    if (auto id = ReadString(v, Join(path, "measured_on"), problems)) patch.measured_on = *id;
  }
  for (const auto& f : EfficiencyFields()) {
    YAML::Node v = node[f.name];
    if (!v) continue;
    const std::string p = Join(path, f.name);
    auto value = ReadDouble(v, p, problems);
    if (!value) continue;
    if (f.fraction && (*value <= 0 || *value > 1)) {
      Add(problems, p, "expected a fraction in (0, 1], got " + Num(*value), v);
      continue;
    }
    if (!f.fraction && *value < 0) {
      Add(problems, p, "expected seconds >= 0, got " + Num(*value), v);
      continue;
    }
    patch.values.emplace_back(f.member, *value);
  }
  std::map<std::string, std::string> sources;
  ReadSources(node, path, fields, sources, problems);
  for (auto& [k, v] : sources) patch.sources["efficiency." + k] = v;
  return patch;
}

void ParseEfficiency(const YAML::Node& node, const std::string& path, Efficiency& eff,
                     std::vector<Problem>& problems) {
  ParseEfficiencyPatch(node, path, problems).ApplyTo(eff, nullptr);
}

ModelSpec ParseModel(const YAML::Node& node, const std::string& id, const std::string& path,
                     std::vector<Problem>& problems) {
  ModelSpec m;
  m.id = id;
  m.name = id;
  if (!node.IsDefined() || !node.IsMap()) {
    Add(problems, path,
        "expected a catalog model id or a mapping of model fields (name, params_b, layers, hidden, heads, ...), got " +
            Describe(node),
        node);
    return m;
  }
  CheckKeys(node, With(kModelNumericKeys, {"name", "aliases", "attention", "sources", "source"}), path, problems);
  m.aliases = ReadAliases(node, path, problems);

  auto field = [&](const char* key) { return Join(path, key); };
  auto dbl = [&](const char* key) -> std::optional<double> {
    YAML::Node v = node[key];
    return v ? ReadDouble(v, field(key), problems) : std::nullopt;
  };
  auto integer = [&](const char* key) -> std::optional<int> {
    YAML::Node v = node[key];
    return v ? ReadInt(v, field(key), problems) : std::nullopt;
  };
  auto missing = [&](const char* key, const char* what) {
    Add(problems, field(key), std::string("missing (") + what + ")", node);
  };

  if (auto v = node["name"]) {
    if (auto s = ReadString(v, field("name"), problems)) m.name = *s;
  }
  const auto params = dbl("params_b");
  const auto active = dbl("active_params_b");
  const auto layers = integer("layers");
  const auto hidden = integer("hidden");
  const auto heads = integer("heads");
  const auto kv_heads = integer("kv_heads");
  const auto head_dim = integer("head_dim");
  const auto vocab = integer("vocab");
  const auto experts = integer("experts");
  const auto experts_per_token = integer("experts_per_token");
  const auto shared = integer("shared_experts");
  const auto kv_lora = integer("kv_lora_rank");
  const auto rope = integer("rope_head_dim");
  const auto v_head = integer("v_head_dim");

  // Required, positive.
  if (!node["params_b"]) missing("params_b", "total parameters, billions");
  if (!node["layers"]) missing("layers", "number of transformer layers");
  if (!node["hidden"]) missing("hidden", "hidden size");
  if (!node["heads"]) missing("heads", "attention heads");
  auto positive_d = [&](const char* key, const std::optional<double>& v) {
    if (v && *v <= 0) Add(problems, field(key), "must be > 0, got " + Num(*v), node[key]);
  };
  auto positive_i = [&](const char* key, const std::optional<int>& v) {
    if (v && *v <= 0) Add(problems, field(key), "must be > 0, got " + std::to_string(*v), node[key]);
  };
  auto non_negative = [&](const char* key, const std::optional<int>& v) {
    if (v && *v < 0) Add(problems, field(key), "must be >= 0, got " + std::to_string(*v), node[key]);
  };
  positive_d("params_b", params);
  positive_d("active_params_b", active);
  // 1e5 billion parameters is 50x the largest model disclosed (~2T); past it
  // the FLOP and byte counts leave the range the cost arithmetic is built for.
  for (const char* key : {"params_b", "active_params_b"}) {
    const auto& v = std::string_view(key) == "params_b" ? params : active;
    if (v && *v > 1e5) Add(problems, field(key), "got " + Num(*v) + "; expected at most 1e5 (billions of parameters)", node[key]);
  }
  positive_i("layers", layers);
  positive_i("hidden", hidden);
  positive_i("heads", heads);
  positive_i("kv_heads", kv_heads);
  positive_i("head_dim", head_dim);
  non_negative("vocab", vocab);
  non_negative("experts", experts);
  non_negative("experts_per_token", experts_per_token);
  non_negative("shared_experts", shared);
  non_negative("kv_lora_rank", kv_lora);
  non_negative("rope_head_dim", rope);
  non_negative("v_head_dim", v_head);  // 0 = head_dim (what `catalog --json` writes back)

  m.params_b = params.value_or(0);
  m.active_params_b = active.value_or(m.params_b);
  m.layers = layers.value_or(0);
  m.hidden = hidden.value_or(0);
  m.heads = heads.value_or(0);
  m.kv_heads = kv_heads.value_or(m.heads);
  m.head_dim = head_dim ? *head_dim : (m.heads > 0 ? m.hidden / m.heads : 0);
  m.vocab = vocab.value_or(0);
  m.experts = experts.value_or(0);
  m.experts_per_token = experts_per_token.value_or(0);
  m.shared_experts = shared.value_or(0);
  m.kv_lora_rank = kv_lora.value_or(0);
  m.rope_head_dim = rope.value_or(0);
  m.v_head_dim = v_head.value_or(0);

  // Consistency between fields.
  if (m.params_b > 0 && m.active_params_b > m.params_b) {
    Add(problems, field("active_params_b"),
        "active parameters " + Num(m.active_params_b) + " B exceed total params_b " + Num(m.params_b) + " B",
        node["active_params_b"]);
  }
  if (m.heads > 0 && m.kv_heads > 0 && m.heads % m.kv_heads != 0) {
    Add(problems, field("kv_heads"),
        "kv_heads " + std::to_string(m.kv_heads) + " must divide heads " + std::to_string(m.heads) +
            " (each KV head serves a whole group of query heads)",
        node["kv_heads"] ? node["kv_heads"] : node);
  }
  if (!head_dim && m.heads > 0 && m.hidden > 0 && m.hidden % m.heads != 0) {
    Add(problems, field("head_dim"),
        "missing, and hidden " + std::to_string(m.hidden) + " is not a multiple of heads " + std::to_string(m.heads),
        node);
  }
  if (m.experts > 0) {
    if (m.experts_per_token <= 0) {
      missing("experts_per_token", "routed experts per token; required when experts > 0");
    } else if (m.experts_per_token > m.experts) {
      Add(problems, field("experts_per_token"),
          "experts_per_token " + std::to_string(m.experts_per_token) + " exceeds experts " +
              std::to_string(m.experts),
          node["experts_per_token"]);
    }
  } else if (m.experts_per_token > 0) {
    Add(problems, field("experts_per_token"),
        "set to " + std::to_string(m.experts_per_token) + " but experts is 0 (dense); set experts for an MoE model",
        node["experts_per_token"]);
  }
  if (auto v = node["attention"]) {
    if (auto s = ReadString(v, field("attention"), problems)) {
      if (auto a = AttentionFromString(*s)) {
        m.attention = *a;
      } else {
        std::string msg = "unknown attention '" + *s + "', expected " + AcceptedNames<Attention>();
        Add(problems, field("attention"), msg, v);
      }
    }
  }
  if (m.attention == Attention::kMla && m.kv_lora_rank <= 0) {
    Add(problems, field("kv_lora_rank"),
        "attention: mla needs kv_lora_rank > 0 (the compressed KV width cached per layer)",
        node["kv_lora_rank"] ? node["kv_lora_rank"] : node);
  }

  ReadSources(node, path, With(kModelNumericKeys, {"name", "attention", "source"}), m.sources, problems);
  return m;
}

void SetEfficiencyBorrowedFrom(GpuSpec& g, const std::string& from) {
  SetOriginOfEfficiency(g, EfficiencyOrigin{from, /*whole_row=*/true, {}});
}

void ApplyEfficiencyRow(GpuSpec& g, const EfficiencyPatch& row) {
  // What the GPU borrowed before this row: the fields it leaves out stay so.
  const EfficiencyOrigin before = OriginOfEfficiency(g);
  row.ApplyTo(g.efficiency, &g.sources);
  if (!row.measured_on.empty()) {
    SetEfficiencyBorrowedFrom(g, row.measured_on == g.id ? "" : row.measured_on);
    return;
  }
  EfficiencyOrigin still{before.borrowed_from == g.id ? "" : before.borrowed_from, /*whole_row=*/false, {}};
  for (const auto& f : EfficiencyFields()) {
    if (!f.per_gpu) continue;  // the same for every GPU: never borrowed
    const bool given = std::any_of(row.values.begin(), row.values.end(),
                                   [&](const auto& v) { return v.first == f.member; });
    const bool was_borrowed = std::find(before.borrowed_fields.begin(), before.borrowed_fields.end(),
                                        std::string(f.name)) != before.borrowed_fields.end();
    if (was_borrowed && !given) still.borrowed_fields.emplace_back(f.name);
  }
  SetOriginOfEfficiency(g, still);
}

GpuSpec ParseGpu(const YAML::Node& node, const std::string& id, const std::string& path,
                 const EfficiencyPatch& base, std::vector<Problem>& problems) {
  GpuSpec g;
  g.id = id;
  g.name = id;
  base.ApplyTo(g.efficiency, &g.sources);
  SetEfficiencyBorrowedFrom(g, base.measured_on == id ? "" : base.measured_on);
  if (!node.IsDefined() || !node.IsMap()) {
    Add(problems, path,
        "expected a mapping of GPU fields (name, memory_gb, hbm_tb_per_s, tflops_bf16, ...), got " + Describe(node),
        node);
    return g;
  }
  CheckKeys(node, With(kGpuNumericKeys, {"name", "aliases", "efficiency", "sources", "source"}), path, problems);
  g.aliases = ReadAliases(node, path, problems);
  if (auto v = node["name"]) {
    if (auto s = ReadString(v, Join(path, "name"), problems)) g.name = *s;
  }
  struct Field {
    const char* key;
    double GpuSpec::*member;
    bool required;
    bool positive;  // else >= 0
    const char* what;
    // Plausible range: two orders of magnitude around every GPU built (H100:
    // 80 GB, 3.35 TB/s, 989 TFLOP/s bf16, 450 GB/s NVLink); a value outside
    // is a typo in units, and 1e-300 TB/s would print a 7e304 s step.
    double lo, hi;
  };
  const Field fields[] = {
      {"memory_gb", &GpuSpec::memory_gb, true, true, "HBM capacity, GB", 1, 1e5},
      {"hbm_tb_per_s", &GpuSpec::hbm_tb_per_s, true, true, "peak memory bandwidth, TB/s", 0.01, 1e3},
      {"tflops_bf16", &GpuSpec::tflops_bf16, true, true, "dense BF16 peak, TFLOP/s", 1, 1e6},
      {"tflops_fp8", &GpuSpec::tflops_fp8, false, false, "dense FP8 peak, TFLOP/s; 0 = unsupported", 0, 1e6},
      {"tflops_fp4", &GpuSpec::tflops_fp4, false, false, "dense FP4 peak, TFLOP/s; 0 = unsupported", 0, 1e6},
      {"intra_node_gb_per_s", &GpuSpec::intra_node_gb_per_s, true, true, "GPU-to-GPU link in a node, GB/s one way",
       0.01, 1e5},
      {"inter_node_gb_per_s", &GpuSpec::inter_node_gb_per_s, true, true, "network per GPU, GB/s one way", 0.001, 1e5},
      {"price_per_hour", &GpuSpec::price_per_hour, true, false, "USD per GPU-hour", 0, 1e3},
      {"matmul_tflops_bf16", &GpuSpec::matmul_tflops_bf16, false, false,
       "measured best dense BF16 matmul, TFLOP/s; 0 = not measured", 0, 1e6},
      {"matmul_tflops_fp8", &GpuSpec::matmul_tflops_fp8, false, false,
       "measured best dense FP8 matmul, TFLOP/s; 0 = not measured", 0, 1e6},
      {"tdp_w", &GpuSpec::tdp_w, false, false, "board power limit (TDP), W; 0 = not stated", 10, 1e5},
  };
  for (const auto& f : fields) {
    const std::string p = Join(path, f.key);
    YAML::Node v = node[f.key];
    if (!v) {
      if (f.required) Add(problems, p, std::string("missing (") + f.what + ")", node);
      continue;
    }
    auto value = ReadDouble(v, p, problems);
    if (!value) continue;
    if (f.positive && *value <= 0) {
      Add(problems, p, "must be > 0, got " + Num(*value), v);
    } else if (*value < 0) {
      Add(problems, p, "must be >= 0, got " + Num(*value), v);
    } else if ((*value != 0 && *value < f.lo) || *value > f.hi) {
      Add(problems, p,
          "got " + Num(*value) + "; expected " + f.what + " in [" + Num(f.lo) + ", " + Num(f.hi) +
              "] (two orders of magnitude around every GPU built: a unit typo?)",
          v);
    }
    g.*(f.member) = *value;
  }
  // A measured matmul cannot beat the datasheet peak it is a fraction of.
  const std::pair<const char*, std::pair<double, double>> matmuls[] = {
      {"matmul_tflops_bf16", {g.matmul_tflops_bf16, g.tflops_bf16}},
      {"matmul_tflops_fp8", {g.matmul_tflops_fp8, g.tflops_fp8}}};
  for (const auto& [key, vals] : matmuls) {
    if (vals.first > 0 && vals.first > vals.second) {
      Add(problems, Join(path, key),
          "must not exceed the dense peak of the same precision (" + Num(vals.second) + " TFLOP/s), got " +
              Num(vals.first),
          node[key]);
    }
  }
  if (YAML::Node v = node["nvlink_domain"]) {
    const std::string p = Join(path, "nvlink_domain");
    if (auto n = ReadInt(v, p, problems)) {
      if (*n < 1) {
        Add(problems, p, "must be >= 1 (GPUs joined by NVLink), got " + std::to_string(*n), v);
      } else {
        g.nvlink_domain = *n;
      }
    }
  }
  if (auto e = node["efficiency"]) {
    // Figures of its own, unless the mapping says whose they are (`rlcost
    // catalog --json` writes `measured_on` back for a borrowed row).
    ApplyEfficiencyRow(g, ParseEfficiencyPatch(e, Join(path, "efficiency"), problems));
  }
  // Source keys: the fields, plus "efficiency.<field>" so that `rlcost catalog
  // --json` output (which carries the efficiency sources) reads back in.
  std::vector<std::string> source_keys = With(kGpuNumericKeys, {"name", "source"});
  for (const auto& f : EfficiencyFieldNames()) source_keys.push_back("efficiency." + f);
  for (const char* k : {kEfficiencyBorrowedAll, kEfficiencyBorrowedFrom, kEfficiencyBorrowedFields}) {
    source_keys.emplace_back(k);
  }
  ReadSources(node, path, source_keys, g.sources, problems);
  return g;
}

GpuSpec ParseGpu(const YAML::Node& node, const std::string& id, const std::string& path,
                 std::vector<Problem>& problems) {
  return ParseGpu(node, id, path, EfficiencyPatch{}, problems);
}

}  // namespace rlcost::catalog_internal
