// Memory per role (src/plan/memory.cc, `rlcost memory`): the trainer's
// activations worked out by hand, every published NeMo RL and veRL layout
// fits, and a documented out-of-memory run does not.
#include <string>

#include <gtest/gtest.h>

#include "plan/memory.h"
#include "plan/plan.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/plan/" + rel; }

TEST(Memory, TrainerActivationsFollowKorthikantiWithRecomputeAndFp32Logits) {
  // qwen2.5-32b: hidden 5120, 64 layers, vocabulary 152,064; one sequence of
  // 768 + 32,000 = 32,768 tokens (fixed lengths), FSDP (no tp/cp/pp):
  //   no recompute   64 x 34 x 32768 x 5120 B          = 365.07 GB
  //   full recompute 64 x 2 x 32768 x 5120 + 34 x 32768 x 5120
  //                  = 21.475 + 5.704                   =  27.18 GB
  //   logits         4 x 32768 x 152064                 =  19.93 GB
  Scenario s = test::LoadFile(Data("s1-qwen25-32b-8xh100-oom.yaml"));
  ASSERT_EQ(s.model.hidden, 5120);
  ASSERT_EQ(s.model.layers, 64);
  ASSERT_EQ(s.model.vocab, 152064);
  plan::TrainActivations a = plan::TrainActivationMemory(s);
  EXPECT_DOUBLE_EQ(a.tokens, 32768);
  EXPECT_NEAR(a.no_recompute_gb, 365.07, 0.01);
  EXPECT_NEAR(a.recompute_gb, 27.18, 0.01);
  EXPECT_NEAR(a.logits_gb, 19.93, 0.01);
  // train_tp 4 with sequence parallelism divides all three by 4.
  auto tp4 = test::LoadFile(Data("s1-qwen25-32b-8xh100-oom.yaml"), {{"placement.train_tp", "4"}});
  plan::TrainActivations b = plan::TrainActivationMemory(tp4);
  EXPECT_NEAR(b.recompute_gb, 27.18 / 4, 0.01);
  EXPECT_NEAR(b.logits_gb, 19.93 / 4, 0.01);
}

TEST(Memory, ADocumentedOutOfMemoryRunDoesNotFit) {
  // simplescaling/s1 issue #13: Qwen2.5-32B at 32k tokens, micro-batch 1,
  // FSDP over 8 H100s runs out of memory ("We used 16 H100 and got OOM with
  // 8"). State 32.5B x 16 B / 8 = 65.0 GB + 27.2 GB activations + 19.9 GB
  // logits = 112.1 GB > 80 GB.
  Scenario s = test::LoadFile(Data("s1-qwen25-32b-8xh100-oom.yaml"));
  plan::MemoryReport r = plan::MemoryOf(s);
  EXPECT_FALSE(r.fits);
  ASSERT_EQ(r.roles.size(), 2u);
  EXPECT_NEAR(r.roles[1].total_gb, 112.1, 0.2);
  EXPECT_NE(r.verdict.find("does not fit"), std::string::npos);
  EXPECT_FALSE(plan::Fits(s));
}

TEST(Memory, EveryPublishedNemoRlAndVerlLayoutFits) {
  int checked = 0;
  for (const auto& f : test::SharedScenarioFiles()) {
    if (f.find("/validation/nemo-") == std::string::npos && f.find("/validation/verl-") == std::string::npos) continue;
    SCOPED_TRACE(f);
    Scenario s = test::LoadFile(f);
    plan::MemoryReport r = plan::MemoryOf(s);
    EXPECT_TRUE(r.fits) << r.verdict;
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(Memory, SmallestGpuCountAndLargestModelAreTheEdgesOfFitting) {
  // Qwen3-8B, short sequences: fits somewhere; one node fewer than the
  // answer does not.
  auto s = test::Load("model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
                      "environment: {response_tokens: 1000}\n");
  auto n = plan::SmallestFittingGpus(s);
  ASSERT_TRUE(n);
  EXPECT_TRUE(plan::AnyLayoutFits(plan::WithGpus(s, *n)));
  if (*n > 1) EXPECT_FALSE(plan::AnyLayoutFits(plan::WithGpus(s, *n / 2)));
  // The largest catalog model on 8 H100s fits there, and every larger one does not.
  auto m = plan::LargestFittingModel(s, test::Cat());
  ASSERT_TRUE(m);
  const double params = test::Cat().FindModel(*m)->params_b;
  for (const auto& [id, model] : test::Cat().models()) {
    if (model.params_b <= params) continue;
    Scenario c = s;
    c.model = model;
    c.model_id = id;
    EXPECT_FALSE(plan::AnyLayoutFits(c)) << id;
  }
}

}  // namespace
}  // namespace rlcost
