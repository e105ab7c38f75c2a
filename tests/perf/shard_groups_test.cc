// placement.train_shard_gpus: the training state sharded over groups of GPUs
// and copied across them (FSDP2 hybrid sharding, veRL fsdp_config.fsdp_size).
// docs/model.md, "Sharding groups".
#include <gtest/gtest.h>

#include "rlcost/perf.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

// Qwen2.5-7B (7.61B parameters) trained on 8 of 16 H20, its parameters and
// optimizer states offloaded between passes as veRL's recipes do.
std::string Text(const std::string& shard) {
  return "name: shard\nmodel: qwen2.5-7b\nhardware: {gpu: h20, gpus: 16, gpus_per_node: 8}\n"
         "placement: {mode: disaggregated, rollout_gpus: 8, train_gpus: 8, rollout_tp: 2, "
         "offload: {params: true, optimizer: true}" +
         shard +
         "}\n"
         "environment:\n  prompt_tokens: {mean: 150, cv: 0.5, max: 2048}\n"
         "  response_tokens: {mean: 650, cv: 1.2, max: 8192}\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 8, prompts_per_step: 64, steps: 10, recompute_logprobs: true}\n";
}

TEST(ShardGroups, EachGpuHoldsAndMovesItsGroupsShare) {
  Scenario all = test::Load(Text(""));
  Scenario pairs = test::Load(Text(", train_shard_gpus: 2"));
  EXPECT_EQ(perf::ShardGpus(all), 8);
  EXPECT_EQ(perf::ShardGpus(pairs), 2);
  auto ma = perf::PlanMemory(all);
  auto mp = perf::PlanMemory(pairs);
  ASSERT_TRUE(ma && mp);
  // 16 bytes per parameter (bf16 weights and gradients, fp32 master and Adam
  // moments): 16 x 7.61e9 / 8 = 15.22 GB; over pairs 60.88 GB.
  EXPECT_NEAR(ma->train_state_gb, 15.22, 1e-9);
  EXPECT_NEAR(mp->train_state_gb, 60.88, 1e-9);
  EXPECT_FALSE(mp->optimizer_offloaded);  // 60.88 + 9.6 reserve <= 96 GB
  // Offload (docs/model.md, "Offload"): each pass that needs the parameters
  // brings back its 4 bytes a parameter (update, old log-probs: 2 trips when
  // disaggregated), the update the 8 bytes of Adam moments; out and back at
  // 25 GB/s. All 8: 2 x (2 x 4 + 8) x 7.61e9 / 8 / 25e9 = 1.2176 s; pairs 4.8704 s.
  EXPECT_NEAR(perf::OffloadTime(all, *ma), 1.2176, 1e-9);
  EXPECT_NEAR(perf::OffloadTime(pairs, *mp), 4.8704, 1e-9);
}

TEST(ShardGroups, TheGroupDividesTheTrainingGpus) {
  auto r = LoadScenarioText(Text(", train_shard_gpus: 3"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("placement.train_shard_gpus: train_shard_gpus 3 does not divide the 8 training "
                                      "GPUs; expected a divisor of 8"),
            std::string::npos)
      << r.error().ToString();
  auto z = LoadScenarioText(Text(", train_shard_gpus: 0"), test::Cat(), "t.yaml", ".");
  ASSERT_FALSE(z);
  EXPECT_NE(z.error().ToString().find("placement.train_shard_gpus"), std::string::npos) << z.error().ToString();
  // The whole trainer as one group is ZeRO-3, as if unset.
  Scenario eight = test::Load(Text(", train_shard_gpus: 8"));
  EXPECT_EQ(perf::ShardGpus(eight), 8);
}

}  // namespace
}  // namespace rlcost
