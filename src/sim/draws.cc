// RoundedDraws' table (sim/draws.h: why its entries are exact).
#include "sim/draws.h"

namespace rlcost::sim::internal {

namespace {

// The margin around each rounding boundary x = k + 1/2, in the value: the
// computed quantile is within ~1e-14 (|x| + 1) of the exact one for the
// kinds tabled (relative error: no cancellation); five orders above that.
double Tol(double x) { return 1e-9 * (std::fabs(x) + 1.0); }

}  // namespace

void RoundedDraws::Build() {
  // Kinds whose computed quantile has a small relative error everywhere
  // (the normal's p1 + p2 z may cancel: computed draw by draw).
  const DistKind kind = d_->kind();
  if (kind != DistKind::kLognormal && kind != DistKind::kExponential && kind != DistKind::kUniform) return;
  const double v0 = Value(0), v1 = Value(kTop);
  if (!std::isfinite(v0) || !std::isfinite(v1) || std::fabs(v0) > 1e15 || std::fabs(v1) > 1e15) return;
  const int64_t kmin = std::llround(v0);
  int64_t kmax = std::llround(v1);
  if (kmax < kmin) return;
  if (kmax - kmin + 1 > max_entries_) kmax = kmin + max_entries_ - 1;  // draws past the last range: computed
  const size_t n = size_t(kmax - kmin + 1);
  std::vector<uint64_t> a(n), b(n);

  // The smallest m (from `m`, growing steps) whose value is >= x + tol, and the
  // largest (down from `m`) whose value is < x - tol; false when none is
  // found within the steps (the table is then not used).
  auto above = [&](double x, uint64_t m, uint64_t step, uint64_t* out) {
    const double t = x + Tol(x);
    for (int it = 0; it < 40; ++it) {
      if (Value(m) >= t) {
        *out = m;
        return true;
      }
      if (m == kTop) return false;
      m = kTop - m > step ? m + step : kTop;
      step *= 4;
    }
    return false;
  };
  auto below = [&](double x, uint64_t m, uint64_t step, uint64_t* out) {
    const double t = x - Tol(x);
    for (int it = 0; it < 40; ++it) {
      if (Value(m) < t) {
        *out = m;
        return true;
      }
      if (m == 0) return false;
      m = m > step ? m - step : 0;
      step *= 4;
    }
    return false;
  };

  // Each boundary x_j = kmin + j - 1/2 between k - 1 and k (j = 0: below
  // the first value; j = n: above the last): b[j - 1] below it, a[j] above
  // it. Start where the CDF puts it and step out by about the margin's width
  // in draws (the CDF's slope there, read off the previous boundary).
  double u_prev = 0;
  for (size_t j = 0; j <= n; ++j) {
    const double x = double(kmin + int64_t(j)) - 0.5;
    const bool top = j == n && kmax == std::llround(v1);  // nothing is drawn above x
    const double u = j == 0 ? 0.0 : top ? 1.0 : std::clamp(d_->Cdf(x), 0.0, 1.0);
    const uint64_t m = uint64_t(std::min(u * 0x1.0p53, double(kTop)));
    const double slope = std::max(0.0, u - u_prev) * 0x1.0p53;  // draws per unit of value
    const uint64_t step = j == 0 || top ? 1 : uint64_t(std::min(slope * 4.0 * Tol(x), 0x1.0p52)) + 1;
    u_prev = u;
    if (j > 0 && !below(x, m > step ? m - step : 0, step, &b[j - 1])) return;
    if (j < n && !above(x, m == 0 ? 0 : kTop - m > step ? m + step : kTop, step, &a[j])) return;
  }
  // A range only narrows (so stays exact) when its start is raised to its
  // predecessor's: the starts are then in order for the lookup's scan. Two
  // ranges that overlap would each vouch for the other's draws: the error
  // bound is then broken, and the table is not used.
  for (size_t i = 1; i < n; ++i) a[i] = std::max(a[i], a[i - 1]);
  uint64_t last_end = 0;
  bool any = false;
  for (size_t i = 0; i < n; ++i) {
    if (a[i] > b[i]) continue;  // no draw gives this value safely (a jump over it)
    if (any && a[i] <= last_end) return;
    last_end = b[i];
    any = true;
  }
  if (!any) return;
  // The guide: about two buckets a range, each bucket naming the last range
  // that starts at or before it, flagged when the whole bucket lies in it.
  int bits = 6;
  while ((size_t(1) << bits) < 4 * n && bits < 18) ++bits;
  shift_ = 53 - bits;
  guide_.assign(size_t(1) << bits, 0);
  size_t i = 0;
  for (size_t g = 0; g < guide_.size(); ++g) {
    const uint64_t s = uint64_t(g) << shift_, e = s + (uint64_t(1) << shift_) - 1;
    while (i + 1 < n && a[i + 1] <= s) ++i;
    guide_[g] = uint32_t(i) | (a[i] <= s && e <= b[i] ? kWhole : 0u);
  }
  kmin_ = kmin;
  ranges_.resize(n + 1);
  for (size_t k = 0; k < n; ++k) ranges_[k] = Range{a[k], b[k]};
  ranges_[n] = Range{~uint64_t(0), 0};  // sentinel: no draw reaches it
}

}  // namespace rlcost::sim::internal
