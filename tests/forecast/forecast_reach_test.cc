// `rlcost forecast` where the answer is in the log or out of reach (issue
// 39): a target the logged points already reach is reached at the logged
// step; one above the fitted curve's ceiling is "beyond reach", never a step;
// a bootstrap never reads "0 of 0"; the smoothing window of a long (binned)
// log counts logged points; a CSV is read as a stream; the back-test's text
// has column headers.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "forecast/backtest_report.h"
#include "forecast/forecast.h"
#include "forecast/render.h"

namespace {

using namespace rlcost::forecast;

// A CSV of val_acc every 10 steps (steps 9, 19, ..., 139) rising to about
// 0.53 with noise: 0.531 is logged at steps 99 and 119, while the fitted
// curve levels off a little above 0.52.
std::string ValAccCsv() {
  const double v[] = {0.30, 0.38, 0.43, 0.46, 0.485, 0.50, 0.505, 0.515, 0.512, 0.531, 0.52, 0.531, 0.514, 0.522};
  std::string csv = "step,val_acc\n";
  for (int i = 0; i < 14; ++i) csv += std::to_string(9 + 10 * i) + "," + std::to_string(v[i]) + "\n";
  return csv;
}

ProgressSeries Read(const std::string& csv) {
  auto s = ReadProgressText(csv, "run.csv", {});
  EXPECT_TRUE(s) << (s ? "" : s.error().ToString());
  return s ? *s : ProgressSeries{};
}

TEST(ForecastReach, ATargetTheLogReachedIsReachedAtTheLoggedStep) {
  const ProgressSeries s = Read(ValAccCsv());
  Options o;
  o.target = 0.53;
  auto r = Forecast(s, o);
  ASSERT_TRUE(r) << r.error().ToString();
  EXPECT_TRUE(r->ok) << r->reason;
  EXPECT_TRUE(r->already_reached);
  EXPECT_EQ(r->steps_to_target, 99);  // the first logged value at or above 0.53
  EXPECT_DOUBLE_EQ(r->reached_value, 0.531);
  const std::string text = ToText(s, *r, StepCost{});
  EXPECT_NE(text.find("reached at step 99 in the log (logged value 0.531, and again later)"), std::string::npos) << text;
  EXPECT_EQ(text.find("0 of 0"), std::string::npos) << text;
  EXPECT_EQ(text.find("by the fitted curve"), std::string::npos) << text;
  const auto j = ToJson(s, *r, StepCost{});
  EXPECT_EQ(j["forecast"]["already_reached"], true);
  EXPECT_EQ(j["forecast"]["steps_to_target"], 99);
  // With --smooth 1 the +-1 average first reaches 0.525 at step 109:
  // (0.531 + 0.52 + 0.531) / 3 = 0.5273; at 99 (0.512 + 0.531 + 0.52) / 3 = 0.521.
  o.target = 0.525;
  o.half_window = 1;
  r = Forecast(s, o);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->already_reached);
  EXPECT_EQ(r->steps_to_target, 109);
  EXPECT_NEAR(r->reached_value, 1.582 / 3, 1e-12);
}

TEST(ForecastReach, ATargetAboveTheFittedCeilingIsBeyondReach) {
  const ProgressSeries s = Read(ValAccCsv());
  Options o;
  o.target = 0.56;  // above every logged value and the curve's ceiling
  o.replicates = 200;
  auto r = Forecast(s, o);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_TRUE(r->fitted);
  ASSERT_LT(r->curve.Asymptote(), 0.56);
  EXPECT_FALSE(r->ok);
  EXPECT_TRUE(r->beyond_reach);
  EXPECT_NE(r->reason.find("beyond reach"), std::string::npos) << r->reason;
  const std::string text = ToText(s, *r, StepCost{});
  EXPECT_NE(text.find("steps to target: n/a: the target 0.56 is beyond reach"), std::string::npos) << text;
  EXPECT_EQ(text.find("of 0 bootstrap"), std::string::npos) << text;
  EXPECT_GT(r->replicates, 0);
  const auto j = ToJson(s, *r, StepCost{});
  EXPECT_EQ(j["forecast"]["steps_to_target"], "n/a");
  EXPECT_EQ(j["forecast"]["beyond_reach"], true);
}

