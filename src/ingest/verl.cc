// veRL (volcengine/verl) Hydra configs -> scenario. Keys and defaults from
// verl/trainer/config/ppo_trainer.yaml and the recipes
// recipe/fully_async_policy (config/fully_async_ppo_trainer.yaml, exp/*/run.sh)
// and recipe/one_step_off_policy (config/one_step_off_ppo_trainer.yaml).
#include <algorithm>
#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "ingest/dataset.h"
#include "ingest/import_common.h"

namespace rlcost::ingest {

namespace {

// algorithm.steps: trainer.total_training_steps when set (> 0), as veRL's
// trainer takes it; else the fully async recipe's total_rollout_steps; else
// total_epochs passes over the training set, len(train_dataloader) x
// total_epochs with drop_last=True, floor(rows / train_batch_size) batches an
// epoch (verl/trainer/ppo/ray_trainer.py:384,410 @ 5d429bd8).
void VerlSteps(ConfigTree& t, ScenarioText& out, const std::optional<long long>& prompts,
               const std::string& prompts_from) {
  if (auto steps = t.Int("trainer.total_training_steps"); steps && *steps > 0) {
    out.Set("algorithm", "steps", std::to_string(*steps), "trainer.total_training_steps");
    return;
  }
  if (auto total = t.Int("rollout.total_rollout_steps"); total && prompts && *prompts > 0) {
    const long long steps_n = (*total + *prompts - 1) / *prompts;
    out.Set("algorithm", "steps", std::to_string(steps_n),
            fmt::format("rollout.total_rollout_steps {} prompts / {} per step", *total, *prompts));
    return;
  }
  // veRL's default total_epochs (verl/trainer/config/ppo_trainer.yaml: 30).
  const std::optional<long long> stated = t.Int("trainer.total_epochs");
  const long long epochs = stated.value_or(30);
  const std::string epochs_from = stated ? fmt::format("trainer.total_epochs {}", epochs)
                                         : "veRL's default total_epochs 30 (the config does not set it)";
  if (epochs < 1) {
    t.problems().push_back(t.ProblemAt("trainer.total_epochs",
                                       fmt::format("total_epochs {} is below 1; expected 1 or more passes", epochs)));
    return;
  }
  if (!prompts || *prompts <= 0) return;
  const std::optional<std::string> files = t.String("data.train_files");
  const DatasetCount rows = files ? DatasetRows(*files) : DatasetCount{std::nullopt, "data.train_files is not set"};
  if (!rows.rows) {
    out.Assume("algorithm", "steps", std::to_string(kScenarioDefaultSteps),
               fmt::format("{} x the training set's prompts / {} per step ({}), but {}; the scenario format's default "
                           "stands in: write {} x floor(prompts / {}) here",
                           epochs_from, *prompts, prompts_from, rows.how, epochs, *prompts));
    return;
  }
  const long long per_epoch = *rows.rows / *prompts;
  if (per_epoch < 1) {
    t.problems().push_back(t.ProblemAt(
        "data.train_batch_size", fmt::format("train_batch_size {} is more than the {} prompts of the training set ({}): "
                                             "veRL drops the incomplete batch, so an epoch has no step",
                                             *prompts, *rows.rows, rows.how)));
    return;
  }
  const std::string why = fmt::format("{} x floor({} prompts / {} per step) = {} x {}: {}", epochs_from, *rows.rows,
                                      *prompts, epochs, per_epoch, rows.how);
  if (rows.assumed) {
    out.Assume("algorithm", "steps", std::to_string(epochs * per_epoch), why);
  } else {
    out.Set("algorithm", "steps", std::to_string(epochs * per_epoch), why);
  }
}

// run.checkpoint from trainer.save_freq and run.evaluation from
// trainer.test_freq over the validation set (ray_trainer.py:1232,1253 @
// 5d429bd8: a save or a validation every freq steps, and at the last step; the
// validation loader takes the whole set, val_kwargs.n samples a prompt).
void VerlRunCosts(ConfigTree& t, ScenarioText& out, const std::optional<long long>& prompts) {
  if (auto freq = t.Int("trainer.save_freq"); freq && *freq > 0) {
    const std::string contents = t.String("actor_rollout_ref.actor.checkpoint.save_contents").value_or("");
    const bool optimizer = contents.empty() || contents.find("optimizer") != std::string::npos;
    out.Set("run", "checkpoint", fmt::format("{{every_steps: {}, optimizer_state: {}}}", *freq, optimizer),
            fmt::format("trainer.save_freq {}{}", *freq,
                        contents.empty() ? "; veRL saves the optimizer by default (checkpoint.save_contents)"
                                         : "; actor checkpoint.save_contents " + contents));
  }
  const auto freq = t.Int("trainer.test_freq");
  const bool before = t.Bool("trainer.val_before_train").value_or(true);
  if (!freq || *freq <= 0) return;
  const long long n = std::max(1LL, t.Int("actor_rollout_ref.rollout.val_kwargs.n").value_or(1));
  const std::optional<std::string> files = t.String("data.val_files");
  const DatasetCount rows = files ? DatasetRows(*files) : DatasetCount{std::nullopt, "data.val_files is not set"};
  const std::string value_tail = fmt::format("samples_per_prompt: {}}}", n);
  const std::string before_note =
      before ? "; trainer.val_before_train adds one more before the first step, not counted here" : "";
  if (rows.rows && *rows.rows > 0) {
    const std::string why = fmt::format("trainer.test_freq {}; every prompt of the validation set: {}; val_kwargs.n {}{}",
                                        *freq, rows.how, n, before_note);
    const std::string value = fmt::format("{{every_steps: {}, prompts: {}, {}", *freq, *rows.rows, value_tail);
    rows.assumed ? out.Assume("run", "evaluation", value, why) : out.Set("run", "evaluation", value, why);
  } else {
    const long long stand_in = prompts && *prompts > 0 ? *prompts : 256;
    out.Assume("run", "evaluation", fmt::format("{{every_steps: {}, prompts: {}, {}", *freq, stand_in, value_tail),
               fmt::format("trainer.test_freq {} over the whole validation set, but {}: one step's prompts stand in "
                           "for its size; val_kwargs.n {}{}",
                           *freq, rows.how, n, before_note));
  }
}

// Micro-batches of the update and of the forward-only passes (docs/model.md,
// "Micro-batches of each pass"). With use_dynamic_bsz the actor packs
// sequences into micro-batches of at most ppo_max_token_len_per_gpu tokens
// (verl/workers/actor/dp_actor.py:341-342 rearrange_micro_batches @ v0.4.1;
// times the Ulysses degree); without it, ppo_micro_batch_size_per_gpu
// sequences each (dp_actor.py:345 batch.split). The old-log-prob pass reads
// the rollout's log_prob_* keys (fsdp_workers.py / megatron_workers.py
// compute_log_prob); the reference's are the same keys under ref, and
// rlcost takes one size for both forward passes (the rollout's). Keys and
// defaults: verl/trainer/config/ppo_trainer.yaml:162-169, 447-453 @ v0.4.1.
void VerlMicrobatches(ConfigTree& t, ScenarioText& out) {
  const auto set = [&](const char* tokens_field, const char* seqs_field, const std::string& dyn_key,
                       const std::string& max_key, const std::string& size_key) {
    if (t.BoolIfPlain(dyn_key).value_or(false)) {
      const long long sp =
          std::max(1LL, t.IntIfPlain("actor_rollout_ref.actor.ulysses_sequence_parallel_size").value_or(1));
      if (auto mx = t.IntIfPlain(max_key); mx && *mx > 0) {
        out.Set("placement", tokens_field, std::to_string(*mx * sp),
                fmt::format("{} with {}: micro-batches packed up to that many tokens{}", max_key, dyn_key,
                            sp > 1 ? fmt::format(" x ulysses_sequence_parallel_size {}", sp) : ""));
      }
    } else if (auto n = t.IntIfPlain(size_key); n && *n > 0) {
      out.Set("placement", seqs_field, std::to_string(*n), size_key + " (sequences, packed)");
    }
  };
  set("train_micro_batch_tokens", "train_micro_batch_seqs", "actor_rollout_ref.actor.use_dynamic_bsz",
      "actor_rollout_ref.actor.ppo_max_token_len_per_gpu", "actor_rollout_ref.actor.ppo_micro_batch_size_per_gpu");
  set("logprob_micro_batch_tokens", "logprob_micro_batch_seqs", "actor_rollout_ref.rollout.log_prob_use_dynamic_bsz",
      "actor_rollout_ref.rollout.log_prob_max_token_len_per_gpu",
      "actor_rollout_ref.rollout.log_prob_micro_batch_size_per_gpu");
}

// Recompute in the update (docs/model.md, "Gradient checkpointing"). FSDP:
// the HF model's enable_gradient_checkpointing. Megatron: full recompute
// through override_transformer_config.recompute_granularity; at v0.4 also
// enable_gradient_checkpointing, which sets recompute_granularity =
// gradient_checkpointing_kwargs.get("activations_checkpoint_granularity",
// "full") (verl/single_controller/base/megatron/worker.py:95-99 @ v0.4.1
// 8d9e350ea): the config's own key is null (ppo_megatron_trainer.yaml:40),
// so .get returns None and Megatron does not recompute unless the key says
// full (the veRL GPG Megatron log prints TransformerConfig(...,
// recompute_granularity=None, ...)); from v0.5.0 the flag is not read for
// Megatron at all. Selective recompute is inside the measured MFU.
void VerlRecompute(ConfigTree& t, ScenarioText& out, bool megatron) {
  const auto gc = t.Bool("actor_rollout_ref.model.enable_gradient_checkpointing");
  if (!megatron) {
    if (gc) {
      out.Set("placement", "gradient_checkpointing", *gc ? "true" : "false",
              "actor_rollout_ref.model.enable_gradient_checkpointing");
    }
    return;
  }
  const std::string kw = "actor_rollout_ref.model.gradient_checkpointing_kwargs.activations_checkpoint_granularity";
  const std::string ov = "actor_rollout_ref.actor.megatron.override_transformer_config.recompute_granularity";
  if (auto g = t.String(ov)) {
    out.Set("placement", "gradient_checkpointing", *g == "full" ? "true" : "false", ov);
  } else if (gc && *gc) {
    const std::string g = t.String(kw).value_or("");
    out.Set("placement", "gradient_checkpointing", g == "full" ? "true" : "false",
            g == "full" ? "enable_gradient_checkpointing with " + kw + " full"
                        : "Megatron actor: enable_gradient_checkpointing turns recompute on only with " + kw +
                              " full (veRL 0.4 passes None to Megatron otherwise; later releases ignore the flag)");
  } else {
    out.Set("placement", "gradient_checkpointing", "false",
            "Megatron actor without override_transformer_config.recompute_granularity: no recompute");
  }
}

// How Megatron splits the layers over the pipeline stages (docs/model.md,
// "Pipeline stages split evenly"): first/last-stage layer counts or the
// account_for_*_in_pipeline_split flags passed through
// override_transformer_config balance the stages; without them Megatron-Core
// splits evenly (transformer_block.py:143 @ core_v0.13.0 c550cf6c).
void VerlPipelineSplit(ConfigTree& t, ScenarioText& out) {
  const std::string at = "actor_rollout_ref.actor.megatron.override_transformer_config.";
  for (const char* k : {"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"}) {
    if (auto v = t.IntIfPlain(at + k); v && *v >= 0) {
      out.Set("placement", "train_pp_split", "balanced", at + k);
      return;
    }
  }
  for (const char* k : {"account_for_embedding_in_pipeline_split", "account_for_loss_in_pipeline_split"}) {
    if (t.BoolIfPlain(at + k).value_or(false)) {
      out.Set("placement", "train_pp_split", "balanced", at + k);
      return;
    }
  }
  out.Set("placement", "train_pp_split", "even",
          "override_transformer_config sets no first/last-stage layer counts: Megatron-Core's even split");
}

}  // namespace

Result<ImportedScenario> ImportVerl(const std::string& path, const std::vector<std::string>& overrides,
                                    const Catalog& catalog, const ImportOptions& options) {
  auto loaded = ConfigTree::Load(path, overrides);
  if (!loaded) return Fail(loaded.error());
  ConfigTree& t = *loaded;
  ScenarioText out;
  out.Header(fmt::format("Imported from {} by `rlcost import verl`{}.", path,
                         overrides.empty() ? "" : fmt::format(" with {} command-line overrides", overrides.size())));
  out.Header("Lines marked ASSUMED are not in the config: replace them with your own numbers.");

  std::string name = std::filesystem::path(path).stem().string();
  if (auto exp = t.String("trainer.experiment_name")) name = *exp;
  out.Set("", "name", "\"" + name + "\"");
  // The framework supplies what the config leaves out (catalog/frameworks/
  // verl.yaml); a config names no release, so the newest listed is used.
  out.Set("", "framework", "verl",
          "veRL's defaults for what this config leaves out (the newest release in the catalog; write verl@0.4 or "
          "verl@0.5 for a run before 2025-08-08, when vLLM still ran eagerly)");
  ModelLine(t, "actor_rollout_ref.model.path", catalog, out);
  GpuLine(options, catalog, t, out);

  // GPUs: trainer.nnodes x n_gpus_per_node (ppo_trainer.yaml defaults 1 x 8),
  // plus the recipes' separate rollout pool (rollout.nnodes x n_gpus_per_node).
  const long long tn = t.Int("trainer.nnodes").value_or(1);
  const long long tg = t.Int("trainer.n_gpus_per_node").value_or(8);
  const bool hybrid = t.Bool("actor_rollout_ref.hybrid_engine").value_or(true);
  const bool has_pool = t.Has("rollout.nnodes") || t.Has("rollout.n_gpus_per_node");
  const bool fully_async = t.Has("async_training");
  const long long rn = t.Int("rollout.nnodes").value_or(1);
  const long long rg = t.Int("rollout.n_gpus_per_node").value_or(8);
  const long long train = NodeGpus(t, "trainer.nnodes", tn, "trainer.n_gpus_per_node", tg);
  if (!hybrid && has_pool) {
    const long long rollout = NodeGpus(t, "rollout.nnodes", rn, "rollout.n_gpus_per_node", rg);
    out.Set("hardware", "gpus", std::to_string(rollout + train),
            fmt::format("rollout.nnodes x n_gpus_per_node {}x{} + trainer {}x{}", rn, rg, tn, tg));
    // Both pools on the same nodes when they fit in one 8-GPU node together
    // (the one_step_off recipe's 2+6 per node on 2 nodes).
    const long long per_node = std::max({tg, rg, rn == tn && rg + tg <= 8 ? rg + tg : 0LL});
    out.Set("hardware", "gpus_per_node", std::to_string(per_node),
            per_node == rg + tg ? "both pools share each node" : "trainer.n_gpus_per_node");
    out.Set("placement", "mode", "disaggregated", "actor_rollout_ref.hybrid_engine: False");
    out.Set("placement", "rollout_gpus", std::to_string(rollout), "rollout pool");
    out.Set("placement", "train_gpus", std::to_string(train), "trainer pool");
  } else {
    out.Set("hardware", "gpus", std::to_string(train), fmt::format("trainer.nnodes x n_gpus_per_node {}x{}", tn, tg));
    out.Set("hardware", "gpus_per_node", std::to_string(tg), "trainer.n_gpus_per_node");
    out.Set("placement", "mode", "colocated", hybrid ? "hybrid engine: generation and training share the GPUs"
                                                     : "no separate rollout pool");
  }
  if (auto tp = t.Int("actor_rollout_ref.rollout.tensor_model_parallel_size")) {
    out.Set("placement", "rollout_tp", std::to_string(*tp), "actor_rollout_ref.rollout.tensor_model_parallel_size");
  } else {
    // Not in the config: veRL's own default, what the run used
    // (volcengine/verl verl/trainer/config/rollout/rollout.yaml @035682ed:
    // tensor_model_parallel_size: 2), not rlcost's planner.
    out.Set("placement", "rollout_tp", "2", "veRL's default rollout.tensor_model_parallel_size (rollout.yaml)");
  }
  if (auto engine = t.String("actor_rollout_ref.rollout.name")) {
    if (*engine == "vllm" || *engine == "sglang") {
      out.Set("placement", "engine", *engine, "actor_rollout_ref.rollout.name");
    } else {
      t.problems().push_back(t.ProblemAt("actor_rollout_ref.rollout.name",
                                         "engine '" + *engine + "' has no counterpart; expected vllm or sglang"));
    }
  }
  if (auto eager = t.Bool("actor_rollout_ref.rollout.enforce_eager")) {
    out.Set("engine", "enforce_eager", *eager ? "true" : "false", "actor_rollout_ref.rollout.enforce_eager");
  }
  // The actor's engine: veRL's default strategy fsdp (ppo_trainer.yaml:153
  // actor.strategy @ v0.4.1 8d9e350ea); fsdp2 is FSDP too; megatron is
  // ppo_megatron_trainer.yaml's (docs/model.md, "FSDP traffic per
  // micro-batch", "Micro-batches of each pass").
  const std::string strategy = t.String("actor_rollout_ref.actor.strategy").value_or("fsdp");
  const bool megatron = strategy == "megatron";
  if (megatron || strategy == "fsdp" || strategy == "fsdp2") {
    out.Set("placement", "train_backend", megatron ? "megatron" : "fsdp",
            t.Has("actor_rollout_ref.actor.strategy") ? "actor_rollout_ref.actor.strategy " + strategy
                                                      : "veRL's default actor.strategy fsdp (ppo_trainer.yaml)");
  }
  VerlMicrobatches(t, out);
  VerlRecompute(t, out, megatron);
  if (megatron) VerlPipelineSplit(t, out);
  // FSDP actor without remove-padding: every sequence padded to max prompt +
  // max response in the trainer's passes (docs/model.md, "Training on padded
  // sequences"). The Megatron actor's padding is not priced: left unread.
  {
    if (!megatron) {
      if (auto rm = t.Bool("actor_rollout_ref.model.use_remove_padding")) {
        out.Set("placement", "train_padding", *rm ? "packed" : "max-length",
                "actor_rollout_ref.model.use_remove_padding");
      }
    }
  }
  // FSDP hybrid sharding: the actor's state sharded over fsdp_size GPUs and
  // copied across the groups; -1, or at least the trainer's world, is one
  // group of all (verl/workers/fsdp_workers.py create_device_mesh).
  if (auto fs = t.Int("actor_rollout_ref.actor.fsdp_config.fsdp_size"); fs && *fs > 0 && *fs < train) {
    out.Set("placement", "train_shard_gpus", std::to_string(*fs), "actor_rollout_ref.actor.fsdp_config.fsdp_size");
  }
  if (auto u = t.Number("actor_rollout_ref.rollout.gpu_memory_utilization")) {
    out.Set("placement", "gpu_memory_utilization", Fmt(*u), "actor_rollout_ref.rollout.gpu_memory_utilization");
  }
  // Offload between phases: the FSDP actor's fsdp_config, or the Megatron
  // actor's megatron.param_offload / optimizer_offload (verl/workers/
  // megatron_workers.py:145-147, 438-442 @ v0.4.1: the model and optimizer
  // are loaded to the GPU around update_actor and compute_log_prob).
  const std::string off_at = megatron ? "actor_rollout_ref.actor.megatron." : "actor_rollout_ref.actor.fsdp_config.";
  const auto param_off = t.Bool(off_at + "param_offload");
  const auto optim_off = t.Bool(off_at + "optimizer_offload");
  if (param_off || optim_off) {
    out.Set("placement", "offload",
            fmt::format("{{params: {}, optimizer: {}}}", param_off.value_or(false), optim_off.value_or(false)),
            fmt::format("actor {} param_offload / optimizer_offload", megatron ? "megatron" : "fsdp_config"));
  }
  for (const auto& [key, field] : {std::pair<const char*, const char*>{"tensor_model_parallel_size", "train_tp"},
                                   {"pipeline_model_parallel_size", "train_pp"},
                                   {"expert_model_parallel_size", "train_ep"}}) {
    const std::string k = std::string("actor_rollout_ref.actor.megatron.") + key;
    if (auto v = t.Int(k)) out.Set("placement", field, std::to_string(*v), k);
  }

  // Prompts per step: data.train_batch_size; the fully async recipe sets it to
  // 0 and trains on ppo_mini_batch_size x require_batches prompts per update,
  // syncing weights every trigger_parameter_sync_step updates.
  std::optional<long long> prompts = t.Int("data.train_batch_size");
  std::string prompts_from = "data.train_batch_size";
  if (fully_async && prompts.value_or(0) <= 0) {
    const long long mini = t.Int("actor_rollout_ref.actor.ppo_mini_batch_size").value_or(256);
    const long long require = t.Int("async_training.require_batches").value_or(1);
    const long long trigger = t.Int("async_training.trigger_parameter_sync_step").value_or(1);
    prompts = mini * require * trigger;
    prompts_from = fmt::format("ppo_mini_batch_size {} x require_batches {} x trigger_parameter_sync_step {} "
                               "(prompts between weight syncs)",
                               mini, require, trigger);
  }
  const auto group = t.Int("actor_rollout_ref.rollout.n");
  std::string algo = "grpo", algo_from = "algorithm.adv_estimator";
  if (auto est = t.String("algorithm.adv_estimator")) {
    if (*est == "gae") {
      algo = "ppo";
    } else if (*est == "rloo") {
      algo = "rloo";
    } else if (*est != "grpo") {
      algo_from = "ASSUMED: veRL's adv_estimator " + *est + " has no counterpart; costed as grpo";
    }
  } else {
    algo_from = "veRL's default adv_estimator gae is PPO; none given, costed as grpo";
  }
  if (auto rm = t.String("reward_model.reward_manager"); rm && *rm == "dapo" && algo == "grpo") {
    algo = "dapo";
    algo_from = "reward_model.reward_manager: dapo (the DAPO recipe)";
  }
  out.Set("algorithm", "name", algo, algo_from);
  if (group) out.Set("algorithm", "group_size", std::to_string(*group), "actor_rollout_ref.rollout.n");
  if (prompts && *prompts > 0) out.Set("algorithm", "prompts_per_step", std::to_string(*prompts), prompts_from);
  // Optimizer steps per step: the actor splits the batch into mini-batches of
  // ppo_mini_batch_size prompts (verl/workers/actor/dp_actor.py:388 @ v0.6.0
  // ddd86f527, data.split; one _optimizer_step each, :499). Both sizes count
  // prompts: the worker multiplies the mini-batch by rollout.n
  // (verl/workers/fsdp_workers.py:234, megatron_workers.py:266) so that it
  // counts samples, as the batch does. Not in the config: veRL's default 256
  // (verl/trainer/config/actor/actor.yaml:15). docs/model.md, "Optimizer steps
  // per RL step".
  if (prompts && *prompts > 0) {
    const std::string key = "actor_rollout_ref.actor.ppo_mini_batch_size";
    const std::optional<long long> stated = t.Int(key);
    const long long mini = stated.value_or(256);
    const bool fits = mini >= 1 && mini <= *prompts && *prompts % mini == 0;
    if (stated && !fits) {
      t.problems().push_back(t.ProblemAt(
          key, fmt::format("ppo_mini_batch_size {} does not divide the {} prompts of a step ({}); expected a "
                           "divisor of {}, so that every optimizer step takes an equal share",
                           mini, *prompts, prompts_from, *prompts)));
    } else if (stated) {
      out.Set("algorithm", "minibatches", std::to_string(*prompts / mini),
              fmt::format("optimizer steps per step: {} prompts / ppo_mini_batch_size {} ({})", *prompts, mini,
                          t.Where(key)));
    } else if (fits) {
      // veRL itself refuses a batch smaller than its default mini-batch; a
      // config that reads its base from elsewhere may set another, so a
      // default that does not fit is left out rather than refused.
      out.Assume("algorithm", "minibatches", std::to_string(*prompts / mini),
                 fmt::format("{} prompts / veRL's default ppo_mini_batch_size 256 (verl/trainer/config/actor/"
                             "actor.yaml:15); the config does not set it",
                             *prompts));
    }
  }
  // Passes over the batch (dp_actor.py:393 @ v0.6.0: `for _ in
  // range(self.config.ppo_epochs)` around the mini-batches); veRL's default 1
  // (verl/trainer/config/actor/actor.yaml:91) is rlcost's.
  if (auto e = t.Int("actor_rollout_ref.actor.ppo_epochs"); e && *e != 1) {
    if (*e < 1) {
      t.problems().push_back(t.ProblemAt("actor_rollout_ref.actor.ppo_epochs",
                                         fmt::format("ppo_epochs {} is below 1; expected 1 or more passes", *e)));
    } else {
      out.Set("algorithm", "ppo_epochs", std::to_string(*e),
              fmt::format("actor_rollout_ref.actor.ppo_epochs ({})", t.Where("actor_rollout_ref.actor.ppo_epochs")));
    }
  }
  VerlSteps(t, out, prompts, prompts_from);
  const auto kl_loss = t.Bool("actor_rollout_ref.actor.use_kl_loss");
  const auto kl_reward = t.Bool("algorithm.use_kl_in_reward");
  if (kl_loss || kl_reward) {
    out.Set("algorithm", "reference_model", kl_loss.value_or(false) || kl_reward.value_or(false) ? "true" : "false",
            "use_kl_loss / use_kl_in_reward");
  }
  if (fully_async) {
    if (auto use = t.Bool("async_training.use_rollout_log_probs")) {
      out.Set("algorithm", "recompute_logprobs", *use ? "false" : "true",
              "async_training.use_rollout_log_probs: the engine's log-probs stand in for old_log_prob");
    }
  }
  if (auto fg = t.Bool("algorithm.filter_groups.enable")) {
    out.Set("algorithm", "dynamic_sampling", *fg ? "true" : "false", "algorithm.filter_groups.enable");
    if (*fg) {
      if (auto g = t.Int("data.gen_batch_size")) {
        out.Set("algorithm", "gen_batch_prompts", std::to_string(*g), "data.gen_batch_size");
      }
      if (auto m = t.Int("algorithm.filter_groups.max_num_gen_batches")) {
        out.Set("algorithm", "max_gen_batches", std::to_string(*m), "algorithm.filter_groups.max_num_gen_batches");
      }
    }
  }
  if (auto rank = t.Int("actor_rollout_ref.model.lora_rank"); rank && *rank > 0) {
    out.Set("algorithm", "lora", fmt::format("{{rank: {}}}", *rank), "actor_rollout_ref.model.lora_rank");
  }

  AssumedEnvironment(out, PositiveLength(t, "data.max_prompt_length"),
                     "data.max_prompt_length, " + t.Where("data.max_prompt_length"),
                     PositiveLength(t, "data.max_response_length"),
                     "data.max_response_length, " + t.Where("data.max_response_length"));
  VerlRunCosts(t, out, prompts);
  // Multi-turn: the agent loop ends a trajectory once its tokens after the
  // prompt (responses and tool outputs) reach rollout.response_length
  // (tool_agent_loop.py:254,360 @ b178a3cd; docs/model.md, "Trajectory bounds").
  if (auto mt = t.Bool("actor_rollout_ref.rollout.multi_turn.enable"); mt && *mt) {
    const char* key = t.Int("actor_rollout_ref.rollout.response_length") ? "actor_rollout_ref.rollout.response_length"
                                                                         : "data.max_response_length";
    if (auto len = t.Int(key); len && *len > 0) {
      out.Set("environment", "max_trajectory_tokens", std::to_string(*len),
              std::string(key) + ": multi-turn, the budget of every response and tool output after the prompt");
    }
  }
  if (auto files = t.String("data.train_files")) {
    out.Set("environment", "name", "\"" + std::filesystem::path(*files).stem().string() + "\"", "data.train_files");
  }

  if (fully_async) {
    out.Set("pipeline", "mode", "async", "async_training: the fully async recipe");
    const double threshold = t.Number("async_training.staleness_threshold").value_or(0);
    out.Set("pipeline", "max_staleness", "1",
            fmt::format("one weight version behind (async_training.staleness_threshold {} lets that share of a "
                        "batch be older)",
                        Fmt(threshold)));
    if (auto partial = t.Bool("async_training.partial_rollout")) {
      out.Set("pipeline", "partial_rollouts", *partial ? "true" : "false", "async_training.partial_rollout");
    }
  } else if (!hybrid && has_pool) {
    out.Set("pipeline", "mode", "async", "separate rollout pool without async_training: the one_step_off recipe");
    out.Set("pipeline", "max_staleness", "1", "one step off-policy");
  } else {
    out.Set("pipeline", "mode", "sync", "hybrid engine: generate, then train");
  }
  return Finish(t, out);
}

}  // namespace rlcost::ingest
