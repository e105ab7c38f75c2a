#include "catalog/codegen.h"

#include <cmath>
#include <cstdio>

namespace rlcost::catalog_internal {
namespace {

// Fields of an aggregate, counted the way Boost.PFR does: the most
// initializers `T{...}` accepts. Adding a field to one of these structs stops
// the build here until CatalogToCpp writes it too.
struct AnyField {
  template <typename T>
  operator T() const;
};
template <typename T, typename... A>
constexpr size_t FieldCount() {
  if constexpr (requires { T{A{}..., AnyField{}}; }) {
    return FieldCount<T, A..., AnyField>();
  } else {
    return sizeof...(A);
  }
}
static_assert(FieldCount<Efficiency>() == 13, "Efficiency changed: write the new field in CatalogToCpp");
static_assert(FieldCount<GpuSpec>() == 17, "GpuSpec changed: write the new field in CatalogToCpp");
static_assert(FieldCount<ModelSpec>() == 19, "ModelSpec changed: write the new field in CatalogToCpp");

// A C++ string literal; octal escapes (always three digits) for anything
// outside printable ASCII, so no escape can swallow the next character.
std::string Lit(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f && c != '?') {  // '?' : no trigraph surprises
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

// Round-trips exactly (17 significant digits).
std::string Dbl(double v) {
  if (std::isnan(v)) return "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) return v > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string Sources(const std::map<std::string, std::string>& m) {
  std::string out = "{";
  for (const auto& [k, v] : m) out += "{" + Lit(k) + ", " + Lit(v) + "}, ";
  return out + "}";
}

std::string Strings(const std::vector<std::string>& v) {
  std::string out = "{";
  for (const auto& x : v) out += Lit(x) + ", ";
  return out + "}";
}

}  // namespace

std::string CatalogToCpp(const Catalog& catalog) {
  std::string o;
  o += "// Generated at build time from catalog/*.yaml by rlcost_catalog_gen\n"
       "// (src/catalog/codegen.cc). Do not edit: edit the YAML.\n"
       "#include <limits>\n\n#include \"rlcost/catalog.h\"\n\nnamespace rlcost {\n\n"
       "Result<Catalog> Catalog::Builtin() {\n  Catalog cat;\n";
  for (const auto& [id, g] : catalog.gpus()) {
    o += "  {\n    GpuSpec g;\n";
    o += "    g.id = " + Lit(g.id) + ";\n    g.name = " + Lit(g.name) + ";\n";
    o += "    g.memory_gb = " + Dbl(g.memory_gb) + ";\n    g.hbm_tb_per_s = " + Dbl(g.hbm_tb_per_s) + ";\n";
    o += "    g.tflops_bf16 = " + Dbl(g.tflops_bf16) + ";\n    g.tflops_fp8 = " + Dbl(g.tflops_fp8) + ";\n";
    o += "    g.tflops_fp4 = " + Dbl(g.tflops_fp4) + ";\n";
    o += "    g.intra_node_gb_per_s = " + Dbl(g.intra_node_gb_per_s) + ";\n";
    o += "    g.inter_node_gb_per_s = " + Dbl(g.inter_node_gb_per_s) + ";\n";
    o += "    g.nvlink_domain = " + std::to_string(g.nvlink_domain) + ";\n";
    o += "    g.matmul_tflops_bf16 = " + Dbl(g.matmul_tflops_bf16) + ";\n";
    o += "    g.matmul_tflops_fp8 = " + Dbl(g.matmul_tflops_fp8) + ";\n";
    o += "    g.price_per_hour = " + Dbl(g.price_per_hour) + ";\n";
    o += "    g.tdp_w = " + Dbl(g.tdp_w) + ";\n";
    o += "    g.aliases = " + Strings(g.aliases) + ";\n";
    for (const auto& f : EfficiencyFields()) {
      o += std::string("    g.efficiency.") + f.name + " = " + Dbl(g.efficiency.*f.member) + ";\n";
    }
    o += "    g.sources = " + Sources(g.sources) + ";\n";
    o += "    cat.AddGpu(std::move(g));\n  }\n";
  }
  for (const auto& [id, m] : catalog.models()) {
    o += "  {\n    ModelSpec m;\n";
    o += "    m.id = " + Lit(m.id) + ";\n    m.name = " + Lit(m.name) + ";\n";
    o += "    m.params_b = " + Dbl(m.params_b) + ";\n    m.active_params_b = " + Dbl(m.active_params_b) + ";\n";
    const std::pair<const char*, int> ints[] = {
        {"layers", m.layers},          {"hidden", m.hidden},
        {"heads", m.heads},            {"kv_heads", m.kv_heads},
        {"head_dim", m.head_dim},      {"vocab", m.vocab},
        {"experts", m.experts},        {"experts_per_token", m.experts_per_token},
        {"shared_experts", m.shared_experts}, {"kv_lora_rank", m.kv_lora_rank},
        {"rope_head_dim", m.rope_head_dim},   {"v_head_dim", m.v_head_dim}};
    for (const auto& [name, v] : ints) o += std::string("    m.") + name + " = " + std::to_string(v) + ";\n";
    o += "    m.attention = static_cast<Attention>(" + std::to_string(static_cast<int>(m.attention)) + ");\n";
    o += "    m.aliases = " + Strings(m.aliases) + ";\n";
    o += "    m.sources = " + Sources(m.sources) + ";\n";
    o += "    cat.AddModel(std::move(m));\n  }\n";
  }
  o += "  return cat;\n}\n\n}  // namespace rlcost\n";
  return o;
}

}  // namespace rlcost::catalog_internal
