// The simulator's per-trajectory draws, faster and bit for bit the same
// (issue 41: drawing lengths was ~30% of default.yaml's run):
//
//   Mt64          std::mt19937_64, the same sequence for the same seed, its
//                 state regenerated 312 words at a time in loops without
//                 branches (the compiler vectorises them) and tempered there,
//                 so a draw is a load.
//   RoundedDraws  std::llround(d.Quantile(u)) for u = (rng() >> 11) * 2^-53,
//                 the value Distribution::Sample rounded, as the simulator
//                 rounds every token count and turn count: read from a
//                 table of the 53-bit draws that give each integer, checked
//                 where it is built; a draw the table cannot vouch for (a
//                 hair's breadth from where llround changes its answer, or
//                 past the table) is computed as before.
//   RealDraws     d.Quantile(u) (a latency, a verification time): a fixed
//                 value without the call, the rest as before.
//
// Why a table entry is exact. For the parametric kinds Quantile computes
// q(u) = clamp(Q(u'), lo, hi), Q the kind's inverse CDF (the lognormal's
// exp(mu + sigma z(u')), z the AS 241 normal quantile; u' = u or
// u / (1 - clipped), non-decreasing in u), to within a few units of the
// last place: |q~(u) - q(u)| <= e (|q(u)| + S) with e ~ 1e-14 at most and S
// the distribution's scale, while the exact q is non-decreasing in u. The
// table keeps, for each integer k, a range [A_k, B_k] of 53-bit draws such
// that the COMPUTED value at its ends is at least k - 1/2 + tol and below
// k + 1/2 - tol, tol = 1e-9 (|k| + 1/2 + S): five orders of magnitude above
// e. Then the exact q is above k - 1/2 at A_k and below k + 1/2 at B_k, so on
// every draw in between (q is monotone) and the computed value, within e of
// it, rounds to k. Only the ends are evaluated, each once, with the very
// Quantile the draws use; ranges that do not come out ordered
// (A_0 <= B_0 < A_1 <= ...) switch the table off (every draw computed).
// Tests: tests/sim/draws_test.cc holds Mt64 to std::mt19937_64 and the
// draws to Sample's on millions of draws and on every range's ends and
// neighbours.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "rlcost/distribution.h"

namespace rlcost::sim::internal {

class Mt64 {
 public:
  static constexpr int kN = 312, kM = 156;
  explicit Mt64(uint64_t seed = 5489u) { seed_state(seed); }
  // std::mersenne_twister_engine::seed: x_0 = seed, x_i = f (x_{i-1} ^ (x_{i-1} >> 62)) + i.
  void seed_state(uint64_t seed) {
    x_[0] = seed;
    for (int i = 1; i < kN; ++i) x_[i] = 6364136223846793005ULL * (x_[i - 1] ^ (x_[i - 1] >> 62)) + uint64_t(i);
    p_ = kN;
  }
  uint64_t operator()() {
    if (p_ >= kN) Refill();
    return out_[p_++];
  }
  // Draws taken so far (up to a constant; after seed_state it jumps): where
  // in the stream the next draw lies.
  int64_t position() const { return blocks_ * kN + p_; }
  // The raw word `ahead` places after the next draw's, when it is already in
  // the tempered block (a hint for prefetching: the stream does not move).
  bool Peek(int64_t ahead, uint64_t& v) const {
    const int64_t q = p_ + ahead;
    if (q >= kN) return false;
    v = out_[q];
    return true;
  }
  // One draw whose value is not needed (a fixed distribution's).
  void skip() {
    if (p_ >= kN) Refill();
    ++p_;
  }