// A long run: 40,000 steps, one point each, a sigmoid from 0.2 to 0.6 whose
// noiseless value crosses 0.5 at step 21,600 (C_mid 16,000, B 3:
// s = 0.75 => C = 16,000 * 3^(1/3) = 23,076; see below for the exact step).
ProgressSeries LongRun() {
  std::string csv = "step,val_acc\n";
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0.0, 0.004);
  for (int step = 1; step <= 40000; ++step) {
    const double v = 0.2 + 0.4 / (1.0 + std::pow(16000.0 / step, 3.0)) + noise(rng);
    csv += std::to_string(step) + "," + std::to_string(v) + "\n";
  }
  return Read(csv);
}

TEST(ForecastReach, ALongLogsWindowCountsLoggedPointsNotBins) {
  // Fitted on the first 18,000 steps (binned into 1,000 points of 18 each),
  // target 0.5: the noiseless curve crosses at C = 16,000 * 3^(1/3) = 23,076.
  // The +-2.5% window is 450 logged points, 25 bins; applied as 450 bins it
  // averaged 16,200 steps either side and put the step after the log's end.
  const ProgressSeries s = LongRun();
  Options o;
  o.target = 0.5;
  o.fit_until = 18000;
  o.replicates = 100;
  auto r = Forecast(s, o);
  ASSERT_TRUE(r) << r.error().ToString();
  ASSERT_TRUE(r->ok) << r->reason;
  EXPECT_TRUE(r->binned);
  EXPECT_NEAR(r->steps_to_target, 23076, 0.15 * 23076);
  EXPECT_LT(r->steps_to_target, 40000);  // before the log's end, where the log crosses it
  // Fitted on the whole log, the target is in it: reached at the logged step.
  o.fit_until.reset();
  r = Forecast(s, o);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->already_reached);
  EXPECT_EQ(r->steps_to_target, FirstReached(s, 0.5, 0));
  EXPECT_LT(r->steps_to_target, 24000);
}

TEST(ForecastReach, TheStreamedCsvKeepsTheLastLineOfARedoneStep) {
  // Steps 1..6, then a resume at step 4: steps 4..6 from the later lines.
  const std::string csv =
      "# a comment\nstep,val_acc,step_time_s\n1,0.1,10\n2,0.2,10\n3,0.3,10\n4,0.4,10\n5,0.5,10\n6,0.6,10\n"
      "4,0.41,12\n5,0.51,12\n6,0.61,12\n7,0.7,12\n";
  const ProgressSeries s = Read(csv);
  ASSERT_EQ(s.points.size(), 7u);
  EXPECT_DOUBLE_EQ(s.points[3].value, 0.41);
  EXPECT_EQ(s.points[3].line, 9);  // file lines, the comment counted
  EXPECT_DOUBLE_EQ(s.points[6].value, 0.7);
  ASSERT_EQ(s.resumes.size(), 1u);
  EXPECT_EQ(s.resumes[0].from_step, 6);
  EXPECT_EQ(s.resumes[0].to_step, 4);
  ASSERT_EQ(s.cost_steps.size(), 7u);
  EXPECT_DOUBLE_EQ(s.step_s[4], 12);  // step 5's later time
  // A step column that starts again is an error naming the line.
  auto bad = ReadProgressText("step,val_acc\n1,0.1\n2,0.2\n1,0.3\n", "two.csv", {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("two.csv:4: the step column starts again"), std::string::npos)
      << bad.error().ToString();
  // A malformed field count, with its line.
  bad = ReadProgressText("step,val_acc\n1,0.1\n2\n", "short.csv", {});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("short.csv:3"), std::string::npos) << bad.error().ToString();
}

TEST(ForecastReach, TheStreamedFileAndTheTextGiveTheSameSeries) {
  const std::string csv = ValAccCsv();
  const auto path = std::filesystem::temp_directory_path() / ("rlcost_reach_" + std::to_string(::getpid()) + ".csv");
  std::ofstream(path) << csv;
  auto a = ReadProgressFile(path.string(), {});
  auto b = ReadProgressText(csv, path.string(), {});
  std::filesystem::remove(path);
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->points.size(), b->points.size());
  for (size_t i = 0; i < a->points.size(); ++i) {
    EXPECT_EQ(a->points[i].step, b->points[i].step);
    EXPECT_EQ(a->points[i].value, b->points[i].value);
  }
  EXPECT_EQ(a->metric, "val_acc");
  EXPECT_EQ(a->format, "csv");
}

