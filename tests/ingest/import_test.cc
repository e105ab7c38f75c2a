// `rlcost import verl|nemo-rl`: configs in the public shape of published runs
// import to scenarios whose fields equal the hand-written cases in
// ../shared/validation (same model, GPUs, split, batch, lengths' max, engine).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "ingest/import.h"
#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost {
namespace {

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/" + rel; }
std::string Validation(const std::string& f) { return std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/" + f; }

// The key=value lines of an .args file (a launch script's overrides).
std::vector<std::string> Args(const std::string& rel) {
  std::ifstream in(Data(rel));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') out.push_back(line);
  }
  return out;
}

Scenario Imported(const Result<ingest::ImportedScenario>& r) {
  EXPECT_TRUE(r) << (r ? "" : r.error().ToString());
  if (!r) return {};
  auto s = LoadScenarioText(r->yaml, test::Cat(), "imported", ".");
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString()) << "\n" << r->yaml;
  return s ? *s : Scenario{};
}

// Model, GPUs, split, batch, lengths' max, engine.
void ExpectSameRun(const Scenario& got, const Scenario& want) {
  EXPECT_EQ(got.model_id, want.model_id);
  EXPECT_EQ(got.hardware.gpu.id, want.hardware.gpu.id);
  EXPECT_EQ(got.hardware.gpus, want.hardware.gpus);
  EXPECT_EQ(got.hardware.gpus_per_node, want.hardware.gpus_per_node);
  EXPECT_EQ(got.placement.mode, want.placement.mode);
  EXPECT_EQ(got.placement.rollout_gpus, want.placement.rollout_gpus);
  EXPECT_EQ(got.placement.train_gpus, want.placement.train_gpus);
  EXPECT_EQ(got.placement.rollout_tp, want.placement.rollout_tp);
  EXPECT_EQ(got.placement.engine, want.placement.engine);
  EXPECT_EQ(got.algorithm.prompts_per_step, want.algorithm.prompts_per_step);
  EXPECT_EQ(got.algorithm.group_size, want.algorithm.group_size);
  EXPECT_EQ(got.algorithm.steps, want.algorithm.steps);
  EXPECT_EQ(got.pipeline.mode, want.pipeline.mode);
}

TEST(ImportVerl, FullyAsync16x16MatchesTheValidationCase) {
  // recipe/fully_async_policy/exp/qwen2-7B-math_32/fsdp2_fully-async_16-16/run.sh:
  // the recipe's config plus the script's overrides.
  auto r = ingest::ImportVerl(Data("verl/fully_async_ppo_trainer.yaml"), Args("verl/fully_async_16-16.args"),
                              test::Cat(), {.gpu = "h20"});
  Scenario got = Imported(r);
  Scenario want = test::LoadFile(Validation("verl-qwen25math7b-32xh20-async.yaml"));
  ExpectSameRun(got, want);
  EXPECT_EQ(got.environment.prompt_tokens.max(), want.environment.prompt_tokens.max());
  EXPECT_EQ(got.environment.response_tokens.max(), want.environment.response_tokens.max());
  EXPECT_EQ(got.pipeline.partial_rollouts, want.pipeline.partial_rollouts);
  EXPECT_EQ(got.pipeline.max_staleness, want.pipeline.max_staleness);
  EXPECT_EQ(got.algorithm.recompute_logprobs, want.algorithm.recompute_logprobs);
  // Nothing dropped silently: keys without a counterpart are listed.
  ASSERT_TRUE(r);
  auto listed = [&](const std::string& key) {
    for (const auto& u : r->unmapped) {
      if (u.rfind(key + " = ", 0) == 0) return true;
    }
    return false;
  };
  EXPECT_TRUE(listed("actor_rollout_ref.actor.optim.lr"));
  // Read with use_dynamic_bsz: the micro-batch token budget's multiplier.
  EXPECT_FALSE(listed("actor_rollout_ref.actor.ulysses_sequence_parallel_size"));
  EXPECT_NE(r->yaml.find("train_micro_batch_tokens: "), std::string::npos) << r->yaml;
  EXPECT_TRUE(listed("actor_rollout_ref.rollout.mode"));
  EXPECT_NE(r->yaml.find("#   actor_rollout_ref.actor.optim.lr = 1e-6"), std::string::npos);
  EXPECT_FALSE(listed("actor_rollout_ref.rollout.n"));  // mapped
  // What a config cannot know is written as an assumption.
  EXPECT_NE(r->yaml.find("response_tokens: {mean: 1000, cv: 1.0, max: 28672}  # ASSUMED"), std::string::npos) << r->yaml;
  EXPECT_NE(r->yaml.find("pass_rate: {mean: 0.35, concentration: 2}       # ASSUMED"), std::string::npos);
}

