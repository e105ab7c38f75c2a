#include "core/utf8.h"

#include <fmt/format.h>

namespace rlcost {

std::optional<size_t> FirstInvalidUtf8(std::string_view s) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  const size_t n = s.size();
  size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t len;
    unsigned char lo = 0x80, hi = 0xBF;  // allowed range of the second byte
    if (c >= 0xC2 && c <= 0xDF) {
      len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
      len = 3;
      if (c == 0xE0) lo = 0xA0;  // overlong
      if (c == 0xED) hi = 0x9F;  // surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
      len = 4;
      if (c == 0xF0) lo = 0x90;  // overlong
      if (c == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
      return i;
    }
    if (i + len > n) return i;
    if (p[i + 1] < lo || p[i + 1] > hi) return i;
    for (size_t k = 2; k < len; ++k) {
      if (p[i + k] < 0x80 || p[i + k] > 0xBF) return i;
    }
    i += len;
  }
  return std::nullopt;
}

std::string Utf8Problem(std::string_view s) {
  auto at = FirstInvalidUtf8(s);
  if (!at) return "";
  return fmt::format("not valid UTF-8 text (byte 0x{:02X} at offset {})",
                     static_cast<unsigned>(static_cast<unsigned char>(s[*at])), *at);
}

std::string SanitizeUtf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  while (!s.empty()) {
    auto at = FirstInvalidUtf8(s);
    if (!at) {
      out.append(s);
      break;
    }
    out.append(s.substr(0, *at));
    out.push_back('?');
    s.remove_prefix(*at + 1);
  }
  return out;
}

}  // namespace rlcost
