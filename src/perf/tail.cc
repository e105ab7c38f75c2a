// Tail handling of a synchronous step in closed form (rlcost/tail.h):
// the response lengths each mode decodes per step, from the distribution's
// quantiles. docs/model.md, "Tail handling".
#include "rlcost/tail.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/slices.h"

namespace rlcost::perf {
namespace {

// Quantile grid of the response-length distribution: kGrid equal-weight
// points u_k = (k + 1/2) / kGrid. Every expectation below is an average over it.
constexpr int kGrid = 8192;

struct Weighted {
  double x = 0;
  double w = 0;
};

std::vector<double> Grid(const Distribution& d) {
  std::vector<double> g(kGrid);
  for (int k = 0; k < kGrid; ++k) g[k] = d.Quantile((k + 0.5) / kGrid);
  return g;
}

// The q-quantile of weighted points sorted by x (weights sum to 1).
double WeightedQuantile(const std::vector<Weighted>& v, double q) {
  double cum = 0;
  for (const auto& p : v) {
    cum += p.w;
    if (cum >= q - 1e-12) return p.x;
  }
  return v.empty() ? 0.0 : v.back().x;
}

// m equal-weight points of the weighted lengths v (any order, weights > 0):
// each the mean of its 1/m of the mass, the last pinned at the expected
// longest of n draws (the n / (n + 1) quantile, as sim/analytic.cc's
// LengthSlices) and the others rescaled so that the points keep the mean.
std::vector<double> EqualWeightSlices(std::vector<Weighted> v, int m, double n) {
  std::sort(v.begin(), v.end(), [](const Weighted& a, const Weighted& b) { return a.x < b.x; });
  double total = 0, mean = 0;
  for (const auto& p : v) total += p.w;
  for (auto& p : v) {
    p.w /= total;
    mean += p.w * p.x;
  }
  m = std::max(1, m);
  if (m == 1 || v.front().x == v.back().x) return {v.back().x};
  std::vector<double> out(m, 0.0);
  const double bin = 1.0 / m;
  int j = 0;
  double filled = 0;
  for (const auto& p : v) {
    double left = p.w;
    while (left > 1e-15 && j < m) {
      const double take = std::min(left, bin - filled);
      out[j] += take * p.x;
      filled += take;
      left -= take;
      if (filled >= bin - 1e-15) {
        out[j] /= bin;
        ++j;
        filled = 0;
      }
    }
  }
  if (j < m) out[j] = filled > 0 ? out[j] / filled : v.back().x;
  const double top = WeightedQuantile(v, n / (n + 1.0));
  out[m - 1] = std::max(top, out[m - 2]);
  KeepMeanWithTopPinned(out, mean);
  return out;
}

std::vector<Weighted> Equal(const std::vector<double>& xs) {
  std::vector<Weighted> v(xs.size());
  for (size_t i = 0; i < xs.size(); ++i) v[i] = {xs[i], 1.0};
  return v;
}

// over_provision and tail_batching's short round: (1 + f) n responses decode
// min(L, L_c); the kept n (whole groups with every response <= L_c) have mean
// E[L | L <= L_c] (a group's responses are independent draws).
struct ShortRound {
  TailRound round;
  double cut = 0, e_min = 0, e_kept = 0, wasted = 0;
};
ShortRound Short(const std::vector<double>& g, double cut, double n, double f, int m) {
  ShortRound s;
  s.cut = cut;
  std::vector<double> clipped(g.size());
  double sum_min = 0, sum_kept = 0, kept = 0;
  for (size_t k = 0; k < g.size(); ++k) {
    clipped[k] = std::min(g[k], cut);
    sum_min += clipped[k];
    if (g[k] <= cut) {
      sum_kept += g[k];
      kept += 1;
    }
  }
  s.e_min = sum_min / g.size();
  s.e_kept = kept > 0 ? sum_kept / kept : cut;
  s.round.sequences = n * (1 + f);
  s.round.slices = EqualWeightSlices(Equal(clipped), std::min<int>(m, int(std::ceil(s.round.sequences))),
                                     s.round.sequences);
  s.wasted = std::max(0.0, s.round.sequences * s.e_min - n * s.e_kept);
  return s;
}

// partial_rollout's steady state, a fluid of responses: every step refills
// the pool to (1 + f) n responses with fresh ones (kBins equal-weight bins of
// the length distribution), stops at T, the remaining length at which n of
// them have finished, and carries the rest (remaining - T) one policy version
// older. Iterated until T settles.
struct Item {
  double rem = 0, done = 0, mass = 0;
  int age = 0;
};
constexpr int kBins = 64;

Result<TailStep> Partial(const std::vector<double>& g, double n, double f, int m, TailStep t) {
  std::vector<double> bins(kBins, 0.0);
  const int per = int(g.size()) / kBins;
  for (int b = 0; b < kBins; ++b) {
    for (int k = b * per; k < (b + 1) * per; ++k) bins[b] += g[k];
    bins[b] /= per;
  }
  const double launched = n * (1 + f);
  std::vector<Item> pool;
  double T = 0, carried_mass = 0;
  TailRound round;
  for (int it = 0; it < 4000; ++it) {
    const double fresh = std::max(0.0, launched - carried_mass);
    for (int b = 0; b < kBins; ++b) pool.push_back({bins[b], 0.0, fresh / kBins, 0});
    std::sort(pool.begin(), pool.end(), [](const Item& a, const Item& b) { return a.rem < b.rem; });
    double cum = 0, t_new = pool.back().rem;
    for (const auto& p : pool) {
      cum += p.mass;
      if (cum >= n - 1e-9 * n) {
        t_new = p.rem;
        break;
      }
    }
    // This step: what each decodes, who was carried in, who finishes.
    std::vector<Weighted> seg;
    seg.reserve(pool.size());
    double carried_in = 0, carried_ctx = 0, fin = 0, fin_old = 0, fin_age = 0, fin_len = 0;
    std::vector<Item> next;
    for (const auto& p : pool) {
      seg.push_back({std::min(p.rem, t_new), p.mass});
      if (p.age > 0) {
        carried_in += p.mass;
        carried_ctx += p.mass * p.done;
      }
      if (p.rem <= t_new) {
        fin += p.mass;
        fin_age += p.mass * p.age;
        fin_old += p.age > 0 ? p.mass : 0.0;
        fin_len += p.mass * (p.done + p.rem);
      } else {
        next.push_back({p.rem - t_new, p.done + t_new, p.mass, p.age + 1});
      }
    }
    carried_mass = 0;
    for (const auto& p : next) carried_mass += p.mass;
    pool = std::move(next);
    const bool settled = it >= 20 && std::abs(t_new - T) <= 1e-9 * std::max(1.0, t_new);
    T = t_new;
    round.sequences = launched;
    round.carried = carried_in;
    round.carried_context = carried_ctx;
    round.slices = EqualWeightSlices(seg, std::min<int>(m, int(std::ceil(launched))), launched);
    round.slices.back() = T;  // the step stops at the n-th finish
    t.carried_share = fin > 0 ? fin_old / fin : 0;
    t.mean_staleness = fin > 0 ? fin_age / fin : 0;
    t.trained_mean_tokens = fin > 0 ? fin_len / fin : 0;
    if (settled) break;
  }
  t.cut_tokens = T;
  t.launched = launched - carried_mass;  // new responses started per step
  t.rounds = {round};
  return t;
}

// P(Bin(m, p) >= k).
double BinomAtLeast(int m, double p, int k) {
  if (k <= 0) return 1.0;
  if (k > m) return 0.0;
  if (p <= 0) return 0.0;
  if (p >= 1) return 1.0;
  double sum = 0;
  for (int j = k; j <= m; ++j) {
    sum += std::exp(std::lgamma(m + 1.0) - std::lgamma(j + 1.0) - std::lgamma(m - j + 1.0) + j * std::log(p) +
                    (m - j) * std::log1p(-p));
  }
  return std::min(1.0, sum);
}

}  // namespace

int TailResponsesPerPrompt(const TailSpec& spec, int group) {
  const int G = std::max(1, group);
  if (spec.mode != TailMode::kTailBatching) return G;
  return std::max(G, int(std::lround(G * (1.0 + spec.over_launch))));
}

double TailCutQuantile(int group, int launched_per_prompt, double over_launch) {
  // A prompt finishes when `group` of its `launched_per_prompt` responses
  // have: P(Bin(G', F) >= G) = 1 / (1 + f), solved for F by bisection (the
  // left side grows with F). G' = G gives F^G = 1 / (1 + f).
  const int G = std::max(1, group), Gp = std::max(G, launched_per_prompt);
  const double target = 1.0 / (1.0 + over_launch);
  double lo = 0, hi = 1;
  for (int i = 0; i < 100; ++i) {
    const double mid = 0.5 * (lo + hi);
    (BinomAtLeast(Gp, mid, G) < target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double TailCut(const Distribution& resp, int group, double over_launch, int launched_per_prompt) {
  return resp.Quantile(TailCutQuantile(group, launched_per_prompt > 0 ? launched_per_prompt : group, over_launch));
}

Result<TailStep> TailRounds(const Distribution& resp, double n, int group, const TailSpec& spec, int slices) {
  if (!spec.Active()) return Fail(ErrorCode::kInvalidInput, "pipeline.tail.mode", "none: no tail handling to price");
  if (!(n >= 1)) return Fail(ErrorCode::kInvalidInput, "algorithm.prompts_per_step", "a step trains no responses");
  const double f = spec.over_launch;
  const int G = std::max(1, group);
  const std::vector<double> g = Grid(resp);
  TailStep t;
  t.none_mean_tokens = std::accumulate(g.begin(), g.end(), 0.0) / g.size();
  if (spec.mode == TailMode::kPartialRollout) return Partial(g, n, f, slices, t);

  const int Gp = TailResponsesPerPrompt(spec, G);
  const double p = TailCutQuantile(G, Gp, f);
  const double cut = resp.Quantile(p);
  // The short round decodes (1 + f) n G'/G responses (tail_batching launches
  // G' = round(G (1 + f)) per prompt and keeps the first G to finish).
  ShortRound s = Short(g, cut, n * double(Gp) / G, f, slices);
  if (Gp > G) {
    // A kept prompt trains its G shortest: of its K ~ Bin(G', p) responses
    // below L_c (K >= G), the first G order statistics of F below L_c, the
    // i-th of K at about Q(p i / (K + 1)).
    double kept = 0, mass = 0;
    for (int k = G; k <= Gp; ++k) {
      const double pk = BinomAtLeast(Gp, p, k) - BinomAtLeast(Gp, p, k + 1);
      double sum = 0;
      for (int i = 1; i <= G; ++i) sum += resp.Quantile(p * i / (k + 1.0));
      kept += pk * sum / G;
      mass += pk;
    }
    if (mass > 0) s.e_kept = kept / mass;
  }
  s.wasted = std::max(0.0, s.round.sequences * s.e_min - n * s.e_kept);
  t.cut_tokens = cut;
  if (spec.mode == TailMode::kOverProvision) {
    s.round.share = 1;
    t.rounds = {s.round};
    t.launched = s.round.sequences;
    t.wasted_tokens = s.wasted;
    t.dropped_share = f / (1 + f);
    t.trained_mean_tokens = s.e_kept;
    return t;
  }
  // tail_batching: each short round defers f n / G prompts; a long round
  // trains n / G of them, so f long rounds per short one. A deferred prompt
  // had fewer than G of its G' responses below L_c; one of its responses has
  // density f(x) P(Bin(G'-1, p) < G-1) / P(abort) below L_c and
  // f(x) P(Bin(G'-1, p) < G) / P(abort) above (p = F(L_c)): the long
  // round's lengths (G per prompt, speculation off). G' = G: (1 - p^(G-1))
  // below and 1 above.
  const double below = 1.0 - BinomAtLeast(Gp - 1, p, G - 1);
  const double above = 1.0 - BinomAtLeast(Gp - 1, p, G);
  std::vector<Weighted> lw(g.size());
  for (size_t k = 0; k < g.size(); ++k) {
    const double u = (k + 0.5) / g.size();
    lw[k] = {g[k], u <= p ? below : above};
  }
  bool any = false;
  for (const auto& w : lw) any = any || w.w > 0;
  TailRound lr;
  lr.share = f / (1 + f);
  lr.sequences = n;
  lr.slices = any ? EqualWeightSlices(lw, std::min<int>(slices, int(std::ceil(n))), n) : std::vector<double>{cut};
  s.round.share = 1 / (1 + f);
  t.rounds = {s.round, lr};
  t.launched = s.round.share * s.round.sequences + lr.share * n;
  t.wasted_tokens = s.round.share * s.wasted;
  t.deferred_share = f / (1 + f);
  t.long_round_share = f / (1 + f);
  // Trained: the short rounds' kept responses and the long rounds' (equal
  // numbers per round). G' = G: E[L] exactly (every prompt trained once).
  double lsum = 0, lwsum = 0;
  for (const auto& w : lw) {
    lsum += w.w * w.x;
    lwsum += w.w;
  }
  const double e_long = lwsum > 0 ? lsum / lwsum : cut;
  t.trained_mean_tokens = (s.e_kept + f * e_long) / (1 + f);
  return t;
}

}  // namespace rlcost::perf
