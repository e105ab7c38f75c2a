// How deep [ and { nest in JSON (or YAML flow) text, strings skipped: checked
// before a document is parsed, so that a line nested 70,000 deep is refused
// with its line instead of recursed into (nlohmann::json's dump, copy and
// comparison recurse; a deep enough document overflows the stack).
//
//   if (NestingDepth(line) > kMaxFileNesting) return Fail(... "nested N deep ...");
#pragma once

#include <algorithm>
#include <string_view>

namespace rlcost {

// Every file rlcost reads nests a few levels (a scenario 4, a Hugging Face
// config 3, a log line 2); 64 leaves room for any real one.
inline constexpr int kMaxFileNesting = 64;

inline int NestingDepth(std::string_view text) {
  int depth = 0, max_depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      max_depth = std::max(max_depth, ++depth);
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return max_depth;
}

}  // namespace rlcost
