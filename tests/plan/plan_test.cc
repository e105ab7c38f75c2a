// The layout planner (src/plan/plan.cc) against a brute-force search over the
// same choices made the way a user would make them (`--set` overrides read by
// the loader, the literal estimate), the stated fields kept, and the
// published validation layouts.
#include <unistd.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <iterator>
#include <filesystem>
#include <optional>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "ingest/import.h"
#include "plan/memory.h"
#include "plan/plan.h"
#include "rlcost/estimate.h"
#include "support.h"

namespace rlcost {
namespace {

std::string ScenarioText(const std::string& model, const std::string& gpu, int gpus,
                         const std::string& response = "{mean: 3000, cv: 0.7, max: 8192}") {
  return fmt::format(R"(model: {}
hardware: {{gpu: {}, gpus: {}}}
environment:
  prompt_tokens: {{mean: 400, cv: 0.5, max: 2048}}
  response_tokens: {}
algorithm: {{group_size: 8, prompts_per_step: 128}}
)",
                     model, gpu, gpus, response);
}

struct Best {
  double usd = INFINITY;
  std::string what;
};

// Every layout the planner may choose, each written as `--set` overrides and
// read by the loader; the cheapest whose estimate runs and that fits
// (plan::Fits). Independent of plan::Candidates / WithLayout.
Best BruteForce(const std::string& yaml, int gpus) {
  Best best;
  auto consider = [&](std::vector<Override> ov) {
    auto s = LoadScenarioText(yaml, test::Cat(), "<brute>", ".", ov);
    if (!s || !plan::Fits(*s)) return;
    auto e = EstimateAnalytic(*s, TextDetail::kNumbers);
    if (!e) return;
    if (e->usd_per_step < best.usd) {
      best.usd = e->usd_per_step;
      best.what.clear();
      for (const auto& o : ov) best.what += o.path + "=" + o.value + " ";
    }
  };
  const int unit = gpus >= 16 ? 8 : 1;
  for (int tp = 1; tp <= 64; tp *= 2) {
    for (const char* dp : {"false", "true"}) {
      for (const char* share : {"", "0.9"}) {
        std::vector<Override> ov = {{"placement.mode", "colocated"},
                                    {"placement.rollout_tp", std::to_string(tp)},
                                    {"placement.dp_attention", dp}};
        if (*share) ov.push_back({"placement.gpu_memory_utilization", share});
        consider(ov);
      }
      for (int r = unit; r < gpus; r += unit) {
        consider({{"placement.mode", "disaggregated"},
                  {"placement.rollout_gpus", std::to_string(r)},
                  {"placement.train_gpus", std::to_string(gpus - r)},
                  {"placement.rollout_tp", std::to_string(tp)},
                  {"placement.dp_attention", dp}});
      }
    }
  }
  return best;
}

struct Case {
  const char* model;
  int gpus;
};

// Done-when of issue #26: with placement left out, the planner's dollars per
// step are within 5% of the brute-force best over the same layout choices,
// and its layout fits, for dense 8B/32B/70B and MoE 30B-A3B/235B on H100,
// H200 and B200.
TEST(Plan, MatchesABruteForceSearchWithinFivePercentOnEveryGpuAndModel) {
  const Case cases[] = {{"qwen3-8b", 8},        {"qwen3-32b", 32},        {"llama-3.1-70b", 64},
                        {"qwen3-30b-a3b", 16},  {"qwen3-235b-a22b", 64}};
  for (const char* gpu : {"h100-sxm", "h200", "b200"}) {
    for (const Case& c : cases) {
      SCOPED_TRACE(fmt::format("{} on {} x {}", c.model, c.gpus, gpu));
      const std::string yaml = ScenarioText(c.model, gpu, c.gpus);
      auto s = LoadScenarioText(yaml, test::Cat());
      ASSERT_TRUE(s) << s.error().ToString();
      auto p = plan::PlanLayout(*s);
      const Best brute = BruteForce(yaml, c.gpus);
      ASSERT_TRUE(std::isfinite(brute.usd)) << "no layout fits: the case tests nothing";
      ASSERT_TRUE(p) << p.error().ToString();
      EXPECT_TRUE(plan::Fits(p->scenario)) << p->summary.layout;
      auto e = EstimateAnalytic(p->scenario, TextDetail::kNumbers);
      ASSERT_TRUE(e);
      EXPECT_LE(e->usd_per_step, brute.usd * 1.05)
          << "planner: " << p->summary.layout << " $" << e->usd_per_step << "; brute force: " << brute.what << " $"
          << brute.usd;
    }
  }
}

TEST(Plan, KeepsEveryFieldTheScenarioStates) {
  // rollout_tp 1 and colocated stated: the planner may only choose the
  // engine's share (and finds nothing else to change).
  auto s = test::Load(ScenarioText("qwen3-32b", "h100-sxm", 32) + "placement: {mode: colocated, rollout_tp: 1}\n");
  auto p = plan::PlanLayout(s);
  ASSERT_TRUE(p) << p.error().ToString();
  EXPECT_EQ(p->scenario.placement.rollout_tp, 1);
  EXPECT_EQ(p->scenario.placement.mode, PlacementMode::kColocated);
  for (const auto& f : p->summary.chosen_fields) {
    EXPECT_NE(f, "placement.rollout_tp");
    EXPECT_NE(f, "placement.mode");
  }
  // Left out, the same run plans a wider engine: 32B over one GPU holds 5.6
  // sequences of KV per engine at 4k (the issue's report).
  auto free = plan::PlanLayout(test::Load(ScenarioText("qwen3-32b", "h100-sxm", 32)));
  ASSERT_TRUE(free);
  EXPECT_GT(free->scenario.placement.rollout_tp, 1);
  EXPECT_TRUE(free->changed);
  ASSERT_TRUE(free->summary.literal_usd_per_step);
  auto e = EstimateAnalytic(free->scenario);
  ASSERT_TRUE(e);
  EXPECT_LT(e->usd_per_step, *free->summary.literal_usd_per_step);
}

TEST(Plan, ASetOverrideCountsAsStated) {
  auto s = LoadScenarioText(ScenarioText("qwen3-32b", "h100-sxm", 32), test::Cat(), "<t>", ".",
                            {{"placement.rollout_tp", "2"}});
  ASSERT_TRUE(s);
  EXPECT_TRUE(s->placement.stated.rollout_tp);
  EXPECT_FALSE(s->placement.stated.mode);
  auto p = plan::PlanLayout(*s);
  ASSERT_TRUE(p);
  EXPECT_EQ(p->scenario.placement.rollout_tp, 2);
}

TEST(Plan, MoreGpusNeverCostMoreTimeOnceThePlannerChoosesTheLayout) {
  // The issue's cliff: Qwen3-32B read literally (rollout_tp 1) steps slower on
  // 128 GPUs than on 96 (the training state fits beside the engine and leaves
  // 1.6 sequences of KV). Planned, the step shortens as GPUs are added.
  double last = INFINITY;
  for (int gpus : {32, 64, 96, 128}) {
    auto s = test::Load(ScenarioText("qwen3-32b", "h100-sxm", gpus, "4096"));
    auto p = plan::PlanLayout(s, {plan::Objective::kTime});
    ASSERT_TRUE(p);
    auto e = EstimateAnalytic(p->scenario);
    ASSERT_TRUE(e);
    EXPECT_LT(e->step.time_s, last) << gpus << " GPUs";
    last = e->step.time_s;
  }
}

TEST(Plan, LiteralReadingNotesAKvCacheBelowTheBatch) {
  // Qwen3-32B, rollout_tp 1, 32 H100s, G=8 x 128 prompts = 1024 rollouts over
  // 32 engines = 32 each; the cache holds about 5.6 (the issue's figure).
  auto s = test::Load(ScenarioText("qwen3-32b", "h100-sxm", 32, "4096"));
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e);
  auto notes = plan::LiteralNotes(s, *e);
  bool kv = false, layout = false;
  for (const auto& n : notes) {
    if (n.find("KV cache below the batch") != std::string::npos && n.find("each engine is given 32") != std::string::npos)
      kv = true;
    if (n.rfind("layout: ", 0) == 0) layout = true;
  }
  EXPECT_TRUE(kv);
  EXPECT_TRUE(layout);
}

