// The essay's naive baseline ("naive H100 + synchronous veRL") built from the
// user's scenario, and the check of a quality discount.
// Rules and formulas: docs/model.md (levers section).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "decide/levers_internal.h"

namespace rlcost::levers {

using namespace internal;

Result<double> CheckDiscount(double v, std::string_view field) {
  if (!std::isfinite(v) || v < 0 || v >= 1) {
    return Fail(ErrorCode::kInvalidInput, std::string(field),
                fmt::format("{}: a quality discount is the fraction of a rollout's worth lost, a number in [0, 1) "
                            "(0 = worth a full on-policy bf16 rollout)",
                            v));
  }
  return v;
}

Result<Scenario> MakeBaseline(const Scenario& user, const Catalog& cat, const Options& opt, std::string* rule) {
  Scenario b = user;
  b.engine.speculative.reset();  // the naive baseline decodes plainly
  b.hardware.spot = SpotSpec{};  // and pays on-demand prices
  b.pipeline.tail = TailSpec{};  // and waits for its longest response
  b.placement.resplit.reset();   // and keeps one split (colocated: none)
  Error err;
  if (user.model.is_moe()) {
    std::string id = opt.dense_model;
    std::string why;
    if (id.empty()) {
      auto d = DenseCounterpart(user.model, cat);
      if (!d) return Fail(d.error());
      id = *d;
      why = fmt::format("the catalog dense model nearest on a log scale to sqrt(total x active) = "
                        "sqrt({:g}B x {:g}B) = {:.1f}B, same family first (rule of thumb, an ASSUMPTION); "
                        "`dense_model` overrides",
                        user.model.params_b, user.model.active_params_b,
                        std::sqrt(user.model.params_b * user.model.active_params_b));
    } else {
      why = "dense_model";
    }
    if (!SetModel(b, cat, id, &err)) return Fail(err);
    std::string pr;
    if (opt.dense_pass_rate) {
      b.environment.pass_rate = WithMeanPassRate(user.environment.pass_rate, *opt.dense_pass_rate);
      pr = fmt::format("its own mean pass rate {:.3g} (`dense_pass_rate`)", *opt.dense_pass_rate);
    } else {
      pr = fmt::format("the scenario's pass rates (mean {:.3g}): ASSUMPTION that a dense model of matching quality "
                       "solves the same tasks as often; `dense_pass_rate` sets its own",
                       user.environment.pass_rate.mean());
    }
    if (rule) {
      *rule = fmt::format("baseline model: {} is MoE, so the dense baseline is {} ({}), at {}", user.model_id, id,
                          why, pr);
    }
  } else {
    if (opt.dense_pass_rate) {
      return Fail(ErrorCode::kInvalidInput, "dense_pass_rate",
                  fmt::format("the scenario's model {} is dense, so the baseline is that model at the scenario's own "
                              "pass rates (environment.pass_rate); `dense_pass_rate` is for an MoE scenario",
                              user.model_id));
    }
    if (rule) *rule = fmt::format("baseline model: {} (the scenario's, dense)", user.model_id);
  }
  if (user.hardware.gpu.id != kBaselineGpu) {
    if (!SetGpu(b, cat, std::string(kBaselineGpu), &err)) return Fail(err);
  }
  b.placement.mode = PlacementMode::kColocated;
  b.placement.rollout_gpus = b.hardware.gpus;
  b.placement.train_gpus = b.hardware.gpus;
  // Re-planned (Options::replan), the naive baseline stays colocated (veRL's
  // default); its other left-out layout fields are planned.
  if (opt.replan) b.placement.stated.mode = true;
  b.pipeline.mode = PipelineMode::kSync;
  b.pipeline.partial_rollouts = false;
  b.precision = PrecisionSpec{};  // bf16 rollout, KV cache and training
  // One tenant's batch: a multi-tenant scenario's prompts are split over its tenants.
  if (user.algorithm.lora && user.algorithm.lora->tenants > 1) {
    b.algorithm.prompts_per_step = std::max(1, user.algorithm.prompts_per_step / user.algorithm.lora->tenants);
  }
  b.algorithm.lora.reset();
  b.algorithm.group_size = kBaselineGroup;
  b.name = user.name + " [baseline]";
  return b;
}

}  // namespace rlcost::levers
