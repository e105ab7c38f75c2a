// Tail handling on sampled lengths (rlcost/tail.h): each step draws its own
// response lengths and applies the mode's mechanism to them, response by
// response, to check the closed form (perf::TailRounds). docs/model.md,
// "Tail handling".
#include <algorithm>
#include <deque>
#include <random>

#include "rlcost/tail.h"

namespace rlcost::sim {
namespace {

// A prompt's launched responses (G' of them, in the order drawn) and when
// it is done: its G-th shortest (G' = G: its longest).
struct Group {
  std::vector<double> len;
  double max = 0;   // when the prompt is done
  double kept = 0;  // tokens of its G shortest (what is trained on)
};

Group Draw(const Distribution& d, int G, int Gp, std::mt19937_64& rng) {
  Group g;
  g.len.resize(Gp);
  for (auto& l : g.len) l = std::max(1.0, d.Sample(rng));
  std::vector<double> sorted = g.len;
  std::sort(sorted.begin(), sorted.end());
  g.max = sorted[G - 1];
  for (int i = 0; i < G; ++i) g.kept += sorted[i];
  return g;
}

}  // namespace

Result<SampledTailResult> SampledTail(const Distribution& resp, int n, int group, const TailSpec& spec, int steps,
                                      uint64_t seed) {
  if (!spec.Active()) return Fail(ErrorCode::kInvalidInput, "pipeline.tail.mode", "none: no tail handling to sample");
  const int G = std::max(1, group);
  if (n < G || steps < 1) return Fail(ErrorCode::kInvalidInput, "algorithm.prompts_per_step", "too few responses");
  std::mt19937_64 rng(seed);
  const double f = spec.over_launch;
  SampledTailResult r;
  double trained = 0, trained_len = 0, short_rounds = 0, launched = 0, fin_old = 0, fin_age = 0;
  const int prompts = n / G;

  if (spec.mode == TailMode::kPartialRollout) {
    struct Resp {
      double rem, done;
      int age;
    };
    std::vector<Resp> pool;
    const int in_flight = int(std::lround(n * (1 + f)));
    const int warmup = 50;
    for (int step = 0; step < warmup + steps; ++step) {
      const bool counted = step >= warmup;
      while (int(pool.size()) < in_flight) {
        pool.push_back({std::max(1.0, resp.Sample(rng)), 0.0, 0});
        if (counted) launched += 1;
      }
      std::vector<double> rems(pool.size());
      for (size_t i = 0; i < pool.size(); ++i) rems[i] = pool[i].rem;
      std::nth_element(rems.begin(), rems.begin() + (n - 1), rems.end());
      const double T = rems[n - 1];  // the step stops at its n-th finish
      std::vector<Resp> next;
      for (const auto& p : pool) {
        if (counted) r.decoded_tokens += std::min(p.rem, T);
        if (p.rem <= T) {
          if (counted) {
            trained += 1;
            trained_len += p.done + p.rem;
            fin_age += p.age;
            fin_old += p.age > 0 ? 1 : 0;
          }
        } else {
          next.push_back({p.rem - T, p.done + T, p.age + 1});
        }
      }
      pool = std::move(next);
      if (counted) {
        r.cut_tokens += T;
        r.step_max_tokens += T;
      }
    }
    r.cut_tokens /= steps;
    r.step_max_tokens /= steps;
    r.decoded_tokens /= steps;
    r.carried_share = fin_old / trained;
    r.mean_staleness = fin_age / trained;
    r.trained_mean_tokens = trained_len / trained;
    (void)launched;
    return r;
  }

  // over_provision / tail_batching: whole groups.
  const int launch_prompts = int(std::lround(prompts * (1 + f)));
  const int Gp = perf::TailResponsesPerPrompt(spec, G);
  std::deque<Group> queue;  // tail_batching's deferred prompts, their lengths as drawn
  double long_rounds = 0, deferred = 0, dropped = 0, launched_resp = 0;
  for (int step = 0; step < steps; ++step) {
    if (spec.mode == TailMode::kTailBatching && int(queue.size()) >= prompts) {
      // A long round: the deferred prompts at full length, nothing aborted.
      double mx = 0;
      for (int i = 0; i < prompts; ++i) {
        const Group& g = queue.front();
        // G responses, speculation off: the first G the prompt drew.
        for (int j = 0; j < G; ++j) {
          const double l = g.len[j];
          r.decoded_tokens += l;
          trained_len += l;
          trained += 1;
          mx = std::max(mx, l);
        }
        queue.pop_front();
      }
      deferred += prompts;
      long_rounds += 1;
      r.step_max_tokens += mx;
      continue;
    }
    std::vector<Group> gs(launch_prompts);
    for (auto& g : gs) g = Draw(resp, G, Gp, rng);
    std::sort(gs.begin(), gs.end(), [](const Group& a, const Group& b) { return a.max < b.max; });
    const double cut = gs[prompts - 1].max;  // the step stops when its prompts_per_step-th prompt finishes
    double step_tokens = 0, kept_tokens = 0;
    for (int i = 0; i < launch_prompts; ++i) {
      for (double l : gs[i].len) step_tokens += std::min(l, cut);
      if (i < prompts) {
        kept_tokens += gs[i].kept;
        trained += G;
      } else if (spec.mode == TailMode::kTailBatching) {
        queue.push_back(gs[i]);
      } else {
        dropped += G;
      }
    }
    launched_resp += double(launch_prompts) * Gp;
    trained_len += kept_tokens;
    r.decoded_tokens += step_tokens;
    r.wasted_tokens += step_tokens - kept_tokens;
    r.cut_tokens += cut;
    r.step_max_tokens += cut;
    short_rounds += 1;
  }
  r.cut_tokens /= std::max(1.0, short_rounds);
  r.step_max_tokens /= steps;
  r.decoded_tokens /= steps;
  r.wasted_tokens /= steps;
  r.dropped_share = launched_resp > 0 ? dropped / launched_resp : 0;
  r.long_round_share = long_rounds / steps;
  r.deferred_share = deferred / std::max(1.0, deferred + short_rounds * prompts);
  r.trained_mean_tokens = trained > 0 ? trained_len / trained : 0;
  return r;
}

}  // namespace rlcost::sim