// Multi-turn: the agent loop's budget over the whole trajectory is the
// rollout's response length (docs/model.md, "Trajectory bounds").
TEST(ImportVerl, MultiTurnBoundsTheTrajectoryAtTheResponseLength) {
  auto r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"actor_rollout_ref.rollout.multi_turn.enable=true"},
                              test::Cat(), {.gpu = "H20"});
  Scenario got = Imported(r);
  Scenario single = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "H20"}));
  EXPECT_EQ(single.environment.max_trajectory_tokens, 0);
  EXPECT_EQ(double(got.environment.max_trajectory_tokens), single.environment.response_tokens.max()) << r->yaml;
  EXPECT_NE(r->yaml.find("max_trajectory_tokens: "), std::string::npos) << r->yaml;
}

TEST(ImportVerl, OneStepOff4x12MatchesTheValidationCase) {
  Scenario got = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "H20"}));
  Scenario want = test::LoadFile(Validation("verl-onestepoff-qwen25math7b-16xh20-async-4-12.yaml"));
  ExpectSameRun(got, want);
  EXPECT_EQ(got.environment.prompt_tokens.max(), want.environment.prompt_tokens.max());
  EXPECT_EQ(got.environment.response_tokens.max(), want.environment.response_tokens.max());
  EXPECT_EQ(got.pipeline.max_staleness, want.pipeline.max_staleness);
  EXPECT_EQ(got.algorithm.reference_model, want.algorithm.reference_model);
}

// An imported config names its framework; a knob that now has a field is
// carried (rollout.enforce_eager -> engine.enforce_eager), and what the config
// leaves out comes from the framework's catalog file, listed as such.
TEST(ImportVerl, NamesTheFrameworkAndCarriesEnforceEager) {
  // tests/data/ingest/verl/one_step_off_4_12.yaml:44 rollout.enforce_eager: True
  // (veRL's default then); the framework's newest release (0.7) would say false.
  auto r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "h20"});
  Scenario got = Imported(r);
  ASSERT_TRUE(r);
  EXPECT_NE(r->yaml.find("framework: verl"), std::string::npos) << r->yaml;
  EXPECT_NE(r->yaml.find("enforce_eager: true"), std::string::npos) << r->yaml;
  EXPECT_EQ(got.framework, "verl@0.7");
  EXPECT_TRUE(got.engine.enforce_eager);
  for (const auto& d : got.framework_defaults) EXPECT_NE(d.path, "engine.enforce_eager");
  // A launch script's override wins as well.
  Scenario graphs = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"),
                                                {"actor_rollout_ref.rollout.enforce_eager=False"}, test::Cat(),
                                                {.gpu = "h20"}));
  EXPECT_FALSE(graphs.engine.enforce_eager);
}

// Gradient checkpointing: veRL's own default (model.enable_gradient_checkpointing:
// True in every listed release) when the config leaves it out, listed as the
// framework's; the config's value or Megatron's full recompute when it says.
TEST(ImportVerl, CarriesGradientCheckpointing) {
  // tests/data/ingest/verl/one_step_off_4_12.yaml does not set it.
  Scenario dflt = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "h20"}));
  EXPECT_TRUE(dflt.placement.gradient_checkpointing);
  bool listed = false;
  for (const auto& d : dflt.framework_defaults) listed = listed || d.path == "placement.gradient_checkpointing";
  EXPECT_TRUE(listed);
  Scenario off = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"),
                                             {"actor_rollout_ref.model.enable_gradient_checkpointing=False"},
                                             test::Cat(), {.gpu = "h20"}));
  EXPECT_FALSE(off.placement.gradient_checkpointing);
  for (const auto& d : off.framework_defaults) EXPECT_NE(d.path, "placement.gradient_checkpointing");
  // run_deepseek671b_math_megatron_96gb.sh @ e2e4c35e:155 (full recompute).
  Scenario meg = Imported(ingest::ImportVerl(
      Data("verl/one_step_off_4_12.yaml"),
      {"actor_rollout_ref.model.enable_gradient_checkpointing=False", "actor_rollout_ref.actor.strategy=megatron",
       "+actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity=full"},
      test::Cat(), {.gpu = "h20"}));
  EXPECT_TRUE(meg.placement.gradient_checkpointing);
}

