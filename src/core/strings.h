// Small string helpers shared by the readers of flags, overrides and files.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

namespace rlcost {

// `s` without leading and trailing spaces and tabs.
inline std::string TrimBlanks(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

// "1 GPU", "8 GPUs": a count of GPUs as text reads it.
inline std::string GpuCount(long long n) { return fmt::format("{} GPU{}", n, n == 1 ? "" : "s"); }

}  // namespace rlcost
