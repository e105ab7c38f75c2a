// The post-training economics essay's claims, checked on one scenario.
// Rules and formulas: docs/model.md, "The essay's claims, checked".
#include "decide/claims.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include "decide/levers.h"
#include "fit/interval.h"
#include "rlcost/estimate.h"
#include "rlcost/signal.h"
#include "signal/learning_model.h"

namespace rlcost::claims {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// "About X" (the essay's "~20x", "2.4x", "8x") holds within a factor of 1.25
// either way: a stated reading of "about", the same for every claim, not
// fitted to any case.
constexpr double kAbout = 1.25;
// A part of a saving smaller than 5% either way is called "no saving of its own".
constexpr double kMaterial = 1.05;
// The essay's setting for its GPU-time claims: "An 8xH100 node running RLVR".
constexpr std::string_view kEssayGpu = "h100-sxm";

double Get(const Estimate& e, std::string_view key) { return levers::MetricValue(e, key).value_or(kNaN); }
bool Ok(double x) { return std::isfinite(x); }
double Ratio(double a, double b) { return Ok(a) && Ok(b) && b > 0 ? a / b : kNaN; }
std::string X(double f) { return Ok(f) ? fmt::format("{:.3g}x", f) : "n/a"; }
// A factor previous / this as people say it: "2.1x cheaper" above 1, and
// below 1 the inverse, "1.44x dearer" (0.696x cheaper read as a saving).
std::string Cheaper(double f) {
  if (!Ok(f) || f <= 0) return "n/a";
  return f >= 1 ? fmt::format("{:.3g}x cheaper", f) : fmt::format("{:.3g}x dearer", 1 / f);
}
std::string Pct(double f) { return Ok(f) ? fmt::format("{:.1f}%", 100 * f) : "n/a"; }
bool About(double x, double target) { return Ok(x) && x >= target / kAbout && x <= target * kAbout; }
bool Within(double x, double lo, double hi) { return Ok(x) && x >= lo && x <= hi; }
// The verdict on rlcost's figure against the essay's range [lo, hi], every
// figure read in the claim's own direction (a bigger saving, speed-up or
// effect is higher): "holds" inside, "exceeds" above (better than claimed),
// "falls short" below (worse than claimed). A figure that is not a number
// cannot be judged: "depends" (CheckClaims says so in `why`).
std::string Judge(double x, double lo, double hi) {
  if (!Ok(x)) return "depends";
  return x < lo ? "falls short" : x > hi ? "exceeds" : "holds";
}
std::string JudgeAbout(double x, double target) { return Judge(x, target / kAbout, target * kAbout); }
// Two measures of one claim: their shared verdict, or "depends" when they disagree.
std::string JudgeBoth(const std::string& a, const std::string& b) { return a == b ? a : "depends"; }

std::string FirstProblem(const Error& e) {
  return e.problems.empty() ? e.ToString() : e.problems.front().ToString();
}

std::string SetsText(const std::vector<std::string>& sets) {
  std::string t;
  for (const auto& s : sets) t += (t.empty() ? "" : " ") + fmt::format("`set` '{}'", s);
  return t;
}

Result<Estimate> EstimateWith(const LoadVariant& load, const std::vector<std::string>& sets) {
  auto s = load(sets);
  if (!s) return Fail(s.error());
  return EstimateAnalytic(*s);
}

Claim Unknown(Claim c, const std::string& what, const Error& e) {
  c.rlcost = "n/a";
  c.value.reset();
  c.verdict = "depends";
  c.why = fmt::format("cannot be computed for this scenario: {} ({})", what, FirstProblem(e));
  return c;
}

// A claim this scenario cannot judge because it does not state the lever:
// "depends", no figure, and `why` says what to set.
Claim NotStated(Claim c, std::string why) {
  c.rlcost = "n/a";
  c.value.reset();
  c.verdict = "depends";
  c.why = std::move(why);
  return c;
}

std::string PassRateSet(double p) { return fmt::format("environment.pass_rate={{histogram: {{{:g}: 1.0}}}}", p); }

// The learning model's figure (docs/model.md, sec. 7d) for every task at pass
// rate `lo` against every task at `hi`, same G and prompts a step: the steps
// (so the rollouts) per unit of progress, lo over hi. The count at the curve's
// G_ref = 16 (1 / P_inf(16)) times the noise factor F(G) at each pass rate.
double LearningModelRatio(double lo, double hi, int g) {
  PassRateSpec a, b;
  a.kind = b.kind = PassRateSpec::Kind::kHistogram;
  a.histogram = {{lo, 1.0}};
  b.histogram = {{hi, 1.0}};
  const int ref = signal::kCurveGroupSize;
  const double count = signal::InformativeGroupProbability(b, ref) / signal::InformativeGroupProbability(a, ref);
  return count * signal::GroupSizeStepsFactor(a, g, ref, signal::kLearningRho) /
         signal::GroupSizeStepsFactor(b, g, ref, signal::kLearningRho);
}

std::string LearningModelText(double lo, double hi, int g) {
  return fmt::format(". By rlcost's learning model (noise_scale, an ASSUMPTION: docs/model.md sec. 7d) a unit of "
                     "progress costs {:.3g}x the rollouts at p = {:g} as at p = {:g} with G = {} and the same prompts a step",
                     LearningModelRatio(lo, hi, g), lo, hi, g);
}

// Rollouts generated per useful sample (dynamic-sampling extra included).
double RolloutsPerUseful(const Estimate& e) {
  return Ratio(Get(e, "signal.rollouts_per_step"), Get(e, "signal.useful_samples_per_step"));
}

const levers::Config* Find(const std::vector<levers::Config>& v, std::string_view id) {
  for (const auto& c : v) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

double Usd(const levers::Config& c) { return c.ok ? c.values[levers::kUsdPerUsefulSample].value_or(kNaN) : kNaN; }

// --- Exploration hardness and capability -------------------------------------

// Claim 1: "If the model solves a task 5% of the time, you need roughly 20x
// more rollouts per gradient step to get comparable signal vs a task solved
// 50% of the time."
Claim PassRate5vs50(const Scenario& s, const LoadVariant& load) {
  Claim c{"pass_rate_5_vs_50", "a task solved 5% of the time needs ~20x the rollouts per useful gradient of one solved 50% of the time",
          "~20x", "", std::nullopt, "", ""};
  const std::vector<std::string> lo = {PassRateSet(0.05)}, hi = {PassRateSet(0.5)};
  auto a = EstimateWith(load, lo);
  if (!a) return Unknown(c, "every task at pass rate 0.05", a.error());
  auto b = EstimateWith(load, hi);
  if (!b) return Unknown(c, "every task at pass rate 0.5", b.error());
  const double ra = RolloutsPerUseful(*a), rb = RolloutsPerUseful(*b);
  const double f = Ratio(ra, rb);
  c.value = f;
  c.rlcost = X(f);
  c.verdict = JudgeAbout(f, 20);
  c.why = fmt::format(
      "rollouts generated per useful sample (signal.rollouts_per_step / signal.useful_samples_per_step) with every task "
      "at p = 0.05: {:.3g}, at p = 0.5: {:.3g} ({} and {}), at this scenario's G = {} ({}). A group of G carries a "
      "gradient with probability 1 - p^G - (1-p)^G, so the ratio is at most 5.26x (G = 2) and falls with G; the 20 is "
      "1/0.05, the rollouts to a first success at 5%, not a ratio of signal",
      ra, rb, SetsText(lo), SetsText(hi), s.algorithm.group_size, ToString(s.algorithm.name));
  c.why += LearningModelText(0.05, 0.5, s.algorithm.group_size);
  return c;
}

// Claim 2: "a more capable starting model might solve 30% of problems vs 2% for
// a weaker one — a 15x difference in effective rollout cost per useful
// training sample."
Claim Capability30vs2(const Scenario& s, const LoadVariant& load) {
  Claim c{"capability_30_vs_2", "a base model solving 30% of tasks instead of 2% makes each useful training sample ~15x cheaper",
          "~15x", "", std::nullopt, "", ""};
  const std::vector<std::string> weak = {PassRateSet(0.02)}, strong = {PassRateSet(0.3)};
  auto a = EstimateWith(load, weak);
  if (!a) return Unknown(c, "every task at pass rate 0.02", a.error());
  auto b = EstimateWith(load, strong);
  if (!b) return Unknown(c, "every task at pass rate 0.3", b.error());
  const double ua = Get(*a, "cost.usd_per_useful_sample"), ub = Get(*b, "cost.usd_per_useful_sample");
  const double f = Ratio(ua, ub);
  c.value = f;
  c.rlcost = X(f);
  c.verdict = JudgeAbout(f, 15);
  c.why = fmt::format(
      "cost.usd_per_useful_sample with every task at p = 0.02: ${:.4g}, at p = 0.3: ${:.4g} ({} and {}), G = {}. "
      "The direction holds (the weaker model pays more per useful sample); the size is 1/P(informative group) and "
      "reaches 10.7x only at G = 2 (2p(1-p): 0.0392 vs 0.42); 15 is the ratio of pass rates 0.3/0.02",
      ua, ub, SetsText(weak), SetsText(strong), s.algorithm.group_size);
  c.why += LearningModelText(0.02, 0.3, s.algorithm.group_size);
  return c;
}

// Claim 3: "Tool use multiplies token count 10-100x" (512 completion tokens for
// a math rollout vs 15,000-50,000 sample tokens for a 20-turn SWE trajectory).
Claim ToolUse(const Scenario& s, const Estimate& e, const LoadVariant& load) {
  Claim c{"tool_use_tokens", "tool use multiplies the tokens of a trajectory 10-100x", "10-100x", "", std::nullopt, "", ""};
  const auto& env = s.environment;
  const double calls = std::max(0.0, env.turns.mean() - 1.0);
  const double generated = Ratio(Get(e, "rollout.generated_tokens_per_step"), Get(e, "signal.rollouts_per_step"));
  const double tool = calls * env.tool_output_tokens.mean();
  if (calls <= 0) {
    c.value = 1.0;
    c.rlcost = fmt::format("1x ({:.0f} tokens, no tool calls)", generated);
    c.verdict = "depends";
    c.why = fmt::format(
        "this scenario has one turn and no tool calls, so tool use multiplies nothing here; the multiplier depends on "
        "the turns and the tool output per turn: a trajectory of T turns of R generated and O tool-output tokens holds "
        "T*R + (T-1)*O sample tokens against R for one turn (the essay's 20 turns x (500 + reasoning) is 15,000-50,000 "
        "against a 512-token math rollout)");
    return c;
  }
  const std::vector<std::string> one = {"environment.turns=1", "environment.tool_output_tokens=0",
                                        "environment.tool_latency_s=0"};
  auto single = EstimateWith(load, one);
  if (!single) return Unknown(c, "the same task in one turn without tools", single.error());
  const double g1 = Ratio(Get(*single, "rollout.generated_tokens_per_step"), Get(*single, "signal.rollouts_per_step"));
  const double f = Ratio(generated + tool, g1);
  c.value = f;
  c.rlcost = fmt::format("{} ({:.0f} vs {:.0f} tokens)", X(f), generated + tool, g1);
  c.verdict = Judge(f, 10, 100);
  c.why = fmt::format(
      "sample tokens per trajectory = generated ({:.0f}, rollout.generated_tokens_per_step / signal.rollouts_per_step) "
      "+ tool output ({:.2g} calls x {:.0f} tokens) = {:.0f}, against {:.0f} generated by the same task in one turn "
      "without tools ({}); on dollars, a useful sample costs {} of the one-turn task's (same sandbox settings)",
      generated, calls, env.tool_output_tokens.mean(), generated + tool, g1, SetsText(one),
      X(Ratio(Get(e, "cost.usd_per_useful_sample"), Get(*single, "cost.usd_per_useful_sample"))));
  return c;
}

// --- GPU time and MFU on the essay's setting ---------------------------------

// The overrides that put the scenario on the essay's "8xH100 node running
// RLVR": H100, colocated, synchronous, bf16. Empty when it already is.
std::vector<std::string> EssaySetting(const Scenario& s) {
  std::vector<std::string> sets;
  if (s.hardware.gpu.id != kEssayGpu) sets.push_back(fmt::format("hardware.gpu={}", kEssayGpu));
  if (s.placement.mode != PlacementMode::kColocated) sets.push_back("placement.mode=colocated");
  if (s.pipeline.mode != PipelineMode::kSync) sets.push_back("pipeline.mode=sync");
  if (s.precision.rollout != Precision::kBf16) sets.push_back("precision.rollout=bf16");
  if (s.precision.kv_cache != Precision::kBf16) sets.push_back("precision.kv_cache=bf16");
  if (s.precision.train != Precision::kBf16) sets.push_back("precision.train=bf16");
  return sets;
}

std::string SettingText(const Scenario& s, const std::vector<std::string>& sets) {
  if (sets.empty()) return fmt::format("this scenario as it is ({} x {}, colocated, synchronous, bf16)", s.hardware.gpus, s.hardware.gpu.id);
  return fmt::format("this scenario on the essay's setting (H100, colocated, synchronous, bf16: {})", SetsText(sets));
}

// Claim 4: "An 8xH100 node running RLVR spends 80-90% of its time doing
// inference (rollout generation)".
Claim RolloutShare(const Scenario& s, const Result<Estimate>& essay, const std::vector<std::string>& sets) {
  Claim c{"rollout_share", "an 8xH100 node running RLVR spends 80-90% of its time generating rollouts", "80-90%", "",
          std::nullopt, "", ""};
  if (!essay) return Unknown(c, "this scenario on H100, colocated, synchronous, bf16", essay.error());
  const double f = Get(*essay, "rollout_fraction");
  c.value = f;
  c.rlcost = Pct(f);
  c.verdict = Judge(f, 0.80, 0.90);
  c.why = fmt::format(
      "rollout_fraction (share of GPU time spent generating) of {}: rollout {:.3g} s of a {:.3g} s step; the rest is "
      "the policy update ({:.3g} s) and log-prob/reference passes, weight sync and rewards ({:.3g} s). Longer responses "
      "and bigger batches raise the share, LoRA and short answers lower it",
      SettingText(s, sets), Get(*essay, "step.rollout_s"), Get(*essay, "step.time_s"), Get(*essay, "step.train_s"),
      Get(*essay, "step.other_s"));
  return c;
}

// The likely range of a figure that is work done over rlcost's predicted time
// (an MFU): the time's 80% band (catalog/intervals.yaml, the analytic path's
// predicted / measured in [low, high]) puts the measured time in
// [t / high, t / low], so the figure in [v * low, v * high]. docs/model.md,
// "The essay's claims, checked": a verdict that flips inside the range depends.
interval::Range OverTimeRange(double v) {
  const auto& b = interval::BandFor("analytic");
  return {v * b.low, v * b.high};
}

// Claim 5: "During rollout, GPUs achieve single-digit MFU ... During training,
// they hit 30-50% MFU."
std::string DecodeMfuVerdict(double r, double t) {
  // Rollout at 10% MFU or more uses the GPU better than the essay says: exceeds.
  if (!Ok(r)) return "depends";
  return r >= 0.10 ? "exceeds" : Within(t, 0.30, 0.50) ? "holds" : "depends";
}

Claim DecodeMfu(const Scenario& s, const Result<Estimate>& essay, const std::vector<std::string>& sets) {
  Claim c{"decode_mfu", "rollout runs at single-digit MFU (memory-bound decoding), training at 30-50% MFU",
          "<10% vs 30-50%", "", std::nullopt, "", ""};
  if (!essay) return Unknown(c, "this scenario on H100, colocated, synchronous, bf16", essay.error());
  const double r = Get(*essay, "mfu.rollout"), t = Get(*essay, "mfu.train");
  c.value = r;
  c.rlcost = fmt::format("{} vs {}", Pct(r), Pct(t));
  const bool rollout_ok = Ok(r) && r < 0.10;
  const bool train_ok = Within(t, 0.30, 0.50);
  c.verdict = DecodeMfuVerdict(r, t);
  c.why = fmt::format(
      "mfu.rollout and mfu.train of {}. Rollout MFU is the model's result (bandwidth-bound decode, the straggler tail, "
      "prefill); training MFU is set by the GPU's training efficiency in the catalog (or a `calibration` file), an "
      "input rather than a finding{}",
      SettingText(s, sets), rollout_ok && !train_ok ? ", so the training half depends on that efficiency" : "");
  // The verdict at the ends of each figure's likely range (the two phases'
  // times may be off by different factors: every corner).
  if (c.verdict != "depends" && Ok(t)) {
    const interval::Range rr = OverTimeRange(r), tr = OverTimeRange(t);
    std::string flipped;
    for (double rx : {rr.low, rr.high}) {
      for (double tx : {tr.low, tr.high}) {
        const std::string v = DecodeMfuVerdict(rx, tx);
        if (v != c.verdict && flipped.empty()) flipped = v;
      }
    }
    if (!flipped.empty()) {
      const auto& b = interval::BandFor("analytic");
      auto said = [](const std::string& v) {
        return v == "exceeds" ? std::string("is exceeded") : v == "holds" ? std::string("holds")
                                                                           : std::string("no longer holds");
      };
      c.why += fmt::format(
          ". The verdict depends on how far rlcost's time is off: at rlcost's figures ({}) the claim {}, but within "
          "their likely range (80%: rlcost's step and wall times were {:.2f}-{:.2f}x the measured ones on {} "
          "published runs, catalog/intervals.yaml) rollout MFU is {}-{} and training MFU {}-{}, where the claim {}",
          c.rlcost, said(c.verdict), b.low, b.high, b.cases, Pct(rr.low), Pct(rr.high), Pct(tr.low), Pct(tr.high),
          said(flipped));
      c.verdict = "depends";
    }
  }
  return c;
}

// The field, 2026: "speculative decoding cuts rollout time 20-50%" (DAS,
// SPEC-RL, EfficientRollout; NVIDIA-NeMo/RL PR #2779: DeepSeek-V3 on 256 H100s,
// generation 57.4 -> 40.1 s, -30%). docs/model.md, "Speculative decoding in rollout".
Claim SpeculativeRollout(const Scenario& s, const Estimate& e, const LoadVariant& load) {
  Claim c{"speculative_rollout",
          "the field reports speculative decoding cuts rollout time 20-50% (DAS, SPEC-RL, EfficientRollout; NeMo RL "
          "PR #2779: DeepSeek-V3 generation 57.4 -> 40.1 s)",
          "20-50% less rollout time", "", std::nullopt, "", ""};
  // Compare plain decoding with speculation: the scenario's own settings when
  // it speculates, else a one-layer MTP-style draft of one token at 0.85.
  const bool own = s.engine.speculative.has_value();
  const std::vector<std::string> sets = {own ? "engine.speculative.method=none" : "engine.speculative={method: mtp}"};
  auto other = EstimateWith(load, sets);
  if (!other) return Unknown(c, "this scenario with speculative decoding switched " + std::string(own ? "off" : "on"), other.error());
  const Estimate& plain = own ? *other : e;
  const Estimate& spec = own ? e : *other;
  // GPU-seconds generating: the rollout work, whether or not an async
  // pipeline hides it behind the update.
  const double a = Get(plain, "gpu_time.rollout_s"), b = Get(spec, "gpu_time.rollout_s");
  const double cut = Ok(a) && a > 0 ? 1.0 - b / a : kNaN;
  c.value = cut;
  c.rlcost = Ok(cut) ? Pct(cut) + " less" : "n/a";
  const bool assumed = !own && s.model_id.rfind("deepseek", 0) != 0;
  c.verdict = assumed ? "depends" : Judge(cut, 0.20, 0.50);
  c.why = fmt::format(
      "gpu_time.rollout_s {:.4g} GPU-s per step without and {:.4g} GPU-s with speculative decoding ({}): each verification pass prices k + 1 "
      "tokens per sequence, so the gain shrinks as the decode batch grows ({:.0f} sequences per engine here) and the "
      "linear layers turn compute-bound{}",
      a, b,
      own ? "the scenario's engine.speculative"
          : "an MTP-style one-layer draft, one token, acceptance 0.85 (DeepSeek-V3 report)",
      Get(plain, "rollout.mean_batch"),
      assumed ? "; this model has no MTP module, so the acceptance is an ASSUMPTION: it depends on the draft you train "
                "(set engine.speculative)"
              : "");
  return c;
}

// The field, 2026: RLBoost (arXiv 2510.19225, abstract): harvesting
// preemptible (spot) GPUs for rollout improves cost efficiency 28-49% over
// on-demand GPUs only. docs/model.md, "Spot GPUs".
Claim SpotRollout(const Scenario& s, const Estimate& e, const LoadVariant& load) {
  Claim c{"spot_rollout",
          "the field reports spot (preemptible) rollout GPUs improve cost efficiency 28-49% over on-demand only "
          "(RLBoost, arXiv 2510.19225)",
          "28-49% more useful samples per dollar", "", std::nullopt, "", ""};
  const bool own = s.hardware.spot.Rollout() || s.hardware.spot.Train();
  if (!own) {
    return NotStated(std::move(c), "this scenario states no spot GPUs (hardware.spot): the gain rests on the spot price and how often "
            "nodes are reclaimed, which have no default; set hardware.spot.rollout {price_ratio, "
            "preemptions_per_hour} to check the claim on your market");
  }
  auto od = EstimateWith(load, {"hardware.spot=none"});
  if (!od) return Unknown(c, "this scenario on on-demand GPUs only", od.error());
  const double a = Get(*od, "cost.usd_per_useful_sample"), b = Get(e, "cost.usd_per_useful_sample");
  const double gain = Ok(a) && Ok(b) && b > 0 ? a / b - 1.0 : kNaN;
  c.value = gain;
  c.rlcost = Ok(gain) ? (gain >= 0 ? Pct(gain) + " more" : Pct(-gain) + " fewer") : "n/a";
  c.verdict = Judge(gain, 0.28, 0.49);
  c.why = fmt::format(
      "cost.usd_per_useful_sample {:.4g} USD on-demand and {:.4g} USD with the scenario's spot GPUs (mean "
      "${:.2f} vs ${:.2f} per GPU-hour; {:.2f}% of the rollout pool's time lost to preemptions); the price and the "
      "reclaim rate are the scenario's, not measured. rlcost loses the partial rollouts in flight at each "
      "preemption; RLBoost migrates them token by token, so its loss is smaller",
      a, b, Get(*od, "cost.usd_per_gpu_hour"), Get(e, "cost.usd_per_gpu_hour"), e.step.spot_lost_share * 100);
  return c;
}

// The field, 2025: APRIL (Zhou et al., arXiv 2509.18521, abstract): partial
// rollouts (over-launch, stop at the batch, carry the rest) improve rollout
// throughput "by at most 44%" (the project's README: 20-35%).
// docs/model.md, "Tail handling".
Claim TailPartialRollout(const Scenario& s, const Estimate& e, const LoadVariant& load) {
  Claim c{"tail_partial_rollout",
          "the field reports partial rollouts (over-launch, stop once the batch is filled, carry the unfinished) "
          "raise rollout throughput by up to 44% (APRIL, arXiv 2509.18521)",
          "up to 44% faster rollout", "", std::nullopt, "", ""};
  if (s.pipeline.mode == PipelineMode::kAsync && s.placement.mode != PlacementMode::kColocated) {
    return NotStated(std::move(c), "this scenario's pipeline is asynchronous: generation already overlaps training, and rlcost prices tail "
            "handling for synchronous steps only");
  }
  if (s.pipeline.tail.mode != TailMode::kPartialRollout) {
    return NotStated(std::move(c), "this scenario states no partial rollouts: set pipeline.tail: partial_rollout (APRIL's own over-launch, "
            "2x, is the default) to check the claim on this run");
  }
  auto off = EstimateWith(load, {"pipeline.tail=none"});
  if (!off) return Unknown(c, "this scenario waiting for its longest response", off.error());
  const Estimate* on = &e;
  const double a = off->step.rollout_s, b = on->step.rollout_s;
  const double gain = a > 0 && b > 0 ? a / b - 1.0 : kNaN;
  c.value = gain;
  c.rlcost = Ok(gain) ? (gain >= 0 ? Pct(gain) + " faster" : Pct(-gain) + " slower") : "n/a";
  c.verdict = !Ok(gain) ? "depends" : gain > 0.44 ? "exceeds" : gain > 0 ? "holds" : "falls short";  // "up to 44%"
  c.why = fmt::format(
      "step.rollout_s {:.4g} s waiting for the longest response and {:.4g} s with partial rollouts ({}x launched, "
      "each step stopping at {:.0f} tokens; {:.0f}% of the trained responses were begun under older weights, "
      "{:.2f} versions behind on average){}",
      a, b, 1 + s.pipeline.tail.over_launch, on->step.tail_cut_tokens, on->step.tail_carried_share * 100,
      on->step.tail_mean_staleness, " (the scenario's pipeline.tail)");
  return c;
}

// The field, 2025: RollPacker (Gao et al., arXiv 2509.21009, abstract):
// tail batching with its other optimizations gives 2.03-2.56x end-to-end
// over veRL (Qwen2.5, up to 128 H800). rlcost prices the tail batching alone.
Claim TailBatching(const Scenario& s, const Estimate& e, const LoadVariant& load) {
  Claim c{"tail_batching",
          "the field reports tail batching (long-response prompts deferred to long rounds) cuts end-to-end training "
          "time 2.03-2.56x against veRL (RollPacker, arXiv 2509.21009, with its other optimizations)",
          "2.03-2.56x faster", "", std::nullopt, "", ""};
  if (s.pipeline.tail.mode != TailMode::kTailBatching) {
    return NotStated(std::move(c), "this scenario states no tail batching: its gain rests on how many extra prompts each short round "
            "launches, which has no published default; set pipeline.tail: {mode: tail_batching, over_launch: F}");
  }
  auto off = EstimateWith(load, {"pipeline.tail=none"});
  if (!off) return Unknown(c, "this scenario waiting for its longest response", off.error());
  const double a = off->step.time_s, b = e.step.time_s;
  const double x = a > 0 && b > 0 ? a / b : kNaN;
  c.value = x;
  c.rlcost = Ok(x) ? fmt::format("{:.2f}x", x) : "n/a";
  c.verdict = Judge(x, 2.03, 2.56);
  c.why = fmt::format(
      "step.time_s {:.4g} s waiting for the longest response and {:.4g} s with tail batching (short rounds stop at "
      "{:.0f} tokens, {:.0f}% of the steps are long rounds, {:.0f} tokens per step decoded and redone later). "
      "RollPacker's figure includes its elastic parallelism, reward scheduling and stream training, which rlcost "
      "does not price",
      a, b, e.step.tail_cut_tokens, e.step.tail_long_round_share * 100, e.step.tail_wasted_tokens);
  return c;
}

// The field, 2026: Libra (Chen et al., arXiv 2606.03077, abstract): a periodic
// planner re-allocating GPUs between rollout and training as lengths drift,
// with its request scheduler, "up to 3.0x higher throughput" on 48 A800 GPUs.
// docs/model.md, "Elastic pools".
Claim ElasticPools(const Scenario& s, const Estimate& e) {
  Claim c{"elastic_pools",
          "the field reports re-splitting rollout and training GPUs as response lengths drift gives up to 3.0x "
          "higher throughput (Libra, arXiv 2606.03077, with its request scheduler)",
          "up to 3.0x", "", std::nullopt, "", ""};
  if (!e.resplit) {
    return NotStated(std::move(c), "this scenario states no re-split: set placement.resplit {phases} on a disaggregated run with "
            "environment.response_tokens_schedule to check the claim");
  }
  const auto& r = *e.resplit;
  const double x = r.steps_h > 0 ? r.fixed_steps_h / r.steps_h : kNaN;
  c.value = x;
  c.rlcost = Ok(x) ? fmt::format("{:.2f}x", x) : "n/a";
  c.verdict = !Ok(x) ? "depends" : x > 3.0 ? "exceeds" : x > 1.0 ? "holds" : "falls short";  // "up to 3.0x"
  c.why = fmt::format(
      "the run's steps take {:.2f} h with the split as written and {:.2f} h re-split in {} phases ({} change{} of "
      "split, {:.0f} s each{}); throughput here is steps per hour",
      r.fixed_steps_h, r.steps_h, r.phases, r.resplits, r.resplits == 1 ? "" : "s", r.resplit_s,
      s.placement.resplit && s.placement.resplit->restart_s ? "" : ", ASSUMED: one start-up");
  return c;
}

// --- Levers (from the waterfall's baseline: naive H100 + synchronous) ---------

std::string BaselineText(const levers::Waterfall& wf) {
  const Scenario& b = wf.baseline.scenario;
  return fmt::format("the naive baseline ({} on {} x {}, colocated, synchronous, bf16, full fine-tuning, G = {})",
                     b.model_id, b.hardware.gpus, b.hardware.gpu.id, b.algorithm.group_size);
}

// "LoRA multi-tenancy — shared base model, per-user adapters" (no figure).
Claim LoraTenancy(const levers::Waterfall& wf, const Catalog& cat) {
  Claim c{"lora_tenancy", "LoRA multi-tenancy (a shared base model with per-user adapters) cuts the cost",
          "a saving (no figure given)", "", std::nullopt, "", ""};
  const levers::Config* all = Find(wf.solo, "solo:lora");
  if (!all || !all->ok) return Unknown(c, "LoRA tenants on the baseline", all ? all->error : Error());
  const int t = all->tenants;
  const Scenario& base = wf.baseline.scenario;
  levers::Options one = wf.options;
  one.tenants = 1;
  auto lora1 = levers::Evaluate(base, {levers::Lever::kLora}, cat, one);  // one tenant, its own batch
  if (!lora1) return Unknown(c, "LoRA for one tenant", lora1.error());
  Scenario pooled = base;
  pooled.algorithm.prompts_per_step = base.algorithm.prompts_per_step * t;
  auto big = levers::Evaluate(pooled, {levers::Lever::kLora}, cat, one);  // one tenant, the T tenants' batch
  if (!big) return Unknown(c, "LoRA for one tenant with the pooled batch", big.error());
  const double u0 = Usd(wf.baseline), u1 = Usd(*lora1), ub = Usd(*big), ut = Usd(*all);
  const double total = Ratio(u0, ut), lora = Ratio(u0, u1), batch = Ratio(u1, ub), tenancy = Ratio(ub, ut);
  c.value = total;
  c.rlcost = fmt::format("{} (sharing alone {})", Cheaper(total), Cheaper(tenancy));
  if (!Ok(total)) {
    c.verdict = "depends";
  } else if (total <= 1) {
    c.verdict = "falls short";  // no saving at all
  } else {
    c.verdict = Ok(tenancy) && tenancy >= kMaterial ? "holds" : "depends";
  }
  c.why = fmt::format(
      "how many times cheaper a useful sample is with {} tenants sharing one base (each with {} prompts/step) against {}: {} = LoRA itself for "
      "one tenant {} x the {}x bigger batch {} x sharing the base at that batch {}{}",
      t, base.algorithm.prompts_per_step, BaselineText(wf), X(total), X(lora), t, X(batch), X(tenancy),
      c.verdict == "depends"
          ? "; the saving comes from the bigger batch and the adapter-only update, which one tenant gets by itself "
            "with more prompts per step, so it depends on the tenants' batches, not on sharing"
          : "");
  return c;
}

// "MoE architectures — pricing on active params, not total params".
Claim MoeActive(const levers::Waterfall& wf) {
  Claim c{"moe_active_params", "an MoE model costs what its active parameters cost, not its total parameters",
          "cost / active params", "", std::nullopt, "", ""};
  const levers::Config* moe = Find(wf.solo, "solo:moe");
  if (!moe || !moe->ok) return Unknown(c, "the MoE model on the baseline", moe ? moe->error : Error());
  const ModelSpec& d = wf.baseline.scenario.model;
  const ModelSpec& m = moe->scenario.model;
  const double expected = Ratio(d.active_params_b, m.active_params_b);
  const double by_total = Ratio(d.params_b, m.params_b);
  const double f = Ratio(Usd(wf.baseline), Usd(*moe));
  c.value = f;
  c.rlcost = fmt::format("{} (active-parameter pricing: {})", Cheaper(f), Cheaper(expected));
  c.verdict = JudgeAbout(f, expected);
  c.why = fmt::format(
      "how many times cheaper a useful sample is: dense {} ({:g}B) over MoE {} ({:g}B total, {:g}B active), same GPUs, batch and pass rates: "
      "{}. Priced on active parameters it would be {:g}/{:g} = {}; on total parameters {}. Decode reads every expert "
      "a batch touches, the whole model sits in memory, and training moves all experts' weights",
      wf.baseline.scenario.model_id, d.params_b, moe->scenario.model_id, m.params_b, m.active_params_b, X(f),
      d.active_params_b, m.active_params_b, X(expected), X(by_total));
  return c;
}

// "Async RL — overlap rollout with training, 1.5-3.5x speedup".
Claim Async(const levers::Waterfall& wf) {
  Claim c{"async", "asynchronous RL (rollout overlapped with training) speeds a step up 1.5-3.5x", "1.5-3.5x", "",
          std::nullopt, "", ""};
  const levers::Config* a = Find(wf.solo, "solo:async");
  if (!a || !a->ok) return Unknown(c, "async on the baseline", a ? a->error : Error());
  const double f = a->factor_base[levers::kStepTime].value_or(kNaN);
  c.value = f;
  c.rlcost = X(f);
  c.verdict = Judge(f, 1.5, 3.5);
  c.why = fmt::format("step time of {} over the same run async ({}): {}; per useful sample {}", BaselineText(wf),
                      a->detail, X(f), X(a->factor_base[levers::kUsdPerUsefulSample].value_or(kNaN)));
  return c;
}

// "Quantized rollout (FP4/FP8) — 2-4x generation acceleration".
Claim Quantized(const levers::Waterfall& wf, const Catalog& cat) {
  Claim c{"quantized_rollout", "FP8/FP4 rollout speeds generation up 2-4x", "2-4x", "", std::nullopt, "", ""};
  const levers::Config* q = Find(wf.solo, "solo:fp8");
  if (!q || !q->ok) return Unknown(c, "fp8 rollout on the baseline", q ? q->error : Error());
  const double f8 = Ratio(Get(wf.baseline.estimate, "step.rollout_s"), Get(q->estimate, "step.rollout_s"));
  levers::Options o = wf.options;
  o.gpu_id = "b200";
  auto hw = levers::Evaluate(wf.baseline.scenario, {levers::Lever::kHardware}, cat, o);
  if (!hw) return Unknown(c, "the baseline on B200", hw.error());
  auto hwq = levers::Evaluate(wf.baseline.scenario, {levers::Lever::kHardware, levers::Lever::kQuantize}, cat, o);
  if (!hwq) return Unknown(c, "fp4 rollout on B200", hwq.error());
  const double f4 = Ratio(Get(hw->estimate, "step.rollout_s"), Get(hwq->estimate, "step.rollout_s"));
  c.value = Ok(f8) && Ok(f4) ? std::max(f8, f4) : kNaN;
  c.rlcost = fmt::format("{} fp8 on H100, {} fp4 on B200", X(f8), X(f4));
  const std::string v8 = Judge(f8, 2, 4), v4 = Judge(f4, 2, 4);
  c.verdict = JudgeBoth(v8, v4);
  c.why = fmt::format(
      "rollout phase time (step.rollout_s, tool calls included) of {} over the same with fp8 weights and KV cache "
      "({}), and of the baseline on B200 over the same with fp4 weights and fp8 KV cache ({}). Only the weight and KV "
      "bytes shrink: the engine's fixed cost per decode iteration, attention compute and prefill do not{}",
      BaselineText(wf), X(f8), X(f4),
      c.verdict == "depends" && v8 != "depends" && v4 != "depends"
          ? fmt::format("; it depends on the GPU: fp8 on H100 {}, fp4 on B200 {} the essay's 2-4x", v8, v4)
          : "");
  return c;
}

// "Hardware generations — B200's 2.4x bandwidth directly speeds the bottleneck".
Claim B200(const levers::Waterfall& wf, const Catalog& cat) {
  Claim c{"b200_bandwidth", "B200's 2.4x memory bandwidth speeds up the bottleneck (generation) as much", "2.4x", "",
          std::nullopt, "", ""};
  levers::Options o = wf.options;
  o.gpu_id = "b200";
  auto hw = levers::Evaluate(wf.baseline.scenario, {levers::Lever::kHardware}, cat, o);
  if (!hw) return Unknown(c, "the baseline on B200", hw.error());
  const GpuSpec* b = cat.FindGpu("b200");
  const GpuSpec& h = wf.baseline.scenario.hardware.gpu;
  const double bw = b ? Ratio(b->hbm_tb_per_s, h.hbm_tb_per_s) : kNaN;
  const double f = Ratio(Get(wf.baseline.estimate, "step.rollout_s"), Get(hw->estimate, "step.rollout_s"));
  const double usd = Ratio(Usd(wf.baseline), hw->values[levers::kUsdPerUsefulSample].value_or(kNaN));
  c.value = f;
  c.rlcost = fmt::format("{} rollout ({} bandwidth)", X(f), X(bw));
  c.verdict = JudgeAbout(f, 2.4);
  c.why = fmt::format(
      "HBM bandwidth b200 / {} in the catalog: {:g} / {:g} TB/s = {}; rollout phase time (step.rollout_s) of {} over "
      "the same on B200: {}; step time {}; per useful sample {} at ${:.2f} vs ${:.2f} per GPU-hour",
      h.id, b ? b->hbm_tb_per_s : kNaN, h.hbm_tb_per_s, X(bw), BaselineText(wf), X(f),
      X(Ratio(Get(wf.baseline.estimate, "step.time_s"), Get(hw->estimate, "step.time_s"))),
      X(usd), hw->scenario.hardware.price_per_gpu_hour, wf.baseline.scenario.hardware.price_per_gpu_hour);
  return c;
}

// "2-GRPO — G=2 may match G=16 gradient quality, 8x fewer rollouts (optional;
// validated on math with clean rewards)".
Claim Grpo2(const Scenario& s, const levers::Waterfall& wf) {
  Claim c{"grpo2", "2-GRPO: groups of 2 instead of 16 need 8x fewer rollouts at matching quality", "8x fewer rollouts",
          "", std::nullopt, "", ""};
  const levers::Config* g = Find(wf.solo, "solo:grpo2");
  if (!g || !g->ok) return Unknown(c, "G = 2 on the baseline", g ? g->error : Error());
  const double f = Ratio(Get(wf.baseline.estimate, "signal.rollouts_per_step"), Get(g->estimate, "signal.rollouts_per_step"));
  const double useful = g->factor_base[levers::kUsdPerUsefulSample].value_or(kNaN);
  const double goal = g->factor_base[levers::kUsdToGoal].value_or(kNaN);
  c.value = f;
  c.rlcost = fmt::format("{} fewer rollouts; {} the $ per useful sample", X(f), X(Ratio(1.0, useful)));
  // The paper's setting: one turn, a clean pass/fail reward.
  const auto& env = s.environment;
  const bool clean = env.turns.is_fixed() && env.turns.mean() == 1 && env.reward.type == RewardType::kOutcome &&
                     env.reward.noise.false_positive == 0 && env.reward.noise.false_negative == 0;
  // Like for like is the dollars to the goal, under the learning model (docs/model.md, sec. 7d); without a
  // goal, the dollars per useful sample.
  const bool model_agrees = Ok(goal) ? goal >= 1 : Ok(useful) && useful >= 1;
  if (!About(f, 8)) {
    c.verdict = JudgeAbout(f, 8);
  } else {
    c.verdict = clean && model_agrees ? "holds" : "depends";
  }
  std::string on;
  if (!About(f, 8)) {
    on = s.algorithm.dynamic_sampling
             ? "dynamic sampling regenerates groups until they carry signal, and groups of 2 carry it far less often, so "
               "the saving in generated rollouts is much less than 8x"
             : "the rollouts per step do not fall 8x";
  } else if (!clean) {
    on = "this task is outside the paper's setting (math, one turn, clean pass/fail rewards), so the quality claim may "
         "not carry over";
  } else if (!model_agrees) {
    on = Ok(goal) ? "by rlcost's learning model G = 2 costs more to the goal on this task, so the paper's result "
                    "does not carry over here"
                  : "the quality claim is the paper's, not rlcost's: by rlcost's signal model a group of 2 carries a "
                    "gradient far less often, so it holds only if the paper's result transfers to this task";
  }
  c.why = fmt::format(
      "signal.rollouts_per_step of {} over the same with G = 2 and the same prompts: {}. A group of 2 is informative "
      "with E[2p(1-p)] = {:.4f}, a group of 16 with {:.4f}: a useful sample costs {} as much at G = 2 as at G = 16{} "
      "(rlcost's signal model; the goal by its learning model {}, an ASSUMPTION, docs/model.md sec. 7d). The matching "
      "quality is the claim of arXiv 2510.00977 (97.6% of 16-GRPO with 12.5% of the rollouts, math with clean "
      "rewards), measured with 256 prompts a step at G = 2 against 32 at G = 16 (its Appendix C.1: the same rollouts a "
      "step, 1/8 the steps, the same 10 epochs), not at equal steps as the essay reads it{}",
      BaselineText(wf), X(f), wf.grpo2.p_informative_small, wf.grpo2.p_informative_large, X(Ratio(1.0, useful)),
      Ok(goal) ? fmt::format(", the goal {} as much", X(Ratio(1.0, goal))) : std::string(),
      g->estimate.goal.requested ? g->estimate.goal.learning_model : std::string("(no goal set)"),
      on.empty() ? "" : "; " + on);
  return c;
}

// "Combined, these could yield 20-50x cost reductions vs a naive H100 +
// synchronous veRL baseline."
Claim Combined(const levers::Waterfall& wf) {
  Claim c{"combined", "the levers together cut the cost 20-50x against naive H100 + synchronous veRL", "20-50x", "",
          std::nullopt, "", ""};
  const levers::Config* last = nullptr;
  for (auto it = wf.stages.rbegin(); it != wf.stages.rend(); ++it) {
    if (it->ok) { last = &*it; break; }
  }
  if (!last) return Unknown(c, "no lever stage ran", Error());
  const double useful = last->factor_base[levers::kUsdPerUsefulSample].value_or(kNaN);
  const double goal = last->factor_base[levers::kUsdToGoal].value_or(kNaN);
  const double step = last->factor_base[levers::kUsdPerStep].value_or(kNaN);
  c.value = useful;
  c.rlcost = Ok(goal) ? fmt::format("{} per useful sample, {} to goal", Cheaper(useful), Cheaper(goal))
                      : fmt::format("{} per useful sample", Cheaper(useful));
  const std::string vu = Judge(useful, 20, 50);
  const std::string vg = Ok(goal) ? Judge(goal, 20, 50) : vu;
  c.verdict = JudgeBoth(vu, vg);
  std::string levers_used;
  for (const auto& st : wf.stages) {
    if (st.ok) levers_used += (levers_used.empty() ? "" : ", ") + st.title.substr(st.title.rfind("+ ") == 0 ? 2 : 0);
  }
  c.why = fmt::format(
      "the waterfall's last stage ({}) against {}, judged on $ per useful sample{} rather than $ per step ({}), where "
      "the 8x fewer rollouts of groups of 2 count as pure saving{}",
      levers_used, BaselineText(wf), Ok(goal) ? " and $ to the goal" : "", X(step),
      c.verdict == "depends" && vu != "depends" && vg != "depends"
          ? fmt::format("; the two measures disagree (per useful sample {}, to the goal {} the essay's 20-50x), so it "
                        "depends on which one you pay for",
                        vu, vg)
          : "");
  return c;
}

}  // namespace

const std::vector<std::string>& ClaimIds() {
  static const std::vector<std::string> ids = {
      "pass_rate_5_vs_50", "capability_30_vs_2", "tool_use_tokens", "rollout_share", "decode_mfu", "lora_tenancy",
      "moe_active_params", "async", "quantized_rollout", "b200_bandwidth", "grpo2", "combined", "speculative_rollout", "spot_rollout",
      "tail_partial_rollout", "tail_batching", "elastic_pools"};
  return ids;
}

const std::vector<std::string>& Verdicts() {
  static const std::vector<std::string> v = {"holds", "exceeds", "falls short", "depends"};
  return v;
}

Result<Report> CheckClaims(const Scenario& s, const Catalog& cat, const LoadVariant& literal_load,
                           std::optional<plan::Objective> replan) {
  // A variant (another pass rate, tool-use share ...) gets its own layout, as
  // the user's run did.
  const LoadVariant load = [&](const std::vector<std::string>& sets) -> Result<Scenario> {
    auto v = literal_load(sets);
    if (!v || !replan || !plan::AnythingToPlan(*v)) return v;
    auto p = plan::PlanLayout(*v, {*replan});
    if (!p) return Fail(p.error());
    return std::move(p->scenario);
  };
  auto e = EstimateAnalytic(s);
  if (!e) return Fail(e.error());
  Report r;
  r.scenario_name = s.name;
  r.source =
      "claims of the post-training economics essay \"Inference economics are solved. Post-training economics are not.\" "
      "(its figures, not rlcost's), each checked against rlcost's model of this scenario";
  const auto sets = EssaySetting(s);
  Result<Estimate> essay = sets.empty() ? Result<Estimate>(*e) : EstimateWith(load, sets);
  levers::Options lo;
  lo.baseline = levers::Baseline::kNaive;  // the essay's lever claims are against its naive baseline
  lo.replan = replan;
  auto wf = levers::BuildWaterfall(s, cat, lo);

  r.claims.push_back(PassRate5vs50(s, load));
  r.claims.push_back(Capability30vs2(s, load));
  r.claims.push_back(ToolUse(s, *e, load));
  r.claims.push_back(RolloutShare(s, essay, sets));
  r.claims.push_back(DecodeMfu(s, essay, sets));
  r.run = {"this run, as planned", Get(*e, "step.time_s"), Get(*e, "cost.usd_per_step"), true};
  if (wf) {
    r.naive = {BaselineText(*wf), Get(wf->baseline.estimate, "step.time_s"),
               Get(wf->baseline.estimate, "cost.usd_per_step"), wf->baseline.ok};
  }
  const size_t first_lever = r.claims.size();
  if (wf) {
    r.claims.push_back(LoraTenancy(*wf, cat));
    r.claims.push_back(MoeActive(*wf));
    r.claims.push_back(Async(*wf));
    r.claims.push_back(Quantized(*wf, cat));
    r.claims.push_back(B200(*wf, cat));
    r.claims.push_back(Grpo2(s, *wf));
    r.claims.push_back(Combined(*wf));
  } else {
    // The lever claims all start from the naive baseline; without it none can be judged.
    const std::vector<std::pair<std::string, std::string>> rest = {
        {"lora_tenancy", "LoRA multi-tenancy cuts the cost"}, {"moe_active_params", "an MoE model costs what its active parameters cost"},
        {"async", "asynchronous RL speeds a step up 1.5-3.5x"}, {"quantized_rollout", "FP8/FP4 rollout speeds generation up 2-4x"},
        {"b200_bandwidth", "B200's 2.4x bandwidth speeds up generation as much"}, {"grpo2", "2-GRPO needs 8x fewer rollouts"},
        {"combined", "the levers together cut the cost 20-50x"}};
    const std::vector<std::string> figures = {"a saving (no figure given)", "cost / active params", "1.5-3.5x", "2-4x",
                                              "2.4x", "8x fewer rollouts", "20-50x"};
    for (size_t i = 0; i < rest.size(); ++i) {
      Claim c{rest[i].first, rest[i].second, figures[i], "", std::nullopt, "", ""};
      r.claims.push_back(Unknown(c, "the naive H100 + synchronous baseline of this scenario", wf.error()));
    }
  }
  for (size_t i = first_lever; i < r.claims.size(); ++i) r.claims[i].from = "naive";
  r.claims.push_back(SpeculativeRollout(s, *e, load));
  r.claims.push_back(SpotRollout(s, *e, load));
  r.claims.push_back(TailPartialRollout(s, *e, load));
  r.claims.push_back(TailBatching(s, *e, load));
  r.claims.push_back(ElasticPools(s, *e));
  for (auto& c : r.claims) {
    if (c.verdict == "depends" && c.value && !Ok(*c.value)) {
      c.why += "; rlcost's figure is not a number for this scenario, so the claim cannot be judged on it";
    }
  }
  return r;
}

}  // namespace rlcost::claims
