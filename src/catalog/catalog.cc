// STUB — replaced by the catalog implementation.
#include "rlcost/catalog.h"
namespace rlcost {
double GpuSpec::PeakFlops(Precision p) const {
  if (p == Precision::kFp4 && tflops_fp4 > 0) return tflops_fp4 * 1e12;
  if (p != Precision::kBf16 && tflops_fp8 > 0) return tflops_fp8 * 1e12;
  return tflops_bf16 * 1e12;
}
bool GpuSpec::Supports(Precision p) const {
  return p == Precision::kBf16 || (p == Precision::kFp8 && tflops_fp8 > 0) || (p == Precision::kFp4 && tflops_fp4 > 0);
}
double ModelSpec::routed_expert_params_b() const {
  if (!is_moe() || experts_per_token >= experts) return 0;
  return (params_b - active_params_b) / (1.0 - double(experts_per_token) / experts);
}
double ModelSpec::dense_params_b() const { return params_b - routed_expert_params_b(); }
Result<Catalog> Catalog::Builtin() { return Fail(ErrorCode::kNotImplemented, "catalog", "not yet"); }
Result<void> Catalog::AddText(std::string_view, const std::string&) { return Fail(ErrorCode::kNotImplemented, "catalog", "not yet"); }
Result<void> Catalog::AddFile(const std::string&) { return Fail(ErrorCode::kNotImplemented, "catalog", "not yet"); }
const GpuSpec* Catalog::FindGpu(std::string_view id) const { auto it = gpus_.find(std::string(id)); return it == gpus_.end() ? nullptr : &it->second; }
const ModelSpec* Catalog::FindModel(std::string_view id) const { auto it = models_.find(std::string(id)); return it == models_.end() ? nullptr : &it->second; }
std::vector<std::string> Catalog::GpuIds() const { std::vector<std::string> v; for (auto& [k, _] : gpus_) v.push_back(k); return v; }
std::vector<std::string> Catalog::ModelIds() const { std::vector<std::string> v; for (auto& [k, _] : models_) v.push_back(k); return v; }
}  // namespace rlcost
