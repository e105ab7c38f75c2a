#include "ingest/training_log.h"

#include "ingest/log_common.h"
#include "core/file.h"
#include "core/nesting.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace rlcost::calib {
namespace {

using namespace log_internal;

double Get(const LogRecord& r, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    auto it = r.values.find(k);
    if (it != r.values.end()) return it->second;
  }
  return -1;
}

}  // namespace

std::optional<double> ParseLogNumber(std::string_view s) {
  s = Trim(s);
  // numpy / torch scalar reprs that veRL's console printer can emit.
  for (std::string_view wrap : {"np.float64(", "np.float32(", "np.int64(", "np.int32(", "tensor("}) {
    if (s.substr(0, wrap.size()) == wrap && !s.empty() && s.back() == ')') {
      s = Trim(s.substr(wrap.size(), s.size() - wrap.size() - 1));
      break;
    }
  }
  if (s.empty()) return std::nullopt;
  if (s.front() == '+') s.remove_prefix(1);
  double v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

Result<TrainingLog> ParseTrainingLogText(std::string_view text, const std::string& origin) {
  std::string_view t = Trim(text);
  if (t.empty()) return Fail(LineError(origin, 0, "the log is empty"));
  if (t.front() == '{') {
    // One document ({metric: {step: v}}) or JSON lines.
    // A deep document is left to the line reader, which names the line.
    nlohmann::json whole = NestingDepth(t) > kMaxFileNesting ? nlohmann::json(nlohmann::json::value_t::discarded)
                                                              : nlohmann::json::parse(t, nullptr, false);
    bool all_objects = !whole.is_discarded() && whole.is_object() && !whole.empty();
    if (all_objects) {
      for (auto it = whole.begin(); it != whole.end(); ++it) all_objects = all_objects && it->is_object();
    }
    if (all_objects) return ParseTensorboardJson(whole, origin);
    return ParseJsonl(text, origin);
  }
  if (!IsConsoleLog(t.substr(0, t.find('\n')), origin)) return ParseWandbCsv(text, origin);
  return ParseConsole(text, origin);
}

// A wandb CSV export: a header line of comma-separated names with a step
// column (or a .csv file); veRL's console lines separate with " - ".
bool IsConsoleLog(std::string_view first_line, const std::string& origin) {
  const std::string_view first = Trim(first_line);
  if (first.empty() || first.front() == '{') return false;
  const bool csv_name = origin.size() > 4 && origin.compare(origin.size() - 4, 4, ".csv") == 0;
  return !(first.find(',') != std::string_view::npos && first.find("step:") == std::string_view::npos &&
           (csv_name || first.find("_step") != std::string_view::npos || first.find("Step") != std::string_view::npos));
}


Result<TrainingLog> ParseTrainingLogFile(const std::string& path) {
  auto text = ReadBoundedFile(path, kMaxLogBytes, "log file");
  if (!text) return Fail(text.error());
  return ParseTrainingLogText(*text, path);
}

Result<std::vector<LoggedStep>> ExtractPhases(const TrainingLog& log) {
  std::vector<LoggedStep> out;
  bool any_gen_or_update = false;
  for (const auto& r : log.records) {
    // A missing key reads as -1 below; a logged value that is negative or
    // absurd must not pass for missing or skew the fit. 1e6 s (11.6 days)
    // for one phase of one step, and 1e7 tokens (the longest context
    // window announced) bound what a real log holds.
    for (const auto& [key, v] : r.values) {
      if (key == "response_length/clip_ratio" && !(v >= 0 && v <= 1)) {
        return Fail(LineError(log.path, r.line,
                              fmt::format("step {}: {} is {:g}; expected the share of responses at the maximum "
                                          "length, in [0, 1]",
                                          r.step, key, v)));
      }
      const bool time = key.rfind("timing", 0) == 0;
      const bool length = key == "prompt_length/mean" || key == "response_length/mean" ||
                          key == "train/mean_prompt_length" || key == "train/mean_gen_tokens_per_sample";
      if (!time && !length) continue;
      const double max = time ? 1e6 : 1e7;
      if (!(v >= 0 && v <= max)) {
        return Fail(LineError(log.path, r.line,
                              fmt::format("step {}: {} is {:g}; expected {} in [0, {:g}]", r.step, key, v,
                                          time ? "a time in seconds" : "a length in tokens", max)));
      }
    }
    LoggedStep s;
    s.step = r.step;
    s.line = r.line;
    // veRL: timing_s/*, NeMo RL: timing/train/* (prefix="timing/train" in
    // nemo_rl/algorithms/grpo.py's logger.log_metrics calls).
    // veRL before timing_s/ (late 2024, e.g. commit 50ac725): timing/gen,
    // timing/ref, timing/values, timing/adv, timing/update_critic,
    // timing/update_actor and no step total (eric-haibin-lin/verl-data,
    // branch experiments, gsm8k/*.log).
    s.gen_s = Get(r, {"timing_s/gen", "timing/train/generation", "timing/gen"});
    s.update_s = Get(r, {"timing_s/update_actor", "timing/train/policy_training", "timing/update_actor"});
    double old_lp = Get(r, {"timing_s/old_log_prob"});
    double ref = Get(r, {"timing_s/ref", "timing_s/ref_log_prob", "timing/ref"});
    double nemo_lp = Get(r, {"timing/train/policy_and_reference_logprobs", "timing/train/get_logprobs"});
    if (nemo_lp >= 0) s.logprob_s = nemo_lp;
    else if (old_lp >= 0 || ref >= 0) s.logprob_s = std::max(old_lp, 0.0) + std::max(ref, 0.0);
    s.sync_s = Get(r, {"timing_s/update_weights", "timing/train/prepare_for_generation/total",
                       "timing/train/prepare_for_generation", "timing/train/weight_sync"});
    s.prompt_mean = Get(r, {"prompt_length/mean", "train/mean_prompt_length"});
    s.response_mean = Get(r, {"response_length/mean", "train/mean_gen_tokens_per_sample"});
    s.clip_ratio = Get(r, {"response_length/clip_ratio"});
    double step = Get(r, {"timing_s/step", "timing/train/total_step_time"});
    if (step >= 0) {
      s.step_s = step;
      s.step_s_logged = true;
    } else {
      s.step_s = std::max(s.gen_s, 0.0) + std::max(s.update_s, 0.0) + std::max(s.logprob_s, 0.0) +
                 std::max(s.sync_s, 0.0);
      // Early veRL's critic phases (values, update_critic) and advantages.
      for (const char* k : {"timing/values", "timing/update_critic", "timing/adv"}) s.step_s += std::max(Get(r, {k}), 0.0);
    }
    // A record with no timing at all (e.g. a validation-only line) is skipped.
    if (s.step_s <= 0 && s.gen_s < 0 && s.update_s < 0) continue;
    if (s.step_s <= 0) {
      return Fail(LineError(log.path, r.line, "step " + std::to_string(r.step) + ": step time is zero"));
    }
    if (s.gen_s >= 0 || s.update_s >= 0) any_gen_or_update = true;
    out.push_back(s);
  }
  if (out.empty()) {
    return Fail(LineError(log.path, 0, "no step carries a timing (timing_s/step, timing_s/gen, timing/train/total_step_time, ...)"));
  }
  if (!any_gen_or_update) {
    return Fail(LineError(log.path, 0, "no step carries a generation or update time (timing_s/gen, timing_s/update_actor, timing/train/generation, timing/train/policy_training)"));
  }
  return out;
}

}  // namespace rlcost::calib