TEST(ForecastReach, TheBacktestTextHasColumnHeaders) {
  const ProgressSeries s = LongRun();
  Options o;
  o.replicates = 50;
  BacktestRun bt = RunBacktest({s}, o, {0.5});
  ASSERT_FALSE(bt.cases.empty());
  const std::string text = BacktestToMarkdown(bt, false);
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line) && line.find("fitted") == std::string::npos) {
  }
  EXPECT_NE(line.find("fit until"), std::string::npos) << text;
  EXPECT_NE(line.find("true step"), std::string::npos) << text;
  EXPECT_NE(line.find("forecast"), std::string::npos) << text;
  // The next line's first column lines up under "fitted".
  std::string row;
  std::getline(in, row);
  EXPECT_EQ(row.find("50%"), line.find("fitted")) << text;
}

}  // namespace

namespace {
void ExpectSameSeries(const ProgressSeries& a, const ProgressSeries& b) {
  EXPECT_EQ(a.format, b.format);
  EXPECT_EQ(a.metric, b.metric);
  EXPECT_EQ(a.metric_chosen, b.metric_chosen);
  EXPECT_EQ(a.first_step, b.first_step);
  EXPECT_EQ(a.last_step, b.last_step);
  EXPECT_EQ(a.columns, b.columns);
  ASSERT_EQ(a.points.size(), b.points.size());
  for (size_t i = 0; i < a.points.size(); ++i) {
    EXPECT_EQ(a.points[i].step, b.points[i].step);
    EXPECT_EQ(a.points[i].value, b.points[i].value);
    EXPECT_EQ(a.points[i].line, b.points[i].line);
  }
  ASSERT_EQ(a.resumes.size(), b.resumes.size());
  for (size_t i = 0; i < a.resumes.size(); ++i) EXPECT_EQ(a.resumes[i].line, b.resumes[i].line);
  EXPECT_EQ(a.cost_steps, b.cost_steps);
  ASSERT_EQ(a.step_s.size(), b.step_s.size());
  for (size_t i = 0; i < a.step_s.size(); ++i) {
    EXPECT_TRUE(a.step_s[i] == b.step_s[i] || (std::isnan(a.step_s[i]) && std::isnan(b.step_s[i])));
    EXPECT_TRUE(a.step_gpu_hours[i] == b.step_gpu_hours[i] ||
                (std::isnan(a.step_gpu_hours[i]) && std::isnan(b.step_gpu_hours[i])));
  }
}

// Each of `texts` written to `path` fails to read, and the streamed reader
// (the file) and the whole-text reader (the same text posted) say the same.
void ExpectSameErrors(const std::filesystem::path& path, const std::vector<std::string>& texts) {
  for (const std::string& bad : texts) {
    std::ofstream(path) << bad;
    auto a = ReadProgressFile(path.string(), {});
    auto b = ReadProgressText(bad, path.string(), {});
    ASSERT_FALSE(a);
    ASSERT_FALSE(b);
    EXPECT_EQ(a.error().ToString(), b.error().ToString());
  }
}
}  // namespace

