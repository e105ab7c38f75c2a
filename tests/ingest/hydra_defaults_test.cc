// veRL's configs compose with Hydra's defaults lists (hydra.cc, "The Defaults
// List"): `rlcost import verl` reads the config groups the list names from the
// config's folder, places each at its package and lets the file's own keys win
// where `_self_` stands (last when not listed, Hydra 1.1). The files under
// tests/data/ingest/verl/composed/ have the shape of veRL's since v0.5.
#include <gtest/gtest.h>

#include "ingest/config_tree.h"
#include "ingest/import.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Composed(const std::string& f) {
  return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/verl/composed/" + f;
}

TEST(HydraDefaults, GroupsLandAtTheirPackagesAndTheFileWinsLast) {
  auto t = ingest::ConfigTree::Load(Composed("ppo_trainer.yaml"), {});
  ASSERT_TRUE(t) << t.error().ToString();
  // actor@actor_rollout_ref.actor: dp_actor, whose own list puts
  // ../engine@fsdp_config (engine/fsdp.yaml) and actor (actor/actor.yaml)
  // under it, then dp_actor's keys over actor.yaml's.
  EXPECT_EQ(t->String("actor_rollout_ref.actor.strategy"), "fsdp");
  EXPECT_EQ(t->Int("actor_rollout_ref.actor.ppo_mini_batch_size"), 16);
  EXPECT_EQ(t->Bool("actor_rollout_ref.actor.use_kl_loss"), false);
  EXPECT_EQ(t->Bool("actor_rollout_ref.actor.fsdp_config.optimizer_offload"), true);
  // rollout@actor_rollout_ref.rollout, then the primary file over it (_self_ last).
  EXPECT_EQ(t->Bool("actor_rollout_ref.rollout.enforce_eager"), true);
  EXPECT_EQ(t->Int("actor_rollout_ref.rollout.n"), 8);
  EXPECT_EQ(t->Number("actor_rollout_ref.rollout.gpu_memory_utilization"), 0.6);
  // "???" is OmegaConf's missing value: not set.
  EXPECT_FALSE(t->Has("actor_rollout_ref.rollout.name"));
  EXPECT_EQ(t->String("actor_rollout_ref.rollout.name"), std::nullopt);
  // Where a value came from: its own file and line.
  EXPECT_EQ(t->Where("actor_rollout_ref.rollout.enforce_eager"), Composed("rollout/rollout.yaml") + ":4");
  EXPECT_EQ(t->Where("actor_rollout_ref.actor.fsdp_config.optimizer_offload"), Composed("engine/fsdp.yaml") + ":2");
  EXPECT_EQ(t->Where("actor_rollout_ref.rollout.n"), Composed("ppo_trainer.yaml") + ":14");
  // The defaults lists are not config keys; an optional group that is not
  // there and a null option are skipped without a note.
  EXPECT_FALSE(t->Has("defaults"));
  EXPECT_FALSE(t->Has("extra"));
  EXPECT_FALSE(t->Has("critic"));
  EXPECT_TRUE(t->NotRead().empty());
}

TEST(HydraDefaults, SelfFirstLetsTheListedConfigsWin) {
  auto t = ingest::ConfigTree::Load(Composed("self_first.yaml"), {});
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_EQ(t->Number("actor_rollout_ref.rollout.gpu_memory_utilization"), 0.5);
  // Command-line overrides still win over everything.
  auto o = ingest::ConfigTree::Load(Composed("self_first.yaml"), {"actor_rollout_ref.rollout.gpu_memory_utilization=0.7"});
  ASSERT_TRUE(o);
  EXPECT_EQ(o->Number("actor_rollout_ref.rollout.gpu_memory_utilization"), 0.7);
  EXPECT_EQ(o->Where("actor_rollout_ref.rollout.gpu_memory_utilization"), "command line");
}

