// Doubles that become ints. Converting a double outside int's range is
// undefined behaviour, so every such conversion goes through here:
// - a count computed in floating point (CeilCount, FloorCount) is clamped to
//   [lo, hi] first, NaN taken as lo (fuzz_overrides reached the conversion
//   with algorithm.group_size=857126187, ~2.7e10 sequences per engine);
// - a number read from a file that must be a whole number (WholeNumber) is
//   one only when finite, without a fraction and within [lo, hi]; the reader
//   reports the value otherwise (fuzz_log reached it with `step:1e300`).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>

namespace rlcost {

inline int CeilCount(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;  // also NaN
  return static_cast<int>(std::min(std::ceil(v), static_cast<double>(hi)));
}

inline int FloorCount(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;
  return static_cast<int>(std::min(std::floor(v), static_cast<double>(hi)));
}

// v as an int when it is a whole number in [lo, hi]; nullopt otherwise (NaN
// fails the range test, infinities lie outside it).
inline std::optional<int> WholeNumber(double v, int lo, int hi) {
  if (!(v >= lo && v <= hi) || v != std::floor(v)) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace rlcost