// A veRL console log read from a file is streamed (two passes, a few keys a
// line kept); the same text posted is read whole. Both give the same series:
// metric chosen among every key, comment lines, a resume, phase timings that
// make the step's time, a line of other output, and the same errors.
TEST(ForecastReach, TheStreamedConsoleLogAndTheTextGiveTheSameSeries) {
  std::string log = "# a comment line: step:99 - critic/score/mean:0.9\nINFO starting the trainer\n";
  for (int step = 1; step <= 40; ++step) {
    log += fmt::format("(main_task pid=7) step:{} - actor/entropy:0.5 - critic/score/mean:{} - timing_s/gen:{} - "
                       "timing_s/update_actor:{} - response_length/mean:{} - note:text\n",
                       step, 0.2 + 0.01 * step, 40 + step % 3, 20 + step % 5, 500 + step);
    if (step % 10 == 0) log += fmt::format("step:{} - val/test_score/gsm8k:{}\n", step, 0.3 + 0.005 * step);
    if (step == 30) log += "step:25 - critic/score/mean:0.44 - timing_s/gen:41 - timing_s/update_actor:21\n";
  }
  const auto path = std::filesystem::temp_directory_path() / ("rlcost_console_" + std::to_string(::getpid()) + ".log");
  std::ofstream(path) << log;
  for (const ReadOptions& o : {ReadOptions{}, ReadOptions{"critic/score/mean", 8}, ReadOptions{"actor/entropy", 0}}) {
    auto a = ReadProgressFile(path.string(), o);
    auto b = ReadProgressText(log, path.string(), o);
    ASSERT_TRUE(a && b) << (a ? b.error().ToString() : a.error().ToString());
    ExpectSameSeries(*a, *b);
  }
  EXPECT_EQ(ReadProgressFile(path.string(), {})->metric, "val/test_score/gsm8k");
  EXPECT_EQ(ReadProgressFile(path.string(), {})->format, "verl-console");
  EXPECT_FALSE(ReadProgressFile(path.string(), {"critic/score/mean", 0})->resumes.empty());
  // Errors: the same message, naming file:line, from both readers.
  ExpectSameErrors(path, {log + "step:41 - timing_s/gen:fast\n", log + "step:4.5 - critic/score/mean:0.5\n"});
  auto missing = ReadProgressFile(path.string(), {"no/such/key", 0});
  ASSERT_FALSE(missing);
  std::filesystem::remove(path);
}

// JSON lines read from a file are streamed too (veRL's file logger and flat
// NeMo RL-style lines); the same text posted is read whole. Both give the same
// series and the same errors; a TensorBoard dump (one object of objects) is
// still read whole from the file.
TEST(ForecastReach, TheStreamedJsonLinesAndTheTextGiveTheSameSeries) {
  std::string nested = "# written by the file logger\n";
  std::string flat;
  for (int step = 1; step <= 40; ++step) {
    nested += fmt::format(R"({{"step": {}, "data": {{"critic/score/mean": {}, "timing_s/gen": {}, "timing_s/update_actor": {}, "response_length/mean": {}, "note": "x"}}}})"
                          "\n",
                          step, 0.2 + 0.01 * step, 40 + step % 3, 20 + step % 5, 500 + step);
    flat += fmt::format(R"({{"step": {}, "train/reward": {}, "timing/train/generation": {}, "timing/train/policy_training": {}}})"
                        "\n",
                        step, 0.1 + 0.02 * step, 30 + step % 4, 15 + step % 3);
    if (step == 30) nested += R"({"step": 25, "data": {"critic/score/mean": 0.44, "timing_s/gen": 41}})" "\n";
  }
  const auto path = std::filesystem::temp_directory_path() / ("rlcost_jsonl_" + std::to_string(::getpid()) + ".jsonl");
  for (const std::string& log : {nested, flat}) {
    std::ofstream(path) << log;
    for (const ReadOptions& o : {ReadOptions{}, ReadOptions{"timing_s/gen", 8}}) {
      auto a = ReadProgressFile(path.string(), o);
      auto b = ReadProgressText(log, path.string(), o);
      ASSERT_EQ(bool(a), bool(b)) << (a ? b.error().ToString() : a.error().ToString());
      if (!a) {
        EXPECT_EQ(a.error().ToString(), b.error().ToString());
        continue;
      }
      ExpectSameSeries(*a, *b);
    }
  }
  std::ofstream(path) << nested;
  EXPECT_EQ(ReadProgressFile(path.string(), {})->format, "verl-file-logger");
  EXPECT_FALSE(ReadProgressFile(path.string(), {"critic/score/mean", 0})->resumes.empty());
  ExpectSameErrors(path, {nested + R"({"step": 41, "data": {"timing_s/gen": "fast"}})" "\n",
                          flat + R"({"step": 4.5, "train/reward": 0.5})" "\n", flat + "[1, 2]\n"});
  // A TensorBoard dump on one line: read whole, as before.
  const std::string tb = R"({"train/reward": {"1": 0.1, "2": 0.2, "3": 0.3, "4": 0.35, "5": 0.4}})" "\n";
  std::ofstream(path) << tb;
  auto a = ReadProgressFile(path.string(), {});
  auto b = ReadProgressText(tb, path.string(), {});
  ASSERT_EQ(bool(a), bool(b));
  if (a) ExpectSameSeries(*a, *b);
  std::filesystem::remove(path);
}
