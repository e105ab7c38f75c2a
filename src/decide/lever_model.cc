// The levers that change what runs, on what, at what price: the MoE model
// (and the dense model it is paired with by quality), the newer GPU, spot GPUs.
// Rules and formulas: docs/model.md (levers section).
#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "catalog/price_tag.h"
#include "decide/levers_internal.h"

namespace rlcost::levers {
namespace internal {

bool SetModel(Scenario& s, const Catalog& cat, const std::string& id, Error* err) {
  const ModelSpec* m = cat.FindModel(id);
  if (!m) {
    *err = Error(ErrorCode::kNotFound, "model", fmt::format("'{}' is not in the catalog", id));
    return false;
  }
  s.model = *m;
  s.model_id = id;
  return true;
}

bool SetGpu(Scenario& s, const Catalog& cat, const std::string& id, Error* err) {
  const GpuSpec* g = cat.FindGpu(id);
  if (!g) {
    *err = Error(ErrorCode::kNotFound, "hardware.gpu", fmt::format("'{}' is not in the catalog", id));
    return false;
  }
  // Everything else the scenario says stays: the engine (its defaults are
  // derived where used, perf::RolloutEngine) and the efficiency factors the
  // user calibrated or set, which carry to the new GPU as the user's figures.
  GpuSpec next = *g;
  for (const auto& f : EfficiencyFields()) {
    const std::string key = "efficiency." + std::string(f.name);
    auto it = s.hardware.gpu.sources.find(key);
    if (it == s.hardware.gpu.sources.end()) continue;
    if (it->second.rfind("calibrated", 0) != 0 && it->second.rfind("set", 0) != 0) continue;
    next.efficiency.*(f.member) = s.hardware.gpu.efficiency.*(f.member);
    next.sources[key] = it->second + " (on " + s.hardware.gpu.id + ")";
  }
  s.hardware.gpu = std::move(next);
  s.hardware.price_per_gpu_hour = g->price_per_hour;
  return true;
}

// " (MARKET, 2026-03-11)": what the GPU's default price is and its date, so a
// lever that changes the GPU says whose price it pays.
std::string PriceTag(const GpuSpec& g) {
  std::string t = catalog_internal::PriceTag(g);
  return t.empty() ? "" : " (" + t + ")";
}

// The scenario's spot roles with each price as a fraction of its on-demand price.
SpotSpec SpotAsRatios(const Scenario& user) {
  SpotSpec sp = user.hardware.spot;
  const double od = user.hardware.price_per_gpu_hour;
  for (auto* r : {&sp.rollout, &sp.train}) {
    if (!*r || !(*r)->price) continue;
    (*r)->price_ratio = od > 0 ? *(*r)->price / od : 1.0;
    (*r)->price.reset();
  }
  return sp;
}

std::string SpotDetail(const Scenario& s) {
  const SpotSpec& sp = s.hardware.spot;
  const bool colocated = s.placement.mode == PlacementMode::kColocated;
  std::string d = "spot GPUs (the scenario's hardware.spot):";
  const double od = s.hardware.price_per_gpu_hour;
  if (sp.Rollout()) {
    d += colocated ? " rollout role not used, colocated (the rollout GPUs are the trainer's)"
                   : fmt::format(" rollout at ${:.2f}/GPU-h, {:g} preemptions per node-hour",
                                 sp.rollout->PricePerGpuHour(od), sp.rollout->preemptions_per_hour);
  }
  if (sp.Train()) {
    d += fmt::format("{} training at ${:.2f}/GPU-h, {:g} preemptions per node-hour", sp.Rollout() ? ";" : "",
                     sp.train->PricePerGpuHour(od), sp.train->preemptions_per_hour);
  }
  return d;
}

Result<void> ApplyMoe(Building& b) {
  if (!Has(b.levers, Lever::kMoe)) return {};
  Scenario& s = b.s;
  if (!s.model.is_moe()) {
    std::string id = b.opt.moe_model;
    if (id.empty()) {
      auto paired = PairedMoe(b.base.model_id, b.cat);
      if (!paired) return Fail(paired.error());
      id = *paired;
    }
    Error err;
    if (!SetModel(s, b.cat, id, &err)) return Fail(err);
    if (!s.model.is_moe()) {
      return Fail(ErrorCode::kInvalidInput, "moe_model", fmt::format("'{}' is not an MoE model", id));
    }
  }
  if (b.opt.moe_pass_rate) {
    s.environment.pass_rate = WithMeanPassRate(b.base.environment.pass_rate, *b.opt.moe_pass_rate);
  }
  const auto& eff = s.hardware.gpu.efficiency;
  b.said.push_back(fmt::format("model {} ({:g}B total, {:g}B active), mean pass rate {:.3g}{}, trains at MoE MFU {:.3g} "
                               "(dense {:.3g})",
                               s.model_id, s.model.params_b, s.model.active_params_b, s.environment.pass_rate.mean(),
                               b.opt.moe_pass_rate ? " (its own)" : "", eff.train_mfu_moe, eff.train_mfu));
  return {};
}

Result<void> ApplyHardware(Building& b) {
  if (!Has(b.levers, Lever::kHardware)) return {};
  Error err;
  if (!SetGpu(b.s, b.cat, b.opt.gpu_id, &err)) return Fail(err);
  b.said.push_back(fmt::format("{} at ${:.2f}/GPU-h{}", b.s.hardware.gpu.id, b.s.hardware.price_per_gpu_hour,
                               PriceTag(b.s.hardware.gpu)));
  return {};
}

Result<void> ApplySpot(Building& b) {
  if (!Has(b.levers, Lever::kSpot)) return {};
  // docs/model.md, "Spot GPUs": applied last, to the layout the other levers chose.
  if (!b.opt.spot) {
    return Fail(ErrorCode::kInvalidInput, "hardware.spot",
                "the spot lever needs the scenario's spot price and preemption rate (hardware.spot.rollout or "
                ".train: {price_ratio, preemptions_per_hour}); they have no default, spot markets move by the hour");
  }
  b.s.hardware.spot = *b.opt.spot;
  b.said.push_back(SpotDetail(b.s));
  return {};
}

}  // namespace internal

Result<std::string> DenseCounterpart(const ModelSpec& moe, const Catalog& cat) {
  const double target = std::sqrt(moe.params_b * moe.active_params_b);
  const std::string family = moe.id.substr(0, moe.id.find('-'));
  std::string best;
  double best_d = std::numeric_limits<double>::infinity();
  bool best_same_family = false;
  for (const auto& [id, m] : cat.models()) {
    if (m.is_moe() || m.params_b <= 0) continue;
    const bool same = id.substr(0, id.find('-')) == family;
    const double d = std::fabs(std::log(m.params_b / target));
    // Same family first, then nearest size.
    if ((same && !best_same_family) || (same == best_same_family && d < best_d)) {
      best = id;
      best_d = d;
      best_same_family = same;
    }
  }
  if (best.empty()) return Fail(ErrorCode::kNotFound, "model", "no dense model in the catalog for the baseline");
  return best;
}

Result<std::string> PairedMoe(const std::string& dense_id, const Catalog& cat) {
  const ModelSpec* dense = cat.FindModel(dense_id);
  std::string best;
  double best_d = std::numeric_limits<double>::infinity();
  for (const auto& [id, m] : cat.models()) {
    if (!m.is_moe() || m.params_b <= 0 || m.active_params_b <= 0) continue;
    auto d = DenseCounterpart(m, cat);
    if (!d || *d != dense_id) continue;
    const double gap = dense ? std::fabs(std::log(std::sqrt(m.params_b * m.active_params_b) / dense->params_b)) : 0;
    if (gap < best_d) {
      best = id;
      best_d = gap;
    }
  }
  if (best.empty()) {
    return Fail(ErrorCode::kNotFound, "moe_model",
                fmt::format("no catalog MoE model pairs with {} by quality (rule: the dense model nearest to "
                            "sqrt(total x active) of the MoE, same family first); name one with `moe_model`",
                            dense_id));
  }
  return best;
}

PassRateSpec WithMeanPassRate(const PassRateSpec& pr, double mean) {
  const double m = std::clamp(mean, 1e-6, 1 - 1e-6);
  double kappa = 0;
  if (pr.kind == PassRateSpec::Kind::kBeta) {
    kappa = pr.a + pr.b;
  } else {
    // Moments of the listed pass rates (histogram weights, or each pilot task once).
    double m1 = 0, m2 = 0, w_sum = 0;
    auto add = [&](double p, double w) { m1 += w * p; m2 += w * p * p; w_sum += w; };
    if (pr.kind == PassRateSpec::Kind::kHistogram) {
      for (const auto& [p, w] : pr.histogram) add(p, w);
    } else {
      for (double p : pr.task_pass_rates) add(p, 1);
    }
    if (w_sum > 0) { m1 /= w_sum; m2 /= w_sum; }
    const double var = m2 - m1 * m1;
    const double mu = std::clamp(m1, 1e-6, 1 - 1e-6);
    kappa = var > 1e-12 ? mu * (1 - mu) / var - 1 : 1e4;
  }
  kappa = std::clamp(kappa, 1e-3, 1e6);
  PassRateSpec out;
  out.kind = PassRateSpec::Kind::kBeta;
  out.a = m * kappa;
  out.b = (1 - m) * kappa;
  return out;
}
}  // namespace rlcost::levers
