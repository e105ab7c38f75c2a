// Files compiled into the binary (catalog/*.yaml, scenarios/default.yaml),
// looked up by base name:  auto text = rlcost::EmbeddedFile("gpus.yaml");
#pragma once
#include <optional>
#include <string_view>

namespace rlcost {
std::optional<std::string_view> EmbeddedFile(std::string_view name);
}  // namespace rlcost