// ../shared/validation with the planned fields removed (mode, split,
// rollout_tp, dp_attention, engine share: the engine, the trainer's layout
// and the rest stay as published), planned for time: no slower than the
// published layout x 1.05, except where the published layout is outside the
// planner's choices (a split that is not whole nodes, a trainer layout that
// the published split alone divides).
TEST(Plan, PlannedLayoutIsNoSlowerThanEachPublishedOne) {
  namespace fs = std::filesystem;
  int compared = 0;
  for (const auto& f : test::SharedScenarioFiles()) {
    if (f.find("/validation/") == std::string::npos) continue;
    SCOPED_TRACE(f);
    Scenario pub = test::LoadFile(f);
    auto published = EstimateAnalytic(pub, TextDetail::kNumbers);
    ASSERT_TRUE(published) << published.error().ToString();
    Scenario open = pub;
    open.placement.stated.mode = open.placement.stated.split = open.placement.stated.rollout_tp =
        open.placement.stated.dp_attention = false;
    open.placement.gpu_memory_utilization.reset();
    auto p = plan::PlanLayout(open, {plan::Objective::kTime});
    if (!p) {
      ADD_FAILURE() << p.error().ToString();
      continue;
    }
    auto e = EstimateAnalytic(p->scenario, TextDetail::kNumbers);
    ASSERT_TRUE(e);
    const bool in_choices = [&] {
      for (const auto& l : plan::Candidates(open)) {
        plan::Layout mine = plan::LayoutOf(pub);
        mine.gpu_memory_utilization.reset();
        if (l == mine) return true;
      }
      return false;
    }();
    if (!in_choices) {
      std::cout << "  not compared (published layout outside the planner's choices): " << f << ": "
                << plan::Describe(plan::LayoutOf(pub)) << "\n";
    } else {
      ++compared;
      EXPECT_LE(e->step.time_s, published->step.time_s * 1.05)
          << "planned " << p->summary.layout << " vs published " << plan::Describe(plan::LayoutOf(pub));
    }
  }
  EXPECT_GE(compared, 25);
}

