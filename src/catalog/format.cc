// `rlcost catalog`: the catalog as two aligned text tables, or as JSON.
#include "catalog/format.h"

#include "catalog/price_tag.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <vector>

namespace rlcost {
namespace {

using Row = std::vector<std::string>;

// Left-aligns the first column, right-aligns the rest (numbers).
std::string Table(const Row& header, const std::vector<Row>& rows) {
  std::vector<size_t> width(header.size(), 0);
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& r : rows) {
    for (size_t c = 0; c < r.size() && c < width.size(); ++c) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const Row& r) {
    std::string out;
    for (size_t c = 0; c < r.size(); ++c) {
      if (c) out += "  ";
      out += c == 0 ? fmt::format("{:<{}}", r[c], width[c]) : fmt::format("{:>{}}", r[c], width[c]);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  size_t total = 0;
  for (size_t w : width) total += w;
  out += std::string(total + 2 * (width.size() - 1), '-') + "\n";
  for (const auto& r : rows) out += line(r);
  return out;
}

std::string Num(double v) { return v > 0 ? fmt::format("{:g}", v) : "-"; }
std::string Int(int v) { return v > 0 ? std::to_string(v) : "-"; }

}  // namespace

namespace catalog_internal {

std::string PriceTag(const GpuSpec& g) {
  auto it = g.sources.find("price_per_hour");
  if (it == g.sources.end()) return "";
  const std::string& src = it->second;
  size_t cut = src.find(", override it");
  if (cut == std::string::npos) cut = src.find(':');
  std::string head = src.substr(0, cut == std::string::npos ? src.size() : cut);
  return head.size() > 60 ? head.substr(0, 57) + "..." : head;
}

}  // namespace catalog_internal

std::string FormatCatalogTable(const Catalog& catalog) {
  std::vector<Row> gpus;
  for (const auto& [id, g] : catalog.gpus()) {
    gpus.push_back({id, Num(g.memory_gb), Num(g.hbm_tb_per_s), Num(g.tflops_bf16), Num(g.tflops_fp8),
                    Num(g.tflops_fp4), Num(g.intra_node_gb_per_s), Num(g.inter_node_gb_per_s),
                    g.price_per_hour > 0 ? fmt::format("{:.2f}", g.price_per_hour) : "-",
                    catalog_internal::PriceTag(g)});
  }
  std::vector<Row> models;
  for (const auto& [id, m] : catalog.models()) {
    std::string experts = m.is_moe() ? fmt::format("{}/{}", m.experts_per_token, m.experts) : "-";
    if (m.shared_experts > 0) experts += fmt::format("+{}", m.shared_experts);
    models.push_back({id, Num(m.params_b), Num(m.active_params_b), Int(m.layers), Int(m.hidden),
                      fmt::format("{}/{}", m.heads, m.kv_heads), Int(m.head_dim), std::string(ToString(m.attention)),
                      experts});
  }
  std::string out = "GPUs (dense peaks; links per GPU, one direction; price is a default USD per GPU-hour)\n";
  out += Table({"id", "mem GB", "TB/s", "bf16 TF/s", "fp8 TF/s", "fp4 TF/s", "intra GB/s", "inter GB/s", "$/h", "price as of"}, gpus);
  out += "\nModels (parameters in billions; experts = per token/routed+shared)\n";
  out += Table({"id", "params", "active", "layers", "hidden", "heads/kv", "head_dim", "attn", "experts"}, models);
  out += "\nSources: rlcost catalog --json, or docs/model.md.\n";
  return out;
}

std::string FormatCatalogJson(const Catalog& catalog) {
  nlohmann::json gpus = nlohmann::json::object();
  for (const auto& [id, g] : catalog.gpus()) {
    gpus[id] = {{"name", g.name},
                {"aliases", g.aliases},
                {"memory_gb", g.memory_gb},
                {"hbm_tb_per_s", g.hbm_tb_per_s},
                {"tflops_bf16", g.tflops_bf16},
                {"tflops_fp8", g.tflops_fp8},
                {"tflops_fp4", g.tflops_fp4},
                {"intra_node_gb_per_s", g.intra_node_gb_per_s},
                {"inter_node_gb_per_s", g.inter_node_gb_per_s},
                {"nvlink_domain", g.nvlink_domain},
                {"matmul_tflops_bf16", g.matmul_tflops_bf16},
                {"matmul_tflops_fp8", g.matmul_tflops_fp8},
                {"price_per_hour", g.price_per_hour},
                {"tdp_w", g.tdp_w},
                {"sources", g.sources}};
    // Every efficiency field, from the one table the catalog reader uses.
    for (const auto& f : EfficiencyFields()) gpus[id]["efficiency"][f.name] = g.efficiency.*(f.member);
  }
  nlohmann::json models = nlohmann::json::object();
  for (const auto& [id, m] : catalog.models()) {
    models[id] = {{"name", m.name},
                  {"aliases", m.aliases},
                  {"params_b", m.params_b},
                  {"active_params_b", m.active_params_b},
                  {"layers", m.layers},
                  {"hidden", m.hidden},
                  {"heads", m.heads},
                  {"kv_heads", m.kv_heads},
                  {"head_dim", m.head_dim},
                  {"vocab", m.vocab},
                  {"experts", m.experts},
                  {"experts_per_token", m.experts_per_token},
                  {"shared_experts", m.shared_experts},
                  {"attention", std::string(ToString(m.attention))},
                  {"kv_lora_rank", m.kv_lora_rank},
                  {"rope_head_dim", m.rope_head_dim},
                  {"v_head_dim", m.v_head_dim},
                  {"sources", m.sources}};
  }
  nlohmann::json root = {{"gpus", gpus}, {"models", models}};
  return root.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace rlcost
