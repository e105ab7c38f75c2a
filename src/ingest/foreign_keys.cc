#include "ingest/foreign_keys.h"

namespace rlcost::ingest {

// veRL keys: verl/trainer/config/ppo_trainer.yaml and the recipes
// recipe/fully_async_policy and recipe/one_step_off_policy (their config
// files and launch scripts). NeMo RL keys: NVIDIA-NeMo/RL examples/configs/
// grpo_math_1B.yaml and the performance recipes under examples/configs/recipes.
const std::vector<ForeignKey>& ForeignKeys() {
  static const std::vector<ForeignKey> kKeys = {
      // veRL
      {"veRL", "actor_rollout_ref.model.path", "model", "a Hugging Face id or folder; its last part names the model"},
      {"veRL", "data.train_batch_size", "algorithm.prompts_per_step", ""},
      {"veRL", "data.gen_batch_size", "algorithm.gen_batch_prompts", ""},
      {"veRL", "actor_rollout_ref.rollout.n", "algorithm.group_size", ""},
      {"veRL", "data.max_prompt_length", "environment.prompt_tokens.max", ""},
      {"veRL", "data.max_response_length", "environment.response_tokens.max", ""},
      {"veRL", "trainer.total_training_steps", "algorithm.steps", ""},
      {"veRL", "trainer.nnodes", "hardware.gpus", "trainer.nnodes x trainer.n_gpus_per_node (plus the rollout nodes)"},
      {"veRL", "trainer.n_gpus_per_node", "hardware.gpus_per_node", ""},
      {"veRL", "rollout.nnodes", "placement.rollout_gpus", "rollout.nnodes x rollout.n_gpus_per_node"},
      {"veRL", "rollout.n_gpus_per_node", "placement.rollout_gpus", "rollout.nnodes x rollout.n_gpus_per_node"},
      {"veRL", "actor_rollout_ref.rollout.tensor_model_parallel_size", "placement.rollout_tp", ""},
      {"veRL", "actor_rollout_ref.rollout.name", "placement.engine", "vllm or sglang"},
      {"veRL", "actor_rollout_ref.rollout.gpu_memory_utilization", "placement.gpu_memory_utilization", ""},
      {"veRL", "actor_rollout_ref.model.lora_rank", "algorithm.lora.rank", "0 = full fine-tuning"},
      {"veRL", "algorithm.adv_estimator", "algorithm.name", "grpo, gae (ppo), rloo, ..."},
      {"veRL", "actor_rollout_ref.actor.use_kl_loss", "algorithm.reference_model", "true when a KL term needs the reference"},
      {"veRL", "algorithm.use_kl_in_reward", "algorithm.reference_model", "true when a KL term needs the reference"},
      {"veRL", "actor_rollout_ref.actor.fsdp_config.param_offload", "placement.offload.params", ""},
      {"veRL", "actor_rollout_ref.actor.fsdp_config.optimizer_offload", "placement.offload.optimizer", ""},
      {"veRL", "actor_rollout_ref.actor.megatron.tensor_model_parallel_size", "placement.train_tp", ""},
      {"veRL", "actor_rollout_ref.actor.megatron.pipeline_model_parallel_size", "placement.train_pp", ""},
      {"veRL", "actor_rollout_ref.actor.megatron.expert_model_parallel_size", "placement.train_ep", ""},
      {"veRL", "actor_rollout_ref.hybrid_engine", "placement.mode", "true: colocated; false: disaggregated"},
      {"veRL", "async_training.staleness_threshold", "pipeline.max_staleness", "1 + staleness_threshold"},
      {"veRL", "async_training.partial_rollout", "pipeline.partial_rollouts", ""},
      {"veRL", "async_training.trigger_parameter_sync_step", "pipeline.max_staleness",
       "weights are synced every trigger_parameter_sync_step steps"},
      {"veRL", "algorithm.filter_groups.enable", "algorithm.dynamic_sampling", ""},
      {"veRL", "algorithm.filter_groups.max_num_gen_batches", "algorithm.max_gen_batches", ""},
      // NeMo RL
      {"NeMo RL", "policy.model_name", "model", "a Hugging Face id; its last part names the model"},
      {"NeMo RL", "grpo.num_prompts_per_step", "algorithm.prompts_per_step", ""},
      {"NeMo RL", "grpo.num_generations_per_prompt", "algorithm.group_size", ""},
      {"NeMo RL", "grpo.max_num_steps", "algorithm.steps", ""},
      {"NeMo RL", "policy.max_total_sequence_length", "environment.response_tokens.max",
       "prompt and response together; the response's max is this less the prompt's"},
      {"NeMo RL", "cluster.num_nodes", "hardware.gpus", "cluster.num_nodes x cluster.gpus_per_node"},
      {"NeMo RL", "cluster.gpus_per_node", "hardware.gpus_per_node", ""},
      {"NeMo RL", "policy.generation.colocated.enabled", "placement.mode", "true: colocated; false: disaggregated"},
      {"NeMo RL", "policy.generation.colocated.resources.num_nodes", "placement.rollout_gpus",
       "num_nodes x gpus_per_node"},
      {"NeMo RL", "policy.generation.colocated.resources.gpus_per_node", "placement.rollout_gpus",
       "num_nodes x gpus_per_node"},
      {"NeMo RL", "policy.generation.backend", "placement.engine", "vllm"},
      {"NeMo RL", "policy.generation.vllm_cfg.tensor_parallel_size", "placement.rollout_tp", ""},
      {"NeMo RL", "policy.generation.vllm_cfg.gpu_memory_utilization", "placement.gpu_memory_utilization", ""},
      {"NeMo RL", "policy.generation.vllm_cfg.precision", "precision.rollout", "bf16 or fp8"},
      {"NeMo RL", "policy.megatron_cfg.tensor_model_parallel_size", "placement.train_tp", ""},
      {"NeMo RL", "policy.megatron_cfg.pipeline_model_parallel_size", "placement.train_pp", ""},
      {"NeMo RL", "policy.megatron_cfg.expert_model_parallel_size", "placement.train_ep", ""},
      {"NeMo RL", "policy.megatron_cfg.context_parallel_size", "placement.train_cp", ""},
      {"NeMo RL", "policy.dtensor_cfg.tensor_parallel_size", "placement.train_tp", ""},
      {"NeMo RL", "policy.dtensor_cfg.context_parallel_size", "placement.train_cp", ""},
      {"NeMo RL", "grpo.async_grpo.enabled", "pipeline.mode", "true: async"},
      {"NeMo RL", "grpo.async_grpo.max_trajectory_age_steps", "pipeline.max_staleness", ""},
      {"NeMo RL", "loss_fn.reference_policy_kl_penalty", "algorithm.reference_model", "> 0 needs the reference"},
  };
  return kKeys;
}

const ForeignKey* FindForeignKey(std::string_view key) {
  for (const auto& k : ForeignKeys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

}  // namespace rlcost::ingest
