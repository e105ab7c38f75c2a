// The environment section: verifiers, ensembles, rubrics, noise, failures and the pass rate.
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
#include "scenario/trajectory_bounds.h"
#include "scenario/loader.h"

namespace rlcost::scenario_internal {

void Loader::ReadEnvironment(const YAML::Node& root, EnvironmentSpec& e) {
  const std::string path = "environment";
  YAML::Node n = Reader::Child(root, "environment");
  if (!r_.CheckKeys(n, path, {"name", "turns", "prompt_tokens", "response_tokens", "tool_output_tokens",
                              "tool_latency_s", "sandbox", "reward", "failures", "pass_rate", "response_tokens_schedule",
                              "max_trajectory_tokens", "tool_timeout_s", "tool_concurrency"}))
    return;
  r_.String(n, "name", path, e.name);
  // A trajectory has at least one model turn: turns >= 1, clipped at 1 from below.
  // 1e4 turns: every turn holds at least one generated token plus its
  // prompt, so more would not fit any context window with room to spare.
  ReadDist(n, "turns", path, e.turns,
           {.min_value = 1, .default_min = 1.0, .max_value = 1e4, .max_why = "model turns per trajectory"});
  ReadDist(n, "prompt_tokens", path, e.prompt_tokens, kTokenRules);
  ReadDist(n, "response_tokens", path, e.response_tokens, kTokenRules);
  // Every rate per generated token divides by this mean.
  if (YAML::Node rt = Reader::Child(n, "response_tokens"); rt.IsDefined() && !ResponseMeanAccepted(e.response_tokens)) {
    r_.Add(rt, Join(path, "response_tokens"),
           "a mean of 0 tokens; expected a mean > 0 (a rollout generates at least one token)");
  }
  ReadDist(n, "tool_output_tokens", path, e.tool_output_tokens, kTokenRules);
  ReadDist(n, "tool_latency_s", path, e.tool_latency_s, kSecondsRules);

  if (YAML::Node sb = Reader::Child(n, "sandbox"); sb.IsDefined()) {
    const std::string sp = "environment.sandbox";
    if (r_.CheckKeys(sb, sp, {"cpus_per_rollout", "startup_s", "price_per_cpu_hour", "max_concurrent"})) {
      SandboxSpec box;
      r_.Double(sb, "cpus_per_rollout", sp, box.cpus_per_rollout, fields::kNonNegative);
      r_.Double(sb, "startup_s", sp, box.startup_s, fields::kNonNegative);
      r_.Double(sb, "price_per_cpu_hour", sp, box.price_per_cpu_hour, fields::kPricePerHour);
      r_.Int(sb, "max_concurrent", sp, box.max_concurrent, fields::kMaxConcurrent.min, fields::kMaxConcurrent.max);
      e.sandbox = box;
    }
  }

  if (YAML::Node rw = Reader::Child(n, "reward"); rw.IsDefined()) {
    const std::string rp = "environment.reward";
    if (r_.CheckKeys(rw, rp, {"type", "credited_steps", "verify_s", "noise", "verifier", "rubric"})) {
      r_.Enum(rw, "type", rp, e.reward.type, &RewardTypeFromString, AcceptedNames<RewardType>());
      r_.Int(rw, "credited_steps", rp, e.reward.credited_steps, 1);
      ReadDist(rw, "verify_s", rp, e.reward.verify_s, kSecondsRules);
      ReadRewardNoise(rw, e.reward.noise);
      ReadVerifier(rw, e);
      ReadRubric(rw, e.reward);
    }
  }
  ReadEnvFailures(n, e.failures);
  ReadPassRate(n, e.pass_rate);
  CombineEnsemble(n, e);
  ReadTrajectoryBounds(n, e);
}

// environment.max_trajectory_tokens and tool_timeout_s: docs/model.md,
// "Trajectory bounds". The distributions become what the bounded run generates.
void Loader::ReadTrajectoryBounds(const YAML::Node& n, EnvironmentSpec& e) {
  const std::string path = "environment";
  r_.Int(n, "max_trajectory_tokens", path, e.max_trajectory_tokens, 1);
  r_.Double(n, "tool_timeout_s", path, e.tool_timeout_s, {.min = 0.0, .min_exclusive = true});
  r_.Int(n, "tool_concurrency", path, e.tool_concurrency, 1);
  if (e.max_trajectory_tokens <= 0 && e.tool_timeout_s <= 0) return;
  if (YAML::Node sched = Reader::Child(n, "response_tokens_schedule"); sched.IsDefined()) {
    r_.Add(sched, Join(path, "response_tokens_schedule"),
           "not yet: a length schedule with environment.max_trajectory_tokens or tool_timeout_s (the bounds are "
           "applied to one length distribution); set one or the other");
    return;
  }
  if (std::string m = ApplyTrajectoryBounds(e); !m.empty()) {
    r_.Add(Reader::Child(n, e.max_trajectory_tokens > 0 ? "max_trajectory_tokens" : "tool_timeout_s"),
           Join(path, e.max_trajectory_tokens > 0 ? "max_trajectory_tokens" : "tool_timeout_s"), m);
  }
}

// environment.reward.verifier: {kind, model, input_tokens, output_tokens,
// calls_per_rollout, gpus: shared | N}; the model is a catalog id. kind
// ensemble: {kind: ensemble, aggregation, members: [verifier + noise, ...]}.
void Loader::ReadVerifier(const YAML::Node& reward, EnvironmentSpec& e) {
  const std::string path = "environment.reward.verifier";
  YAML::Node n = Reader::Child(reward, "verifier");
  if (!n.IsDefined()) return;
  auto& v = e.reward.verifier;
  if (n.IsScalar()) {  // `verifier: rule`
    if (!r_.Enum(reward, "verifier", "environment.reward", v.kind, &VerifierKindFromString,
                 AcceptedNames<VerifierKind>()))
      return;
    if (v.kind == VerifierKind::kEnsemble) {
      r_.Add(n, path, "'ensemble' needs its members; expected {kind: ensemble, members: [{kind: ..., noise: "
                      "{false_positive: ..., false_negative: ...}}, ...]}");
      return;
    }
  } else if (Reader::Child(n, "kind").IsDefined() && Reader::Child(n, "kind").IsScalar() &&
             Reader::Child(n, "kind").Scalar() == "ensemble") {
    v.kind = VerifierKind::kEnsemble;
    ReadEnsemble(n, path, e);
    return;
  }
  ReadOneVerifier(n, path, v, e, /*member=*/false);
}

// One verifier (the reward's, or an ensemble's member at `path`).
void Loader::ReadOneVerifier(const YAML::Node& n, const std::string& path, RewardSpec::Verifier& v,
                     const EnvironmentSpec& e, bool member) {
  if (n.IsMap()) {
    std::vector<std::string> keys = {"kind", "model", "input_tokens", "output_tokens", "calls_per_rollout", "gpus"};
    if (member) keys.push_back("noise");
    if (!r_.CheckKeys(n, path, keys)) return;
    if (!Reader::Child(n, "kind").IsDefined()) {
      r_.Add(n, Join(path, "kind"), "missing; expected " + AcceptedNames<VerifierKind>());
      return;
    }
    if (!r_.Enum(n, "kind", path, v.kind, &VerifierKindFromString, AcceptedNames<VerifierKind>())) return;
    if (member && v.kind == VerifierKind::kEnsemble) {
      r_.Add(Reader::Child(n, "kind"), Join(path, "kind"),
             "an ensemble cannot be a member of an ensemble; expected rule, tests, llm-judge or reward-model");
      return;
    }
    if (member) ReadNoise(n, Join(path, "noise"), v.noise);
  } else if (member) {
    r_.Add(n, path, "expected a mapping {kind: ..., noise: {false_positive: ..., false_negative: ...}}");
    return;
  }
  const bool on_gpu = v.kind == VerifierKind::kLlmJudge || v.kind == VerifierKind::kRewardModel;
  if (!on_gpu) {
    for (const char* k : {"model", "input_tokens", "output_tokens", "calls_per_rollout", "gpus"}) {
      if (n.IsMap() && Reader::Child(n, k).IsDefined())
        r_.Add(Reader::Child(n, k), Join(path, k),
               fmt::format("only used by kind llm-judge or reward-model (this verifier is '{}')", ToString(v.kind)));
    }
    if (v.kind == VerifierKind::kTests && !e.sandbox)
      r_.Add(n, Join(path, "kind"),
             "tests run in the trajectory's sandbox; expected an environment.sandbox block");
    return;
  }
  if (!n.IsMap()) {
    r_.Add(n, path, fmt::format("'{}' needs a model; expected {{kind: {}, model: <catalog id>, ...}}",
                                ToString(v.kind), ToString(v.kind)));
    return;
  }
  YAML::Node m = Reader::Child(n, "model");
  if (!m.IsDefined()) {
    r_.Add(n, Join(path, "model"), "missing; expected a catalog model id (" + JoinIds(catalog_.ModelIds()) + ")");
  } else if (auto id = r_.AsString(m, Join(path, "model"))) {
    if (const ModelSpec* spec = catalog_.FindModel(*id)) {
      v.model = *spec;
      v.model_id = *id;
    } else {
      r_.Add(m, Join(path, "model"), UnknownId("model", *id, catalog_.ModelIds()));
    }
  }
  r_.Double(n, "input_tokens", path, v.input_tokens, {.min = 0.0});
  r_.Double(n, "calls_per_rollout", path, v.calls_per_rollout, {.min = 0.0, .min_exclusive = true});
  if (v.kind == VerifierKind::kLlmJudge) {
    if (!Reader::Child(n, "output_tokens").IsDefined())
      r_.Add(n, Join(path, "output_tokens"), "missing; expected the tokens an llm-judge writes per call (>= 1)");
    r_.Double(n, "output_tokens", path, v.output_tokens, {.min = 1.0});
  } else if (Reader::Child(n, "output_tokens").IsDefined()) {
    r_.Double(n, "output_tokens", path, v.output_tokens, {.min = 0.0, .max = 0.0});
  }
  if (YAML::Node g = Reader::Child(n, "gpus"); g.IsDefined()) {
    if (g.IsScalar() && g.Scalar() == "shared") {
      v.gpus = 0;
    } else if (auto k = r_.AsInt(g, Join(path, "gpus")); k && (*k < 1 || *k > 1'000'000)) {
      r_.Add(g, Join(path, "gpus"), fmt::format("{}; expected 'shared' or a number of GPUs >= 1", *k));
    } else if (k) {
      v.gpus = static_cast<int>(*k);
    }
  }
}

// {kind: ensemble, aggregation: weighted | majority, members: [...]}: 2 to
// kMaxEnsembleMembers members, each with its own noise.
void Loader::ReadEnsemble(const YAML::Node& n, const std::string& path, EnvironmentSpec& e) {
  auto& out = e.reward.verifier;
  if (!r_.CheckKeys(n, path, {"kind", "aggregation", "members"})) return;
  if (YAML::Node a = Reader::Child(n, "aggregation"); a.IsDefined()) {
    if (auto name = r_.AsString(a, Join(path, "aggregation"))) {
      if (*name == "weighted") {
        out.aggregation = RewardSpec::Aggregation::kWeighted;
      } else if (*name == "majority") {
        out.aggregation = RewardSpec::Aggregation::kMajority;
      } else {
        r_.Add(a, Join(path, "aggregation"), "unknown value '" + *name + "'; expected weighted or majority");
      }
    }
  }
  const std::string mp = Join(path, "members");
  YAML::Node ms = Reader::Child(n, "members");
  if (!ms.IsDefined()) {
    r_.Add(n, mp, "missing; expected a list of 2 or more verifiers, each with its noise");
    return;
  }
  if (!ms.IsSequence() || ms.size() < 2 || ms.size() > kMaxEnsembleMembers) {
    r_.Add(ms, mp,
           fmt::format("{}; expected a list of 2 to {} verifiers",
                       ms.IsSequence() ? fmt::format("{} member{}", ms.size(), ms.size() == 1 ? "" : "s")
                                       : std::string("not a list"),
                       kMaxEnsembleMembers));
    return;
  }
  for (size_t i = 0; i < ms.size(); ++i) {
    RewardSpec::Verifier member;
    ReadOneVerifier(ms[i], fmt::format("{}[{}]", mp, i), member, e, /*member=*/true);
    out.members.push_back(std::move(member));
  }
}

// environment.reward.rubric: [{name, weight, kind: llm-judge | rule, output_tokens, pass_rate}, ...].
void Loader::ReadRubric(const YAML::Node& reward, RewardSpec& rw) {
  const std::string path = "environment.reward.rubric";
  YAML::Node n = Reader::Child(reward, "rubric");
  if (!n.IsDefined()) return;
  if (!n.IsSequence() || n.size() == 0) {
    r_.Add(n, path, "expected a list of criteria [{name, weight, kind: llm-judge | rule}, ...]");
    return;
  }
  if (n.size() > kMaxRubricItems) {
    r_.Add(n, path, fmt::format("{} criteria; expected at most {}", n.size(), kMaxRubricItems));
    return;
  }
  const size_t before = r_.problems().size();
  double sum = 0;
  for (size_t i = 0; i < n.size(); ++i) {
    const std::string ip = fmt::format("{}[{}]", path, i);
    YAML::Node item = n[i];
    if (!r_.CheckKeys(item, ip, {"name", "weight", "kind", "output_tokens", "pass_rate"})) continue;
    RewardSpec::RubricItem it;
    it.name = fmt::format("criterion {}", i + 1);
    r_.String(item, "name", ip, it.name);
    if (!Reader::Child(item, "weight").IsDefined()) {
      r_.Add(item, Join(ip, "weight"), "missing; expected the criterion's weight in the reward (a number)");
    } else {
      r_.Double(item, "weight", ip, it.weight, {.min = -kMaxPlausible, .max = kMaxPlausible});
    }
    if (YAML::Node k = Reader::Child(item, "kind"); k.IsDefined()) {
      if (auto kind = r_.AsString(k, Join(ip, "kind"))) {
        if (*kind == "llm-judge") {
          it.judged = true;
        } else if (*kind == "rule") {
          it.judged = false;
        } else {
          r_.Add(k, Join(ip, "kind"), "unknown value '" + *kind + "'; expected llm-judge or rule");
        }
      }
    }
    if (it.judged && rw.verifier.kind != VerifierKind::kLlmJudge) {
      r_.Add(item, Join(ip, "kind"),
             fmt::format("an llm-judge criterion is judged by environment.reward.verifier, which is '{}'; "
                         "expected a verifier {{kind: llm-judge, model: ...}} or kind: rule here",
                         ToString(rw.verifier.kind)));
    }
    if (Reader::Child(item, "output_tokens").IsDefined()) {
      if (!it.judged)
        r_.Add(Reader::Child(item, "output_tokens"), Join(ip, "output_tokens"),
               "only used by kind llm-judge (this criterion is a rule)");
      else
        r_.Double(item, "output_tokens", ip, it.output_tokens, {.min = 1.0});
    }
    if (Reader::Child(item, "pass_rate").IsDefined()) {
      double pr = 0;
      if (r_.Double(item, "pass_rate", ip, pr, {.min = 0.0, .max = 1.0})) it.pass_rate = pr;
    }
    sum += it.weight;
    rw.rubric.push_back(std::move(it));
  }
  if (r_.problems().size() == before && !(sum > 0)) {
    std::string terms;
    for (const auto& it : rw.rubric) terms += (terms.empty() ? "" : " + ") + Num(it.weight);
    r_.Add(n, path,
           fmt::format("weights sum to {} = {}; expected a positive sum (the reward is the weighted sum of the "
                       "criteria, normalised by it)",
                       terms, Num(sum)));
  }
}

// A noise block {false_positive, false_negative} at `path`: each in [0, 1)
// and fp + fn < 1 (at fp + fn = 1 the reward says nothing about the outcome).
void Loader::ReadNoise(const YAML::Node& parent, const std::string& path, RewardSpec::Noise& noise) {
  YAML::Node n = Reader::Child(parent, "noise");
  if (!n.IsDefined() || !r_.CheckKeys(n, path, {"false_positive", "false_negative"})) return;
  const Range rate{.min = 0.0, .max = 1.0, .max_exclusive = true};
  const size_t before = r_.problems().size();  // an absent rate stays 0
  r_.Double(n, "false_positive", path, noise.false_positive, rate);
  r_.Double(n, "false_negative", path, noise.false_negative, rate);
  if (r_.problems().size() == before && noise.false_positive + noise.false_negative >= 1) {
    r_.Add(n, path,
           fmt::format("false_positive + false_negative = {} + {} = {}; expected a sum below 1 (at 1 the "
                       "reward no longer depends on whether the rollout is right)",
                       Num(noise.false_positive), Num(noise.false_negative),
                       Num(noise.false_positive + noise.false_negative)));
  }
}

// environment.reward.noise.
void Loader::ReadRewardNoise(const YAML::Node& reward, RewardSpec::Noise& noise) {
  ReadNoise(reward, "environment.reward.noise", noise);
}

// An ensemble's error rates follow from its members': they fill
// environment.reward.noise (which must then be absent). Needs the pass rate
// (the weighted vote's prior), so runs after it is read.
void Loader::CombineEnsemble(const YAML::Node& env, EnvironmentSpec& e) {
  auto& v = e.reward.verifier;
  if (v.kind != VerifierKind::kEnsemble || v.members.size() < 2) return;
  YAML::Node rw = Reader::Child(env, "reward");
  if (YAML::Node noise = Reader::Child(rw, "noise"); noise.IsDefined()) {
    r_.Add(noise, "environment.reward.noise",
           "an ensemble's error rates follow from its members' (environment.reward.verifier.members[i].noise); "
           "expected no environment.reward.noise beside an ensemble");
    return;
  }
  const double prior = e.pass_rate.mean();
  e.reward.noise = EnsembleNoise(v, prior);
  if (!(e.reward.noise.false_positive + e.reward.noise.false_negative < 1)) {
    r_.Add(Reader::Child(Reader::Child(rw, "verifier"), "members"), "environment.reward.verifier.members",
           fmt::format("the members' combined vote has false_positive + false_negative = {} + {} >= 1 (with a "
                       "mean pass rate of {} as the vote's prior); expected members better than chance",
                       Num(e.reward.noise.false_positive), Num(e.reward.noise.false_negative), Num(prior)));
  }
}

// environment.failures: {rate, handling: retry | drop}.
void Loader::ReadEnvFailures(const YAML::Node& env, EnvFailureSpec& f) {
  const std::string path = "environment.failures";
  YAML::Node n = Reader::Child(env, "failures");
  if (!n.IsDefined() || !r_.CheckKeys(n, path, {"rate", "handling"})) return;
  if (!Reader::Child(n, "rate").IsDefined())
    r_.Add(n, Join(path, "rate"), "missing; expected the share of trajectories whose environment fails, in [0, 1)");
  r_.Double(n, "rate", path, f.rate, {.min = 0.0, .max = 1.0, .max_exclusive = true});
  if (YAML::Node h = Reader::Child(n, "handling"); h.IsDefined()) {
    if (auto name = r_.AsString(h, Join(path, "handling"))) {
      if (*name == "retry") {
        f.retry = true;
      } else if (*name == "drop") {
        f.retry = false;
      } else {
        r_.Add(h, Join(path, "handling"), "unknown value '" + *name + "'; expected retry or drop");
      }
    }
  }
}

void Loader::ReadPassRate(const YAML::Node& env, PassRateSpec& pr) {
  const std::string path = "environment.pass_rate";
  YAML::Node n = Reader::Child(env, "pass_rate");
  if (!n.IsDefined()) return;
  if (n.IsScalar()) {  // every task passes with the same probability
    double p = 0;
    if (r_.Double(env, "pass_rate", "environment", p, {.min = 0.0, .max = 1.0})) {
      pr.kind = PassRateSpec::Kind::kHistogram;
      pr.histogram = {{p, 1.0}};
    }
    return;
  }
  if (!r_.CheckKeys(n, path, {"mean", "concentration", "a", "b", "histogram", "file", "samples_per_task"})) return;
  auto has = [&](const char* k) { return Reader::Child(n, k).IsDefined(); };
  int forms = (has("mean") || has("concentration")) + (has("a") || has("b")) + has("histogram") + has("file");
  if (forms > 1) {
    r_.Add(n, path,
           "mixes forms; expected one of {mean, concentration}, {a, b}, {histogram: {...}} or {file: x.csv}");
    return;
  }
  if (has("samples_per_task") && !has("file")) {
    r_.Add(Reader::Child(n, "samples_per_task"), Join(path, "samples_per_task"), "only used with 'file'");
  }
  if (has("a") || has("b")) {
    double a = pr.a, b = pr.b;
    bool ok = true;
    for (const char* k : {"a", "b"}) {
      if (!has(k)) {
        r_.Add(n, Join(path, k), "missing; the {a, b} form needs both Beta parameters");
        ok = false;
      }
    }
    ok = r_.Double(n, "a", path, a, {.min = 0.0, .min_exclusive = true}) && ok;
    ok = r_.Double(n, "b", path, b, {.min = 0.0, .min_exclusive = true}) && ok;
    if (ok) {
      pr.kind = PassRateSpec::Kind::kBeta;
      pr.a = a;
      pr.b = b;
    }
    return;
  }
  if (has("histogram")) {
    ReadHistogram(Reader::Child(n, "histogram"), Join(path, "histogram"), pr);
    return;
  }
  if (has("file")) {
    ReadPassRateFile(n, path, pr);
    return;
  }
  // {mean, concentration}: Beta(mean * c, (1 - mean) * c). Defaults 0.35 and 2.
  double mean = fields::kDefaultPassRateMean, conc = fields::kDefaultConcentration;
  bool ok = true;
  if (has("mean")) ok = r_.Double(n, "mean", path, mean, fields::kPassRateMean) && ok;
  if (has("concentration")) ok = r_.Double(n, "concentration", path, conc, fields::kConcentration) && ok;
  if (ok) fields::SetBetaOfMean(pr, mean, conc);
}

void Loader::ReadHistogram(const YAML::Node& h, const std::string& path, PassRateSpec& pr) {
  if (!h.IsMap() || h.size() == 0) {
    r_.Add(h, path, "expected a mapping of pass rate -> weight, e.g. {0.0: 0.4, 0.5: 0.3, 1.0: 0.3}, got " +
                        Describe(h));
    return;
  }
  std::vector<std::pair<double, double>> bins;
  bool ok = true;
  for (auto it = h.begin(); it != h.end(); ++it) {
    std::string kp = Join(path, it->first.IsScalar() ? it->first.Scalar() : "?");
    double p = 0, w = 0;
    if (!it->first.IsScalar() || !ParseNumber(it->first.Scalar(), p) || p < 0 || p > 1) {
      r_.Add(it->first, kp, "the key " + Describe(it->first) + " is not a pass rate; expected a number in [0, 1]");
      ok = false;
      continue;
    }
    auto wv = r_.AsNumber(it->second, kp);
    if (!wv) { ok = false; continue; }
    w = *wv;
    if (w < 0) {
      r_.Add(it->second, kp, Num(w) + " is out of range; expected a weight >= 0");
      ok = false;
      continue;
    }
    bins.emplace_back(p, w);
  }
  if (!ok) return;
  double total = 0;
  for (const auto& [p, w] : bins) total += w;
  if (!(total > 0)) {
    r_.Add(h, path, "the weights sum to 0; expected a positive total");
    return;
  }
  std::sort(bins.begin(), bins.end());
  pr.kind = PassRateSpec::Kind::kHistogram;
  pr.histogram.clear();
  for (const auto& [p, w] : bins) {
    if (!pr.histogram.empty() && pr.histogram.back().first == p) {
      pr.histogram.back().second += w / total;
    } else {
      pr.histogram.emplace_back(p, w / total);
    }
  }
}

void Loader::ReadPassRateFile(const YAML::Node& n, const std::string& path, PassRateSpec& pr) {
  YAML::Node file_n = Reader::Child(n, "file");
  const std::string fp = Join(path, "file");
  int declared_n = 0;
  bool has_n = r_.Int(n, "samples_per_task", path, declared_n, 1);
  std::string resolved, rel_name;
  auto t = ReadCsvField(file_n, fp, &resolved, &rel_name);
  if (!t) return;
  const std::string* rel = &rel_name;
  int rate_col = t->Column("pass_rate");
  int succ_col = t->Column("successes"), samp_col = t->Column("samples");
  if (t->header.empty() || (rate_col < 0 && (succ_col < 0 || samp_col < 0))) {
    r_.Add(file_n, fp,
           "'" + *rel + "' needs a header with a 'pass_rate' column, or 'successes' and 'samples' columns");
    return;
  }
  std::vector<double> rates;
  int common_n = -1;  // -1 not seen yet, 0 varies
  bool ok = true;
  for (size_t i = 0; i < t->rows.size(); ++i) {
    const auto& row = t->rows[i];
    auto cell = [&](int c) { return c < static_cast<int>(row.size()) ? row[c] : std::string(); };
    if (rate_col >= 0) {
      double v = 0;
      if (!ParseNumber(cell(rate_col), v) || v < 0 || v > 1) {
        r_.AddAtLine(t->lines[i], fp, "pass_rate '" + cell(rate_col) + "' is not a number in [0, 1]", resolved);
        ok = false;
        continue;
      }
      rates.push_back(v);
    } else {
      double k = 0, m = 0;
      if (!ParseNumber(cell(samp_col), m) || m < 1 || m > 1e9 || m != std::floor(m)) {
        r_.AddAtLine(t->lines[i], fp, "samples '" + cell(samp_col) + "' is not a whole number from 1 to 1e9", resolved);
        ok = false;
        continue;
      }
      if (!ParseNumber(cell(succ_col), k) || k < 0 || k > m || k != std::floor(k)) {
        r_.AddAtLine(t->lines[i], fp,
                     "successes '" + cell(succ_col) + "' is not a whole number in [0, samples = " + Num(m) + "]",
                     resolved);
        ok = false;
        continue;
      }
      rates.push_back(k / m);
      int mi = static_cast<int>(m);
      common_n = common_n == -1 ? mi : (common_n == mi ? mi : 0);
    }
  }
  if (!ok) return;
  if (rates.empty()) {
    r_.Add(file_n, fp, "'" + *rel + "' holds no tasks");
    return;
  }
  pr.kind = PassRateSpec::Kind::kTasks;
  pr.task_pass_rates = std::move(rates);
  pr.file = resolved;
  pr.samples_per_task = has_n ? declared_n : std::max(common_n, 0);
  if (has_n && common_n > 0 && common_n != declared_n) {
    r_.Add(Reader::Child(n, "samples_per_task"), Join(path, "samples_per_task"),
           fmt::format("{} disagrees with the file's samples column ({})", declared_n, common_n));
  }
}

}  // namespace rlcost::scenario_internal
