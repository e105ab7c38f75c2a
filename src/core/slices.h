// Equal-weight length points with the longest pinned: shared by the analytic
// rollout (sim/analytic.cc, LengthSlices) and the tail levers
// (perf/tail.cc, EqualWeightSlices).
#pragma once

#include <algorithm>
#include <span>

namespace rlcost {

// `out` holds m equal-weight points, ascending, the last pinned at the
// expected longest draw. Rescale the other m - 1 so that the m points keep
// `mean`: the body's sum becomes m * mean - top (never below 0), each point
// stays at most the top, and the points stay sorted. With one point, or a
// body summing to 0, the points are left as they are.
inline void KeepMeanWithTopPinned(std::span<double> out, double mean) {
  const std::size_t m = out.size();
  if (m < 2) return;
  const double top = out[m - 1];
  double body = 0;
  for (std::size_t i = 0; i + 1 < m; ++i) body += out[i];
  if (!(body > 0)) return;
  const double scale = std::max(0.0, double(m) * mean - top) / body;
  for (std::size_t i = 0; i + 1 < m; ++i) out[i] = std::min(out[i] * scale, top);
  std::sort(out.begin(), out.end());
}

}  // namespace rlcost
