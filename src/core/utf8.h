// Text is UTF-8 end to end: every name, key and value read from a scenario,
// a catalog or `--set` is checked here, and one that is not valid UTF-8 is
// refused with its field path (docs/model.md, "Loading").
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace rlcost {

// Offset of the first byte that does not start or continue a well-formed
// UTF-8 sequence (RFC 3629: no overlong forms, no surrogates, at most
// U+10FFFF); nullopt when all of `s` is valid.
std::optional<size_t> FirstInvalidUtf8(std::string_view s);

// "not valid UTF-8 text (byte 0xE9 at offset 3)", or
// "" when `s` is valid.
std::string Utf8Problem(std::string_view s);

// `s` with every byte of an invalid sequence replaced by '?': safe to echo in
// a message (and in JSON).
std::string SanitizeUtf8(std::string_view s);

}  // namespace rlcost
