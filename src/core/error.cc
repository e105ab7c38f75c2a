#include "rlcost/error.h"

namespace rlcost {

namespace {
// A control character in a user's value (a tab, an escape sequence) would act
// on the terminal instead of being read: it is shown as \xNN.
std::string Printable(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      static const char* kHex = "0123456789ABCDEF";
      out += "\\x";
      out += kHex[u >> 4];
      out += kHex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}
}  // namespace

std::string Problem::ToString() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (line > 0) out += ":" + std::to_string(line);
    out += ": ";
  } else if (line > 0) {
    out += "line " + std::to_string(line) + ": ";
  }
  if (!path.empty()) out += path + ": ";
  out += message;
  return Printable(out);
}

std::string Error::ToString() const {
  std::string out;
  for (size_t i = 0; i < problems.size(); ++i) {
    if (i) out += "\n";
    out += problems[i].ToString();
  }
  return out;
}

std::string_view ToString(ErrorCode code) {
  switch (code) {
    case ErrorCode::kInvalidInput: return "invalid_input";
    case ErrorCode::kNotFound: return "not_found";
    case ErrorCode::kDoesNotFit: return "does_not_fit";
    case ErrorCode::kNotImplemented: return "not_implemented";
    case ErrorCode::kInternal: return "internal";
  }
  return "internal";
}

}  // namespace rlcost
