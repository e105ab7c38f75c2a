#include "rlcost/error.h"

namespace rlcost {

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
  return out;
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
