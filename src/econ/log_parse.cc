#include "econ/log_parse.h"

#include "core/file.h"

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

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

Error LineError(const std::string& file, int line, std::string message) {
  Error e(ErrorCode::kInvalidInput, "", std::move(message));
  e.problems[0].file = file;
  e.problems[0].line = line;
  return e;
}

// Keys whose values the fit reads: a malformed value there is an error, while
// other keys of a console line (strings, lists) are skipped.
bool IsUsedKey(std::string_view key) {
  return key == "step" || key.substr(0, 9) == "timing_s/" || key.substr(0, 7) == "timing/" ||
         key == "prompt_length/mean" || key == "response_length/mean" ||
         key == "train/mean_prompt_length" || key == "train/mean_gen_tokens_per_sample";
}

// The position of a "step:<digits>" field that starts a veRL metrics line
// (at the start or after a space / ')' of a "(main_task pid=..)" prefix).
size_t FindStepField(std::string_view line) {
  size_t pos = 0;
  while ((pos = line.find("step:", pos)) != std::string_view::npos) {
    bool starts = pos == 0 || line[pos - 1] == ' ' || line[pos - 1] == ')' || line[pos - 1] == '\t';
    size_t d = pos + 5;
    if (starts && d < line.size() && std::isdigit(static_cast<unsigned char>(line[d]))) return pos;
    pos += 5;
  }
  return std::string_view::npos;
}

Result<TrainingLog> ParseConsole(std::string_view text, const std::string& origin) {
  TrainingLog log;
  log.path = origin;
  log.format = "verl-console";
  int line_no = 0;
  std::istringstream in{std::string(text)};
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = Trim(raw);
    size_t at = FindStepField(line);
    if (at == std::string_view::npos) continue;  // not a metrics line
    line.remove_prefix(at);
    LogRecord rec;
    rec.line = line_no;
    bool have_step = false;
    size_t start = 0;
    while (start <= line.size()) {
      size_t sep = line.find(" - ", start);
      std::string_view field = Trim(line.substr(start, sep == std::string_view::npos ? std::string_view::npos : sep - start));
      start = sep == std::string_view::npos ? line.size() + 1 : sep + 3;
      if (field.empty()) continue;
      // The key may itself hold ':' only in odd loggers; split at the last ':'
      // so "val-core/math:acc/mean@1:0.5" still reads.
      size_t colon = field.rfind(':');
      if (colon == std::string_view::npos) {
        return Fail(LineError(origin, line_no, "expected key:value separated by \" - \", got \"" + std::string(field) + "\""));
      }
      std::string key(Trim(field.substr(0, colon)));
      std::string_view val = Trim(field.substr(colon + 1));
      auto v = ParseLogNumber(val);
      if (!v) {
        if (IsUsedKey(key)) {
          return Fail(LineError(origin, line_no, key + ": \"" + std::string(val) + "\" is not a number"));
        }
        continue;
      }
      if (key == "step") {
        rec.step = static_cast<int>(*v);
        have_step = true;
      } else {
        rec.values[key] = *v;
      }
    }
    if (!have_step) return Fail(LineError(origin, line_no, "step: missing"));
    log.records.push_back(std::move(rec));
  }
  if (log.records.empty()) {
    return Fail(LineError(origin, 0, "no metrics lines found (expected veRL console lines \"step:N - key:value - ...\", JSONL, or a NeMo RL metrics JSON)"));
  }
  return log;
}

Result<TrainingLog> ParseJsonl(std::string_view text, const std::string& origin) {
  TrainingLog log;
  log.path = origin;
  log.format = "jsonl";
  int line_no = 0;
  int order = 0;
  std::istringstream in{std::string(text)};
  std::string raw;
  while (std::getline(in, raw)) {
    ++line_no;
    std::string_view line = Trim(raw);
    if (line.empty()) continue;
    nlohmann::json j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (j.is_discarded()) return Fail(LineError(origin, line_no, "not valid JSON"));
    if (!j.is_object()) return Fail(LineError(origin, line_no, "expected one JSON object per line"));
    LogRecord rec;
    rec.line = line_no;
    rec.step = ++order;
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& key = it.key();
      std::optional<double> v;
      if (it->is_number()) v = it->get<double>();
      else if (it->is_string()) v = ParseLogNumber(it->get<std::string>());
      if (!v) {
        if (IsUsedKey(key) || key == "_step") {
          return Fail(LineError(origin, line_no, key + ": " + it->dump() + " is not a number"));
        }
        continue;
      }
      if (key == "step" || key == "_step") {
        rec.step = static_cast<int>(*v);
      } else {
        rec.values[key] = *v;
      }
    }
    log.records.push_back(std::move(rec));
  }
  return log;
}

// {metric: {step: value}} as one JSON document.
Result<TrainingLog> ParseTensorboardJson(const nlohmann::json& j, const std::string& origin) {
  TrainingLog log;
  log.path = origin;
  log.format = "tensorboard-json";
  std::map<int, LogRecord> by_step;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (!it->is_object()) {
      return Fail(LineError(origin, 0, it.key() + ": expected a mapping of step -> value"));
    }
    for (auto s = it->begin(); s != it->end(); ++s) {
      auto step = ParseLogNumber(s.key());
      if (!step || !s->is_number()) {
        return Fail(LineError(origin, 0, it.key() + "." + s.key() + ": expected an integer step and a number"));
      }
      auto& rec = by_step[static_cast<int>(*step)];
      rec.step = static_cast<int>(*step);
      rec.values[it.key()] = s->get<double>();
    }
  }
  for (auto& [k, r] : by_step) log.records.push_back(std::move(r));
  return log;
}

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
    nlohmann::json whole = nlohmann::json::parse(t, nullptr, false);
    if (!whole.is_discarded() && whole.is_object() && !whole.empty() && whole.begin()->is_object()) {
      return ParseTensorboardJson(whole, origin);
    }
    return ParseJsonl(text, origin);
  }
  return ParseConsole(text, origin);
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
    s.gen_s = Get(r, {"timing_s/gen", "timing/train/generation"});
    s.update_s = Get(r, {"timing_s/update_actor", "timing/train/policy_training"});
    double old_lp = Get(r, {"timing_s/old_log_prob"});
    double ref = Get(r, {"timing_s/ref", "timing_s/ref_log_prob"});
    double nemo_lp = Get(r, {"timing/train/policy_and_reference_logprobs", "timing/train/get_logprobs"});
    if (nemo_lp >= 0) s.logprob_s = nemo_lp;
    else if (old_lp >= 0 || ref >= 0) s.logprob_s = std::max(old_lp, 0.0) + std::max(ref, 0.0);
    s.sync_s = Get(r, {"timing_s/update_weights", "timing/train/prepare_for_generation/total",
                       "timing/train/prepare_for_generation", "timing/train/weight_sync"});
    s.prompt_mean = Get(r, {"prompt_length/mean", "train/mean_prompt_length"});
    s.response_mean = Get(r, {"response_length/mean", "train/mean_gen_tokens_per_sample"});
    double step = Get(r, {"timing_s/step", "timing/train/total_step_time"});
    if (step >= 0) {
      s.step_s = step;
      s.step_s_logged = true;
    } else {
      s.step_s = std::max(s.gen_s, 0.0) + std::max(s.update_s, 0.0) + std::max(s.logprob_s, 0.0) +
                 std::max(s.sync_s, 0.0);
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
