// A bounded list of problems: an input with a mistake on every line (or a
// YAML alias copied a million times) reports the first kMaxProblems and a
// count of the rest, so an error answer stays small whatever the input.
//
//   CapProblems(err.problems);   // at most kMaxProblems + 1 entries
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "rlcost/error.h"

namespace rlcost {

inline constexpr size_t kMaxProblems = 100;

// The Problem that says `more` problems were left out.
inline Problem MoreProblems(size_t more) {
  return Problem{"", std::to_string(more) + " more problem" + (more == 1 ? "" : "s") + " not shown (the first " +
                         std::to_string(kMaxProblems) + " are); fix these and read it again"};
}

// Keeps the first `max` problems and, when there were more, adds one that
// says how many were left out.
inline void CapProblems(std::vector<Problem>& problems, size_t max = kMaxProblems) {
  if (problems.size() <= max) return;
  const size_t more = problems.size() - max;
  problems.resize(max);
  problems.push_back(MoreProblems(more));
}

}  // namespace rlcost
