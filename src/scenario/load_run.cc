// The response-length schedule and the run, algorithm, precision, pipeline, goal and expect sections.
// Part of the scenario loader (scenario/loader.h).
#include "rlcost/scenario.h"

#include <unistd.h>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <fstream>
#include <numeric>
#include <sstream>
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>
#include "catalog/parse.h"
#include "core/file.h"
#include "core/problems.h"
#include "core/utf8.h"
#include "core/yaml.h"
#include "ingest/foreign_keys.h"
#include "ingest/hf_config.h"
#include "rlcost/embedded.h"
#include "scenario/csv.h"
#include "scenario/document.h"
#include "scenario/curve_presets.h"
#include "scenario/fields.h"
#include "scenario/lever_spec.h"
#include "scenario/framework.h"
#include "scenario/overrides.h"
#include "scenario/reader.h"
#include "scenario/loader.h"

namespace rlcost::scenario_internal {

// environment.response_tokens_schedule: {start_mean, end_mean} (linear from
// step 1 to the last step) or {file: lengths.csv} with columns step,mean, one
// row per step. The shape (dist, cv, min, max) is response_tokens's.
void Loader::ReadResponseSchedule(const YAML::Node& root, Scenario& s) {
  const std::string path = "environment.response_tokens_schedule";
  YAML::Node env = Reader::Child(root, "environment");
  YAML::Node n = env.IsDefined() && env.IsMap() ? Reader::Child(env, "response_tokens_schedule") : YAML::Node();
  if (!n.IsDefined()) return;
  if (!r_.CheckKeys(n, path, {"start_mean", "end_mean", "file"})) return;
  LengthSchedule sched;
  // The shape of environment.response_tokens (already validated by ReadDist).
  YAML::Node rt = Reader::Child(env, "response_tokens");
  if (rt.IsDefined() && rt.IsMap()) {
    if (Reader::Child(rt, "samples").IsDefined() || Reader::Child(rt, "file").IsDefined()) {
      r_.Add(n, path,
             "not supported with an empirical environment.response_tokens (samples/file); expected "
             "response_tokens as {mean, cv, max, dist}, whose shape the schedule keeps");
      return;
    }
    try {
      sched.kind = DistKind::kLognormal;
      if (YAML::Node d = Reader::Child(rt, "dist"); d.IsDefined()) {
        if (auto k = DistKindFromString(d.Scalar())) sched.kind = *k;
      }
      if (YAML::Node c = Reader::Child(rt, "cv"); c.IsDefined()) sched.cv = c.as<double>();
      if (YAML::Node c = Reader::Child(rt, "min"); c.IsDefined()) sched.min = c.as<double>();
      if (YAML::Node c = Reader::Child(rt, "max"); c.IsDefined()) sched.max = c.as<double>();
      if (YAML::Node c = Reader::Child(rt, "clipped"); c.IsDefined()) sched.clipped = c.as<double>();
    } catch (const YAML::Exception&) {
      return;  // response_tokens itself is malformed; ReadDist has reported it
    }
  }
  const int steps = s.algorithm.steps;
  auto check_mean = [&](const YAML::Node& at, const std::string& where, double v, int line,
                        const std::string& file) {
    std::string msg;
    if (!(v > 0)) {
      msg = fmt::format("{} is out of range; expected a mean response length > 0 tokens", Num(v));
    } else if (sched.max && v > *sched.max) {
      msg = fmt::format("{} is above environment.response_tokens.max {}; expected a mean <= max (max is the "
                        "generation limit)", Num(v), Num(*sched.max));
    } else if (sched.min && v < *sched.min) {
      msg = fmt::format("{} is below environment.response_tokens.min {}", Num(v), Num(*sched.min));
    } else if (sched.max && sched.clipped > 0 && sched.clipped < 1) {
      // Each step's mean must leave room for the share at max (`clipped`).
      if (auto d = sched.At(v); !d) msg = d.error();
    }
    if (msg.empty()) return true;
    if (line > 0) r_.AddAtLine(line, where, msg, file); else r_.Add(at, where, msg);
    return false;
  };
  YAML::Node file_n = Reader::Child(n, "file");
  if (file_n.IsDefined()) {
    for (const char* k : {"start_mean", "end_mean"}) {
      if (Reader::Child(n, k).IsDefined())
        r_.Add(Reader::Child(n, k), Join(path, k), "not used with 'file' (the file gives every step's mean)");
    }
    const std::string fp = Join(path, "file");
    std::string resolved, rel;
    auto t = ReadCsvField(file_n, fp, &resolved, &rel);
    if (!t) return;
    int step_col = t->Column("step"), mean_col = t->Column("mean");
    if (t->header.empty() || step_col < 0 || mean_col < 0) {
      r_.Add(file_n, fp, "'" + rel + "' needs a header with 'step' and 'mean' columns (one row per step)");
      return;
    }
    bool ok = true;
    double prev_step = 0;
    for (size_t i = 0; i < t->rows.size(); ++i) {
      const auto& row = t->rows[i];
      auto cell = [&](int c) { return c < static_cast<int>(row.size()) ? row[c] : std::string(); };
      double st = 0, mean = 0;
      if (!ParseNumber(cell(step_col), st) || st < 0 || st != std::floor(st)) {
        r_.AddAtLine(t->lines[i], fp, "step '" + cell(step_col) + "' is not a whole number >= 0", resolved);
        ok = false;
        break;
      }
      if (i == 0 && st > 1) {
        r_.AddAtLine(t->lines[i], fp,
                     fmt::format("the first step is {}; expected the schedule to start at step 0 or 1", Num(st)),
                     resolved);
        ok = false;
        break;
      }
      if (i > 0 && st != prev_step + 1) {
        r_.AddAtLine(t->lines[i], fp,
                     st > prev_step + 1
                         ? fmt::format("gap: step {} follows step {}; expected step {} (one row per step)",
                                       Num(st), Num(prev_step), Num(prev_step + 1))
                         : fmt::format("step {} follows step {}; expected step {} (steps in order, each once)",
                                       Num(st), Num(prev_step), Num(prev_step + 1)),
                     resolved);
        ok = false;
        break;
      }
      prev_step = st;
      if (!ParseNumber(cell(mean_col), mean)) {
        r_.AddAtLine(t->lines[i], fp, "mean '" + cell(mean_col) + "' is not a number", resolved);
        ok = false;
        continue;
      }
      if (!check_mean(file_n, fp, mean, t->lines[i], resolved)) {
        ok = false;
        continue;
      }
      if (static_cast<int>(sched.mean_per_step.size()) < steps) sched.mean_per_step.push_back(mean);
    }
    if (!ok) return;
    if (static_cast<int>(t->rows.size()) < steps) {
      r_.Add(file_n, fp,
             fmt::format("'{}' gives {} steps; expected a row for each of the run's {} steps (algorithm.steps)",
                         rel, t->rows.size(), steps));
      return;
    }
    sched.source = rel;
  } else {
    double start = 0, end = 0;
    bool ok = true;
    for (const char* k : {"start_mean", "end_mean"}) {
      if (!Reader::Child(n, k).IsDefined()) {
        r_.Add(n, Join(path, k), "missing; expected {start_mean, end_mean} (tokens) or {file: lengths.csv}");
        ok = false;
      }
    }
    if (!ok) return;
    ok = r_.Double(n, "start_mean", path, start) && ok;
    ok = r_.Double(n, "end_mean", path, end) && ok;
    if (!ok) return;
    ok = check_mean(Reader::Child(n, "start_mean"), Join(path, "start_mean"), start, 0, "");
    ok = check_mean(Reader::Child(n, "end_mean"), Join(path, "end_mean"), end, 0, "") && ok;
    if (!ok) return;
    sched.mean_per_step.resize(steps);
    for (int i = 0; i < steps; ++i) {
      sched.mean_per_step[i] = steps > 1 ? start + (end - start) * i / (steps - 1.0) : 0.5 * (start + end);
    }
    sched.source = fmt::format("linear {} -> {} tokens", Num(start), Num(end));
  }
  if (sched.mean_per_step.empty()) return;
  auto d = sched.At(sched.RunMean());
  if (!d) {
    r_.Add(n, path, d.error());
    return;
  }
  s.environment.response_tokens = *d;
  s.environment.response_tokens_schedule = std::move(sched);
}

// `run`: how tuned its trainer is, start-up, checkpoints, evaluation, failures (docs/model.md, "Run-level costs").
void Loader::ReadRun(const YAML::Node& root, Scenario& s) {
  const std::string path = "run";
  YAML::Node n = Reader::Child(root, "run");
  if (!r_.CheckKeys(n, path, {"tuning", "startup", "checkpoint", "evaluation", "failures"})) return;
  RunSpec& run = s.run;
  r_.Enum(n, "tuning", path, run.tuning, &RunTuningFromString, AcceptedNames<RunTuning>());
  // A block may be `false` (off) or `true` (on with the defaults) where that makes sense.
  auto flag = [&](const YAML::Node& b, const std::string& bp) -> std::optional<bool> {
    if (!b.IsScalar()) return std::nullopt;
    bool v = false;
    if (YAML::convert<bool>::decode(b, v)) return v;
    r_.Add(b, bp, "expected true, false or a mapping, got " + Describe(b));
    return false;
  };
  if (YAML::Node b = Reader::Child(n, "startup"); b.IsDefined()) {
    const std::string bp = "run.startup";
    if (auto f = flag(b, bp)) {
      run.startup.enabled = *f;
    } else if (r_.CheckKeys(b, bp, {"storage_read_gb_per_s", "warmup_s"})) {
      r_.Double(b, "storage_read_gb_per_s", bp, run.startup.storage_read_gb_per_s,
                {.min = 0.0, .min_exclusive = true});
      r_.Double(b, "warmup_s", bp, run.startup.warmup_s, {.min = 0.0});
    }
  }
  auto required_int = [&](const YAML::Node& b, const std::string& bp, const char* key, int& out,
                          const char* what) {
    if (!Reader::Child(b, key).IsDefined()) {
      r_.Add(b, Join(bp, key), std::string("missing; expected ") + what);
      return false;
    }
    return r_.Int(b, key, bp, out, 1);
  };
  if (YAML::Node b = Reader::Child(n, "checkpoint"); b.IsDefined()) {
    const std::string bp = "run.checkpoint";
    auto f = flag(b, bp);
    if (f && *f) {
      r_.Add(b, bp, "true needs the interval; expected a mapping such as {every_steps: 50}");
    } else if (!f && r_.CheckKeys(b, bp, {"every_steps", "storage_write_gb_per_s", "blocking", "optimizer_state"})) {
      CheckpointSpec c;
      bool ok = required_int(b, bp, "every_steps", c.every_steps, "the steps between checkpoints (>= 1)");
      ok = (!Reader::Child(b, "storage_write_gb_per_s").IsDefined() ||
            r_.Double(b, "storage_write_gb_per_s", bp, c.storage_write_gb_per_s,
                      {.min = 0.0, .min_exclusive = true})) && ok;
      r_.Bool(b, "blocking", bp, c.blocking);
      r_.Bool(b, "optimizer_state", bp, c.optimizer_state);
      if (ok) run.checkpoint = c;
    }
  }
  if (YAML::Node b = Reader::Child(n, "evaluation"); b.IsDefined()) {
    const std::string bp = "run.evaluation";
    auto f = flag(b, bp);
    if (f && *f) {
      r_.Add(b, bp, "true needs the workload; expected a mapping such as {every_steps: 50, prompts: 500}");
    } else if (!f && r_.CheckKeys(b, bp, {"every_steps", "prompts", "samples_per_prompt", "prompt_tokens",
                                           "response_tokens"})) {
      EvaluationSpec ev;
      ev.prompt_tokens = s.environment.prompt_tokens;
      ev.response_tokens = s.environment.response_tokens;
      bool ok = required_int(b, bp, "every_steps", ev.every_steps, "the steps between evaluations (>= 1)");
      ok = required_int(b, bp, "prompts", ev.prompts, "the number of evaluation prompts (>= 1)") && ok;
      r_.Int(b, "samples_per_prompt", bp, ev.samples_per_prompt, 1);
      ReadDist(b, "prompt_tokens", bp, ev.prompt_tokens, kTokenRules);
      ReadDist(b, "response_tokens", bp, ev.response_tokens, kTokenRules);
      if (ok) run.evaluation = ev;
    }
  }
  if (YAML::Node b = Reader::Child(n, "failures"); b.IsDefined()) {
    const std::string bp = "run.failures";
    if (auto f = flag(b, bp)) {
      if (*f) run.failures = FailureSpec{};
    } else if (r_.CheckKeys(b, bp, {"interruptions_per_gpu_hour", "detect_s"})) {
      FailureSpec fs;
      r_.Double(b, "interruptions_per_gpu_hour", bp, fs.interruptions_per_gpu_hour, {.min = 0.0});
      r_.Double(b, "detect_s", bp, fs.detect_s, {.min = 0.0});
      run.failures = fs;
    }
  }
}

void Loader::ReadAlgorithm(const YAML::Node& root, AlgorithmSpec& a) {
  const std::string path = "algorithm";
  YAML::Node n = Reader::Child(root, "algorithm");
  if (!r_.CheckKeys(n, path, {"name", "group_size", "prompts_per_step", "steps", "dynamic_sampling",
                              "reference_model", "recompute_logprobs", "critic", "lora", "gen_batch_prompts",
                              "max_gen_batches", "minibatches", "ppo_epochs"}))
    return;
  r_.Enum(n, "name", path, a.name, &AlgorithmFromString, AcceptedNames<Algorithm>());
  r_.Int(n, "group_size", path, a.group_size, fields::kGroupSize.min, fields::kGroupSize.max);
  r_.Int(n, "prompts_per_step", path, a.prompts_per_step, fields::kPromptsPerStep.min, fields::kPromptsPerStep.max);
  r_.Int(n, "steps", path, a.steps, fields::kSteps.min, fields::kSteps.max);
  r_.Bool(n, "dynamic_sampling", path, a.dynamic_sampling);
  r_.Int(n, "gen_batch_prompts", path, a.gen_batch_prompts, 1);
  r_.Int(n, "max_gen_batches", path, a.max_gen_batches, 0);
  for (const char* key : {"gen_batch_prompts", "max_gen_batches"}) {
    if (!a.dynamic_sampling && Reader::Child(n, key).IsDefined()) {
      YAML::Node v = Reader::Child(n, key);
      r_.Add(v, Join(path, key),
             fmt::format("{} given, but generation rounds apply only with algorithm.dynamic_sampling: true; "
                         "expected dynamic_sampling: true, or leave {} out",
                         v.IsScalar() ? v.Scalar() : std::string("a value"), key));
    }
  }
  // DAPO drops the KL penalty, so it has no reference pass by default
  // (Yu et al. 2025, "DAPO", section 2.3 "Removing KL Divergence").
  a.reference_model = a.name != Algorithm::kDapo;
  r_.Bool(n, "reference_model", path, a.reference_model);
  r_.Bool(n, "recompute_logprobs", path, a.recompute_logprobs);
  // Optimizer steps per RL step (docs/model.md, "Optimizer steps per RL
  // step"): each mini-batch holds whole samples, as veRL's data.split and
  // NeMo RL's global batches do.
  if (r_.Int(n, "minibatches", path, a.minibatches, 1)) {
    const long long samples = static_cast<long long>(a.prompts_per_step) * a.group_size;
    if (samples > 0 && samples % a.minibatches != 0) {
      r_.Add(Reader::Child(n, "minibatches"), Join(path, "minibatches"),
             fmt::format("{} does not divide the step's {} samples (prompts_per_step {} x group_size {}); "
                         "expected a divisor of {}, each optimizer step taking an equal share",
                         a.minibatches, samples, a.prompts_per_step, a.group_size, samples));
    }
  }
  r_.Int(n, "ppo_epochs", path, a.ppo_epochs, 1);
  a.critic = a.name == Algorithm::kPpo;
  r_.Bool(n, "critic", path, a.critic);
  if (a.critic && a.name != Algorithm::kPpo) {
    r_.Add(Reader::Child(n, "critic"), Join(path, "critic"),
           fmt::format("true needs algorithm.name: ppo; {} uses the group's rewards as its baseline, "
                       "not a value model",
                       ToString(a.name)));
  }
  YAML::Node lora = Reader::Child(n, "lora");
  if (lora.IsDefined()) {
    bool enabled = true;
    if (lora.IsScalar() && YAML::convert<bool>::decode(lora, enabled)) {
      if (enabled) a.lora = LoraSpec{};  // `lora: true` = the defaults
      return;
    }
    if (r_.CheckKeys(lora, "algorithm.lora", {"rank", "tenants"})) {
      LoraSpec l;
      r_.Int(lora, "rank", "algorithm.lora", l.rank, 1);
      r_.Int(lora, "tenants", "algorithm.lora", l.tenants, 1);
      a.lora = l;
    }
  }
}

void Loader::ReadPrecision(const YAML::Node& root, PrecisionSpec& p, const GpuSpec* gpu) {
  const std::string path = "precision";
  YAML::Node n = Reader::Child(root, "precision");
  if (!r_.CheckKeys(n, path, {"rollout", "kv_cache", "train"})) return;
  r_.Enum(n, "rollout", path, p.rollout, &PrecisionFromString, AcceptedNames<Precision>());
  auto no_fp4 = [](std::string_view s) -> std::optional<Precision> {
    auto v = PrecisionFromString(s);
    if (v == Precision::kFp4) return std::nullopt;
    return v;
  };
  r_.Enum(n, "kv_cache", path, p.kv_cache, +no_fp4, "bf16 | fp8");
  r_.Enum(n, "train", path, p.train, +no_fp4, "bf16 | fp8");
  if (!gpu) return;
  // The KV cache is storage (any GPU can hold fp8 bytes); rollout and train
  // precisions are compute and need the tensor-core support.
  for (auto [key, prec] : {std::pair{"rollout", p.rollout}, std::pair{"train", p.train}}) {
    if (gpu->Supports(prec)) continue;
    std::string supported = "bf16";
    if (gpu->Supports(Precision::kFp8)) supported += " | fp8";
    if (gpu->Supports(Precision::kFp4)) supported += " | fp4";
    YAML::Node at = Reader::Child(n, key);
    r_.Add(at.IsDefined() ? at : n, Join(path, key),
           fmt::format("{} is not supported by {} (it runs {})", ToString(prec), gpu->id, supported));
  }
}

void Loader::ReadPipeline(const YAML::Node& root, PipelineSpec& p) {
  const std::string path = "pipeline";
  YAML::Node n = Reader::Child(root, "pipeline");
  if (!r_.CheckKeys(n, path, {"mode", "max_staleness", "partial_rollouts", "dispatch", "tail"})) return;
  r_.Enum(n, "mode", path, p.mode, &PipelineModeFromString, AcceptedNames<PipelineMode>());
  r_.Double(n, "max_staleness", path, p.max_staleness, fields::kNonNegative);
  r_.Bool(n, "partial_rollouts", path, p.partial_rollouts);
  r_.Enum(n, "dispatch", path, p.dispatch, &DispatchFromString, AcceptedNames<Dispatch>());
}

bool Loader::IsCurveFile(const std::string& v) {
  auto ends = [&](std::string_view e) { return v.size() > e.size() && v.compare(v.size() - e.size(), e.size(), e) == 0; };
  return ends(".yaml") || ends(".yml");
}

void Loader::ReadGoal(const YAML::Node& root, GoalSpec& g) {
  const std::string path = "goal";
  YAML::Node n = Reader::Child(root, "goal");
  if (!r_.CheckKeys(n, path, {"target_pass_rate", "curve", "b_noise"})) return;
  double target = 0;
  if (r_.Double(n, "target_pass_rate", path, target, fields::kTargetPassRate)) g.target_pass_rate = target;
  double b_noise = 0;
  if (r_.Double(n, "b_noise", path, b_noise, {.min = 0.0, .min_exclusive = true})) g.b_noise = b_noise;
  YAML::Node c = Reader::Child(n, "curve");
  if (c.IsDefined() && c.IsScalar() && IsCurveFile(c.Scalar())) {
    // `goal.curve: FILE.yaml`: a curve written by `rlcost forecast LOG --target T -o FILE` (or by hand), the
    // same keys as the mapping below.
    try {
      c = YAML::LoadFile(c.Scalar());
    } catch (const YAML::Exception& e) {
      r_.Add(c, "goal.curve", fmt::format("\"{}\": cannot read the curve file ({}); expected a YAML file of "
                                          "asymptote, exponent, midpoint_useful_samples", c.Scalar(), e.what()));
      return;
    }
    if (!c.IsMap()) {
      r_.Add(n, "goal.curve", "the curve file is not a mapping; expected asymptote, exponent, midpoint_useful_samples");
      return;
    }
  }
  if (c.IsDefined() && c.IsScalar()) {  // `goal.curve: NAME`: a published fit (catalog/curves.yaml)
    auto preset = scenario_internal::CurveFromPreset(c.Scalar(), model_id_, "goal.curve");
    if (preset) {
      g.curve = *preset;
    } else {
      for (const auto& p : preset.error().problems) r_.Add(c, p.path, p.message);
    }
    return;
  }
  if (r_.CheckKeys(c, "goal.curve",
                   {"asymptote", "exponent", "midpoint_useful_samples", "batch_useful_samples", "source"})) {
    LearningCurveSpec curve;
    const std::string cp = "goal.curve";
    r_.Double(c, "asymptote", cp, curve.asymptote, {.min = 0.0, .min_exclusive = true, .max = 1.0});
    r_.Double(c, "exponent", cp, curve.exponent, {.min = 0.0, .min_exclusive = true});
    r_.Double(c, "midpoint_useful_samples", cp, curve.midpoint_useful_samples, {.min = 0.0, .min_exclusive = true});
    double batch = 0;
    if (r_.Double(c, "batch_useful_samples", cp, batch, {.min = 0.0, .min_exclusive = true})) {
      curve.batch_useful_samples = batch;
    }
    r_.String(c, "source", cp, curve.preset_label);
    g.curve = curve;
  }
}

void Loader::ReadMetrics(const YAML::Node& m, const std::string& path, std::map<std::string, ExpectedMetric>& out) {
  if (!m.IsDefined()) return;
  if (!m.IsMap()) {
    r_.Add(m, path, "expected a mapping of metric -> {value, tolerance}, got " + Describe(m));
    return;
  }
  for (auto it = m.begin(); it != m.end(); ++it) {
    if (!it->first.IsScalar()) continue;
    const std::string key = it->first.Scalar();
    const std::string kp = Join(path, key);
    if (it->second.IsScalar()) {  // `metric: 92.8` = value with the default tolerance
      ExpectedMetric em;
      if (r_.Double(m, key, path, em.value)) out[key] = em;
      continue;
    }
    if (!r_.CheckKeys(it->second, kp, {"value", "tolerance"})) continue;
    ExpectedMetric em;
    if (!Reader::Child(it->second, "value").IsDefined()) {
      r_.Add(it->second, Join(kp, "value"), "missing; expected the measured figure");
      continue;
    }
    bool ok = r_.Double(it->second, "value", kp, em.value);
    if (ok && em.value == 0) {
      r_.Add(Reader::Child(it->second, "value"), Join(kp, "value"),
             "0 cannot be compared as a ratio; expected a non-zero figure");
      ok = false;
    }
    if (Reader::Child(it->second, "tolerance").IsDefined())
      ok = r_.Double(it->second, "tolerance", kp, em.tolerance, {.min = 0.0}) && ok;
    if (ok) out[key] = em;
  }
}

void Loader::ReadExpect(const YAML::Node& root, Scenario& s) {
  YAML::Node n = Reader::Child(root, "expect");
  if (!r_.CheckKeys(n, "expect", {"source", "metrics", "relative_to"})) return;
  ExpectSpec e;
  r_.String(n, "source", "expect", e.source);
  ReadMetrics(Reader::Child(n, "metrics"), "expect.metrics", e.metrics);
  YAML::Node rel = Reader::Child(n, "relative_to");
  if (r_.CheckKeys(rel, "expect.relative_to", {"scenario", "metrics"})) {
    YAML::Node sc = Reader::Child(rel, "scenario");
    if (!sc.IsDefined()) {
      r_.Add(rel, "expect.relative_to.scenario", "missing; expected the path of the scenario to compare with");
    } else if (auto p = r_.AsString(sc, "expect.relative_to.scenario")) {
      std::string resolved = Resolve(*p);
      if (CheckReadable(sc, "expect.relative_to.scenario", *p, resolved)) e.relative_scenario = resolved;
    }
    ReadMetrics(Reader::Child(rel, "metrics"), "expect.relative_to.metrics", e.relative_metrics);
  }
  s.expect = std::move(e);
}

}  // namespace rlcost::scenario_internal
