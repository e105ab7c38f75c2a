// Named doubles every stage spells the same way: the non-finite values a
// missing or unbounded figure takes, and the decimal gigabyte of the GPU
// datasheets (memory sizes and bandwidths in GB and GB/s).
#pragma once

#include <limits>

namespace rlcost {

inline constexpr double kInf = std::numeric_limits<double>::infinity();
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kGB = 1e9;

}  // namespace rlcost
