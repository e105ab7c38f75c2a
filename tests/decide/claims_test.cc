// decide/claims: the essay's claims checked on every shared and bundled
// scenario. The verdicts below were computed by `rlcost claims FILE` and each
// checked by hand against its figures (docs/model.md, "The essay's claims,
// checked"); a change of model that moves one shows here by name.
#include "decide/claims.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fit/interval.h"
#include "rlcost/estimate.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Cat;

claims::LoadVariant FileLoader(const std::string& path) {
  return [path](const std::vector<std::string>& sets) -> Result<Scenario> {
    std::vector<Override> ov;
    for (const auto& s : sets) {
      auto o = ParseOverride(s);
      if (!o) return Fail(o.error());
      ov.push_back(*o);
    }
    return LoadScenarioFile(path, Cat(), ov);
  };
}

claims::Report Check(const std::string& path) {
  Scenario s = test::LoadFile(path);
  auto r = claims::CheckClaims(s, Cat(), FileLoader(path));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().ToString());
  return r ? *r : claims::Report{};
}

std::string Shared(const std::string& name) { return std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/" + name; }
std::string Bundled(const std::string& name) { return std::string(RLCOST_SOURCE_DIR) + "/scenarios/" + name; }

const claims::Claim* Find(const claims::Report& r, const std::string& id) {
  for (const auto& c : r.claims) {
    if (c.id == id) return &c;
  }
  return nullptr;
}

// Expected verdict per scenario file and claim id.
using Verdicts = std::map<std::string, std::string>;
const std::map<std::string, Verdicts>& Expected();

TEST(Claims, EveryScenarioGetsEveryClaimWithAVerdictFromTheFour) {
  for (const auto& [path, _] : Expected()) {
    SCOPED_TRACE(path);
    auto r = Check(path);
    ASSERT_EQ(r.claims.size(), claims::ClaimIds().size());
    for (size_t i = 0; i < r.claims.size(); ++i) {
      const auto& c = r.claims[i];
      EXPECT_EQ(c.id, claims::ClaimIds()[i]);
      EXPECT_NE(std::find(claims::Verdicts().begin(), claims::Verdicts().end(), c.verdict), claims::Verdicts().end())
          << c.id << ": " << c.verdict;
      EXPECT_FALSE(c.claimed.empty()) << c.id;
      EXPECT_FALSE(c.rlcost.empty()) << c.id;
      EXPECT_FALSE(c.why.empty()) << c.id;
      // Users never read project-internal words.
      for (const char* word : {"seed", "wave", "issue #"}) {
        EXPECT_EQ(c.why.find(word), std::string::npos) << c.id << " says '" << word << "': " << c.why;
        EXPECT_EQ(c.claim.find(word), std::string::npos) << c.id;
      }
    }
  }
}

TEST(Claims, VerdictsPerScenarioAsCheckedByHand) {
  for (const auto& [path, want] : Expected()) {
    auto r = Check(path);
    for (const auto& [id, verdict] : want) {
      const claims::Claim* c = Find(r, id);
      ASSERT_NE(c, nullptr) << path << ": " << id;
      EXPECT_EQ(c->verdict, verdict) << path << ": " << id << " — rlcost " << c->rlcost << "; " << c->why;
    }
  }
}

TEST(Claims, SpeculativeRolloutHoldsOnTheNemoRlPr2779Run) {
  // NeMo RL PR #2779 measured generation 57.4 -> 40.1 s (1 - 40.1/57.4 = 30.1%
  // less) with DeepSeek-V3's MTP module; rlcost, with the DeepSeek-V3 report's
  // acceptance 0.85 and one drafted token: 11,080 -> 7,183 rollout GPU-s per
  // step, 35.2% less, inside the field's 20-50%.
  auto r = Check(std::string(RLCOST_SOURCE_DIR) + "/validation/levers/nemo-v06-dsv3-256xh100-mtp-pr2779.yaml");
  const claims::Claim* c = Find(r, "speculative_rollout");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, "holds") << c->why;
  ASSERT_TRUE(c->value.has_value());
  EXPECT_NEAR(*c->value, 1 - 40.1 / 57.4, 0.06);
  EXPECT_EQ(c->claim.rfind("the field reports", 0), 0u);
}

