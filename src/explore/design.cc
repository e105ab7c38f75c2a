#include "core/strings.h"
#include "explore/design.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>

#include <fmt/format.h>

namespace rlcost::explore {
namespace {

Error BadVary(const std::string& path, std::string message) {
  Error e = Error::Invalid(path, std::move(message));
  e.problems.back().file = "vary";
  return e;
}

std::optional<double> ParseNumber(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

bool LooksInteger(const std::string& s, double v) {
  return s.find_first_of(".eE") == std::string::npos && v == std::floor(v) && std::fabs(v) < 9e15;
}

// Splits a list on commas outside brackets, braces and quotes.
std::vector<std::string> SplitList(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (c == ',' && depth == 0) {
      out.push_back(TrimBlanks(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(TrimBlanks(s.substr(start)));
  return out;
}

// splitmix64: a small generator whose output is the same on every platform
// (std:: distributions are not), so a seed names the same sample everywhere.
struct SplitMix {
  uint64_t x;
  uint64_t Next() {
    uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  double Unit() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }  // [0, 1)
  uint64_t Below(uint64_t n) { return Next() % n; }
};

std::vector<uint64_t> Permutation(uint64_t n, SplitMix& rng) {
  std::vector<uint64_t> p(n);
  std::iota(p.begin(), p.end(), 0);
  for (uint64_t i = n; i > 1; --i) std::swap(p[i - 1], p[rng.Below(i)]);
  return p;
}

}  // namespace

std::string FormatNumber(double v) {
  if (v == 0) return "0";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.12g", v);
  double rounded = std::strtod(buf, nullptr);
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, rounded);
  return std::string(buf, p);
}

Result<Axis> ParseAxis(std::string_view spec, bool sample) {
  size_t eq = spec.find('=');
  if (eq == std::string_view::npos) {
    return Fail(BadVary("", "expected KEY=V1,V2,... or KEY=LO..HI[:STEP] (e.g. algorithm.group_size=4..16:4), got '" +
                            std::string(spec) + "'"));
  }
  Axis a;
  a.key = TrimBlanks(spec.substr(0, eq));
  const std::string rhs = TrimBlanks(spec.substr(eq + 1));
  if (a.key.empty() || a.key.front() == '.' || a.key.back() == '.' || a.key.find("..") != std::string::npos) {
    return Fail(BadVary(a.key, "expected a dotted field path such as algorithm.group_size, got '" + a.key + "'"));
  }
  if (rhs.empty()) return Fail(BadVary(a.key, "no values; expected V1,V2,... or LO..HI[:STEP]"));
  const size_t dots = rhs.find("..");
  const bool bracketed = rhs.find_first_of("[{\"'") != std::string::npos;
  if (dots != std::string::npos && !bracketed) {
    const std::string lo_s = TrimBlanks(rhs.substr(0, dots));
    std::string hi_s = TrimBlanks(rhs.substr(dots + 2)), step_s;
    if (size_t colon = hi_s.find(':'); colon != std::string::npos) {
      step_s = TrimBlanks(hi_s.substr(colon + 1));
      hi_s = TrimBlanks(hi_s.substr(0, colon));
    }
    auto lo = ParseNumber(lo_s), hi = ParseNumber(hi_s);
    std::optional<double> step;
    if (!step_s.empty()) step = ParseNumber(step_s);
    if (!lo || !hi || (!step_s.empty() && !step)) {
      return Fail(BadVary(a.key, "cannot read '" + rhs + "' as a range; expected LO..HI or LO..HI:STEP with numbers"));
    }
    if (*hi < *lo) {
      return Fail(BadVary(a.key, "range " + rhs + " has no points; expected LO <= HI"));
    }
    if (step && !(*step > 0)) {
      return Fail(BadVary(a.key, "range " + rhs + " has no points; expected a step > 0, got " + step_s));
    }
    a.is_range = true;
    a.lo = *lo;
    a.hi = *hi;
    a.integer = LooksInteger(lo_s, *lo) && LooksInteger(hi_s, *hi) && (!step || LooksInteger(step_s, *step));
    a.step = step;
    if (!a.step && a.integer) a.step = 1;
    if (!a.step) {
      if (sample) return a;  // sampled: values are drawn, not listed
      return Fail(BadVary(a.key, "range " + rhs + " of decimals needs a step for a grid (e.g. " + rhs +
                                 ":0.1), or use `sample` N"));
    }
    const double span = (a.hi - a.lo) / *a.step;
    if (span > 1e8) return Fail(BadVary(a.key, "range " + rhs + " has more than 100000000 points; expected fewer"));
    const auto count = static_cast<uint64_t>(std::floor(span + 1e-9)) + 1;
    for (uint64_t i = 0; i < count; ++i) {
      const double v = a.lo + static_cast<double>(i) * *a.step;
      a.values.push_back(a.integer ? std::to_string(static_cast<int64_t>(v)) : FormatNumber(v));
    }
    return a;
  }
  for (auto& v : SplitList(rhs)) {
    auto o = ParseOverride(a.key + "=" + v);  // the same checks as --set
    if (!o) {
      Error e = o.error();
      for (auto& p : e.problems) p.file = "vary";
      if (v.empty()) return Fail(BadVary(a.key, "empty value in list '" + rhs + "'; expected V1,V2,..."));
      return Fail(std::move(e));
    }
    a.values.push_back(o->value);
  }
  return a;
}

Result<Design> Design::Grid(std::vector<Axis> axes, uint64_t max_points) {
  Design d;
  d.size_ = axes.empty() ? 0 : 1;
  for (const auto& a : axes) {
    if (a.values.empty()) {
      return Fail(BadVary(a.key, "a range without a step can only be sampled; add :STEP or use `sample` N"));
    }
    if (d.size_ > max_points / a.values.size()) {
      return Fail(BadVary(a.key, fmt::format("the grid has more than {} points; expected fewer (or use `sample` N)",
                                         max_points)));
    }
    d.size_ *= a.values.size();
  }
  d.axes_ = std::move(axes);
  return d;
}

Result<Design> Design::Sample(std::vector<Axis> axes, uint64_t n, uint64_t seed) {
  if (n == 0) return Fail(BadVary("", "`sample` 0 has no points; expected a sample size >= 1"));
  if (n > 100'000'000) return Fail(BadVary("", "`sample` is over 100000000; expected fewer points"));
  Design d;
  d.size_ = n;
  d.sampled_.assign(n, std::vector<std::string>(axes.size()));
  SplitMix rng{seed};
  for (size_t k = 0; k < axes.size(); ++k) {
    const Axis& a = axes[k];
    const auto perm = Permutation(n, rng);
    for (uint64_t i = 0; i < n; ++i) {
      std::string v;
      if (!a.is_range) {
        v = a.values[perm[i] * a.values.size() / n];
      } else {
        const double u = (static_cast<double>(perm[i]) + rng.Unit()) / static_cast<double>(n);  // [0, 1)
        if (a.step) {
          // The range's grid values in equal shares: value j covers [j/m, (j+1)/m) of u.
          const auto m = a.values.size();
          v = a.values[std::min<size_t>(m - 1, static_cast<size_t>(u * static_cast<double>(m)))];
        } else {
          v = FormatNumber(a.lo + (a.hi - a.lo) * u);
        }
      }
      d.sampled_[i][k] = std::move(v);
    }
  }
  d.axes_ = std::move(axes);
  return d;
}

std::vector<std::string> Design::Values(uint64_t i) const {
  if (!sampled_.empty()) return sampled_[i];
  std::vector<std::string> out(axes_.size());
  for (size_t k = axes_.size(); k-- > 0;) {
    const auto m = axes_[k].values.size();
    out[k] = axes_[k].values[i % m];
    i /= m;
  }
  return out;
}

std::vector<Override> Design::Overrides(uint64_t i) const {
  auto values = Values(i);
  std::vector<Override> out;
  out.reserve(values.size());
  for (size_t k = 0; k < values.size(); ++k) out.push_back(Override{axes_[k].key, std::move(values[k])});
  return out;
}

}  // namespace rlcost::explore
