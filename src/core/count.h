// A count computed in floating point, as an int: clamped to [lo, hi] before
// the conversion (converting a double outside int's range is undefined
// behaviour; fuzz_overrides reached it with algorithm.group_size=857126187,
// ~2.7e10 sequences per engine), NaN taken as lo.
#pragma once

#include <algorithm>
#include <cmath>

namespace rlcost {

inline int CeilCount(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;  // also NaN
  return static_cast<int>(std::min(std::ceil(v), static_cast<double>(hi)));
}

inline int FloorCount(double v, int lo, int hi) {
  if (!(v >= lo)) return lo;
  return static_cast<int>(std::min(std::floor(v), static_cast<double>(hi)));
}

}  // namespace rlcost