TEST(Plan, VerlImportWithoutRolloutTpGetsVerlsDefaultOfTwo) {
  // volcengine/verl verl/trainer/config/rollout/rollout.yaml @035682ed:
  // tensor_model_parallel_size: 2. The one-step-off config states 2 itself;
  // with the key dropped the importer writes veRL's default, not 1.
  const std::string src = std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/verl/one_step_off_4_12.yaml";
  std::ifstream in(src);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const auto at = text.find("tensor_model_parallel_size: 2");
  ASSERT_NE(at, std::string::npos);
  const auto line_start = text.rfind('\n', at) + 1;
  text.erase(line_start, text.find('\n', at) + 1 - line_start);
  ASSERT_EQ(text.find("tensor_model_parallel_size"), std::string::npos);
  const auto tmp = std::filesystem::temp_directory_path() / ("rlcost_plan_verl_" + std::to_string(::getpid()) + ".yaml");
  {
    std::ofstream out(tmp);
    out << text;
  }
  auto r = ingest::ImportVerl(tmp.string(), {}, test::Cat(), {.gpu = "H20"});
  std::filesystem::remove(tmp);
  ASSERT_TRUE(r) << r.error().ToString();
  auto s = LoadScenarioText(r->yaml, test::Cat());
  ASSERT_TRUE(s) << s.error().ToString() << r->yaml;
  EXPECT_EQ(s->placement.rollout_tp, 2);
  EXPECT_TRUE(s->placement.stated.rollout_tp);
}

}  // namespace
}  // namespace rlcost

// --- No silent cliff -----------------------------------------------------------

namespace rlcost {
namespace {

std::string Q32On(int gpus, const std::string& placement) {
  return fmt::format(R"(model: qwen3-32b
hardware: {{gpu: h100-sxm, gpus: {}, gpus_per_node: 8}}
environment:
  prompt_tokens: {{mean: 300, cv: 0.5, max: 1024}}
  response_tokens: {{mean: 2000, cv: 0.8, max: 8192}}
  pass_rate: {{mean: 0.35, concentration: 2.0}}
algorithm: {{group_size: 16, prompts_per_step: 64, steps: 300}}
{})",
                     gpus, placement);
}

TEST(ScalingNotes, LiteralLayoutOn128GpusSaysFewerGpusAreFasterAndWhichLayoutAvoidsIt) {
  // Colocated rollout_tp 1 as written: on 128 GPUs each one-GPU engine is
  // given 1024 / 128 = 8 rollouts but, with the training state left beside it
  // (it fits), its KV cache holds about 3 sequences, so generation runs in
  // waves; on 96 GPUs (3/4 of the nodes) the state is moved out while
  // generating and the cache holds about 10. The step is shorter on 96 GPUs:
  // the note names 96, the KV cache and the planned layout that avoids it.
  const Scenario s = test::Load(Q32On(128, "placement: {mode: colocated, rollout_tp: 1}"));
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e.has_value());
  auto at96 = EstimateAnalytic(test::Load(Q32On(96, "placement: {mode: colocated, rollout_tp: 1}")));
  ASSERT_TRUE(at96.has_value());
  ASSERT_LT(at96->step.time_s, e->step.time_s);  // the cliff this test is about
  const auto notes = plan::ScalingNotes(s, *e, /*planned=*/false);
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].find("on 96 GPUs"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("KV cache"), std::string::npos) << notes[0];
  EXPECT_NE(notes[0].find("avoids it"), std::string::npos) << notes[0];
}

TEST(ScalingNotes, PlannedLayoutOn128GpusHasNoCliff) {
  // Planned, rollout_tp 8 on every count: 128 GPUs run a shorter step than
  // 120, 96 or 64, so nothing is said.
  const Scenario s = test::Load(Q32On(128, ""));
  auto p = plan::PlanLayout(s);
  ASSERT_TRUE(p.has_value());
  auto e = EstimateAnalytic(p->scenario);
  ASSERT_TRUE(e.has_value());
  EXPECT_TRUE(plan::ScalingNotes(p->scenario, *e, /*planned=*/true).empty());
}

}  // namespace
}  // namespace rlcost