 private:
  static constexpr uint64_t kUpper = ~uint64_t(0) << 31, kLower = ~kUpper, kA = 0xB5026F5AA96619E9ULL;
  static uint64_t Twist(uint64_t cur, uint64_t next, uint64_t far) {
    const uint64_t y = (cur & kUpper) | (next & kLower);
    return far ^ (y >> 1) ^ ((0 - (y & 1)) & kA);
  }
  // libstdc++'s _M_gen_rand, its three loops as they are (each reads only
  // words it has not yet written, or written by an earlier loop), then the
  // tempering of operator() over the whole block.
  void Refill() {
    uint64_t* x = x_;
    for (int k = 0; k < kN - kM; ++k) x[k] = Twist(x[k], x[k + 1], x[k + kM]);
    for (int k = kN - kM; k < kN - 1; ++k) x[k] = Twist(x[k], x[k + 1], x[k + kM - kN]);
    x[kN - 1] = Twist(x[kN - 1], x[0], x[kM - 1]);
    for (int k = 0; k < kN; ++k) {
      uint64_t z = x[k];
      z ^= (z >> 29) & 0x5555555555555555ULL;
      z ^= (z << 17) & 0x71D67FFFEDA60000ULL;
      z ^= (z << 37) & 0xFFF7EEE000000000ULL;
      z ^= z >> 43;
      out_[k] = z;
    }
    p_ = 0;
    ++blocks_;
  }
  alignas(64) uint64_t x_[kN];
  alignas(64) uint64_t out_[kN];
  int p_ = kN;
  int64_t blocks_ = 0;
};

// The 53 high bits of a word (a draw, or one Peek sees), as UniformDouble
// takes them; of the next draw; and that u.
inline uint64_t Top53(uint64_t word) { return word >> 11; }
inline uint64_t Draw53(Mt64& rng) { return Top53(rng()); }
inline double U53(uint64_t m) { return static_cast<double>(m) * 0x1.0p-53; }

class RoundedDraws {
 public:
  RoundedDraws() = default;
  // A table of at most `max_entries` ranges (worth it when the run draws
  // several times its size; 0: none, every draw computed).
  RoundedDraws(const Distribution& d, int64_t max_entries) : d_(&d), max_entries_(std::min(max_entries, kMaxEntries)) {
    fixed_ = d.is_fixed();
    if (fixed_) {
      fixed_value_ = std::llround(d.Quantile(0.5));
      return;
    }
    if (max_entries_ > 0) Build();
  }
  long long operator()(Mt64& rng) const {
    if (fixed_) {
      rng.skip();
      return fixed_value_;
    }
    if (!ranges_.empty()) Ahead(rng);
    const uint64_t m = Draw53(rng);
    if (!ranges_.empty()) {
      const uint32_t g = guide_[m >> shift_];
      if (g & kWhole) return kmin_ + int64_t(g & ~kWhole);
      // The last range starting at or before m: most buckets that are not
      // whole straddle one boundary, so one step without a branch, then a
      // loop that rarely runs (ranges_ ends with a sentinel past every draw).
      const Range* r = &ranges_[g];
      r += r[1].a <= m;
      while (r[1].a <= m) ++r;
      if (m >= r->a && m <= r->b) return kmin_ + (r - ranges_.data());
    }
    return Exact(m);
  }
  long long Exact(uint64_t m) const { return std::llround(d_->Quantile(U53(m))); }
  // Tests: the table's ranges (empty when it is off).
  size_t entries() const { return ranges_.empty() ? 0 : ranges_.size() - 1; }
  uint64_t range_begin(size_t i) const { return ranges_[i].a; }
  uint64_t range_end(size_t i) const { return ranges_[i].b; }
  long long first_value() const { return kmin_; }

 private:
  // A trajectory's draws come in a fixed pattern (prompt, turns, response,
  // ...), so this table's k-th next draw usually lies k times as far ahead in
  // the stream as its last one lay behind, and that word is often already
  // generated: its guide bucket and then its range are asked for ahead (issue 41: on default.yaml the guide
  // and range loads, ~260 KB of tables in L2, missed on most draws and were
  // ~15% of the run). A hint: no draw and no value changes.
  void Ahead(const Mt64& rng) const {
    const int64_t pos = rng.position();
    const int64_t stride = pos - last_pos_;
    last_pos_ = pos;
    uint64_t w;
    if (stride <= 0 || stride >= 64) return;
    if (rng.Peek(3 * kAheadDraws * stride, w)) __builtin_prefetch(guide_.data() + (Top53(w) >> shift_));
    // Half as far ahead, that guide entry asked for before is read (it is
    // there by now, or soon) and its range asked for (a whole bucket's entry
    // is its range's index too).
    if (rng.Peek(kAheadDraws * stride, w)) {
      __builtin_prefetch(ranges_.data() + (guide_[Top53(w) >> shift_] & ~kWhole));
    }
  }
  static constexpr int64_t kAheadDraws = 8;  // this table's draws ahead: a load from memory takes that long
  static constexpr uint64_t kTop = (uint64_t(1) << 53) - 1;
  static constexpr uint32_t kWhole = 0x80000000u;  // the whole guide bucket lies in one range
  static constexpr int64_t kMaxEntries = 1 << 16;
  double Value(uint64_t m) const { return d_->Quantile(U53(m)); }
  void Build();

  const Distribution* d_ = nullptr;
  int64_t max_entries_ = 0;
  bool fixed_ = false;
  long long fixed_value_ = 0;
  int64_t kmin_ = 0;
  struct Range {
    uint64_t a, b;  // the draws [a, b] give kmin_ + its index
  };
  std::vector<Range> ranges_;    // and a sentinel starting past every draw
  std::vector<uint32_t> guide_;  // by m >> shift_: the last range starting at or before the bucket
  int shift_ = 53;
  mutable int64_t last_pos_ = 0;  // the stream's position at this table's last draw (Ahead)
};

class RealDraws {
 public:
  RealDraws() = default;
  explicit RealDraws(const Distribution& d) : d_(&d) {
    fixed_ = d.is_fixed();
    if (fixed_) fixed_value_ = d.Quantile(0.5);
  }
  double operator()(Mt64& rng) const {
    if (fixed_) {
      rng.skip();
      return fixed_value_;
    }
    return d_->Quantile(U53(Draw53(rng)));
  }

 private:
  const Distribution* d_ = nullptr;
  bool fixed_ = false;
  double fixed_value_ = 0;
};

// The simulator's draws through scenario_internal::DrawBoundedTrajectory.
inline long long RoundedDraw(const RoundedDraws& d, Mt64& rng) { return d(rng); }
inline double RealDraw(const RealDraws& d, Mt64& rng) { return d(rng); }

}  // namespace rlcost::sim::internal
