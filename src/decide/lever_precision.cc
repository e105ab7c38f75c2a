// The levers that make the rollout engine itself faster: fp8 and fp4 rollout
// weights (and KV cache), speculative decoding; and the quality discounts a
// rollout sampled at lower precision than the trainer (or stale) carries.
// Rules and formulas: docs/model.md (levers section).
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "decide/levers_internal.h"

namespace rlcost::levers::internal {

// The quality discounts of a configuration: async staleness, and the mismatch
// between a low-precision rollout engine and the bf16 trainer.
std::vector<Discount> DiscountsOf(const Scenario& s, const QualityDiscounts& q) {
  std::vector<Discount> out;
  if (s.pipeline.mode == PipelineMode::kAsync && s.pipeline.max_staleness > 0) {
    Discount d;
    d.id = "staleness";
    d.label = fmt::format("staleness {:g} (async)", s.pipeline.max_staleness);
    const double per = q.staleness.value_or(kDefaultStalenessDiscount);
    d.value = 1 - std::pow(1 - per, s.pipeline.max_staleness);
    d.user_set = q.staleness.has_value();
    d.assumed = !d.user_set;
    d.source = d.user_set
                   ? fmt::format("set by the user: {:g} per policy version of lag (`staleness_discount`)", per)
                   : fmt::format(
                         "ASSUMPTION (not measured): {:g} of a rollout's worth per policy version of lag, "
                         "1 - (1 - {:g})^staleness. AReaL (arXiv 2505.24298, abstract) reports matched final "
                         "accuracy at bounded staleness with its staleness-aware PPO objective (near 0); VCPO "
                         "(arXiv 2602.17616, Fig. 1) shows a run at a two-step lag with plain truncated importance "
                         "sampling collapse; `staleness_discount` sets it",
                         per, per);
    out.push_back(std::move(d));
  }
  const Precision r = s.precision.rollout;
  if (r != s.precision.train && (r == Precision::kFp8 || r == Precision::kFp4)) {
    const bool fp8 = r == Precision::kFp8;
    Discount d;
    d.id = fp8 ? "fp8_mismatch" : "fp4_mismatch";
    d.label = fmt::format("{} rollout, {} trainer", ToString(r), ToString(s.precision.train));
    const auto& given = fp8 ? q.fp8 : q.fp4;
    d.value = given.value_or(fp8 ? kDefaultFp8Discount : kDefaultFp4Discount);
    d.user_set = given.has_value();
    d.assumed = !d.user_set;
    d.source =
        d.user_set
            ? fmt::format("set by the user ({})", fp8 ? "fp8_discount" : "fp4_discount")
            : fmt::format(
                  "ASSUMPTION (not measured): {:g}. A rollout engine at lower precision than the trainer samples "
                  "from a slightly different policy (Yao et al. 2025, \"Your Efficient RL Framework Secretly Brings "
                  "You Off-Policy RL Training\", fengyao.notion.site/off-policy-rl: truncated importance sampling "
                  "corrects most of it); AIS (arXiv 2605.13907, abstract) reports fp8 rollout with a bf16 trainer "
                  "collapsing uncorrected and matching bf16 on most tasks corrected{}; {} sets it",
                  d.value, fp8 ? "" : "; fp4 quantises coarser than fp8 and no RL comparison was found, hence more",
                  fp8 ? "fp8_discount" : "fp4_discount");
    out.push_back(std::move(d));
  }
  return out;
}

namespace {

// Rollout weights at `p` (fp8 or fp4) with an fp8 KV cache where the GPU has
// the tensor cores for `p`; said either way.
void RollOutAt(Building& b, Precision p) {
  Scenario& s = b.s;
  const std::string name(ToString(p));
  if (!s.hardware.gpu.Supports(p)) {
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    b.said.push_back(fmt::format("{}: no effect, {} has no {} tensor cores", name, s.hardware.gpu.id, upper));
    return;
  }
  s.precision.rollout = p;
  s.precision.kv_cache = Precision::kFp8;
  b.said.push_back(fmt::format("{} rollout weights, fp8 KV cache on {}", name, s.hardware.gpu.id));
}

}  // namespace

void ApplyLowPrecision(Building& b) {
  const bool fp4_here = Has(b.levers, Lever::kFp4) && b.s.hardware.gpu.Supports(Precision::kFp4);
  if (Has(b.levers, Lever::kQuantize) && !fp4_here) RollOutAt(b, Precision::kFp8);  // fp4, where it runs, replaces fp8
  if (Has(b.levers, Lever::kFp4)) RollOutAt(b, Precision::kFp4);
}

void ApplySpeculative(Building& b) {
  if (!Has(b.levers, Lever::kSpeculative)) return;
  // docs/model.md, "Speculative decoding in rollout".
  const bool own = b.opt.speculative.has_value();
  SpeculativeSpec sp = own ? *b.opt.speculative : SpeculativeSpec{};
  b.s.engine.speculative = sp;
  const bool has_mtp = b.s.model_id.rfind("deepseek", 0) == 0;
  b.said.push_back(fmt::format(
      "speculative decoding: {} drafts {} token{} per step, acceptance {:g} -> {:.3g} tokens per verification{}",
      ToString(sp.method), sp.draft_tokens, sp.draft_tokens == 1 ? "" : "s", sp.acceptance,
      sp.ExpectedTokensPerStep(),
      own ? " (the scenario's engine.speculative)"
          : has_mtp ? " (DeepSeek-V3 report: 85-90% second-token acceptance)"
                    : " (ASSUMED: a one-layer draft at DeepSeek-V3's MTP acceptance; set engine.speculative)"));
}

}  // namespace rlcost::levers::internal
