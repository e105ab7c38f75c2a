// The simulator's draws (sim/draws.h) against what they replace: Mt64
// against std::mt19937_64, RoundedDraws against std::llround(d.Sample(rng)),
// RealDraws against d.Sample(rng), draw for draw. The simulator's results
// are byte-identical only if these are.
#include <cstdint>
#include <optional>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/distribution.h"
#include "sim/draws.h"

namespace rlcost::sim::internal {
namespace {

TEST(Mt64, SameSequenceAsStdMt19937_64) {
  for (uint64_t seed : {uint64_t(0), uint64_t(1), uint64_t(5489), uint64_t(0xDEADBEEFCAFEF00DULL), ~uint64_t(0)}) {
    std::mt19937_64 want(seed);
    Mt64 got(seed);
    for (int i = 0; i < 100000; ++i) ASSERT_EQ(got(), want()) << "seed " << seed << " draw " << i;
    // Reseeding restarts the sequence; skip() is one draw.
    got.seed_state(seed + 1);
    want.seed(seed + 1);
    for (int i = 0; i < 1000; ++i) {
      if (i % 3 == 0) {
        got.skip();
        want();
      } else {
        ASSERT_EQ(got(), want());
      }
    }
  }
}

// Peek (the prefetch hint of RoundedDraws) sees the words the next draws
// will return, and only those already generated; position() counts draws.
TEST(Mt64, PeekSeesTheComingDrawsAndPositionCountsThem) {
  Mt64 a(42), b(42);
  const int64_t p0 = a.position();
  for (int i = 0; i < 2000; ++i) {
    ASSERT_EQ(a.position() - p0, i);
    for (int64_t k : {0, 1, 7, 100, 311}) {
      uint64_t w = 0;
      if (!a.Peek(k, w)) continue;
      Mt64 c = a;  // the stream itself does not move
      for (int64_t j = 0; j < k; ++j) c();
      ASSERT_EQ(w, c()) << "draw " << i << " ahead " << k;
    }
    ASSERT_EQ(a(), b());
  }
  // Past the generated block nothing is seen (the block is 312 words).
  uint64_t w = 0;
  EXPECT_FALSE(a.Peek(Mt64::kN, w));
}

struct Case {
  DistKind kind;
  double mean, cv;
  std::optional<double> min, max;
  double clipped;
};

std::vector<Case> Cases() {
  return {
      {DistKind::kLognormal, 300, 0.5, std::nullopt, 1024, 0},      // default.yaml's prompt
      {DistKind::kLognormal, 2000, 0.8, std::nullopt, 8192, 0},     // its response
      {DistKind::kLognormal, 400, 1.0, std::nullopt, 4096, 0},      // swe-agent.yaml's response
      {DistKind::kLognormal, 500, 1.2, std::nullopt, 8000, 0},      // its tool output
      {DistKind::kLognormal, 20, 0.4, std::nullopt, 50, 0},         // its turns
      {DistKind::kLognormal, 2000, 0.8, std::nullopt, 8192, 0.15},  // a share clipped at the maximum
      {DistKind::kLognormal, 1000, 2.0, std::nullopt, std::nullopt, 0},  // no maximum: the table is capped
      {DistKind::kLognormal, 900, 0.3, 200.0, 2000, 0},             // a minimum
      {DistKind::kLognormal, 1.6, 0.9, std::nullopt, 12, 0},        // a few values, jumps between them
      {DistKind::kExponential, 100, 1, std::nullopt, std::nullopt, 0},
      {DistKind::kUniform, 50, 0.3, std::nullopt, 100, 0},
      {DistKind::kNormal, 400, 0.2, 10.0, 1000, 0},  // no table: every draw computed
  };
}

Distribution Make(const Case& c) {
  auto d = Distribution::Make(c.kind, c.mean, c.cv, c.min, c.max, c.clipped);
  EXPECT_TRUE(d.has_value()) << (d ? "" : d.error());
  return d ? *d : Distribution();
}

TEST(RoundedDraws, SameValuesAsRoundedSamples) {
  for (const Case& c : Cases()) {
    const Distribution d = Make(c);
    const RoundedDraws r(d, 1 << 16);
    if (c.kind != DistKind::kNormal) {
      EXPECT_GT(r.entries(), 0u) << "mean " << c.mean;
    }
    for (uint64_t seed : {uint64_t(1), uint64_t(7)}) {
      Mt64 got(seed);
      std::mt19937_64 want(seed);
      for (int i = 0; i < 300000; ++i) {
        ASSERT_EQ(r(got), std::llround(d.Sample(want))) << "mean " << c.mean << " cv " << c.cv << " draw " << i;
      }
    }
  }
}

// Every range's ends give its value, and so do the draws just inside them;
// the draws just outside give a neighbouring value or fall back (the lookup
// is checked on them through Exact, which is what a fallback returns).
TEST(RoundedDraws, EveryRangeIsExactAtItsEnds) {
  for (const Case& c : Cases()) {
    const Distribution d = Make(c);
    const RoundedDraws r(d, 1 << 16);
    size_t checked = 0;
    for (size_t i = 0; i < r.entries(); ++i) {
      const uint64_t a = r.range_begin(i), b = r.range_end(i);
      if (a > b) continue;  // no draw gives this value (a jump over it)
      const long long k = r.first_value() + static_cast<long long>(i);
      for (uint64_t m : {a, a + 1, b - 1, b}) {
        if (m < a || m > b) continue;
        ASSERT_EQ(std::llround(d.Quantile(U53(m))), k) << "mean " << c.mean << " range " << i;
        ++checked;
      }
      // Ranges are ordered and apart.
      if (i + 1 < r.entries() && r.range_begin(i + 1) <= r.range_end(i + 1)) {
        EXPECT_LT(b, r.range_begin(i + 1));
      }
    }
    if (r.entries() > 0) {
      EXPECT_GT(checked, r.entries());
    }
  }
}

// A table that is not built (too few draws to pay for it) and a fixed value
// give the same draws.
TEST(RoundedDraws, WithoutATableAndFixed) {
  const Distribution d = Make(Cases()[1]);
  const RoundedDraws none(d, 0);
  EXPECT_EQ(none.entries(), 0u);
  const Distribution fixed = Distribution::Fixed(3);
  const RoundedDraws f(fixed, 1 << 16);
  Mt64 got(3);
  std::mt19937_64 want(3);
  for (int i = 0; i < 20000; ++i) {
    ASSERT_EQ(none(got), std::llround(d.Sample(want)));
    ASSERT_EQ(f(got), std::llround(fixed.Sample(want)));
  }
}

TEST(RealDraws, SameValuesAsSamples) {
  const Distribution lat = Make({DistKind::kLognormal, 3.0, 1.5, std::nullopt, 120, 0});
  const Distribution zero;  // fixed at 0 (no verification time)
  const RealDraws rl(lat), rz(zero);
  Mt64 got(11);
  std::mt19937_64 want(11);
  for (int i = 0; i < 100000; ++i) {
    ASSERT_EQ(rl(got), lat.Sample(want));
    ASSERT_EQ(rz(got), zero.Sample(want));
  }
}

}  // namespace
}  // namespace rlcost::sim::internal
