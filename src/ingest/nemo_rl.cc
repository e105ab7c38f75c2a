// NeMo RL (NVIDIA-NeMo/RL) GRPO configs -> scenario. Keys and defaults from
// examples/configs/grpo_math_1B.yaml; recipes (examples/configs/recipes/llm/
// performance/*.yaml) name it with `defaults:` and override a few keys.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "ingest/dataset.h"
#include "ingest/import_common.h"

namespace rlcost::ingest {

namespace {

// NeMo RL's defaults (nemo_rl/algorithms/grpo.py:244-264 @ 7ea279ab).
constexpr long long kNemoMaxNumSteps = 1'000'000;

// algorithm.steps: the trainer stops at max_num_steps or after max_num_epochs
// passes over the training set, whichever comes first (grpo.py:2801 @
// 7ea279ab: `while current_epoch < max_num_epochs and total_steps <
// max_num_steps`), num_prompts_per_step prompts a step with drop_last=True
// (grpo.py:598).
void NemoSteps(ConfigTree& t, ScenarioText& out) {
  const std::optional<long long> stated = t.Int("grpo.max_num_steps");
  const long long max_steps = stated.value_or(kNemoMaxNumSteps);
  const long long epochs = t.Int("grpo.max_num_epochs").value_or(1);
  const std::optional<long long> prompts = t.Int("grpo.num_prompts_per_step");
  if (max_steps < 1 || epochs < 1) {
    t.problems().push_back(t.ProblemAt(max_steps < 1 ? "grpo.max_num_steps" : "grpo.max_num_epochs",
                                       fmt::format("max_num_steps {} and max_num_epochs {}: each must be at least 1",
                                                   max_steps, epochs)));
    return;
  }
  std::optional<std::string> file = t.String("data.train.data_path");
  if (!file) file = t.String("data.train_data_path");
  const DatasetCount rows = file ? DatasetRows(*file) : DatasetCount{std::nullopt, ""};
  if (rows.rows && prompts && *prompts > 0) {
    const long long per_epoch = *rows.rows / *prompts;
    const long long by_epochs = epochs * per_epoch;
    const long long steps = std::min(max_steps, by_epochs);
    const std::string why =
        steps == max_steps
            ? fmt::format("grpo.max_num_steps {} ends the run before max_num_epochs {} x {} steps an epoch ({})",
                          max_steps, epochs, per_epoch, rows.how)
            : fmt::format("max_num_epochs {} x floor({} prompts / {} per step) = {}, before max_num_steps {}: {}",
                          epochs, *rows.rows, *prompts, by_epochs, max_steps, rows.how);
    if (steps < 1) {
      t.problems().push_back(t.ProblemAt("grpo.num_prompts_per_step",
                                         fmt::format("num_prompts_per_step {} is more than the {} prompts of the "
                                                     "training set ({}): an epoch has no step",
                                                     *prompts, *rows.rows, rows.how)));
    } else if (rows.assumed) {
      out.Assume("algorithm", "steps", std::to_string(steps), why);
    } else {
      out.Set("algorithm", "steps", std::to_string(steps), why);
    }
    return;
  }
  std::string dataset = t.String("data.train.dataset_name").value_or(t.String("data.dataset_name").value_or(""));
  const std::string unknown = file ? rows.how
                                   : dataset.empty() ? "the config names no local training file"
                                                     : "the training set " + dataset + " is not a local file";
  if (max_steps != kNemoMaxNumSteps) {
    out.Set("algorithm", "steps", std::to_string(max_steps),
            fmt::format("grpo.max_num_steps (max_num_epochs {} could end the run sooner: {}, so it is not counted)",
                        epochs, unknown));
    return;
  }
  out.Assume("algorithm", "steps", std::to_string(kScenarioDefaultSteps),
             fmt::format("the run ends after max_num_epochs {} over the training set ({} is NeMo RL's no-limit "
                         "default), but {}; the scenario format's default stands in: write {} x floor(prompts / {}) "
                         "here",
                         epochs, stated ? "grpo.max_num_steps 1000000" : "max_num_steps", unknown, epochs,
                         prompts.value_or(1)));
}

// run.checkpoint from checkpointing.save_period (grpo.py:3511 @ 7ea279ab: a
// save every save_period steps when checkpointing.enabled) and run.evaluation
// from grpo.val_period over max_val_samples prompts, taken in whole batches
// of val_batch_size (grpo.py:3853), val_num_generations_per_prompt each.
void NemoRunCosts(ConfigTree& t, ScenarioText& out) {
  if (t.Bool("checkpointing.enabled").value_or(false)) {
    if (auto period = t.Int("checkpointing.save_period"); period && *period > 0) {
      const bool optimizer = t.Bool("checkpointing.save_optimizer").value_or(true);
      out.Set("run", "checkpoint", fmt::format("{{every_steps: {}, optimizer_state: {}}}", *period, optimizer),
              fmt::format("checkpointing.enabled, save_period {}, save_optimizer {}", *period, optimizer));
    }
  }
  const auto period = t.Int("grpo.val_period");
  if (!period || *period <= 0) return;
  const long long max_samples = t.Int("grpo.max_val_samples").value_or(256);
  const long long batch = std::max(1LL, t.Int("grpo.val_batch_size").value_or(256));
  const long long k = std::max(1LL, t.Int("grpo.val_num_generations_per_prompt").value_or(1));
  const long long prompts = max_samples / batch * batch;
  const bool at_start = t.Bool("grpo.val_at_start").value_or(false);
  if (prompts < 1) {
    t.problems().push_back(t.ProblemAt(
        "grpo.max_val_samples", fmt::format("max_val_samples {} is below val_batch_size {}: NeMo RL validates "
                                            "max_val_samples // val_batch_size = 0 batches; expected at least {}",
                                            max_samples, batch, batch)));
    return;
  }
  out.Set("run", "evaluation", fmt::format("{{every_steps: {}, prompts: {}, samples_per_prompt: {}}}", *period, prompts, k),
          fmt::format("grpo.val_period {}; max_val_samples {} in batches of val_batch_size {}; "
                      "val_num_generations_per_prompt {}{}",
                      *period, max_samples, batch, k,
                      at_start ? "; val_at_start adds one more before the first step, not counted here" : ""));
}

// The trainer's engine and the micro-batches of its passes (docs/model.md,
// "FSDP traffic per micro-batch", "Micro-batches of each pass"). The DTensor
// policy is FSDP2 (fully_shard per decoder layer: nemo_rl/models/dtensor/
// parallelize.py @ v0.3.0 b1c86a81), the Megatron policy Megatron-Core. With
// sequence packing or dynamic batching the workers fill micro-batches up to
// train_mb_tokens / logprob_mb_tokens tokens (the policy worker's
// shard_by_batch_size with max_tokens_per_microbatch =
// cfg["sequence_packing"]["logprob_mb_tokens"]); the base configs write them
// as ${mul:${policy.max_total_sequence_length}, ${policy.train_micro_batch_size}}
// (and logprob_batch_size), a resolver this reader leaves as written, so the
// product is taken here. Without either, micro-batches of
// train_micro_batch_size / logprob_batch_size sequences.
void NemoTrainerPasses(ConfigTree& t, ScenarioText& out) {
  if (t.Bool("policy.megatron_cfg.enabled").value_or(false)) {
    out.Set("placement", "train_backend", "megatron", "policy.megatron_cfg.enabled");
    // Megatron-Core splits the layers evenly unless the first/last-stage
    // counts are set, as NeMo RL's DeepSeek-V3 and Qwen3-235B performance
    // recipes do (docs/model.md, "Pipeline stages split evenly").
    bool balanced = false;
    std::string from = "policy.megatron_cfg: no first/last-stage layer counts (Megatron-Core's even split)";
    for (const char* k : {"num_layers_in_first_pipeline_stage", "num_layers_in_last_pipeline_stage"}) {
      const std::string key = std::string("policy.megatron_cfg.") + k;
      if (auto v = t.IntIfPlain(key); v && *v >= 0 && !balanced) {
        balanced = true;
        from = key;
      }
    }
    out.Set("placement", "train_pp_split", balanced ? "balanced" : "even", from);
  } else if (t.Bool("policy.dtensor_cfg.enabled").value_or(false)) {
    out.Set("placement", "train_backend", "fsdp", "policy.dtensor_cfg.enabled: the DTensor (FSDP2) policy");
  }
  std::string packed;
  for (const char* group : {"policy.sequence_packing", "policy.dynamic_batching"}) {
    if (t.BoolIfPlain(std::string(group) + ".enabled").value_or(false)) {
      packed = group;
      break;
    }
  }
  const auto total = t.IntIfPlain("policy.max_total_sequence_length");
  const auto set = [&](const char* tokens_field, const char* seqs_field, const char* mb_key, const char* size_key) {
    const std::string size_at = std::string("policy.") + size_key;
    const auto size = t.IntIfPlain(size_at);
    if (!packed.empty()) {
      const std::string at = packed + "." + mb_key;
      if (auto v = t.IntIfPlain(at); v && *v > 0) {
        out.Set("placement", tokens_field, std::to_string(*v), at);
      } else if (total && size && *total > 0 && *size > 0) {
        out.Set("placement", tokens_field, std::to_string(*total * *size),
                fmt::format("{}: policy.max_total_sequence_length {} x {} {}", at, *total, size_at, *size));
      }
    } else if (size && *size > 0) {
      out.Set("placement", seqs_field, std::to_string(*size), size_at + " (sequences)");
    }
  };
  set("train_micro_batch_tokens", "train_micro_batch_seqs", "train_mb_tokens", "train_micro_batch_size");
  set("logprob_micro_batch_tokens", "logprob_micro_batch_seqs", "logprob_mb_tokens", "logprob_batch_size");
}

}  // namespace

Result<ImportedScenario> ImportNemoRl(const std::string& path, const std::vector<std::string>& overrides,
                                      const Catalog& catalog, const ImportOptions& options) {
  auto loaded = ConfigTree::Load(path, overrides);
  if (!loaded) return Fail(loaded.error());
  ConfigTree& t = *loaded;
  ScenarioText out;
  out.Header(fmt::format("Imported from {} by `rlcost import nemo-rl`{}.", path,
                         overrides.empty() ? "" : fmt::format(" with {} command-line overrides", overrides.size())));
  out.Header("Lines marked ASSUMED are not in the config: replace them with your own numbers.");
  std::string name = std::filesystem::path(path).stem().string();
  if (auto n = t.String("logger.wandb.name")) name = *n;
  out.Set("", "name", "\"" + name + "\"");
  out.Set("", "framework", "nemo-rl", "NeMo RL's defaults for what this config leaves out (catalog/frameworks/nemo-rl.yaml)");
  ModelLine(t, "policy.model_name", catalog, out);
  GpuLine(options, catalog, t, out);

  const long long nodes = t.Int("cluster.num_nodes").value_or(1);
  const long long per_node = t.Int("cluster.gpus_per_node").value_or(1);
  const long long gpus = NodeGpus(t, "cluster.num_nodes", nodes, "cluster.gpus_per_node", per_node);
  out.Set("hardware", "gpus", std::to_string(gpus), fmt::format("cluster.num_nodes x gpus_per_node {}x{}", nodes, per_node));
  out.Set("hardware", "gpus_per_node", std::to_string(per_node), "cluster.gpus_per_node");
  const bool colocated = t.Bool("policy.generation.colocated.enabled").value_or(true);
  if (colocated) {
    out.Set("placement", "mode", "colocated", "policy.generation.colocated.enabled");
  } else {
    // Dedicated generation: whole nodes (resources.num_nodes) or, on one node,
    // resources.gpus_per_node of its GPUs.
    const auto gen_nodes = t.Int("policy.generation.colocated.resources.num_nodes");
    const auto gen_per_node = t.Int("policy.generation.colocated.resources.gpus_per_node");
    long long rollout = 0;
    if (gen_nodes && *gen_nodes > 0) {
      rollout = NodeGpus(t, "policy.generation.colocated.resources.num_nodes", *gen_nodes,
                         "policy.generation.colocated.resources.gpus_per_node", gen_per_node.value_or(per_node));
    } else if (gen_per_node && *gen_per_node > 0) {
      rollout = *gen_per_node;
    } else {
      t.problems().push_back(t.ProblemAt("policy.generation.colocated.resources",
                                         "colocated.enabled is false but resources.num_nodes / gpus_per_node are "
                                         "not set: the generation GPUs are unknown"));
    }
    if (rollout >= gpus && rollout > 0 && gpus > 0) {
      t.problems().push_back(t.ProblemAt("policy.generation.colocated.resources.num_nodes",
                                         fmt::format("generation takes {} of the {} GPUs; none left to train", rollout,
                                                     gpus)));
    }
    out.Set("placement", "mode", "disaggregated", "policy.generation.colocated.enabled: false");
    out.Set("placement", "rollout_gpus", std::to_string(rollout), "policy.generation.colocated.resources");
    out.Set("placement", "train_gpus", std::to_string(gpus - rollout), "the rest of the cluster");
  }
  if (auto backend = t.String("policy.generation.backend")) {
    if (*backend == "vllm") {
      out.Set("placement", "engine", "vllm", "policy.generation.backend");
    } else {
      t.problems().push_back(t.ProblemAt("policy.generation.backend",
                                         "backend '" + *backend + "' has no counterpart; expected vllm"));
    }
  }
  if (auto tp = t.Int("policy.generation.vllm_cfg.tensor_parallel_size")) {
    out.Set("placement", "rollout_tp", std::to_string(*tp), "policy.generation.vllm_cfg.tensor_parallel_size");
  }
  if (auto eager = t.Bool("policy.generation.vllm_cfg.enforce_eager")) {
    out.Set("engine", "enforce_eager", *eager ? "true" : "false", "policy.generation.vllm_cfg.enforce_eager");
  }
  if (auto u = t.Number("policy.generation.vllm_cfg.gpu_memory_utilization")) {
    out.Set("placement", "gpu_memory_utilization", Fmt(*u), "policy.generation.vllm_cfg.gpu_memory_utilization");
  }
  if (t.Bool("policy.megatron_cfg.enabled").value_or(false)) {
    for (const auto& [key, field] : {std::pair<const char*, const char*>{"tensor_model_parallel_size", "train_tp"},
                                     {"pipeline_model_parallel_size", "train_pp"},
                                     {"expert_model_parallel_size", "train_ep"},
                                     {"context_parallel_size", "train_cp"}}) {
      const std::string k = std::string("policy.megatron_cfg.") + key;
      if (auto v = t.Int(k)) out.Set("placement", field, std::to_string(*v), k);
    }
  } else if (t.Bool("policy.dtensor_cfg.enabled").value_or(false)) {
    for (const auto& [key, field] : {std::pair<const char*, const char*>{"tensor_parallel_size", "train_tp"},
                                     {"context_parallel_size", "train_cp"}}) {
      const std::string k = std::string("policy.dtensor_cfg.") + key;
      if (auto v = t.Int(k)) out.Set("placement", field, std::to_string(*v), k);
    }
  }
  NemoTrainerPasses(t, out);

  out.Set("algorithm", "name", "grpo", "NeMo RL GRPO");
  if (auto g = t.Int("grpo.num_generations_per_prompt")) {
    out.Set("algorithm", "group_size", std::to_string(*g), "grpo.num_generations_per_prompt");
  }
  if (auto p = t.Int("grpo.num_prompts_per_step")) {
    out.Set("algorithm", "prompts_per_step", std::to_string(*p), "grpo.num_prompts_per_step");
  }
  NemoSteps(t, out);
  // Optimizer steps per step: the policy worker trains on the step's samples
  // in global batches of train_global_batch_size samples, one optimizer.step()
  // each: num_global_batches = samples // gbs
  // (nemo_rl/models/policy/workers/megatron_policy_worker.py:273,287,357 and
  // dtensor_policy_worker.py:578,603,927 @ v0.6.0 5fb58893). docs/model.md,
  // "Optimizer steps per RL step".
  {
    const auto prompts = t.Int("grpo.num_prompts_per_step");
    const auto group = t.Int("grpo.num_generations_per_prompt");
    const std::string key = "policy.train_global_batch_size";
    // Counts the scenario can hold (each at most 1e9, so the product fits);
    // the loader refuses the others under their own names.
    auto count = [](const std::optional<long long>& v) { return v && *v >= 1 && *v <= 1'000'000'000; };
    if (const auto gbs = t.Int(key); gbs && count(prompts) && count(group)) {
      const long long samples = *prompts * *group;
      if (*gbs < 1 || *gbs > samples || samples % *gbs != 0) {
        t.problems().push_back(t.ProblemAt(
            key, fmt::format("train_global_batch_size {} does not divide the {} samples of a step "
                             "(num_prompts_per_step {} x num_generations_per_prompt {}); expected a divisor of {}, "
                             "so that every optimizer step takes an equal share",
                             *gbs, samples, *prompts, *group, samples)));
      } else {
        out.Set("algorithm", "minibatches", std::to_string(samples / *gbs),
                fmt::format("optimizer steps per step: {} x {} samples / train_global_batch_size {} ({})", *prompts,
                            *group, *gbs, t.Where(key)));
      }
    }
  }
  if (auto kl = t.Number("loss_fn.reference_policy_kl_penalty")) {
    out.Set("algorithm", "reference_model", *kl > 0 ? "true" : "false", "loss_fn.reference_policy_kl_penalty " + Fmt(*kl));
  }

  // Lengths: max_total_sequence_length bounds prompt + response together.
  const auto total = PositiveLength(t, "policy.max_total_sequence_length");
  const auto input = PositiveLength(t, "data.max_input_seq_length");
  const auto new_tokens = PositiveLength(t, "policy.generation.max_new_tokens");
  std::optional<long long> prompt_max;
  std::string prompt_from;
  if (input && total) {
    prompt_max = std::min(*input, *total);
    prompt_from = *input <= *total ? "data.max_input_seq_length" : "policy.max_total_sequence_length";
  } else if (input || total) {
    prompt_max = input ? *input : *total;
    prompt_from = input ? "data.max_input_seq_length" : "policy.max_total_sequence_length";
  }
  const long long prompt_mean = AssumedMean(kPlaceholderPromptMean, prompt_max);
  std::optional<long long> response_max;
  std::string response_from;
  if (total) {
    const long long room = *total - prompt_mean;
    if (room < 1) {
      t.problems().push_back(t.ProblemAt(
          "policy.max_total_sequence_length",
          fmt::format("max_total_sequence_length {} leaves no room for a response after a prompt of {} tokens; "
                      "expected at least {}",
                      *total, prompt_mean, prompt_mean + 1)));
    } else {
      response_max = new_tokens ? std::min(*new_tokens, room) : room;
      response_from = new_tokens && *new_tokens < room
                          ? "policy.generation.max_new_tokens"
                          : fmt::format("policy.max_total_sequence_length {} less the assumed mean prompt {}", *total,
                                        prompt_mean);
    }
  } else if (new_tokens) {
    response_max = *new_tokens;
    response_from = "policy.generation.max_new_tokens";
  }
  AssumedEnvironment(out, prompt_max, prompt_from, response_max, response_from);
  if (auto d = t.String("data.dataset_name")) {
    out.Set("environment", "name", "\"" + *d + "\"", "data.dataset_name");
  } else if (auto d2 = t.String("data.train.dataset_name")) {
    out.Set("environment", "name", "\"" + *d2 + "\"", "data.train.dataset_name");
  }
  NemoRunCosts(t, out);

  if (auto precision = t.String("policy.generation.vllm_cfg.precision"); precision && *precision == "fp8") {
    out.Set("precision", "rollout", "fp8", "policy.generation.vllm_cfg.precision");
  }
  if (t.Bool("grpo.async_grpo.enabled").value_or(false)) {
    out.Set("pipeline", "mode", "async", "grpo.async_grpo.enabled");
    if (auto age = t.Int("grpo.async_grpo.max_trajectory_age_steps")) {
      out.Set("pipeline", "max_staleness", std::to_string(*age), "grpo.async_grpo.max_trajectory_age_steps");
    }
  } else {
    out.Set("pipeline", "mode", "sync", "grpo.async_grpo.enabled is false");
  }
  return Finish(t, out);
}

}  // namespace rlcost::ingest
