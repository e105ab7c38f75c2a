// Reading a real training log for `rlcost calibrate` (one file per format:
// verl_console_log.cc, jsonl_log.cc, tensorboard_json_log.cc, wandb_csv_log.cc).
//
//   auto log = rlcost::calib::ParseTrainingLogFile("run.log");
//   auto steps = rlcost::calib::ExtractPhases(*log);   // per-step phase times + mean lengths
//
// Five shapes are read (the format is detected from the text):
//  - veRL console lines: "step:1 - timing_s/gen:42.9 - timing_s/update_actor:82.6 - ..."
//    (keys separated by " - ", "key:value", values numbers; a "(pid=...)" or
//    timestamp prefix before "step:" is allowed; np.float64(x) wrappers too).
//    Lines without a "step:N" field are skipped (a console log holds much else).
//  - JSONL: one JSON object per non-empty line with a step ("step" or "_step",
//    else the line's order) and flat metric keys (veRL's or NeMo RL's names),
//    or veRL's file logger {"step": N, "data": {metric: value}}.
//  - wandb CSV export: a header with a step column (_step or Step) and
//    metric columns ("<run> - metric" in the run page's export).
//  - NeMo RL TensorBoard dump: one JSON object {metric: {step: value}} (the
//    shape of NeMo RL's tests/json_dump_tb_logs.py output).
// Key names: docs/model.md (validation section), "Calibration".
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rlcost/error.h"

namespace rlcost::calib {

struct LogRecord {
  int step = 0;
  int line = 0;  // 1-based line in the file (0 for the TensorBoard dump)
  std::map<std::string, double> values;
};

struct TrainingLog {
  std::string path;
  std::string format;  // "verl-console" | "jsonl" | "verl-file-logger" | "tensorboard-json" | "wandb-csv"
  std::vector<LogRecord> records;
};

Result<TrainingLog> ParseTrainingLogText(std::string_view text, const std::string& origin);

// What a reader keeps of each line: every metric key is counted in `counts`
// (when given), and a record keeps the values of the keys `keep` accepts (all
// when unset). A forecast of a million-line console log keeps a few keys a
// step, not the line's hundred.
struct KeyFilter {
  std::function<bool(std::string_view)> keep;
  std::map<std::string, int>* counts = nullptr;
  bool drop_comment_lines = false;  // lines whose first non-blank is '#' are read as blank
};
// True when ParseTrainingLogText reads a log whose first non-blank line is
// `first_line` as veRL console lines (not JSON, not a CSV export).
bool IsConsoleLog(std::string_view first_line, const std::string& origin);
Result<TrainingLog> ParseTrainingLogFile(const std::string& path);

// One logged training step, in the terms the fit uses. NaN = not logged.
struct LoggedStep {
  int step = 0;
  int line = 0;
  double step_s = 0;         // whole step (timing_s/step, timing/train/total_step_time)
  bool step_s_logged = false;  // false: step_s is the sum of the phases below
  double gen_s = -1;         // generation (timing_s/gen, timing/train/generation)
  double update_s = -1;      // policy update (timing_s/update_actor, timing/train/policy_training)
  double logprob_s = -1;     // old log-prob + reference passes
  double sync_s = -1;        // weight sync (timing_s/update_weights, .../prepare_for_generation/total)
  double prompt_mean = -1;   // mean prompt tokens this step
  double response_mean = -1; // mean response tokens this step
  // Share of this step's responses that stopped at the maximum length, in
  // [0, 1]: veRL's response_length/clip_ratio, the mean of
  // (response_length == max_response_length) over the batch
  // (verl/trainer/ppo/metric_utils.py, compute_data_metrics). -1 when not logged.
  double clip_ratio = -1;
};

// Maps the log's keys to phases. Fails (naming file:line) when a step has no
// timing at all, or when no step carries a generation or an update time.
Result<std::vector<LoggedStep>> ExtractPhases(const TrainingLog& log);

// Parses "42.9", "1e3", "np.float64(42.9)", "tensor(42.9)"; nullopt otherwise.
std::optional<double> ParseLogNumber(std::string_view s);

}  // namespace rlcost::calib