// A Megatron actor at veRL 0.4 recomputes only when the granularity says
// full: enable_gradient_checkpointing with gradient_checkpointing_kwargs'
// activations_checkpoint_granularity null hands None to Megatron
// (verl/single_controller/base/megatron/worker.py:95-99 @ v0.4.1), as the GPG
// Megatron log's TransformerConfig(..., recompute_granularity=None) shows.
TEST(ImportVerl, VerlMegatronRecomputeFollowsTheGranularity) {
  const std::vector<std::string> meg = {"actor_rollout_ref.actor.strategy=megatron",
                                        "actor_rollout_ref.model.enable_gradient_checkpointing=True"};
  Scenario none = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), meg, test::Cat(), {.gpu = "h20"}));
  EXPECT_FALSE(none.placement.gradient_checkpointing);
  EXPECT_EQ(none.placement.train_backend, TrainBackend::kMegatron);
  std::vector<std::string> full = meg;
  full.push_back("+actor_rollout_ref.model.gradient_checkpointing_kwargs.activations_checkpoint_granularity=full");
  Scenario on = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), full, test::Cat(), {.gpu = "h20"}));
  EXPECT_TRUE(on.placement.gradient_checkpointing);
  // The FSDP actor reads the HF flag itself.
  Scenario fsdp = Imported(ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"),
                                              {"actor_rollout_ref.model.enable_gradient_checkpointing=True"},
                                              test::Cat(), {.gpu = "h20"}));
  EXPECT_TRUE(fsdp.placement.gradient_checkpointing);
  EXPECT_EQ(fsdp.placement.train_backend, TrainBackend::kFsdp);  // strategy fsdp2
}

// The GPG recipes' micro-batches: 16 sequences a GPU in the update and the
// old-log-prob pass (FSDP), or with use_dynamic_bsz the token budgets;
// megatron param/optimizer offload read from the Megatron block.
TEST(ImportVerl, VerlWritesTheBackendAndMicroBatches) {
  auto yaml = [](std::vector<std::string> ov) {
    auto r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), ov, test::Cat(), {.gpu = "h20"});
    EXPECT_TRUE(r) << (r ? "" : r.error().ToString());
    return r ? r->yaml : std::string();
  };
  Scenario seqs = Imported(ingest::ImportVerl(
      Data("verl/one_step_off_4_12.yaml"),
      {"+actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=16", "+actor_rollout_ref.actor.use_dynamic_bsz=False",
       "+actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu=8"},
      test::Cat(), {.gpu = "h20"}));
  EXPECT_EQ(seqs.placement.train_backend, TrainBackend::kFsdp);
  EXPECT_EQ(seqs.placement.train_micro_batch_seqs, 16);
  EXPECT_EQ(seqs.placement.logprob_micro_batch_seqs, 8);
  EXPECT_EQ(seqs.placement.train_micro_batch_tokens, 0);
  Scenario dyn = Imported(ingest::ImportVerl(
      Data("verl/one_step_off_4_12.yaml"),
      {"+actor_rollout_ref.actor.use_dynamic_bsz=True", "+actor_rollout_ref.actor.ppo_max_token_len_per_gpu=16384",
       "+actor_rollout_ref.actor.ulysses_sequence_parallel_size=2",
       "+actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu=16",
       "+actor_rollout_ref.rollout.log_prob_use_dynamic_bsz=True",
       "+actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu=32768"},
      test::Cat(), {.gpu = "h20"}));
  EXPECT_EQ(dyn.placement.train_micro_batch_tokens, 32768);  // 16,384 x Ulysses 2
  EXPECT_EQ(dyn.placement.train_micro_batch_seqs, 0);
  EXPECT_EQ(dyn.placement.logprob_micro_batch_tokens, 65536);
  const std::string meg = yaml({"actor_rollout_ref.actor.strategy=megatron",
                                "+actor_rollout_ref.actor.megatron.param_offload=True",
                                "+actor_rollout_ref.actor.megatron.optimizer_offload=False"});
  EXPECT_NE(meg.find("train_backend: megatron"), std::string::npos) << meg;
  EXPECT_NE(meg.find("offload: {params: true, optimizer: false}"), std::string::npos) << meg;
}

TEST(ImportNemoRl, NemoWritesTheBackendAndMicroBatches) {
  // grpo_math_1B.yaml: DTensor policy, train_micro_batch_size 4,
  // logprob_batch_size 4, dynamic batching off, no sequence packing.
  Scenario dt = Imported(ingest::ImportNemoRl(Data("nemo-rl/grpo_math_1B.yaml"), {}, test::Cat(), {.gpu = "h100"}));
  EXPECT_EQ(dt.placement.train_backend, TrainBackend::kFsdp);
  EXPECT_EQ(dt.placement.train_micro_batch_seqs, 4);
  EXPECT_EQ(dt.placement.logprob_micro_batch_seqs, 4);
  // Dynamic batching on: the ${mul:...} budget as max_total_sequence_length
  // 512 x train_micro_batch_size 4 = 2,048 tokens; logprob_mb_tokens stated.
  Scenario dyn = Imported(ingest::ImportNemoRl(
      Data("nemo-rl/grpo_math_1B.yaml"),
      {"policy.dynamic_batching.enabled=True", "+policy.dynamic_batching.logprob_mb_tokens=4096"}, test::Cat(),
      {.gpu = "h100"}));
  EXPECT_EQ(dyn.placement.train_micro_batch_tokens, 2048);
  EXPECT_EQ(dyn.placement.logprob_micro_batch_tokens, 4096);
  EXPECT_EQ(dyn.placement.train_micro_batch_seqs, 0);
  Scenario mg = Imported(ingest::ImportNemoRl(Data("nemo-rl/grpo_math_1B.yaml"),
                                              {"policy.dtensor_cfg.enabled=False", "policy.megatron_cfg.enabled=True"},
                                              test::Cat(), {.gpu = "h100"}));
  EXPECT_EQ(mg.placement.train_backend, TrainBackend::kMegatron);
}

