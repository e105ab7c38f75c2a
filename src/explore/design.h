// explore/design: the points of a sweep. Each `--vary` names a scenario field
// (a `--set` path) and its values, as a list or a range; the design is their
// grid (every combination, the last axis varying fastest) or, with a sample
// size, a Latin-hypercube sample of it. Points are computed from their index,
// so a grid of millions costs no memory and any index range can be run apart
// (threads, processes).
//
//   auto a = explore::ParseAxis("algorithm.group_size=4..16:4");   // 4, 8, 12, 16
//   auto b = explore::ParseAxis("model=qwen3-8b,qwen3-32b");
//   auto d = explore::Design::Grid({*a, *b});                       // 8 points
//   d->Values(5);   // {"12", "qwen3-32b"}
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/error.h"
#include "rlcost/scenario.h"

namespace rlcost::explore {

struct Axis {
  std::string key;                  // dotted scenario path, as for --set
  std::vector<std::string> values;  // YAML scalars or flow values, in order
  // Ranges only (LO..HI[:STEP]); a list leaves is_range false.
  bool is_range = false;
  bool integer = false;             // LO, HI and STEP all integers
  double lo = 0, hi = 0;
  std::optional<double> step;       // a float range without a step can only be sampled
};

// "KEY=V1,V2,..." or "KEY=LO..HI[:STEP]". Commas inside {...}, [...] or quotes
// do not split a list. An integer range steps by 1 unless told; a float range
// needs a step for a grid (`sample` = true lifts that: it is sampled).
// Errors name "vary" (the request field) and say what was expected.
Result<Axis> ParseAxis(std::string_view key_equals_values, bool sample = false);

// A number as the sweep prints and stores it: shortest form, at most 12
// significant digits (so 0.1 + 2 * 0.1 prints 0.3).
std::string FormatNumber(double v);

class Design {
 public:
  // Every combination; an error when it has more than `max_points`.
  static Result<Design> Grid(std::vector<Axis> axes, uint64_t max_points = 100'000'000);
  // `n` points of a Latin hypercube: each range axis is cut into n equal strata
  // and every stratum is used once (a random point in it; a range with a step,
  // integers included, takes its grid values in equal shares, as a list axis
  // does). "0..1" is the integers 0 and 1; write "0.0..1.0" for decimals.
  // Same seed, same points.
  static Result<Design> Sample(std::vector<Axis> axes, uint64_t n, uint64_t seed);

  uint64_t size() const { return size_; }
  const std::vector<Axis>& axes() const { return axes_; }
  // The value of every axis at point `i` (0 <= i < size()).
  std::vector<std::string> Values(uint64_t i) const;
  // The same as `--set` overrides.
  std::vector<Override> Overrides(uint64_t i) const;

 private:
  std::vector<Axis> axes_;
  uint64_t size_ = 0;
  std::vector<std::vector<std::string>> sampled_;  // per point, when sampled; empty for a grid
};

}  // namespace rlcost::explore
