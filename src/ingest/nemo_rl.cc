// NeMo RL (NVIDIA-NeMo/RL) GRPO configs -> scenario. Keys and defaults from
// examples/configs/grpo_math_1B.yaml; recipes (examples/configs/recipes/llm/
// performance/*.yaml) name it with `defaults:` and override a few keys.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "ingest/import_common.h"

namespace rlcost::ingest {

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

  out.Set("algorithm", "name", "grpo", "NeMo RL GRPO");
  if (auto g = t.Int("grpo.num_generations_per_prompt")) {
    out.Set("algorithm", "group_size", std::to_string(*g), "grpo.num_generations_per_prompt");
  }
  if (auto p = t.Int("grpo.num_prompts_per_step")) {
    out.Set("algorithm", "prompts_per_step", std::to_string(*p), "grpo.num_prompts_per_step");
  }
  if (auto s = t.Int("grpo.max_num_steps")) out.Set("algorithm", "steps", std::to_string(*s), "grpo.max_num_steps");
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
  const auto total = t.Int("policy.max_total_sequence_length");
  const auto input = t.Int("data.max_input_seq_length");
  const auto new_tokens = t.Int("policy.generation.max_new_tokens");
  const long long prompt_mean = 200;  // as AssumedEnvironment writes
  std::string prompt_max, response_max;
  if (input && total) {
    prompt_max = std::to_string(std::min(*input, *total));
  } else if (input || total) {
    prompt_max = std::to_string(input ? *input : *total);
  }
  if (total || new_tokens) {
    long long r = new_tokens ? *new_tokens : *total;
    if (total) r = std::min(r, *total - prompt_mean);
    response_max = std::to_string(std::max(1LL, r));
  }
  AssumedEnvironment(out, prompt_max, response_max);
  if (total) {
    out.Set("environment", "response_tokens", "{mean: 1000, cv: 1.0, max: " + response_max + "}",
            fmt::format("ASSUMED mean and spread; max = max_total_sequence_length {} - the assumed mean prompt {}",
                        *total, prompt_mean));
  }
  if (auto d = t.String("data.dataset_name")) out.Set("environment", "name", "\"" + *d + "\"", "data.dataset_name");

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