// Command-line overrides as veRL's launch scripts pass them (Hydra's
// key=value and +key=value) win over the file.
TEST(ImportVerl, OverridesWinAndTheColocatedDefault) {
  Scenario got = Imported(ingest::ImportVerl(
      Data("verl/one_step_off_4_12.yaml"),
      {"actor_rollout_ref.hybrid_engine=True", "actor_rollout_ref.rollout.n=16", "+data.train_batch_size='64'",
       "trainer.n_gpus_per_node=8", "actor_rollout_ref.rollout.name=sglang"},
      test::Cat(), {.gpu = "h100"}));
  EXPECT_EQ(got.placement.mode, PlacementMode::kColocated);
  EXPECT_EQ(got.hardware.gpus, 16);
  EXPECT_EQ(got.algorithm.group_size, 16);
  EXPECT_EQ(got.algorithm.prompts_per_step, 64);
  EXPECT_EQ(got.placement.engine, InferenceEngine::kSglang);
  EXPECT_EQ(got.pipeline.mode, PipelineMode::kSync);
}

TEST(ImportNemoRl, Llama8bPerformanceRecipeMatchesTheValidationCase) {
  // examples/configs/recipes/llm/performance/grpo-llama3.1-8b-instruct-2n8g.yaml
  // with its `defaults: ../../../grpo_math_1B.yaml`.
  Scenario got = Imported(ingest::ImportNemoRl(Data("nemo-rl/recipes/llm/performance/grpo-llama3.1-8b-instruct-2n8g.yaml"),
                                               {"grpo.max_num_steps=100"}, test::Cat(), {.gpu = "h100"}));
  Scenario want = test::LoadFile(Validation("nemo-llama8b-onpolicy.yaml"));
  ExpectSameRun(got, want);
  EXPECT_EQ(got.algorithm.reference_model, want.algorithm.reference_model);
  // max_total_sequence_length 4096 bounds prompt + response: both scenarios
  // split it as (assumed) mean prompt + response max. The validation case
  // assumes a 120-token prompt, the import 200: the sum is the config's.
  EXPECT_EQ(got.environment.prompt_tokens.mean() + got.environment.response_tokens.max(), 4096);
  EXPECT_EQ(want.environment.prompt_tokens.mean() + want.environment.response_tokens.max(), 4096);
}

TEST(ImportBadInput, UnknownModelMissingFileBadValue) {
  // An unknown model path: the key, the file and line.
  auto r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"actor_rollout_ref.model.path=/m/NoSuchModel-3B"},
                              test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("command line: actor_rollout_ref.model.path: unknown model '/m/NoSuchModel-3B'"),
            std::string::npos)
      << r.error().ToString();
  r = ingest::ImportNemoRl(Data("nemo-rl/grpo_math_1B.yaml"), {"policy.model_name=org/Nope"}, test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("policy.model_name: unknown model 'org/Nope'"), std::string::npos);
  // A bad value names file:line and key.
  namespace fs = std::filesystem;
  const fs::path bad = fs::temp_directory_path() / ("rlcost_verl_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(bad) << "actor_rollout_ref:\n  model: {path: Qwen/Qwen3-8B}\n  rollout:\n    n: lots\n";
  r = ingest::ImportVerl(bad.string(), {}, test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find(bad.string() + ":4: actor_rollout_ref.rollout.n: expected a number, got 'lots'"),
            std::string::npos)
      << r.error().ToString();
  fs::remove(bad);
  // No file; an override without '='; an unknown GPU.
  r = ingest::ImportVerl(Data("verl/nope.yaml"), {}, test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("nope.yaml: config file not found"), std::string::npos);
  r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {"trainer.nnodes"}, test::Cat(), {});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("expected key=value"), std::string::npos);
  r = ingest::ImportVerl(Data("verl/one_step_off_4_12.yaml"), {}, test::Cat(), {.gpu = "h300"});
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().ToString().find("gpu: unknown GPU 'h300'"), std::string::npos);
}

}  // namespace
}  // namespace rlcost
