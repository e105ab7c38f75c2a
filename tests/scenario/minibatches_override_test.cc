// algorithm.minibatches must divide prompts_per_step x group_size, so a file
// that states it sends --set of either through the loader, which checks the
// three together (src/scenario/fast_override.cc, NoMinibatches).
#include <gtest/gtest.h>

#include "scenario/document.h"
#include "scenario/fast_override.h"
#include "support.h"

namespace rlcost::scenario_internal {
namespace {

constexpr const char* kText =
    "name: mb\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
    "algorithm: {name: grpo, group_size: 16, prompts_per_step: 128, minibatches: 4}\n";

TEST(MinibatchOverrides, ABatchChangeIsCheckedAgainstTheCount) {
  auto doc = ScenarioDocument::FromText(kText, "mb.yaml", ".", "");
  ASSERT_TRUE(doc) << doc.error().ToString();
  FastOverrides fast(*doc, test::Cat());
  EXPECT_FALSE(fast.Direct("algorithm.prompts_per_step"));
  EXPECT_FALSE(fast.Direct("algorithm.group_size"));
  // 100 x 16 = 1,600 samples: 4 divides them; 25 x 2 = 50 does not.
  auto ok = fast.Load({{"algorithm.prompts_per_step", "100"}});
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_EQ(ok->algorithm.minibatches, 4);
  auto bad = fast.Load({{"algorithm.prompts_per_step", "25"}, {"algorithm.group_size", "2"}});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("algorithm.minibatches: 4 does not divide the step's 50 samples"),
            std::string::npos)
      << bad.error().ToString();
  // Without the field the batch fields stay direct.
  auto plain = ScenarioDocument::FromText(
      "name: p\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nalgorithm: {name: grpo}\n", "p.yaml", ".", "");
  ASSERT_TRUE(plain);
  EXPECT_TRUE(FastOverrides(*plain, test::Cat()).Direct("algorithm.prompts_per_step"));
}

}  // namespace
}  // namespace rlcost::scenario_internal
