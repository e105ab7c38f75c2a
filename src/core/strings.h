// Small string helpers shared by the readers of flags, overrides and files.
#pragma once

#include <string>
#include <string_view>

namespace rlcost {

// `s` without leading and trailing spaces and tabs.
inline std::string TrimBlanks(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

}  // namespace rlcost
