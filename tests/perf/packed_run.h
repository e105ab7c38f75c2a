#pragma once
// A NeMo-RL-v0.3-like colocated GRPO run with packed micro-batches of 4,096
// tokens (64 prompts x 32, 4 mini-batches, 112 + 400 tokens), for the tests of
// the training communication (fsdp_overlap_test.cc, megatron_comm_test.cc).
// `placement` is appended inside the placement mapping (", train_tp: 8").
#include <string>

namespace rlcost::test {

inline std::string PackedRunText(const std::string& model, int gpus, const std::string& placement) {
  return "name: packed\nmodel: " + model + "\nhardware: {gpu: h100-sxm, gpus: " + std::to_string(gpus) +
         ", gpus_per_node: 8}\n"
         "placement: {mode: colocated, rollout_tp: 4, gpu_memory_utilization: 0.6, "
         "train_micro_batch_tokens: 4096" +
         placement +
         "}\nenvironment:\n  prompt_tokens: 112\n  response_tokens: 400\n  reward: {type: outcome}\n"
         "algorithm: {name: grpo, group_size: 32, prompts_per_step: 64, steps: 10, minibatches: 4}\n";
}

}  // namespace rlcost::test
