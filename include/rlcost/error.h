// Errors as values at library boundaries.
//
//   rlcost::Result<Scenario> s = rlcost::LoadScenarioFile(path, catalog);
//   if (!s) { for (auto& p : s.error().problems) std::cerr << p.ToString() << "\n"; }
//
// A validation pass collects *every* problem (one Problem each, naming the field
// path, the value and what was expected) instead of stopping at the first.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <tl/expected.hpp>

namespace rlcost {

enum class ErrorCode {
  kInvalidInput,    // the user's scenario, flag or file is wrong
  kNotFound,        // a file or catalog id that does not exist
  kDoesNotFit,      // the scenario cannot run: memory, GPU counts
  kNotImplemented,  // a feature that is not built yet ("not yet")
  kInternal,        // a bug in rlcost
};

struct Problem {
  std::string path;     // dotted field path, e.g. "environment.pass_rate.mean"; may be empty
  std::string message;  // value and what was expected
  int line = 0;         // 1-based line in the source file when known
  std::string ToString() const;  // "path: message" or "file:line: path: message"
  std::string file;     // source file when known
};

struct [[nodiscard]] Error {
  ErrorCode code = ErrorCode::kInvalidInput;
  std::vector<Problem> problems;

  Error() = default;
  Error(ErrorCode c, std::string path, std::string message) : code(c) {
    problems.push_back(Problem{std::move(path), std::move(message)});
  }
  static Error Invalid(std::string path, std::string message) {
    return Error(ErrorCode::kInvalidInput, std::move(path), std::move(message));
  }
  // All problems, one per line.
  std::string ToString() const;
};

std::string_view ToString(ErrorCode code);

template <typename T>
using Result = tl::expected<T, Error>;

inline tl::unexpected<Error> Fail(Error e) { return tl::unexpected<Error>(std::move(e)); }
inline tl::unexpected<Error> Fail(ErrorCode c, std::string path, std::string message) {
  return tl::unexpected<Error>(Error(c, std::move(path), std::move(message)));
}

}  // namespace rlcost
