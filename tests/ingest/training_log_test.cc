// Training logs of each format `rlcost calibrate` reads: the same records in
// veRL's console, veRL's file logger, two wandb CSV exports and NeMo RL's
// JSONL give the same phases; every malformed line is named file:line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "fit/calibrate.h"
#include "ingest/training_log.h"
#include "support.h"

namespace rlcost::calib {
namespace {

const std::string kIngest = std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/logs/";
const std::string kLogs = std::string(RLCOST_SOURCE_DIR) + "/tests/data/logs/";

std::vector<LoggedStep> Phases(const std::string& path, std::string* format = nullptr) {
  auto log = ParseTrainingLogFile(path);
  EXPECT_TRUE(log) << (log ? "" : log.error().ToString());
  if (!log) return {};
  if (format) *format = log->format;
  auto steps = ExtractPhases(*log);
  EXPECT_TRUE(steps) << (steps ? "" : steps.error().ToString());
  return steps ? *steps : std::vector<LoggedStep>{};
}

TEST(TrainingLog, EveryFormatGivesTheConsoleLogsPhases) {
  const auto console = Phases(kLogs + "verl_qwen25_7b_8xh100.log");
  ASSERT_EQ(console.size(), 20u);
  const std::pair<const char*, const char*> files[] = {{"verl_file_logger.jsonl", "verl-file-logger"},
                                                       {"wandb_history.csv", "wandb-csv"},
                                                       {"wandb_run_page.csv", "wandb-csv"}};
  for (const auto& [file, want_format] : files) {
    std::string format;
    const auto got = Phases(kIngest + file, &format);
    EXPECT_EQ(format, want_format) << file;
    ASSERT_EQ(got.size(), console.size()) << file;
    for (size_t i = 0; i < got.size(); ++i) {
      EXPECT_EQ(got[i].step, console[i].step) << file;
      EXPECT_DOUBLE_EQ(got[i].step_s, console[i].step_s) << file << " step " << got[i].step;
      EXPECT_TRUE(got[i].step_s_logged) << file;
      EXPECT_DOUBLE_EQ(got[i].gen_s, console[i].gen_s) << file;
      EXPECT_DOUBLE_EQ(got[i].update_s, console[i].update_s) << file;
      EXPECT_DOUBLE_EQ(got[i].logprob_s, console[i].logprob_s) << file;
      EXPECT_DOUBLE_EQ(got[i].sync_s, console[i].sync_s) << file;
      EXPECT_DOUBLE_EQ(got[i].response_mean, console[i].response_mean) << file;
    }
  }
  std::string format;
  EXPECT_EQ(Phases(kLogs + "nemo_llama8b_16xh100.jsonl", &format).size(), 12u);
  EXPECT_EQ(format, "jsonl");
}

// The same fit from the file logger as from the console.
TEST(TrainingLog, FileLoggerFitsLikeTheConsole) {
  Scenario s = test::LoadFile(kLogs + "verl_qwen25_7b_8xh100.scenario.yaml");
  auto a = FitCalibration(s, Phases(kLogs + "verl_qwen25_7b_8xh100.log"), "console");
  auto b = FitCalibration(s, Phases(kIngest + "verl_file_logger.jsonl"), "file logger");
  ASSERT_TRUE(a && b);
  EXPECT_DOUBLE_EQ(a->calibration.efficiency.decode_bw, b->calibration.efficiency.decode_bw);
  EXPECT_DOUBLE_EQ(a->calibration.efficiency.train_mfu, b->calibration.efficiency.train_mfu);
  EXPECT_DOUBLE_EQ(a->calibration.error_after, b->calibration.error_after);
}

// A log without a whole-step time: the phases are fitted, and the fit says so.
TEST(TrainingLog, NoStepTimeFitsThePhasesOnly) {
  namespace fs = std::filesystem;
  const fs::path p = fs::temp_directory_path() / ("rlcost_nostep_" + std::to_string(::getpid()) + ".jsonl");
  {
    std::ifstream in(kIngest + "verl_file_logger.jsonl");
    std::ofstream out(p);
    for (std::string line; std::getline(in, line);) {
      const size_t at = line.find("\"timing_s/step\": ");
      ASSERT_NE(at, std::string::npos);
      const size_t end = line.find_first_of(",}", at);
      out << line.substr(0, at) << "\"other\": 0" << line.substr(end) << "\n";
    }
  }
  const auto steps = Phases(p.string());
  fs::remove(p);
  ASSERT_EQ(steps.size(), 20u);
  EXPECT_FALSE(steps[0].step_s_logged);
  Scenario s = test::LoadFile(kLogs + "verl_qwen25_7b_8xh100.scenario.yaml");
  auto fit = FitCalibration(s, steps, "no step time");
  ASSERT_TRUE(fit) << fit.error().ToString();
  bool said = false;
  for (const auto& n : fit->calibration.notes) said = said || n.find("no whole-step time") != std::string::npos;
  EXPECT_TRUE(said);
  for (const auto& f : fit->calibration.fitted) EXPECT_NE(f, "step_overhead_s");
}

// veRL before timing_s/ (commit 50ac725, Dec 2024) logged timing/gen,
// timing/ref, timing/values, timing/adv, timing/update_critic and
// timing/update_actor and no step total: the step is their sum. Step 0 of
// the verl-data example log: 18.859 + 5.501 + 5.664 + 0.058 + 16.185 +
// 20.611 = 66.878 s (../shared/curves/verl_ppo_qwen2.5-0.5b-instruct_gsm8k_resp512.csv
// has the same 66.878 for step 0).
TEST(TrainingLog, EarlyVerlTimingKeysGiveThePhasesAndTheirSum) {
  const auto steps = Phases(kIngest + "verl_early_timing.log");
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_DOUBLE_EQ(steps[0].gen_s, 18.859);
  EXPECT_DOUBLE_EQ(steps[0].update_s, 20.611);
  EXPECT_DOUBLE_EQ(steps[0].logprob_s, 5.501);
  EXPECT_FALSE(steps[0].step_s_logged);
  EXPECT_NEAR(steps[0].step_s, 66.878, 1e-9);
  EXPECT_NEAR(steps[2].step_s, 18.156 + 5.372 + 5.673 + 0.058 + 16.093 + 20.593, 1e-9);
}

struct Malformed {
  const char* name;     // file name (its extension picks nothing: the text does)
  const char* text;
  int line;             // the line the error names
  const char* message;  // part of it
};

TEST(TrainingLog, MalformedLinesNameFileAndLine) {
  const Malformed cases[] = {
      {"console.log", "hello\nstep:1 - timing_s/gen:12 - timing_s/step:20\nstep:2 - timing_s/gen:abc\n", 3,
       "timing_s/gen: \"abc\" is not a number"},
      {"console2.log", "step:1 - timing_s/gen:12 - oops\n", 1, "expected key:value"},
      {"flat.jsonl", "{\"step\": 1, \"timing_s/gen\": 3}\n{\"step\": 2, \"timing_s/gen\": 3\n", 2, "not valid JSON"},
      {"filelogger.jsonl", "{\"step\": 1, \"data\": {\"timing_s/gen\": 3}}\n{\"step\": 2, \"data\": 7}\n", 2,
       "data: expected an object of metrics"},
      {"filelogger2.jsonl", "{\"step\": 1, \"data\": {\"timing_s/gen\": \"fast\"}}\n", 1,
       "timing_s/gen: \"fast\" is not a number"},
      {"wandb.csv", "_step,timing_s/gen,timing_s/step\n1,3,5\n2,3\n", 3, "expected 3 fields as in the header, got 2"},
      {"wandb2.csv", "_step,timing_s/gen\n1,3\nx,4\n", 3, "is not a step number"},
      {"wandb3.csv", "_step,timing_s/gen\n1,\"3\n", 2, "unclosed quote"},
      {"nostep.csv", "_runtime,timing_s/gen\n1,3\n", 1, "no step column"},
      // Steps no int holds (a cast of them was undefined behaviour: fuzz_log).
      {"hugestep.log", "step:1 - timing_s/gen:3\nstep:1e300 - timing_s/gen:3\n", 2,
       "step: \"1e300\" is not a step number (expected a whole number from 0 to 2147483647)"},
      {"negstep.jsonl", "{\"step\": -4, \"timing_s/gen\": 3}\n", 1, "step: -4 is not a step number"},
      {"halfstep.jsonl", "{\"step\": 2.5, \"timing_s/gen\": 3}\n", 1, "step: 2.5 is not a step number"},
      {"nanstep.csv", "_step,timing_s/gen\n1,3\nnan,4\n", 3, "_step: \"nan\" is not a step number"},
      {"hugestep.json", "{\"timing_s/gen\": {\"1e12\": 3}}", 0, "expected an integer step"},
  };
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("rlcost_badlogs_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const auto& c : cases) {
    const std::string path = (dir / c.name).string();
    std::ofstream(path) << c.text;
    auto log = ParseTrainingLogFile(path);
    ASSERT_FALSE(log) << c.name;
    const Problem& p = log.error().problems.at(0);
    EXPECT_EQ(p.file, path) << c.name;
    EXPECT_EQ(p.line, c.line) << c.name << ": " << p.ToString();
    EXPECT_NE(p.message.find(c.message), std::string::npos) << c.name << ": " << p.ToString();
  }
  fs::remove_all(dir);
}

// veRL's response_length/clip_ratio (verl/trainer/ppo/metric_utils.py,
// compute_data_metrics): kept per step, its mean reported by the fit, and the
// fit prices the steps with that share of responses at the maximum length.
TEST(TrainingLog, ClipRatioIsKeptReportedAndPriced) {
  const auto steps = Phases(kIngest + "verl_clip_ratio.log");
  ASSERT_EQ(steps.size(), 4u);
  const double want[] = {0.0312, 0.0469, 0.0391, 0.0625};
  for (size_t i = 0; i < 4; ++i) EXPECT_DOUBLE_EQ(steps[i].clip_ratio, want[i]) << i;
  // A log without the key: -1 (not logged).
  EXPECT_EQ(Phases(kLogs + "verl_qwen25_7b_8xh100.log").front().clip_ratio, -1);

  // The scenario: lognormal responses mean 1000, cv 0.8, max 4096, whose own
  // tail beyond 4096 is 1 - Phi((ln 4096 - mu) / sigma) with sigma^2 =
  // ln(1.64), mu = ln 1000 - sigma^2 / 2: z = 2.357, 0.92% < 4.49% logged.
  Scenario s = test::LoadFile(kLogs + "verl_qwen25_7b_8xh100.scenario.yaml");
  auto fit = FitCalibration(s, steps, "clip");
  ASSERT_TRUE(fit) << fit.error().ToString();
  ASSERT_TRUE(fit->calibration.response_clip_ratio.has_value());
  EXPECT_NEAR(*fit->calibration.response_clip_ratio, 0.1797 / 4, 1e-12);  // (0.0312 + 0.0469 + 0.0391 + 0.0625) / 4
  std::string notes;
  for (const auto& n : fit->calibration.notes) notes += n + "\n";
  EXPECT_NE(notes.find("response_length/clip_ratio averages 0.04492 over 4 steps"), std::string::npos) << notes;
  EXPECT_NE(notes.find("environment.response_tokens.clipped = 0.03"), std::string::npos) << notes;
  // Priced with the share at max, the predicted generation is longer than without.
  std::vector<LoggedStep> no_ratio = steps;
  for (auto& st : no_ratio) st.clip_ratio = -1;
  auto plain = FitCalibration(s, no_ratio, "plain");
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->calibration.response_clip_ratio.has_value());
  auto gen = [](const FitResult& f) {
    for (const auto& p : f.phases) {
      if (p.phase == "generation") return p.predicted_before_mean_s;
    }
    return -1.0;
  };
  EXPECT_GT(gen(*fit), gen(*plain));
  EXPECT_GT(gen(*plain), 0);
  // The calibration file keeps it.
  auto back = ParseCalibrationText(CalibrationToYaml(fit->calibration), "cal.yaml");
  ASSERT_TRUE(back) << back.error().ToString();
  ASSERT_TRUE(back->response_clip_ratio.has_value());
  EXPECT_NEAR(*back->response_clip_ratio, 0.044925, 1e-6);

  // Out of [0, 1]: an error naming file:line, the value and what was expected.
  auto bad = ParseTrainingLogText("step:1 - timing_s/gen:5 - timing_s/step:9 - response_length/clip_ratio:1.5\n", "x.log");
  ASSERT_TRUE(bad);
  auto err = ExtractPhases(*bad);
  ASSERT_FALSE(err);
  EXPECT_NE(err.error().ToString().find("x.log:1"), std::string::npos) << err.error().ToString();
  EXPECT_NE(err.error().ToString().find("response_length/clip_ratio is 1.5; expected the share of responses at the "
                                        "maximum length, in [0, 1]"),
            std::string::npos)
      << err.error().ToString();
}

}  // namespace
}  // namespace rlcost::calib