// pilot-eval.yaml's async claim turns on the update's MFU (Expected(), below):
// at the typical share of train_mfu its fastest split, 5 + 3 GPUs, is
// rollout-bound, 1.41x; at the published MFU (run.tuning: tuned) 6 + 2 is
// faster and the claim holds, 1.51x.
TEST(Claims, PilotEvalAsyncFallsShortThroughTheTypicalUpdate) {
  const std::string path = Shared("pilot-eval.yaml");
  const auto typical = Check(path);
  Scenario s = test::LoadFile(path, {{"run.tuning", "tuned"}});
  ASSERT_EQ(s.run.tuning, RunTuning::kTuned);
  auto tuned = claims::CheckClaims(s, Cat(), FileLoader(path));
  ASSERT_TRUE(tuned.has_value()) << tuned.error().ToString();
  const claims::Claim* a = Find(typical, "async");
  const claims::Claim* b = Find(*tuned, "async");
  ASSERT_TRUE(a && b && a->value && b->value);
  EXPECT_EQ(a->verdict, "falls short") << a->why;
  EXPECT_NEAR(*a->value, 1018.6 / 723.0, 0.01) << a->why;
  EXPECT_NE(a->why.find("5 rollout + 3 train GPUs"), std::string::npos) << a->why;
  EXPECT_EQ(b->verdict, "holds") << b->why;
  EXPECT_NEAR(*b->value, 996.1 / 660.3, 0.01) << b->why;
  EXPECT_NE(b->why.find("6 rollout + 2 train GPUs"), std::string::npos) << b->why;
}

// issue #27: a saving bigger than claimed was printed "fails". The spot
// scenario's rollout pool at 0.35x the on-demand price, 0.5 reclaims per hour:
// 81.6% more useful samples per dollar, above RLBoost's 28-49%, so the claim
// is exceeded, not failed; everything that comes out below a claimed range
// (the 1.79x of "~20x" on default.yaml) falls short.
TEST(Claims, VerdictSaysWhichSideOfTheClaimTheFigureFalls) {
  auto r = Check(Bundled("levers/spot-rollout-helps.yaml"));
  const claims::Claim* spot = Find(r, "spot_rollout");
  ASSERT_NE(spot, nullptr);
  ASSERT_TRUE(spot->value.has_value());
  EXPECT_GT(*spot->value, 0.49) << spot->why;
  EXPECT_EQ(spot->verdict, "exceeds") << spot->rlcost;
  auto d = Check(Shared("default.yaml"));
  const claims::Claim* p = Find(d, "pass_rate_5_vs_50");
  ASSERT_NE(p, nullptr);
  EXPECT_LT(p->value.value_or(99), 20 / 1.25);
  EXPECT_EQ(p->verdict, "falls short");
  for (const auto& c : d.claims) EXPECT_NE(c.verdict, "fails") << c.id;
}

// issue #27: "depends" also when the verdict flips inside the figure's likely
// range. default.yaml (8 x H100, as the essay's setting): rollout MFU 4.2% and
// training MFU 42.5%, both inside the claim (<10%, 30-50%): the point holds.
// An MFU is work over the predicted time; the analytic band of
// catalog/intervals.yaml (predicted / measured 0.3305-1.0145) puts the
// measured time in [t / 1.0145, t / 0.3305], so training MFU in
// [42.5% x 0.3305, 42.5% x 1.0145] = [14.0%, 43.1%]: below 30% at its low end,
// where the claim no longer holds. Rollout MFU stays single-digit (at most
// 4.2% x 1.0145 = 4.3%).
TEST(Claims, DependsWhenTheVerdictFlipsWithinTheFiguresLikelyRange) {
  const std::string path = Shared("default.yaml");
  Scenario s = test::LoadFile(path);
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e) << e.error().ToString();
  const double r = e->mfu_rollout, t = e->mfu_train;
  // The point estimate holds ...
  ASSERT_LT(r, 0.10);
  ASSERT_GE(t, 0.30);
  ASSERT_LE(t, 0.50);
  // ... but the band's low end takes training MFU below 30%.
  const auto& b = interval::BandFor("analytic");
  ASSERT_LT(t * b.low, 0.30);
  ASSERT_LT(r * b.high, 0.10);
  auto rep = Check(path);
  const claims::Claim* c = Find(rep, "decode_mfu");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->verdict, "depends") << c->why;
  EXPECT_NE(c->why.find("the claim holds, but within their likely range (80%"), std::string::npos) << c->why;
  EXPECT_NE(c->why.find(fmt::format("training MFU {:.1f}%-{:.1f}%", 100 * t * b.low, 100 * t * b.high)),
            std::string::npos)
      << c->why;
  EXPECT_NE(c->why.find("where the claim no longer holds"), std::string::npos) << c->why;
}

