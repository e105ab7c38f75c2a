#include "decide/sensitivity.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "econ/resplit.h"
#include "rlcost/perf.h"

namespace rlcost::sensitivity {
namespace {

// One input a scenario can move.
struct Input {
  std::string id, label, unit;
  std::optional<double> base;  // nullopt: not movable here (skip says why)
  std::string skip;
  // Valid domain [lo, hi]; an open end is reached at lo_use / hi_use when a
  // default range is clipped to it.
  double lo = 0, hi = std::numeric_limits<double>::infinity();
  bool lo_open = true, hi_open = true;
  double lo_use = 0, hi_use = std::numeric_limits<double>::infinity();
  std::string domain;  // "a fraction in (0, 1]": for messages
  std::string lo_why, hi_why;  // why the domain ends there (for clipping notes)
  bool integer = false;
  // The scenario with this input at v.
  std::function<Result<Scenario>(double v, const Scenario& base, const Loader& load)> at;
};

std::string Num(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return fmt::format("{:.0f}", v);
  return fmt::format("{:.4g}", v);
}

// Through one --set override.
auto ViaSet(std::string path, bool integer = false) {
  return [path, integer](double v, const Scenario&, const Loader& load) -> Result<Scenario> {
    return load({Override{path, integer ? fmt::format("{:.0f}", v) : fmt::format("{:.17g}", v)}});
  };
}

// A distribution's mean, moved through its --set path: `path=v` for a fixed
// value, `path.mean=v` for a parametric one (its shape and clip kept).
// Samples or a CSV have no single mean to move.
Input DistMean(const std::string& path, const std::string& label, const std::string& unit, const Distribution& d,
               double lo, bool lo_closed) {
  Input in;
  in.id = path + ".mean";
  in.label = label;
  in.unit = unit;
  if (d.kind() == DistKind::kEmpirical) {
    in.skip = "given as samples or a file: there is no single mean to move";
    return in;
  }
  in.base = d.mean();
  in.lo = lo;
  in.lo_open = !lo_closed;
  in.lo_use = lo;
  in.domain = lo_closed ? fmt::format(">= {}", Num(lo)) : fmt::format("> {}", Num(lo));
  in.lo_why = lo_closed ? fmt::format("it cannot go below {}", Num(lo)) : "it must stay above 0";
  if (!d.is_fixed() && std::isfinite(d.max())) {
    // The clip (a generation limit) stays: the mean can approach it, not pass it.
    in.hi = d.max();
    in.hi_use = std::max(0.9 * d.max(), (d.mean() + d.max()) / 2);
    in.domain += fmt::format(" and < its max {}", Num(d.max()));
    in.hi_why = fmt::format("the distribution's max ({}) caps the mean", Num(d.max()));
  }
  const std::string set = d.is_fixed() ? path : path + ".mean";
  in.at = ViaSet(set);
  return in;
}

Input EfficiencyInput(const char* field, double rlcost::Efficiency::*member, bool fraction, const std::string& label,
                 const Scenario& s) {
  Input in;
  in.id = std::string("efficiency.") + field;
  in.label = label;
  in.unit = fraction ? "" : "s";
  in.base = perf::RolloutEfficiency(s).*member;  // as the engine runs it
  if (fraction) {
    in.lo = 0;
    in.hi = 1;
    in.hi_open = false;
    in.hi_use = 1;
    in.domain = "a fraction in (0, 1]";
    in.hi_why = "an achieved fraction of the peak cannot exceed 1";
  } else {
    in.lo_open = false;
    in.domain = "seconds >= 0";
  }
  in.lo_why = "it must stay above 0";
  in.at = [member, field](double v, const Scenario& base, const Loader&) -> Result<Scenario> {
    Scenario s = base;
    s.hardware.gpu.efficiency.*member = v;
    // The value set here wins over the engine's default (perf::RolloutEfficiency).
    s.hardware.gpu.sources["efficiency." + std::string(field)] = "set by the sensitivity sweep";
    return s;
  };
  return in;
}

std::vector<Input> Inputs(const Scenario& s) {
  std::vector<Input> out;
  // With trajectory bounds (environment.max_trajectory_tokens, tool_timeout_s)
  // the scenario holds the bounded run's distributions; the inputs are the
  // task's own, as written, moved through --set and bounded again on re-read.
  const EnvironmentSpec& bounded = s.environment;
  EnvironmentSpec env = bounded;
  if (bounded.unbounded) {
    env.turns = bounded.unbounded->turns;
    env.response_tokens = bounded.unbounded->response_tokens;
    env.tool_output_tokens = bounded.unbounded->tool_output_tokens;
    env.tool_latency_s = bounded.unbounded->tool_latency_s;
  }
  const bool multi_turn = env.turns.mean() > 1;

  Input resp = DistMean("environment.response_tokens", multi_turn ? "mean response length per turn" : "mean response length",
                        "tokens", env.response_tokens, 1, true);
  if (env.response_tokens_schedule) {
    resp.base.reset();
    resp.skip = "set per step by environment.response_tokens_schedule; move the schedule itself";
  }
  out.push_back(resp);

  {
    Input cv;
    cv.id = "environment.response_tokens.cv";
    cv.label = "response length spread (cv)";
    if (env.response_tokens_schedule) {
      cv.skip = "set by environment.response_tokens_schedule";
    } else if (env.response_tokens.is_fixed() || env.response_tokens.kind() == DistKind::kEmpirical ||
               !(env.response_tokens.cv() > 0)) {
      cv.skip = "the lengths have no cv to move (a fixed value, samples or cv 0)";
    } else {
      cv.base = env.response_tokens.cv();
      cv.lo_open = false;
      cv.domain = ">= 0";
      cv.at = ViaSet("environment.response_tokens.cv");
    }
    out.push_back(cv);
  }

  out.push_back(DistMean("environment.prompt_tokens", "mean prompt length", "tokens", env.prompt_tokens, 1, true));

  if (multi_turn) {
    out.push_back(DistMean("environment.turns", "mean turns per trajectory", "", env.turns, 1, true));
  }
  if (env.tool_latency_s.mean() > 0) {
    out.push_back(DistMean("environment.tool_latency_s", "tool latency per turn", "s", env.tool_latency_s, 0, false));
  }
  if (env.tool_output_tokens.mean() > 0) {
    out.push_back(
        DistMean("environment.tool_output_tokens", "tool output per turn", "tokens", env.tool_output_tokens, 0, false));
  }
  if (env.reward.verify_s.mean() > 0) {
    out.push_back(DistMean("environment.reward.verify_s", "reward computation time", "s", env.reward.verify_s, 0, false));
  }
  if (env.sandbox && env.sandbox->startup_s > 0) {
    Input in;
    in.id = "environment.sandbox.startup_s";
    in.label = "sandbox start-up time";
    in.unit = "s";
    in.base = env.sandbox->startup_s;
    in.lo_open = false;
    in.domain = "seconds >= 0";
    in.at = ViaSet(in.id);
    out.push_back(in);
  }

  {
    Input in;
    in.id = "environment.pass_rate.mean";
    in.label = "base model's mean pass rate";
    const PassRateSpec& pr = env.pass_rate;
    if (pr.kind != PassRateSpec::Kind::kBeta) {
      in.skip = "given per task (a histogram or a pilot file): there is no single mean to move";
    } else {
      in.base = pr.mean();
      in.lo = 0;
      in.hi = 1;
      in.lo_use = 0.01;
      in.hi_use = 0.99;
      in.domain = "a fraction in (0, 1)";
      in.lo_why = "a Beta pass rate's mean lies strictly between 0 and 1; moved to 0.01";
      in.hi_why = "a Beta pass rate's mean lies strictly between 0 and 1; moved to 0.99";
      const double conc = pr.a + pr.b;
      in.at = [conc](double v, const Scenario&, const Loader& load) -> Result<Scenario> {
        return load({Override{"environment.pass_rate", fmt::format("{{mean: {:.17g}, concentration: {:.17g}}}", v, conc)}});
      };
    }
    out.push_back(in);
  }

  {
    Input in;
    in.id = "hardware.price_per_gpu_hour";
    in.label = "GPU price per hour";
    in.unit = "USD";
    in.base = s.hardware.price_per_gpu_hour;
    in.domain = "> 0";
    in.lo_why = "a price must stay above 0";
    in.at = ViaSet(in.id);
    if (!(s.hardware.price_per_gpu_hour > 0)) {
      in.base.reset();
      in.skip = "the price is 0";
    }
    out.push_back(in);
  }

  {
    Input in;
    in.id = "algorithm.group_size";
    in.label = "rollouts per prompt (group size)";
    in.integer = true;
    in.base = s.algorithm.group_size;
    const bool grouped = s.algorithm.name != Algorithm::kPpo;
    in.lo = grouped ? 2 : 1;
    in.lo_open = false;
    in.lo_use = in.lo;
    in.domain = grouped ? "a whole number >= 2" : "a whole number >= 1";
    in.lo_why = grouped ? "a group-relative advantage needs at least 2 rollouts per prompt" : "at least 1 rollout";
    in.at = ViaSet(in.id, true);
    out.push_back(in);
  }
  {
    Input in;
    in.id = "algorithm.prompts_per_step";
    in.label = "prompts per step";
    in.integer = true;
    in.base = s.algorithm.prompts_per_step;
    in.lo = 1;
    in.lo_open = false;
    in.lo_use = 1;
    in.domain = "a whole number >= 1";
    in.lo_why = "at least 1 prompt per step";
    in.at = ViaSet(in.id, true);
    out.push_back(in);
  }

  if (s.engine.speculative) {
    // docs/model.md, "Speculative decoding in rollout": the draft's acceptance
    // is what the gain hangs on, and RL moves the policy under the draft.
    Input in;
    in.id = "engine.speculative.acceptance";
    in.label = "speculative decoding: acceptance of a drafted token";
    in.base = s.engine.speculative->acceptance;
    in.lo = 0;
    in.hi = 1;
    in.hi_open = false;
    in.lo_use = 0.01;
    in.hi_use = 1;
    in.domain = "a probability in (0, 1]";
    in.lo_why = "a draft accepts more than no token";
    in.hi_why = "a probability is at most 1";
    in.at = ViaSet(in.id);
    out.push_back(in);
  }

  if (s.hardware.spot.Rollout() && s.placement.mode != PlacementMode::kColocated) {
    // docs/model.md, "Spot GPUs": the reclaim rate is the user's guess of a
    // market that moves; how much the answer hangs on it.
    Input in;
    in.id = "hardware.spot.rollout.preemptions_per_hour";
    in.label = "spot rollout GPUs: preemptions per node-hour";
    in.base = s.hardware.spot.rollout->preemptions_per_hour;
    in.lo = 0;
    in.lo_open = false;
    in.lo_use = 0;
    in.domain = ">= 0";
    in.lo_why = "a rate is not negative";
    in.at = ViaSet(in.id);
    if (in.base > 0) out.push_back(in);
  }

  if (s.pipeline.tail.Active()) {
    // docs/model.md, "Tail handling": how much extra the step launches is the
    // user's setting; the answer's dependence on it.
    Input in;
    in.id = "pipeline.tail.over_launch";
    in.label = "tail handling: extra share of the batch launched";
    in.base = s.pipeline.tail.over_launch;
    in.lo = 0;
    in.hi = 4;
    in.hi_open = false;
    in.hi_use = 4;
    in.domain = "in (0, 4]";
    in.lo_why = "launching no extra is no tail handling";
    in.hi_why = "rlcost accepts at most 5x the batch in flight";
    const std::string mode(ToString(s.pipeline.tail.mode));
    in.at = [mode](double v, const Scenario&, const Loader& load) -> Result<Scenario> {
      return load({Override{"pipeline.tail", fmt::format("{{mode: {}, over_launch: {:.17g}}}", mode, v)}});
    };
    out.push_back(in);
  }

  if (s.placement.resplit && s.placement.mode == PlacementMode::kDisaggregated) {
    // docs/model.md, "Elastic pools": the stop a change of split costs decides
    // whether a phase re-splits at all; its default is an assumption.
    Input in;
    in.id = "placement.resplit.restart_s";
    in.label = "elastic pools: seconds the run stops per change of split";
    in.unit = "s";
    in.base = econ_internal::ResplitRestartS(s);
    in.lo = 0;
    in.lo_open = false;
    in.lo_use = 0;
    in.hi = 86400;
    in.hi_open = false;
    in.hi_use = 86400;
    in.domain = "in [0, 86400]";
    in.lo_why = "a stop is not negative";
    in.hi_why = "rlcost accepts at most a day per change";
    in.at = ViaSet(in.id);
    out.push_back(in);
  }

  if (s.goal.target_pass_rate) {
    Input in;
    in.id = "goal.curve.midpoint_useful_samples";
    in.label = "learning-curve midpoint (useful samples)";
    const LearningCurveSpec curve = s.goal.curve.value_or(LearningCurveSpec{});
    in.base = curve.midpoint_useful_samples;
    in.domain = "> 0";
    in.lo_why = "it must stay above 0";
    in.at = ViaSet(in.id);
    out.push_back(in);
  }

  using E = rlcost::Efficiency;
  out.push_back(EfficiencyInput("decode_bw", &E::decode_bw, true, "decode: achieved / peak memory bandwidth", s));
  out.push_back(EfficiencyInput("decode_compute", &E::decode_compute, true, "decode: achieved / peak FLOP/s when compute-bound", s));
  out.push_back(EfficiencyInput("prefill_mfu", &E::prefill_mfu, true, "prefill MFU", s));
  if (s.model.is_moe()) {
    out.push_back(EfficiencyInput("train_mfu_moe", &E::train_mfu_moe, true, "training MFU (MoE)", s));
  } else {
    out.push_back(EfficiencyInput("train_mfu", &E::train_mfu, true, "training MFU", s));
  }
  out.push_back(EfficiencyInput("logprob_mfu", &E::logprob_mfu, true, "log-prob pass MFU", s));
  out.push_back(EfficiencyInput("weight_sync_eff", &E::weight_sync_eff, true, "weight sync: achieved / peak link bandwidth", s));
  std::vector<std::tuple<const char*, double E::*, const char*>> fixed_costs = {
      {"decode_iter_overhead_s", &E::decode_iter_overhead_s, "fixed cost per decode iteration"},
      {"step_overhead_s", &E::step_overhead_s, "fixed cost per training step"}};
  if (s.model.is_moe()) {
    fixed_costs.emplace_back("moe_layer_decode_s", &E::moe_layer_decode_s, "fixed cost per MoE-model layer per decode iteration");
    fixed_costs.emplace_back("moe_layer_train_s", &E::moe_layer_train_s, "floor per MoE layer per training micro-batch");
  }
  for (auto [field, member, label] : fixed_costs) {
    Input in = EfficiencyInput(field, member, false, label, s);
    if (!(*in.base > 0)) {
      in.base.reset();
      in.skip = "0 for this engine and GPU: nothing to scale";
    }
    out.push_back(in);
  }
  return out;
}

Result<double> MetricOf(const Scenario& literal, const Options& opt, const MetricDef& m) {
  std::optional<Scenario> planned;
  if (opt.replan && plan::AnythingToPlan(literal)) {
    auto p = plan::PlanLayout(literal, {*opt.replan});
    if (!p) return Fail(p.error());
    planned = std::move(p->scenario);
  }
  const Scenario& s = planned ? *planned : literal;
  Result<Estimate> e = opt.simulated ? EstimateSimulated(s, opt.sim) : EstimateAnalytic(s);
  if (!e) return Fail(e.error());
  auto v = m.get(*e);
  if (!v || !std::isfinite(*v)) {
    return Fail(ErrorCode::kInvalidInput, std::string(m.key), "does not apply here (" + std::string(m.description) + ")");
  }
  return *v;
}

std::string Join(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

std::string FirstProblem(const Error& e) {
  return e.problems.empty() ? e.ToString() : e.problems.front().ToString();
}

}  // namespace

double Row::Swing() const {
  if (!metric_low || !metric_high) return -1;
  return std::fabs(*metric_high - *metric_low);
}

std::string DefaultMetric(const Scenario& s) { return s.goal.target_pass_rate ? "goal.usd" : "run.usd"; }

std::vector<std::string> InputIds(const Scenario& s) {
  std::vector<std::string> ids;
  for (const auto& in : Inputs(s)) {
    if (in.base) ids.push_back(in.id);
  }
  return ids;
}

Result<Tornado> Build(const Scenario& base, const Loader& load, const Options& opt) {
  Tornado t;
  t.metric = opt.metric.empty() ? DefaultMetric(base) : opt.metric;
  t.path = opt.simulated ? "simulated" : "analytic";
  t.span = opt.span;
  if (!(opt.span > 0 && opt.span < 1)) {
    return Fail(ErrorCode::kInvalidInput, "span", fmt::format("{}; expected a fraction in (0, 1), e.g. 0.5 for ±50%", opt.span));
  }
  const MetricDef* m = FindMetric(t.metric);
  if (!m) {
    std::string keys;
    for (const auto& d : Metrics()) keys += (keys.empty() ? "" : ", ") + std::string(d.key);
    return Fail(ErrorCode::kInvalidInput, "metric", "unknown metric '" + t.metric + "'; expected one of: " + keys);
  }
  t.metric_unit = m->unit;
  t.metric_description = m->description;
  auto b = MetricOf(base, opt, *m);
  if (!b) {
    Error e = b.error();
    if (t.metric == "goal.usd" && !base.goal.target_pass_rate) {
      return Fail(ErrorCode::kInvalidInput, "metric",
                  "goal.usd needs a goal: set goal.target_pass_rate (e.g. `set` goal.target_pass_rate=0.6) or pick "
                  "another metric, e.g. run.usd");
    }
    for (auto& p : e.problems) p.path = "metric " + t.metric + (p.path.empty() ? "" : " (" + p.path + ")");
    return Fail(std::move(e));
  }
  t.base = *b;

  std::vector<Input> inputs = Inputs(base);
  // The user's ranges: every id known and movable, every value in its domain.
  Error bad;
  for (const auto& range : opt.ranges) {
    const auto& [id, r] = range;
    // (range.first, not id: clang before 16 cannot capture a structured binding)
    auto it = std::find_if(inputs.begin(), inputs.end(), [&](const Input& in) { return in.id == range.first; });
    if (it == inputs.end()) {
      bad.problems.push_back({"ranges", "unknown input '" + id + "'; this scenario's inputs: " + Join(InputIds(base))});
      continue;
    }
    if (!it->base) {
      bad.problems.push_back({"ranges", id + " cannot be moved in this scenario: " + it->skip});
      continue;
    }
    for (double v : {r.first, r.second}) {
      const bool below = it->lo_open ? !(v > it->lo) : !(v >= it->lo);
      const bool above = it->hi_open ? !(v < it->hi) : !(v <= it->hi);
      if (below || above || !std::isfinite(v)) {
        bad.problems.push_back({"ranges", fmt::format("{}={}:{}: {} is outside the valid values of {}; expected {}", id,
                                                       Num(r.first), Num(r.second), Num(v), it->label, it->domain)});
      } else if (it->integer && v != std::floor(v)) {
        bad.problems.push_back({"ranges", fmt::format("{}: {} is not a whole number; expected {}", id, Num(v), it->domain)});
      }
    }
    if (!(r.first < r.second)) {
      bad.problems.push_back({"ranges", fmt::format("{}={}:{}: expected LOW < HIGH", id, Num(r.first), Num(r.second))});
    }
  }
  if (!bad.problems.empty()) return Fail(std::move(bad));

  for (const auto& in : inputs) {
    if (!in.base) {
      t.skipped.push_back({in.id, in.label, in.skip});
      continue;
    }
    Row row;
    row.input = in.id;
    row.label = in.label;
    row.unit = in.unit;
    row.base_value = *in.base;
    if (auto r = opt.ranges.find(in.id); r != opt.ranges.end()) {
      row.low_value = r->second.first;
      row.high_value = r->second.second;
      row.range = "your range";
    } else {
      double lo = *in.base * (1 - opt.span), hi = *in.base * (1 + opt.span);
      if (in.integer) {
        lo = std::round(lo);
        hi = std::round(hi);
      }
      std::vector<std::string> notes;
      const bool lo_out = in.lo_open ? !(lo > in.lo) : !(lo >= in.lo);
      if (lo_out || lo < in.lo_use) {
        lo = std::max(in.lo_use, in.lo);
        notes.push_back("low end clipped to " + Num(lo) + ": " + in.lo_why);
      }
      const bool hi_out = in.hi_open ? !(hi < in.hi) : !(hi <= in.hi);
      if (hi_out || hi > in.hi_use) {
        hi = std::min(in.hi_use, in.hi);
        notes.push_back("high end clipped to " + Num(hi) + ": " + in.hi_why);
      }
      row.low_value = lo;
      row.high_value = hi;
      row.range = fmt::format("±{:.0f}%", opt.span * 100);
      for (const auto& n : notes) row.clipped += (row.clipped.empty() ? "" : "; ") + n;
    }
    for (int end = 0; end < 2; ++end) {
      const double v = end == 0 ? row.low_value : row.high_value;
      auto& metric = end == 0 ? row.metric_low : row.metric_high;
      auto& error = end == 0 ? row.error_low : row.error_high;
      auto s = in.at(v, base, load);
      if (!s) {
        error = FirstProblem(s.error());
        continue;
      }
      auto mv = MetricOf(*s, opt, *m);
      if (mv) {
        metric = *mv;
      } else {
        error = FirstProblem(mv.error());
      }
    }
    // Both ends at the scenario's figure: say why, not just "$0".
    if (row.metric_low && row.metric_high && *row.metric_low == t.base && *row.metric_high == t.base) {
      row.flat = fmt::format(
          "moves nothing here: {} is the same at {} and at {}, so no time or price of this scenario depends on it "
          "({})",
          t.metric, Num(row.low_value), Num(row.high_value),
          in.id.rfind("efficiency.", 0) == 0
              ? "each phase takes the longer of its compute and memory times, and this rate sets neither the longer "
                "one nor any phase on the step's critical path"
          : in.id.rfind("environment.pass_rate", 0) == 0
              ? "the pass rate sets which rollouts carry a gradient, not what a step costs: this figure counts "
                "steps, not useful samples; set goal.target_pass_rate to price the steps to a goal"
              : "the scenario's other settings leave it out of the model's path to this figure");
    }
    t.rows.push_back(std::move(row));
  }
  std::stable_sort(t.rows.begin(), t.rows.end(), [](const Row& a, const Row& b) { return a.Swing() > b.Swing(); });
  t.range_note = fmt::format(
      "Each input is moved on its own from {:.0f}% to {:.0f}% of the scenario's value (±{:.0f}%), every other input held "
      "at the scenario's; ASSUMED: a generic band to compare inputs by, not a measured uncertainty of each. Ends that "
      "would leave an input's valid values are clipped, with the reason; state your own range with `range` "
      "INPUT=LOW:HIGH.",
      (1 - opt.span) * 100, (1 + opt.span) * 100, opt.span * 100);
  return t;
}

}  // namespace rlcost::sensitivity
