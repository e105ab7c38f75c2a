// The catalog loader: built-in YAML compiled into the binary (catalog/*.yaml)
// plus user files of the same shape. A document is applied all-or-nothing:
// every problem is collected, and the catalog changes only when there are none.
#include "rlcost/catalog.h"

#include <fstream>
#include <sstream>

#include <yaml-cpp/yaml.h>

#include "catalog/parse.h"
#include "core/file.h"
#include "core/yaml.h"
#include "rlcost/embedded.h"

namespace rlcost {

std::optional<double> OverlappedIterOverheadS(InferenceEngine engine) {
  switch (engine) {
    case InferenceEngine::kVllm:
      return std::nullopt;
    case InferenceEngine::kVllmAsync:
      // vLLM async scheduling: "bs=256, which dropped from the original 5-6ms
      // to 150-170us" (vllm-project/vllm PR #11133); middle 160 us.
      return 160e-6;
    case InferenceEngine::kSglang:
      // SGLang v0.4 overlap scheduler: "5 consecutive decoding batches, and you
      // can see there is no single idle time on the GPU" (lmsys.org blog,
      // 2024-12-04, "zero-overhead batch scheduler").
      return 0.0;
    case InferenceEngine::kTrtllm:
      // TensorRT-LLM's overlap scheduler, "Enabled by default" (TensorRT-LLM
      // docs, features/overlap-scheduler).
      return 0.0;
  }
  return std::nullopt;
}

const std::vector<EfficiencyField>& EfficiencyFields() {
  static const std::vector<EfficiencyField> kFields = {
      {"decode_bw", &Efficiency::decode_bw, true},
      {"decode_compute", &Efficiency::decode_compute, true},
      {"decode_iter_overhead_s", &Efficiency::decode_iter_overhead_s, false},
      {"moe_layer_decode_s", &Efficiency::moe_layer_decode_s, false},
      {"moe_layer_train_s", &Efficiency::moe_layer_train_s, false},
      {"prefill_mfu", &Efficiency::prefill_mfu, true},
      {"train_mfu", &Efficiency::train_mfu, true},
      {"train_mfu_moe", &Efficiency::train_mfu_moe, true},
      {"logprob_mfu", &Efficiency::logprob_mfu, true},
      {"step_overhead_s", &Efficiency::step_overhead_s, false},
      {"weight_sync_eff", &Efficiency::weight_sync_eff, true},
      {"typical_update_share", &Efficiency::typical_update_share, true, /*per_gpu=*/false},
      {"pageable_copy_s_per_gb", &Efficiency::pageable_copy_s_per_gb, false, /*per_gpu=*/false},
  };
  return kFields;
}


double GpuSpec::PeakFlops(Precision p) const {
  if (p == Precision::kFp4 && tflops_fp4 > 0) return tflops_fp4 * 1e12;
  if (p != Precision::kBf16 && tflops_fp8 > 0) return tflops_fp8 * 1e12;
  return tflops_bf16 * 1e12;
}

double GpuSpec::MatmulFraction(Precision p) const {
  const double bf16 = matmul_tflops_bf16 > 0 ? matmul_tflops_bf16 / tflops_bf16 : kAssumedMatmulFraction;
  if (p == Precision::kBf16 || tflops_fp8 <= 0) return bf16;
  return matmul_tflops_fp8 > 0 ? matmul_tflops_fp8 / tflops_fp8 : bf16;
}

bool GpuSpec::MatmulFractionMeasured(Precision p) const {
  return p == Precision::kBf16 || tflops_fp8 <= 0 ? matmul_tflops_bf16 > 0 : matmul_tflops_fp8 > 0;
}

bool GpuSpec::Supports(Precision p) const {
  return p == Precision::kBf16 || (p == Precision::kFp8 && tflops_fp8 > 0) ||
         (p == Precision::kFp4 && tflops_fp4 > 0);
}

double ModelSpec::routed_expert_params_b() const {
  if (!is_moe() || experts_per_token >= experts) return 0;
  return (params_b - active_params_b) / (1.0 - double(experts_per_token) / experts);
}

double ModelSpec::dense_params_b() const { return params_b - routed_expert_params_b(); }

namespace {

using catalog_internal::EfficiencyPatch;

}  // namespace

// The `default:` mapping of the built-in efficiency.yaml: what a GPU added by
// a user file or written inline in a scenario starts from (with its sources),
// before its own `efficiency:`.
const EfficiencyPatch& catalog_internal::BuiltinDefaultEfficiency() {
  static const EfficiencyPatch patch = [] {
    std::vector<Problem> ignored;  // reported when Builtin() applies the same file
    try {
      auto text = EmbeddedFile("efficiency.yaml");
      if (!text) return EfficiencyPatch{};
      YAML::Node root = YAML::Load(std::string(*text));
      YAML::Node def = root["efficiency"]["default"];
      if (!def) return EfficiencyPatch{};
      return catalog_internal::ParseEfficiencyPatch(def, "efficiency.default", ignored);
    } catch (const YAML::Exception&) {
      return EfficiencyPatch{};
    }
  }();
  return patch;
}

namespace {

using catalog_internal::BuiltinDefaultEfficiency;

std::vector<std::string> Keys(const std::map<std::string, GpuSpec>& m) {
  std::vector<std::string> v;
  for (const auto& [k, _] : m) v.push_back(k);
  return v;
}

bool IdOk(const YAML::Node& key, const std::string& path, std::vector<Problem>& problems) {
  if (key.IsScalar() && !key.Scalar().empty()) return true;
  Problem p;
  p.path = path;
  p.message = "ids must be non-empty names";
  p.line = catalog_internal::LineOf(key);
  problems.push_back(std::move(p));
  return false;
}


// A GPU entry as the YAML a catalog file would give for it: every field, its
// efficiencies and sources. A partial entry for a known GPU is laid over this.
YAML::Node GpuToNode(const GpuSpec& g) {
  YAML::Node n;
  n["name"] = g.name;
  for (const auto& a : g.aliases) n["aliases"].push_back(a);
  n["memory_gb"] = g.memory_gb;
  n["hbm_tb_per_s"] = g.hbm_tb_per_s;
  n["tflops_bf16"] = g.tflops_bf16;
  n["tflops_fp8"] = g.tflops_fp8;
  n["tflops_fp4"] = g.tflops_fp4;
  n["intra_node_gb_per_s"] = g.intra_node_gb_per_s;
  n["inter_node_gb_per_s"] = g.inter_node_gb_per_s;
  n["nvlink_domain"] = g.nvlink_domain;
  n["matmul_tflops_bf16"] = g.matmul_tflops_bf16;
  n["matmul_tflops_fp8"] = g.matmul_tflops_fp8;
  n["price_per_hour"] = g.price_per_hour;
  if (g.tdp_w > 0) n["tdp_w"] = g.tdp_w;
  for (const auto& f : EfficiencyFields()) n["efficiency"][f.name] = g.efficiency.*(f.member);
  for (const auto& [k, v] : g.sources) n["sources"][k] = v;
  return n;
}

// `gpus: {h100-sxm: {price_per_hour: 2.95}}` for a GPU the catalog already
// has changes only the fields it names; a field given without its own source
// is sourced to the file that set it.
YAML::Node OverlayGpu(const GpuSpec& existing, const YAML::Node& partial, const std::string& origin) {
  YAML::Node merged = GpuToNode(existing);
  YAML::Node given_sources = partial["sources"];
  for (auto it = partial.begin(); it != partial.end(); ++it) {
    if (!it->first.IsScalar()) {
      merged[it->first] = it->second;  // ParseGpu reports it
      continue;
    }
    const std::string key = it->first.Scalar();
    if (key == "efficiency" && it->second.IsMap()) {
      for (auto e = it->second.begin(); e != it->second.end(); ++e) {
        merged["efficiency"][e->first.Scalar()] = e->second;
        const std::string sk = "efficiency." + e->first.Scalar();
        if (e->first.Scalar() != "sources" && e->first.Scalar() != "source" &&
            !(given_sources && given_sources.IsMap() && given_sources[sk])) {
          merged["sources"][sk] = "set in " + origin;
        }
      }
      continue;
    }
    if (key == "sources" && it->second.IsMap()) {
      for (auto e = it->second.begin(); e != it->second.end(); ++e) merged["sources"][e->first] = e->second;
      continue;
    }
    merged[key] = it->second;
    if (key != "name" && key != "aliases" && key != "source" && !(given_sources && given_sources.IsMap() && given_sources[key])) {
      merged["sources"][key] = "set in " + origin;
    }
  }
  return merged;
}

void AddProblem(std::vector<Problem>& problems, std::string path, std::string message, const YAML::Node& at) {
  Problem p;
  p.path = std::move(path);
  p.message = std::move(message);
  p.line = catalog_internal::LineOf(at);
  problems.push_back(std::move(p));
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

// Lookup by id or alias, ignoring case; with `hf_tail`, "org/Name" also tries
// "name" (a Hugging Face id names the model after the organisation).
template <typename Spec>
const Spec* FindByName(const std::map<std::string, Spec>& entries, std::string_view name, bool hf_tail) {
  if (auto it = entries.find(std::string(name)); it != entries.end()) return &it->second;
  std::vector<std::string> tries = {Lower(name)};
  if (size_t slash = name.rfind('/'); hf_tail && slash != std::string_view::npos && slash + 1 < name.size()) {
    tries.push_back(Lower(name.substr(slash + 1)));
  }
  for (const std::string& want : tries) {
    for (const auto& [id, spec] : entries) {
      if (Lower(id) == want) return &spec;
      for (const auto& a : spec.aliases) {
        if (Lower(a) == want) return &spec;
        // "Qwen2.5-Math-7B" finds the alias "Qwen/Qwen2.5-Math-7B".
        if (size_t slash = a.rfind('/'); hf_tail && slash != std::string::npos && Lower(a.substr(slash + 1)) == want) {
          return &spec;
        }
      }
    }
  }
  return nullptr;
}

// Every id and alias names one entry only, ignoring case.
template <typename Spec>
void CheckNamesUnique(const std::map<std::string, Spec>& entries, const std::string& section,
                      std::vector<Problem>& problems) {
  std::map<std::string, std::string> owner;  // lower-case name -> id
  for (const auto& [id, spec] : entries) {
    std::vector<std::string> names = {id};
    names.insert(names.end(), spec.aliases.begin(), spec.aliases.end());
    for (const auto& n : names) {
      auto [it, fresh] = owner.emplace(Lower(n), id);
      if (fresh || it->second == id) continue;
      Problem p;
      p.path = section + "." + id + (n == id ? "" : ".aliases");
      p.message = "the name '" + n + "' already names '" + it->second + "' (ids and aliases ignore case)";
      problems.push_back(std::move(p));
    }
  }
}

}  // namespace

Result<Catalog> Catalog::BuiltinFromYaml() {
  Catalog cat;
  for (const char* name : {"gpus.yaml", "models.yaml", "efficiency.yaml"}) {
    auto text = EmbeddedFile(name);
    if (!text) {
      return Fail(ErrorCode::kInternal, "catalog", std::string("built-in file ") + name + " is not embedded");
    }
    if (auto ok = cat.AddText(*text, std::string("catalog/") + name); !ok) {
      Error e = ok.error();
      e.code = ErrorCode::kInternal;  // the built-in data is ours: a problem there is a bug
      return Fail(std::move(e));
    }
  }
  return cat;
}

Result<void> Catalog::AddText(std::string_view text, const std::string& origin) {
  std::vector<Problem> problems;
  std::map<std::string, GpuSpec> gpus = gpus_;
  std::map<std::string, ModelSpec> models = models_;
  try {
    // One document, and nothing yaml-cpp would loop on (core/yaml.h).
    auto doc = LoadOneYamlDocument(text, origin, "a catalog file");
    if (!doc) return Fail(doc.error());
    YAML::Node root = *doc;
    if (!root.IsDefined() || root.IsNull() || !root.IsMap()) {
      AddProblem(problems, "",
                 "expected a mapping with top-level gpus:, models: and/or efficiency:", root);
    } else {
      for (auto it = root.begin(); it != root.end(); ++it) {
        const std::string key = it->first.IsScalar() ? it->first.Scalar() : "";
        if (key == "gpus" || key == "models" || key == "efficiency") continue;
        std::string msg = "unknown top-level key '" + key + "', expected gpus, models or efficiency";
        std::string near = ClosestMatch(key, {"gpus", "models", "efficiency"});
        if (!near.empty()) msg += " (did you mean '" + near + "'?)";
        AddProblem(problems, key, msg, it->first);
      }
      if (YAML::Node g = root["gpus"]) {
        if (!g.IsMap()) {
          AddProblem(problems, "gpus", "expected a mapping of id -> GPU", g);
        } else {
          for (auto it = g.begin(); it != g.end(); ++it) {
            if (!IdOk(it->first, "gpus", problems)) continue;
            const std::string id = it->first.Scalar();
            const YAML::Node entry = it->second;  // a copy: it-> points into a temporary (AddressSanitizer: stack-use-after-scope)
            if (auto known = gpus.find(id); known != gpus.end() && entry.IsMap()) {
              // A known GPU: the entry changes only the fields it gives.
              gpus[id] = catalog_internal::ParseGpu(OverlayGpu(known->second, entry, origin), id, "gpus." + id,
                                                    catalog_internal::EfficiencyPatch{}, problems);
              continue;
            }
            if (entry.IsMap()) {
              std::string missing;
              for (const char* k : {"memory_gb", "hbm_tb_per_s", "tflops_bf16", "intra_node_gb_per_s",
                                    "inter_node_gb_per_s", "price_per_hour"}) {
                if (!entry[k]) missing += (missing.empty() ? "" : ", ") + std::string(k);
              }
              if (!missing.empty()) {
                std::string msg = "no GPU '" + id + "' in the catalog to change";
                std::string near = ClosestMatch(id, Keys(gpus));
                if (!near.empty()) msg += " (did you mean '" + near + "'?)";
                msg += "; a new GPU needs every required field, missing: " + missing;
                AddProblem(problems, "gpus." + id, msg, it->first);  // and each field's own problem below
              }
            }
            gpus[id] = catalog_internal::ParseGpu(entry, id, "gpus." + id, BuiltinDefaultEfficiency(), problems);
          }
        }
      }
      if (YAML::Node m = root["models"]) {
        if (!m.IsMap()) {
          AddProblem(problems, "models", "expected a mapping of id -> model", m);
        } else {
          for (auto it = m.begin(); it != m.end(); ++it) {
            if (!IdOk(it->first, "models", problems)) continue;
            const std::string id = it->first.Scalar();
            models[id] = catalog_internal::ParseModel(it->second, id, "models." + id, problems);
          }
        }
      }
      // `default:` reaches every GPU known so far, then per-GPU-id overrides.
      if (YAML::Node e = root["efficiency"]) {
        if (!e.IsMap()) {
          AddProblem(problems, "efficiency", "expected a mapping with default: and/or GPU ids", e);
        } else {
          if (YAML::Node d = e["default"]) {
            EfficiencyPatch patch = catalog_internal::ParseEfficiencyPatch(d, "efficiency.default", problems);
            for (auto& [id, gpu] : gpus) {
              patch.ApplyTo(gpu.efficiency, &gpu.sources);
              // The default's figures are the GPU's own only on the GPU they
              // were measured on (`measured_on`); every other GPU borrows them.
              catalog_internal::SetEfficiencyBorrowedFrom(gpu, patch.measured_on == id ? "" : patch.measured_on);
            }
          }
          for (auto it = e.begin(); it != e.end(); ++it) {
            if (!IdOk(it->first, "efficiency", problems)) continue;
            const std::string id = it->first.Scalar();
            if (id == "default") continue;
            const std::string path = "efficiency." + id;
            EfficiencyPatch patch = catalog_internal::ParseEfficiencyPatch(it->second, path, problems);
            auto gpu = gpus.find(id);
            if (gpu == gpus.end()) {
              std::string msg = "no GPU '" + id + "' in the catalog";
              std::string near = ClosestMatch(id, Keys(gpus));
              if (!near.empty()) msg += " (did you mean '" + near + "'?)";
              AddProblem(problems, path, msg, it->first);
              continue;
            }
            catalog_internal::ApplyEfficiencyRow(gpu->second, patch);
          }
        }
      }
    }
    CheckNamesUnique(gpus, "gpus", problems);
    CheckNamesUnique(models, "models", problems);
  } catch (const YAML::Exception& ex) {
    Problem p;
    p.message = "not valid YAML or JSON: " + ex.msg;
    p.line = ex.mark.line >= 0 ? ex.mark.line + 1 : 0;
    problems.push_back(std::move(p));
  } catch (const std::exception& ex) {
    Error e(ErrorCode::kInternal, "", std::string("reading catalog: ") + ex.what());
    e.problems.front().file = origin;
    return Fail(std::move(e));
  }
  if (!problems.empty()) {
    Error e;
    e.code = ErrorCode::kInvalidInput;
    for (auto& p : problems) {
      if (p.file.empty()) p.file = origin;
    }
    e.problems = std::move(problems);
    return Fail(std::move(e));
  }
  gpus_ = std::move(gpus);
  models_ = std::move(models);
  return {};
}

Result<void> Catalog::AddFile(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxScenarioBytes, "catalog file");
  if (!text) return Fail(text.error());
  return AddText(*text, path);
}

const GpuSpec* Catalog::FindGpu(std::string_view id) const { return FindByName(gpus_, id, false); }

const ModelSpec* Catalog::FindModel(std::string_view id) const { return FindByName(models_, id, true); }

std::vector<std::string> Catalog::GpuIds() const { return Keys(gpus_); }

std::vector<std::string> Catalog::ModelIds() const {
  std::vector<std::string> v;
  for (const auto& [k, _] : models_) v.push_back(k);
  return v;
}

}  // namespace rlcost
