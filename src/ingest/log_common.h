// Internal to src/ingest: what the training-log readers share (one file per
// format: verl_console_log.cc, jsonl_log.cc, tensorboard_json_log.cc,
// wandb_csv_log.cc; training_log.cc detects the format).
#pragma once

#include <climits>
#include <cmath>
#include <istream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/count.h"
#include "ingest/training_log.h"

namespace rlcost::calib::log_internal {

inline std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

inline Error LineError(const std::string& file, int line, std::string message) {
  Error e(ErrorCode::kInvalidInput, "", std::move(message));
  e.problems[0].file = file;
  e.problems[0].line = line;
  return e;
}

// A step number as the logs write it (1, 12.0): a whole number from 0 to
// INT_MAX, or nothing (NaN, 1e300, -3 and 2.5 are not steps; a cast of them to
// int is undefined behaviour, found by fuzz_log).
inline std::optional<int> StepNumber(double v) { return WholeNumber(v, 0, INT_MAX); }

inline std::string NotAStep(std::string_view key, std::string_view shown) {
  return std::string(key) + ": " + std::string(shown) + " is not a step number (expected a whole number from 0 to " +
         std::to_string(INT_MAX) + ")";
}

// Keys whose values the fit reads: a malformed value there is an error, while
// other keys of a console line (strings, lists) are skipped.
inline bool IsUsedKey(std::string_view key) {
  return key == "step" || key.substr(0, 9) == "timing_s/" || key.substr(0, 7) == "timing/" ||
         key == "prompt_length/mean" || key == "response_length/mean" || key == "response_length/clip_ratio" ||
         key == "train/mean_prompt_length" || key == "train/mean_gen_tokens_per_sample";
}

// Splits one CSV line (RFC 4180 quoting); false when a quote is left open.
bool SplitCsv(std::string_view line, std::vector<std::string>& out);

Result<TrainingLog> ParseConsole(std::string_view text, const std::string& origin);
// veRL console lines read from a stream, line by line: the same records and
// errors as ParseConsole on the whole text, less what `filter` drops.
Result<TrainingLog> ParseConsoleStream(std::istream& in, const std::string& origin, const KeyFilter& filter);
Result<TrainingLog> ParseJsonl(std::string_view text, const std::string& origin);
// JSON lines read from a stream, line by line: the same records and errors as
// ParseJsonl on the whole text, less what `filter` drops.
Result<TrainingLog> ParseJsonlStream(std::istream& in, const std::string& origin, const KeyFilter& filter);
Result<TrainingLog> ParseTensorboardJson(const nlohmann::json& j, const std::string& origin);
Result<TrainingLog> ParseWandbCsv(std::string_view text, const std::string& origin);

}  // namespace rlcost::calib::log_internal