TEST(HydraDefaults, ALoopIsAnErrorAndAMissingBaseIsANote) {
  auto loop = ingest::ConfigTree::Load(Composed("loop_a.yaml"), {});
  ASSERT_FALSE(loop);
  EXPECT_NE(loop.error().ToString().find("the defaults come back to this file (a loop)"), std::string::npos)
      << loop.error().ToString();
  // A recipe whose base is on a search path that is not here: the import
  // reads what it can and says which entry it could not.
  auto t = ingest::ConfigTree::Load(Composed("recipe.yaml"), {});
  ASSERT_TRUE(t) << t.error().ToString();
  ASSERT_EQ(t->NotRead().size(), 1u);
  EXPECT_NE(t->NotRead()[0].find("recipe.yaml:7: defaults entry 'ppo_trainer_elsewhere' not read (no "
                                 "ppo_trainer_elsewhere.yaml under "),
            std::string::npos)
      << t->NotRead()[0];
  auto imported = ingest::ImportVerl(Composed("recipe.yaml"), {}, test::Cat(), {.gpu = "h100"});
  ASSERT_TRUE(imported) << imported.error().ToString();
  EXPECT_NE(imported->yaml.find("defaults entry 'ppo_trainer_elsewhere' not read"), std::string::npos);
  EXPECT_EQ(imported->not_read.size(), 1u);
}

TEST(HydraDefaults, ASearchPathFindsTheBase) {
  auto t = ingest::ConfigTree::Load(Composed("recipe_found.yaml"), {});
  ASSERT_TRUE(t) << t.error().ToString();
  EXPECT_TRUE(t->NotRead().empty());
  EXPECT_EQ(t->Int("actor_rollout_ref.rollout.n"), 16);                      // the recipe's own
  EXPECT_EQ(t->Bool("actor_rollout_ref.rollout.enforce_eager"), true);       // the base's group
  EXPECT_EQ(t->Int("actor_rollout_ref.actor.ppo_mini_batch_size"), 16);
}

// What the composition buys an import: the eager rollout of veRL's own
// config is carried (before, only a flattened _generated_ file gave it).
TEST(HydraDefaults, ImportCarriesWhatTheGroupsSet) {
  auto r = ingest::ImportVerl(Composed("ppo_trainer.yaml"), {"actor_rollout_ref.rollout.name=vllm"}, test::Cat(),
                              {.gpu = "h100"});
  ASSERT_TRUE(r) << r.error().ToString();
  auto s = LoadScenarioText(r->yaml, test::Cat(), "imported", ".");
  ASSERT_TRUE(s) << s.error().ToString() << "\n" << r->yaml;
  EXPECT_TRUE(s->engine.enforce_eager);
  EXPECT_EQ(s->placement.rollout_tp, 2);
  EXPECT_EQ(s->algorithm.group_size, 8);
  EXPECT_NE(r->yaml.find("enforce_eager: true"), std::string::npos);
}

// use_remove_padding: false on the FSDP actor -> every sequence padded to the
// maximum length in the trainer (placement.train_padding: max-length); true ->
// packed; the Megatron actor's padding is not priced, so not written.
TEST(HydraDefaults, ImportCarriesRemovePadding) {
  const std::vector<std::string> base = {"actor_rollout_ref.rollout.name=vllm", "data.max_prompt_length=512",
                                         "data.max_response_length=1024"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> ov = base;
    ov.insert(ov.end(), extra.begin(), extra.end());
    auto r = ingest::ImportVerl(Composed("ppo_trainer.yaml"), ov, test::Cat(), {.gpu = "h100"});
    EXPECT_TRUE(r) << (r ? "" : r.error().ToString());
    return r ? r->yaml : std::string();
  };
  const std::string off = with({"actor_rollout_ref.model.use_remove_padding=False"});
  EXPECT_NE(off.find("train_padding: max-length"), std::string::npos) << off;
  auto s = LoadScenarioText(off, test::Cat(), "imported", ".");
  ASSERT_TRUE(s) << s.error().ToString();
  EXPECT_EQ(s->placement.train_padding, TrainPadding::kMaxLength);
  EXPECT_NE(with({"actor_rollout_ref.model.use_remove_padding=True"}).find("train_padding: packed"), std::string::npos);
  EXPECT_EQ(with({"actor_rollout_ref.model.use_remove_padding=False", "actor_rollout_ref.actor.strategy=megatron"})
                .find("train_padding"),
            std::string::npos);
  // fsdp_size: a group smaller than the trainer's 8 GPUs is written; -1 (all)
  // and the whole world are ZeRO-3 over all (veRL create_device_mesh).
  EXPECT_NE(with({"actor_rollout_ref.actor.fsdp_config.fsdp_size=2"}).find("train_shard_gpus: 2"), std::string::npos);
  EXPECT_EQ(with({"actor_rollout_ref.actor.fsdp_config.fsdp_size=8"}).find("train_shard_gpus"), std::string::npos);
  EXPECT_EQ(with({}).find("train_shard_gpus"), std::string::npos);  // the group file's fsdp_size -1
}

}  // namespace
}  // namespace rlcost