TEST(ClaimsCli, TableJsonAndReportUseTheSameFourWords) {
  const std::string file = Bundled("levers/spot-rollout-helps.yaml");
  auto t = test::Rlcost("claims " + file, 120);
  ASSERT_EQ(t.code, 0) << t.err;
  auto j = test::Rlcost("claims " + file + " --json", 120);
  ASSERT_EQ(j.code, 0) << j.err;
  std::map<std::string, int> count;
  for (const auto& c : nlohmann::json::parse(j.out)) {
    const std::string v = c["verdict"];
    ++count[v];
    // The table's row starts with the JSON's verdict, then the claim.
    EXPECT_NE(t.out.find("  " + v + " "), std::string::npos) << v;
  }
  EXPECT_EQ(count["exceeds"], 1);
  EXPECT_EQ(t.out.find("fails"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find(fmt::format("{} hold, {} exceed, {} fall short, {} depend", count["holds"], count["exceeds"],
                                   count["falls short"], count["depends"])),
            std::string::npos)
      << t.out;
  // The legend says what each word means (wrapped at 100 characters).
  EXPECT_NE(t.out.find("exceeds (better than the"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("falls short (worse than it claims)"), std::string::npos) << t.out;
}

// The verdicts default.yaml gets; every scenario below lists only where it
// differs from them, and why where the reason is not obvious.
Verdicts Typical(std::initializer_list<std::pair<const std::string, std::string>> differences = {}) {
  Verdicts v = {{"pass_rate_5_vs_50", "falls short"}, {"capability_30_vs_2", "falls short"}, {"tool_use_tokens", "depends"},
                // decode_mfu holds at the figures (4.2% vs 42.5% on default.yaml) but depends within
                // their likely range: training MFU 14.0-43.1% crosses 30%
                // (Claims.DependsWhenTheVerdictFlipsWithinTheFiguresLikelyRange).
                {"rollout_share", "falls short"},     {"decode_mfu", "depends"},       {"lora_tenancy", "depends"},
                {"moe_active_params", "falls short"}, {"async", "holds"},              {"quantized_rollout", "falls short"},
                // grpo2 holds on "$ to goal" under the noise-scale learning model (docs/model.md sec. 7d):
                // 0.72x the dollars of G = 16 on default.yaml.
                {"b200_bandwidth", "falls short"},    {"grpo2", "holds"},              {"combined", "falls short"},
                // No scenario here states a draft and none is a DeepSeek model with an MTP module:
                // the acceptance would be assumed (docs/model.md, "Speculative decoding in rollout").
                {"speculative_rollout", "depends"},
                // No scenario here states spot prices (hardware.spot has no default).
                {"spot_rollout", "depends"},
                // No scenario here states tail handling (pipeline.tail, docs/model.md "Tail handling").
                {"tail_partial_rollout", "depends"}, {"tail_batching", "depends"},
                // Nor a re-split (placement.resplit, docs/model.md "Elastic pools").
                {"elastic_pools", "depends"}};
  for (const auto& [id, verdict] : differences) {
    EXPECT_TRUE(v.count(id)) << "no claim " << id;
    v[id] = verdict;
  }
  return v;
}

const std::map<std::string, Verdicts>& Expected() {
  static const std::map<std::string, Verdicts> m = {
      {Shared("default.yaml"), Typical()},
      // rollout_share falls short at 65.5% (295 s of a 450 s step), under the
      // essay's 80-90%: Qwen3-30B-A3B's update on the H100 node pays the MoE
      // layer floor (48 layers x 14 ms per one-sequence micro-batch, docs/
      // model.md "MoE layer floor"): 86 s where its compute is far less. It
      // held at 80.7% before (273 s of 338 s), with the decode floor alone.
      {Shared("full-stack.yaml"),
       Typical({{"rollout_share", "falls short"}, {"decode_mfu", "depends"}, {"async", "falls short"}})},
      // Its bf16 baseline is KV-bound. Since the analytic path follows a full
      // cache as it fills and preempts (docs/model.md, "A full, preempting KV
      // cache") instead of running it about half full, the baseline is
      // faster: async 1.43x (was 1.55x, "holds"), fp8 on H100 1.91x (was
      // 2.09x, "depends"), both now below the essay's range. b200_bandwidth
      // falls short: rollout 1.83x, under 2.4x / 1.25 (B200's decode efficiencies
      // read off the TensorRT-LLM rows with the full-cache model are 0.788 of
      // H100's: docs/model.md, Blackwell). async holds again at 1.53x since
      // the synchronous step waits for its busiest engine (docs/model.md,
      // "The busiest engine"; was 1.43x): the async lever's steady state
      // pools generation across steps and has no such wait. async falls short
      // again at 1.41x since the update runs at the typical RL MFU, 0.84 of
      // the published train_mfu (run.tuning: typical, docs/model.md "Named
      // fits"): the synchronous step gains only the update's 22.5 s (train
      // 118.35 -> 140.89 s of 996.1 -> 1,018.6 s), while the async split that
      // was fastest, 6 rollout + 2 train GPUs, is trainer-bound, (update
      // 473.4 -> 563.6 s + log-probs 186.8 s) = 660.3 -> 750.5 s, so the best
      // split becomes 5 + 3, rollout-bound at 723.0 s: 1,018.6 / 723.0 = 1.41x,
      // under 1.5x. With run.tuning: tuned it still holds at 996.1 / 660.3 =
      // 1.51x (`rlcost waterfall --no-plan --set run.tuning=...`).
      {Shared("pilot-eval.yaml"),
       Typical({{"rollout_share", "holds"}, {"async", "falls short"}, {"grpo2", "falls short"}})},
      // grpo2 depends where no goal is set (process-reward, swe-agent, harbor-swe-tests):
      // without "$ to goal" only the paper's claim is left to judge by.
      {Shared("process-reward.yaml"),
       Typical({{"tool_use_tokens", "holds"}, {"async", "falls short"}, {"grpo2", "depends"}})},
      // lora_tenancy depends at 1.00x: LoRA itself 1.01x x the 4x batch 1.03x
      // x sharing 0.967x (market GPU prices, sandbox CPUs 8% of the bill; the
      // refit offload LoRA's small optimizer avoids). moe_active_params
      // depends: the MoE paired with qwen3-32b (qwen3-235b-a22b) does not fit
      // at this rollout_tp.
      {Shared("swe-agent.yaml"),
       Typical({{"tool_use_tokens", "holds"}, {"moe_active_params", "depends"}, {"async", "falls short"},
                {"grpo2", "depends"}})},
      // The built-in default is the shared one with veRL 0.6's defaults
      // (docs/model.md, "The built-in default"). moe_active_params depends
      // (n/a): at the file's rollout_tp 1, qwen3-30b-a3b's 61.0 GB of weights
      // + 8 GB reserve do not fit the 0.5 of an 80 GB GPU veRL gives its
      // engine. async holds at 1.59x: the async lever's engines own their GPUs
      // and leave veRL's colocated 0.5 share to the layout (1.29x, "falls short",
      // with 0.5 kept on the 4 rollout GPUs).
      {Bundled("default.yaml"), Typical({{"moe_active_params", "depends"}})},
      // As swe-agent.
      {Bundled("harbor-swe-tests.yaml"),
       Typical({{"tool_use_tokens", "holds"}, {"moe_active_params", "depends"}, {"async", "falls short"},
                {"grpo2", "depends"}})},
      {Bundled("llm-judge.yaml"), Typical({{"async", "falls short"}, {"grpo2", "depends"}})},  // no goal set
  };
  return m;
}

// Hand checks (docs/model.md): at G = 16 a group carries a gradient with
// probability 1 - p^16 - (1-p)^16: 0.99997 at p = 0.5, 0.55987 at 0.05
// (ratio 1.786); 0.996677 at 0.3, 0.27621 at 0.02 (ratio 3.608).
TEST(Claims, PassRateRatiosByHandAtG16) {
  auto r = Check(Shared("default.yaml"));
  const claims::Claim* a = Find(r, "pass_rate_5_vs_50");
  ASSERT_NE(a, nullptr);
  ASSERT_TRUE(a->value.has_value());
  EXPECT_NEAR(*a->value, 0.9999695 / 0.5598733, 2e-3);
  const claims::Claim* b = Find(r, "capability_30_vs_2");
  ASSERT_NE(b, nullptr);
  ASSERT_TRUE(b->value.has_value());
  EXPECT_NEAR(*b->value, 0.9966770 / 0.2762100, 5e-3);
  // 2-GRPO at the same prompts: 16 / 2 rollouts per prompt.
  const claims::Claim* g = Find(r, "grpo2");
  ASSERT_NE(g, nullptr);
  EXPECT_NEAR(g->value.value_or(0), 8.0, 1e-9);
}

// Tool use on the SWE agent: 20 turns x 400 generated + 19 tool outputs x 500
// = 17,500 sample tokens, against what the same task generates in one turn.
TEST(Claims, ToolUseTokensByHand) {
  auto r = Check(Shared("swe-agent.yaml"));
  const claims::Claim* c = Find(r, "tool_use_tokens");
  ASSERT_NE(c, nullptr);
  EXPECT_NE(c->rlcost.find("17500 vs"), std::string::npos) << c->rlcost;
  EXPECT_EQ(c->verdict, "holds");
}

TEST(ClaimsCli, JsonIsAListWithTheContractKeys) {
  auto r = test::Rlcost("claims " + Shared("default.yaml") + " --json", 120);
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  ASSERT_EQ(j.size(), claims::ClaimIds().size());
  for (const auto& c : j) {
    for (const char* k : {"claim", "claimed", "rlcost", "verdict", "why"}) {
      ASSERT_TRUE(c.contains(k)) << k;
      EXPECT_TRUE(c[k].is_string()) << k;
    }
    const std::string v = c["verdict"];
    EXPECT_NE(std::find(claims::Verdicts().begin(), claims::Verdicts().end(), v), claims::Verdicts().end()) << v;
    // Which run the claim starts from, with its figures.
    const std::string from = c["from"];
    const bool lever = std::string(c["id"]) == "lora_tenancy" || c["id"] == "moe_active_params" || c["id"] == "async" ||
                       c["id"] == "quantized_rollout" || c["id"] == "b200_bandwidth" || c["id"] == "grpo2" ||
                       c["id"] == "combined";
    EXPECT_EQ(from, lever ? "naive" : "run") << c["id"];
    EXPECT_TRUE(c["starting_run"]["step_time_s"].is_number()) << c["id"];
    EXPECT_TRUE(c["starting_run"]["usd_per_step"].is_number()) << c["id"];
  }
}

TEST(ClaimsCli, TableNamesWhoseClaimsTheyAre) {
  auto r = test::Rlcost("claims " + Shared("default.yaml"), 120);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("post-training economics essay"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("essay: 80-90%"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("seed"), std::string::npos) << r.out;
}

TEST(ClaimsCli, BadInputIsAClearErrorNamingTheField) {
  auto r = test::Rlcost("claims " + Shared("default.yaml") + " --set environment.respons_tokens=100", 60);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("environment.respons_tokens"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  auto m = test::Rlcost("claims /nonexistent/scenario.yaml", 60);
  EXPECT_NE(m.code, 0);
  EXPECT_TRUE(m.out.empty()) << m.out;
}

TEST(ClaimsReport, HtmlHasTheClaimsSection) {
  const std::string out = std::filesystem::temp_directory_path() / ("rlcost_claims_" + std::to_string(::getpid()) + ".html");
  auto r = test::Rlcost("report " + Shared("default.yaml") + " -o " + out, 180);
  ASSERT_EQ(r.code, 0) << r.err;
  std::ifstream f(out);
  std::string html((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::filesystem::remove(out);
  EXPECT_NE(html.find("id=\"claims\""), std::string::npos);
  for (const auto& id : claims::ClaimIds()) {
    EXPECT_NE(html.find("data-claim=\"" + id + "\""), std::string::npos) << id;
  }
}

}  // namespace
}  // namespace rlcost

namespace rlcost {
namespace {

// docs/model.md, "Tail handling" and "Elastic pools": the claims are judged
// on the scenarios that state the lever, by the figures they name.
TEST(Claims, TailAndElasticPoolClaimsReadTheirOwnFigures) {
  const std::string dir = std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/";
  {
    const std::string f = dir + "tail-partial-rollout-helps.yaml";
    auto r = Check(f);
    const claims::Claim* c = Find(r, "tail_partial_rollout");
    ASSERT_NE(c, nullptr);
    auto on = EstimateAnalytic(test::LoadFile(f));
    auto off = EstimateAnalytic(LoadScenarioFile(f, Cat(), {{"pipeline.tail", "none"}}).value());
    ASSERT_TRUE(on && off);
    ASSERT_TRUE(c->value.has_value()) << c->why;
    // The claim's figure: rollout time without over rollout time with, less one.
    EXPECT_NEAR(*c->value, off->step.rollout_s / on->step.rollout_s - 1, 1e-9);
    // APRIL reports up to 44% faster rollout; this wide-tailed scenario gains more: exceeds.
    EXPECT_GT(*c->value, 0.44);
    EXPECT_EQ(c->verdict, "exceeds");
    EXPECT_EQ(c->claim.rfind("the field reports", 0), 0u);
  }
  {
    const std::string f = dir + "resplit-lengths-grow.yaml";
    auto r = Check(f);
    const claims::Claim* c = Find(r, "elastic_pools");
    ASSERT_NE(c, nullptr);
    auto e = EstimateAnalytic(test::LoadFile(f));
    ASSERT_TRUE(e && e->resplit);
    ASSERT_TRUE(c->value.has_value()) << c->why;
    EXPECT_NEAR(*c->value, e->resplit->fixed_steps_h / e->resplit->steps_h, 1e-9);
    // Libra's "up to 3.0x": a gain above 1 and at most 3 holds.
    EXPECT_GT(*c->value, 1.0);
    EXPECT_LE(*c->value, 3.0);
    EXPECT_EQ(c->verdict, "holds");
    EXPECT_NE(c->why.find("ASSUMED"), std::string::npos) << c->why;
  }
}


// Each 2026 lever's claim on the scenario of scenarios/levers/ where the lever
// does not pay: the field's figure is not met ("falls short"), and the value
// is the lever's own effect on this run (a loss is negative). Spot at 6
// preemptions per node-hour, EAGLE at a KV-bound batch of 8192 with acceptance
// 0.3, elastic pools on flat lengths (no change of split: 1.0x), tail batching
// on narrow lengths (cv 0.1: the extra launch costs more than the tail saves).
TEST(Claims, LeverClaimsFallShortWhereTheLeverDoesNotPay) {
  struct Case {
    const char* file;
    const char* id;
  };
  for (const Case& k : {Case{"levers/spot-rollout-frequent-preemptions.yaml", "spot_rollout"},
                        Case{"levers/speculative-large-batch.yaml", "speculative_rollout"},
                        Case{"levers/resplit-lengths-flat.yaml", "elastic_pools"}}) {
    auto r = Check(Bundled(k.file));
    const claims::Claim* c = Find(r, k.id);
    ASSERT_NE(c, nullptr) << k.file;
    ASSERT_TRUE(c->value.has_value()) << k.file << ": " << c->why;
    EXPECT_EQ(c->verdict, "falls short") << k.file << ": " << c->rlcost;
    if (std::string(k.id) == "elastic_pools") {
      EXPECT_DOUBLE_EQ(*c->value, 1.0);
    } else {
      EXPECT_LT(*c->value, 0.0) << k.file;  // dearer / slower with the lever than without
    }
  }
  const std::string narrow = Bundled("levers/tail-narrow-lengths.yaml");
  auto s = LoadScenarioFile(narrow, Cat(), {{"pipeline.tail", "{mode: tail_batching, over_launch: 0.25}"}});
  ASSERT_TRUE(s.has_value());
  auto r = claims::CheckClaims(*s, Cat(), FileLoader(narrow));
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  const claims::Claim* c = Find(*r, "tail_batching");
  ASSERT_NE(c, nullptr);
  ASSERT_TRUE(c->value.has_value()) << c->why;
  EXPECT_LT(*c->value, 1.0);
  EXPECT_EQ(c->verdict, "falls short");
}

}  // namespace
}  // namespace rlcost
