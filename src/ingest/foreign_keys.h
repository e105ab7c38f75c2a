// The configuration keys of other RL frameworks (veRL's Hydra config, NeMo RL's
// YAML) that have a counterpart in the scenario format: one table, read by
// `rlcost import verl|nemo-rl` and by `--set`, which answers a veRL key with
// the scenario field to use instead.
//
//   if (const auto* k = rlcost::ingest::FindForeignKey("actor_rollout_ref.rollout.n"))
//     msg = "did you mean " + k->scenario_path + " (" + k->tool + "'s " + k->key + ")?";
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace rlcost::ingest {

struct ForeignKey {
  std::string tool;           // "veRL" or "NeMo RL", as users name them
  std::string key;            // dotted path in that tool's config
  std::string scenario_path;  // the scenario field it becomes
  std::string how;            // how the value maps, when not one to one ("" = same value)
};

// Every key with a counterpart, veRL's first.
const std::vector<ForeignKey>& ForeignKeys();
// The entry for `key` (exact dotted path), or nullptr.
const ForeignKey* FindForeignKey(std::string_view key);

}  // namespace rlcost::ingest
