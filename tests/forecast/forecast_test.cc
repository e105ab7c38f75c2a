// `rlcost forecast`: the curves' algebra worked by hand, the fits on known
// curves, every log format on the same (synthetic, known) run, the n/a answers,
// the JSON contract, and the back-test on the public veRL runs of ../shared/curves.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <algorithm>
#include <cstdio>
#include <sstream>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "forecast/backtest_report.h"
#include "forecast/forecast.h"
#include "support.h"

namespace {

using namespace rlcost::forecast;
using rlcost::test::CmdResult;
using rlcost::test::Rlcost;

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/forecast/" + rel; }
std::string Shared(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/../shared/" + rel; }

// The synthetic run's truth (tests/data/forecast/make_format_logs.py).
Curve Truth() {
  Curve c;
  c.kind = CurveKind::kSigmoid;
  c.r0 = 0.42, c.a = 0.70, c.b = 1.5, c.c_mid = 30;
  return c;
}

TEST(ForecastCurve, SigmoidReachesTheTargetWhereItsInverseSays) {
  // R0 = 0.4, A = 0.7, B = 2, C_mid = 50: target 0.6 is s = (0.6 - 0.4) / 0.3 = 2/3
  // of the rise, C = 50 (s / (1 - s))^(1/B) = 50 * 2^(1/2) = 70.71.
  Curve c;
  c.kind = CurveKind::kSigmoid;
  c.r0 = 0.4, c.a = 0.7, c.b = 2, c.c_mid = 50;
  EXPECT_NEAR(c.ComputeAt(0.6), 70.7107, 1e-3);
  EXPECT_NEAR(c.Value(70.7107), 0.6, 1e-6);
  EXPECT_NEAR(c.Value(50), 0.55, 1e-12);  // the midpoint is halfway: 0.4 + 0.3 / 2
  EXPECT_TRUE(std::isinf(c.ComputeAt(0.7)));  // the ceiling itself is never reached
  EXPECT_EQ(c.ComputeAt(0.3), 0);             // below the start: reached at once
}

TEST(ForecastCurve, PowerLawReachesTheTargetWhereItsInverseSays) {
  // A = 0.8, D = 2, alpha = 0.5: 0.8 - 2 C^-0.5 = 0.6 at C = (2 / 0.2)^2 = 100.
  Curve c;
  c.kind = CurveKind::kPowerLaw;
  c.a = 0.8, c.d = 2, c.alpha = 0.5;
  EXPECT_NEAR(c.ComputeAt(0.6), 100, 1e-9);
  EXPECT_NEAR(c.Value(100), 0.6, 1e-12);
  EXPECT_TRUE(std::isinf(c.ComputeAt(0.85)));
}

TEST(ForecastCurve, FitsRecoverTheCurveThatMadeNoiselessPoints) {
  std::vector<double> x, y, yp;
  Curve p;
  p.kind = CurveKind::kPowerLaw;
  p.a = 0.75, p.d = 0.5, p.alpha = 0.7;
  for (int c = 1; c <= 80; ++c) x.push_back(c), y.push_back(Truth().Value(c)), yp.push_back(p.Value(c));
  auto s = FitCurve(CurveKind::kSigmoid, x, y, Bounds{0, 1});
  ASSERT_TRUE(s);
  EXPECT_NEAR(s->r0, 0.42, 1e-3);
  EXPECT_NEAR(s->a, 0.70, 1e-3);
  EXPECT_NEAR(s->b, 1.5, 1e-2);
  EXPECT_NEAR(s->c_mid, 30, 0.1);
  auto q = FitCurve(CurveKind::kPowerLaw, x, yp, Bounds{0, 1});
  ASSERT_TRUE(q);
  EXPECT_NEAR(q->a, 0.75, 1e-4);
  EXPECT_NEAR(q->d, 0.5, 1e-3);
  EXPECT_NEAR(q->alpha, 0.7, 1e-3);
  // A rate's ceiling stays at or below 1 even where the points would pull it past.
  std::vector<double> steep;
  for (double c : x) steep.push_back(std::min(1.0, 0.1 + 0.02 * c));
  auto b = FitCurve(CurveKind::kSigmoid, x, steep, Bounds{0, 1});
  ASSERT_TRUE(b);
  EXPECT_LE(b->a, 1.0);
}

// Every format holds the same synthetic run (numbered from 0 in the CSV, from 1
// in the tools' logs): the same training reward at the same steps done.
TEST(ForecastRead, EveryLogFormatGivesTheSameRun) {
  struct Case {
    const char* file;
    const char* metric;
    const char* format;
    int first;
  };
  const Case cases[] = {{"synthetic_gsm8k.csv", "train_reward_mean", "csv", 0},
                        {"synthetic_gsm8k.verl_console.log", "critic/score/mean", "verl-console", 1},
                        {"synthetic_gsm8k.verl_file_logger.jsonl", "critic/score/mean", "verl-file-logger", 1},
                        {"synthetic_gsm8k.wandb_export.csv", "critic/score/mean", "wandb-csv", 1},
                        {"synthetic_gsm8k.nemo_rl_tb.json", "train/reward", "tensorboard-json", 1},
                        {"synthetic_gsm8k.nemo_rl.jsonl", "train/reward", "jsonl", 1}};
  auto ref = ReadProgressFile(Data("synthetic_gsm8k.csv"), {"train_reward_mean", 0});
  ASSERT_TRUE(ref) << ref.error().ToString();
  ASSERT_EQ(ref->points.size(), 120u);
  for (const auto& c : cases) {
    auto s = ReadProgressFile(Data(c.file), {c.metric, 0});
    ASSERT_TRUE(s) << c.file << ": " << s.error().ToString();
    EXPECT_EQ(s->format, c.format) << c.file;
    EXPECT_EQ(s->first_step, c.first) << c.file;
    ASSERT_EQ(s->points.size(), 120u) << c.file;
    for (size_t i = 0; i < 120; ++i) EXPECT_DOUBLE_EQ(s->points[i].value, ref->points[i].value) << c.file << " " << i;
    // Step times are read where the format logs them (the wandb export holds the reward only).
    if (std::string(c.format) != "wandb-csv") EXPECT_EQ(s->step_s.size(), 120u) << c.file;
  }
  // Without --metric the held-out score is chosen where there is one.
  EXPECT_EQ(ReadProgressFile(Data("synthetic_gsm8k.csv"), {})->metric, "val_acc");
  EXPECT_EQ(ReadProgressFile(Data("synthetic_gsm8k.verl_console.log"), {})->metric, "val/test_score/openai/gsm8k");
  EXPECT_EQ(ReadProgressFile(Data("synthetic_gsm8k.nemo_rl.jsonl"), {})->metric, "validation/accuracy");
  EXPECT_EQ(ReadProgressFile(Data("synthetic_gsm8k.wandb_export.csv"), {})->metric, "critic/score/mean");
}

// The synthetic sigmoid reaches 0.65 at C = 30 ((0.65 - 0.42) / (0.70 - 0.65))^(1/1.5)
// = 30 * 4.6^(2/3) = 82.98, i.e. 83 steps done: CSV step 82, log step 83. Fitted
// on the first half (60 steps), every format forecasts the same step. Read by
// a +-5-step average (--smooth 5, which follows the mean curve) the forecast is
// within 15% of 83; read as the first logged value at 0.65 (the default) it is
// earlier, the batch's noise (sd ~0.021 at 0.63) crossing first, and the
// interval, which spans both readings, holds 83.
TEST(ForecastRun, FirstHalfOfAKnownCurveForecastsItsStepInEveryFormat) {
  EXPECT_NEAR(Truth().ComputeAt(0.65), 82.98, 0.01);
  const std::pair<const char*, const char*> files[] = {{"synthetic_gsm8k.csv", "train_reward_mean"},
                                                       {"synthetic_gsm8k.verl_console.log", "critic/score/mean"},
                                                       {"synthetic_gsm8k.nemo_rl.jsonl", "train/reward"}};
  double first = -1;
  for (const auto& [file, metric] : files) {
    auto s = ReadProgressFile(Data(file), {metric, 0});
    ASSERT_TRUE(s);
    Options o;
    o.target = 0.65;
    o.fit_until = s->first_step + 59;
    auto r = Forecast(*s, o);
    ASSERT_TRUE(r) << r.error().ToString();
    ASSERT_TRUE(r->ok) << file << ": " << r->reason;
    const double done = r->steps_to_target - s->first_step + 1;  // steps done at the forecast
    EXPECT_LE(done, 83) << file;
    EXPECT_LE(r->interval_low - s->first_step + 1, 83) << file;
    EXPECT_GE(r->interval_high - s->first_step + 1, 83) << file;
    EXPECT_GT(r->asymptote_high, 0.65) << file;
    if (first < 0) first = done;
    EXPECT_EQ(done, first) << file;  // the same points give the same answer
    o.half_window = 5;
    auto m = Forecast(*s, o);
    ASSERT_TRUE(m && m->ok) << file;
    const double mean_done = m->steps_to_target - s->first_step + 1;
    EXPECT_NEAR(mean_done, 83, 0.15 * 83) << file;
    EXPECT_LE(m->interval_low - s->first_step + 1, 83) << file;
    EXPECT_GE(m->interval_high - s->first_step + 1, 83) << file;
    EXPECT_GT(mean_done, done) << file;
  }
}

ProgressSeries Series(const std::vector<double>& v) {
  ProgressSeries s;
  s.path = "test";
  s.metric = "reward";
  for (size_t i = 0; i < v.size(); ++i) s.points.push_back({int(i) + 1, v[i], 0});
  s.first_step = 1;
  s.last_step = int(v.size());
  return s;
}

TEST(ForecastRun, OnePointFlatOrFallingIsNaWithItsReason) {
  Options o;
  o.target = 0.8;
  auto one = Forecast(Series({0.5}), o);
  ASSERT_TRUE(one);
  EXPECT_FALSE(one->ok);
  EXPECT_NE(one->reason.find("only 1 point"), std::string::npos) << one->reason;
  // Flat: 0.5 +- 0.01 alternating, no trend in ln C.
  std::vector<double> flat, falling;
  for (int i = 0; i < 40; ++i) flat.push_back(0.5 + (i % 2 ? 0.01 : -0.01)), falling.push_back(0.7 - 0.005 * i);
  auto f = Forecast(Series(flat), o);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->ok);
  EXPECT_NE(f->reason.find("flat"), std::string::npos) << f->reason;
  auto d = Forecast(Series(falling), o);
  ASSERT_TRUE(d);
  EXPECT_FALSE(d->ok);
  EXPECT_NE(d->reason.find("falls"), std::string::npos) << d->reason;
  // Fitting before the first point: nothing to fit.
  std::vector<double> rising;
  for (int i = 0; i < 40; ++i) rising.push_back(0.3 + 0.1 * std::log(i + 1.0));
  o.fit_until = 0;
  auto none = Forecast(Series(rising), o);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->ok);
  EXPECT_NE(none->reason.find("no value"), std::string::npos) << none->reason;
  // A target the curve's ceiling stays under is beyond reach, not a number.
  std::vector<double> sat;
  for (int i = 0; i < 60; ++i) sat.push_back(Truth().Value(i + 1));
  Options hi;
  hi.target = 0.9;
  auto beyond = Forecast(Series(sat), hi);
  ASSERT_TRUE(beyond);
  EXPECT_FALSE(beyond->ok);
  EXPECT_GT(beyond->p_beyond_reach, 0.5);
  EXPECT_NE(beyond->reason.find("beyond reach"), std::string::npos) << beyond->reason;
}

// The done-when's edge cases on the command line: one point, a flat curve, a
// falling one, values that are not numbers, a log with no rows or no metric.
// Each answers n/a with its reason (exit 0) or an error naming what is wrong
// (exit 2); none crashes or prints a step.
TEST(ForecastCli, EdgeCasesAreNaWithTheirReasonOrAnErrorNeverANumber) {
  const std::string dir = ::testing::TempDir() + "rlcost_forecast_edges_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    std::ofstream(path) << text;
    return path;
  };
  std::string flat = "step,reward\n", falling = "step,reward\n";
  for (int i = 0; i < 40; ++i) {
    flat += std::to_string(i + 1) + "," + std::to_string(0.5 + (i % 2 ? 0.01 : -0.01)) + "\n";
    falling += std::to_string(i + 1) + "," + std::to_string(0.7 - 0.005 * i) + "\n";
  }
  const std::pair<std::string, std::string> na[] = {
      {write("one.csv", "step,reward\n1,0.5\n"), "only 1 point of \"reward\""},
      {write("nan.csv", "step,reward\n1,nan\n2,inf\n3,0.5\n"), "only 1 point of \"reward\""},
      {write("flat.csv", flat), "\"reward\" is flat over the steps fitted"},
      {write("falling.csv", falling), "\"reward\" falls over the steps fitted"},
      // veRL console lines of one step: the held-out score once.
      {write("one.log", "(main_task pid=1) step:1 - critic/score/mean:0.41 - val/test_score/openai/gsm8k:0.38\n"),
       "only 1 point of"}};
  for (const auto& [path, why] : na) {
    CmdResult text = Rlcost("forecast " + path + " --target 0.8");
    EXPECT_EQ(text.code, 0) << path << "\n" << text.err;
    EXPECT_NE(text.out.find("steps to target: n/a: "), std::string::npos) << path << "\n" << text.out;
    EXPECT_NE(text.out.find(why), std::string::npos) << path << "\n" << text.out;
    CmdResult js = Rlcost("forecast " + path + " --target 0.8 --json");
    ASSERT_EQ(js.code, 0) << path << "\n" << js.err;
    auto j = nlohmann::json::parse(js.out)["forecast"];
    EXPECT_EQ(j["steps_to_target"], "n/a") << path;
    EXPECT_EQ(j["usd_to_target"], "n/a") << path;
    EXPECT_NE(j["reason"].get<std::string>().find(why), std::string::npos) << path << "\n" << j.dump();
  }
  const std::pair<std::string, std::string> bad[] = {
      {write("empty.csv", ""), "the log is empty"},
      {write("header.csv", "step,reward\n"), "the log has no rows"},
      {write("loss.csv", "step,loss\n1,2.0\n2,1.9\n"), "no known reward or accuracy column"},
      {write("junk.log", "hello\nno metrics here\n"), "no metrics lines found"}};
  for (const auto& [path, why] : bad) {
    CmdResult r = Rlcost("forecast " + path + " --target 0.8");
    EXPECT_EQ(r.code, 2) << path << "\n" << r.out;
    EXPECT_NE((r.out + r.err).find(why), std::string::npos) << path << "\n" << r.out << r.err;
    EXPECT_NE((r.out + r.err).find(path.substr(dir.size() + 1)), std::string::npos) << "names the file: " << r.err;
  }
  std::filesystem::remove_all(dir);
}

TEST(ForecastRead, AMissingMetricIsAnErrorNamingTheColumns) {
  auto r = ReadProgressFile(Data("synthetic_gsm8k.csv"), {"val/acc", 0});
  ASSERT_FALSE(r);
  const std::string msg = r.error().ToString();
  // The request's field; the command line shows it as --metric (tests/forecast: ForecastCli).
  EXPECT_EQ(r.error().problems[0].path, "metric") << msg;
  EXPECT_NE(msg.find("train_reward_mean"), std::string::npos) << msg;
  auto none = ReadProgressText("step,loss\n1,2.0\n2,1.9\n", "x.csv", {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().ToString().find("no known reward"), std::string::npos) << none.error().ToString();
}

TEST(ForecastCli, JsonCarriesTheForecastAndItsPrice) {
  // --usd-per-gpu-hour 2 on the synthetic run: dollars are GPU-hours x 2.
  const CmdResult r = Rlcost("forecast " + Data("synthetic_gsm8k.csv") +
                             " --metric train_reward_mean --target 0.65 --fit-until 59 --gpus 2 --usd-per-gpu-hour 2 --json");
  ASSERT_EQ(r.code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out)["forecast"];
  ASSERT_TRUE(j["steps_to_target"].is_number()) << j.dump();
  EXPECT_TRUE(j["interval"]["steps_to_target"]["low"].is_number());
  EXPECT_TRUE(j["interval"]["steps_to_target"]["high"].is_number());
  EXPECT_LE(j["interval"]["steps_to_target"]["low"].get<double>(), j["steps_to_target"].get<double>());
  EXPECT_TRUE(j["asymptote"].is_number());
  EXPECT_TRUE(j["model"]["curve"].is_string());
  EXPECT_TRUE(j["model"]["parameters"].contains("A"));
  EXPECT_NEAR(j["usd_to_target"].get<double>(), 2 * j["gpu_hours_to_target"].get<double>(), 1e-9);
  // The CSV's cum_gpu_hours are absent in the synthetic file: GPU-hours are step time x --gpus.
  EXPECT_NEAR(j["step_cost"]["gpu_hours_per_step"].get<double>(), j["step_cost"]["step_s"].get<double>() * 2 / 3600,
              1e-9);
  // Without a price: n/a and why.
  const CmdResult np = Rlcost("forecast " + Data("synthetic_gsm8k.csv") +
                              " --metric train_reward_mean --target 0.65 --fit-until 59 --json");
  auto k = nlohmann::json::parse(np.out)["forecast"];
  EXPECT_EQ(k["usd_to_target"], "n/a");
  EXPECT_TRUE(k["not_available"].contains("usd_to_target"));
  // One point: n/a with the reason, exit 0 (an answer, not an error).
  const CmdResult one = Rlcost("forecast " + Data("synthetic_gsm8k.csv") + " --metric val_acc --target 0.65 --fit-until 9 --json");
  ASSERT_EQ(one.code, 0) << one.err;
  auto o = nlohmann::json::parse(one.out)["forecast"];
  EXPECT_EQ(o["steps_to_target"], "n/a");
  EXPECT_NE(o["not_available"]["steps_to_target"].get<std::string>().find("only 1 point"), std::string::npos);
  // A metric the log lacks: exit 2 naming --metric.
  const CmdResult bad = Rlcost("forecast " + Data("synthetic_gsm8k.csv") + " --metric nope --target 0.6");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--metric"), std::string::npos) << bad.err;
}

// docs/forecast-validation.md, generated by scripts/forecast-validation.sh;
// the back-test tests check that it states their figures.
std::string ForecastValidationDoc() {
  std::ifstream in(std::string(RLCOST_SOURCE_DIR) + "/docs/forecast-validation.md");
  std::stringstream doc;
  doc << in.rdbuf();
  return doc.str();
}

void ExpectDocHas(const std::string& doc, const std::string& line) {
  EXPECT_NE(doc.find(line), std::string::npos) << "docs/forecast-validation.md lacks: " << line;
}

// The figures of docs/forecast-validation.md: the public veRL runs fitted on
// their first half, targets first reached only in the second half, read as
// the first logged value at the target and (--smoothed-truth) as the first
// step whose average over +-2.5% of the points is.
TEST(ForecastBacktest, PublicVerlRunsGiveTheDocumentedFigures) {
  std::vector<ProgressSeries> train, val;
  for (const char* f : {"verl_ppo_gemma-2-2b-it-sft_gsm8k.csv", "verl_ppo_qwen2.5-0.5b-instruct_gsm8k_resp256.csv",
                        "verl_ppo_qwen2.5-0.5b-instruct_gsm8k_resp512.csv"}) {
    if (!std::filesystem::exists(Shared(std::string("curves/") + f))) GTEST_SKIP() << "../shared/curves not here";
    train.push_back(*ReadProgressFile(Shared(std::string("curves/") + f), {"train_reward_mean", 0}));
    val.push_back(*ReadProgressFile(Shared(std::string("curves/") + f), {"val_acc", 0}));
  }
  Options smoothed;
  smoothed.smoothed_truth = true;
  // The bar's figures (fitted on the first half): only that fraction is run,
  // the four back-tests side by side (each seeds its own bootstrap).
  auto half = [](const std::vector<ProgressSeries>* runs, Options o) {
    return std::async(std::launch::async, [runs, o] { return Summarize(RunBacktest(*runs, o, {0.5}).cases, 0.5); });
  };
  auto ft = half(&train, Options{}), fv = half(&val, Options{}), fts = half(&train, smoothed), fvs = half(&val, smoothed);
  const auto t = ft.get(), v = fv.get(), ts = fts.get(), vs = fvs.get();
  EXPECT_EQ(t.cases, 9);
  EXPECT_EQ(t.pass, 7);
  EXPECT_EQ(t.curves_pass, 3);
  EXPECT_EQ(v.cases, 6);
  // The Gemma-2 run has 5 validation points in its first half: the power law
  // alone (3 parameters + 2) is fitted, 2 of its 3 targets pass.
  EXPECT_EQ(v.pass, 5);
  EXPECT_EQ(v.curves_pass, 2);
  EXPECT_EQ(ts.cases, 9);
  EXPECT_EQ(ts.pass, 9);
  EXPECT_EQ(vs.cases, 9);
  EXPECT_EQ(vs.pass, 9);
  // docs/forecast-validation.md (scripts/forecast-validation.sh) states the same
  // figures, in the script's words.
  const std::string doc = ForecastValidationDoc();
  auto bar = [](const std::string& metric, const std::string& reading, const BacktestSummary& b) {
    char line[512];
    std::snprintf(line, sizeof line,
                  "- `%s`%s: %d of %d targets within 30%% of the true step or held by the interval (%.0f%%); "
                  "curves passing: %d of %d (the bar: 70%% of curves)",
                  metric.c_str(), reading.c_str(), b.pass, b.cases, 100.0 * b.pass / std::max(1, b.cases),
                  b.curves_pass, b.curves);
    return std::string(line);
  };
  const std::string avg = " (reached when its average is)";
  for (const auto& line : {bar("val_acc", "", v), bar("train_reward_mean", "", t), bar("val_acc", avg, vs),
                           bar("train_reward_mean", avg, ts)}) {
    ExpectDocHas(doc, line);
  }
}

// A real run kept out of the forecaster's development (DeepSeek-LLM-7B, veRL
// PPO on Megatron; tests/data/forecast, transcribed from the public log its
// header names). Fitted on its first half, every target of both metrics is
// within 30% of its true step or held by the interval; the generated doc
// states the same figures in the generator's words.
TEST(ForecastBacktest, KeptOutDeepSeekRunPassesOnItsFirstHalfAsDocumented) {
  const std::string file = Data("verl_ppo_deepseek-llm-7b-chat_megatron_gsm8k.csv");
  auto train = ReadProgressFile(file, {"train_reward_mean", 0});
  auto val = ReadProgressFile(file, {"val_acc", 0});
  ASSERT_TRUE(train) << train.error().ToString();
  ASSERT_TRUE(val) << val.error().ToString();
  EXPECT_EQ(train->points.size(), 104u);  // steps 1..104
  EXPECT_EQ(val->points.size(), 22u);     // steps 0, 5, ..., 105
  const auto t = Summarize(RunBacktest({*train}, Options{}, {0.5}).cases, 0.5);
  const auto v = Summarize(RunBacktest({*val}, Options{}, {0.5}).cases, 0.5);
  EXPECT_EQ(t.cases, 3);
  EXPECT_EQ(t.pass, 3);
  EXPECT_EQ(v.cases, 3);
  EXPECT_EQ(v.pass, 3);
  const std::string doc = ForecastValidationDoc();
  for (const auto& [metric, b] : {std::pair{"val_acc", v}, std::pair{"train_reward_mean", t}}) {
    char line[256];
    std::snprintf(line, sizeof line,
                  "- kept-out run, `%s`: %d of %d targets within 30%% of the true step or held by the interval; "
                  "curves passing: %d of %d",
                  metric, b.pass, b.cases, b.curves_pass, b.curves);
    ExpectDocHas(doc, line);
  }
}

}  // namespace

namespace {

// No output rests on the illustrative curve without saying so: price and
// claims flag it when a goal is set without goal.curve, and not otherwise.
TEST(IllustrativeCurve, PriceAndClaimsSayWhenTheGoalRestsOnIt) {
  const std::string goal = " --set goal.target_pass_rate=0.6";
  const std::string fit = goal + " --set 'goal.curve={asymptote: 0.7, exponent: 1.2, midpoint_useful_samples: 150000}'";
  auto price = [&](const std::string& extra) {
    const CmdResult r = Rlcost("price --json" + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  auto p = price(goal);
  EXPECT_EQ(p["goal_curve_is_illustrative"], true);
  ASSERT_TRUE(p["notes"].is_array());
  EXPECT_NE(p["notes"].back().get<std::string>().find("ILLUSTRATIVE"), std::string::npos);
  EXPECT_EQ(price(fit)["goal_curve_is_illustrative"], false);
  const CmdResult text = Rlcost("price" + goal);
  EXPECT_NE(text.out.find("ILLUSTRATIVE learning curve"), std::string::npos) << text.out;

  const CmdResult c = Rlcost("claims --json" + goal);
  ASSERT_EQ(c.code, 0) << c.err;
  int flagged = 0;
  for (const auto& claim : nlohmann::json::parse(c.out)) flagged += claim.value("goal_curve_is_illustrative", false);
  EXPECT_GT(flagged, 0);
  const CmdResult cf = Rlcost("claims --json" + fit);
  for (const auto& claim : nlohmann::json::parse(cf.out)) EXPECT_FALSE(claim.value("goal_curve_is_illustrative", false));
}

}  // namespace

namespace {

// A long log is fitted as 1,000 bins: a noiseless sigmoid R0 = 0.42, A = 0.70,
// B = 1.5, C_mid = 1500 logged for 3,000 steps reaches 0.65 at
// C = 1500 * 4.6^(2/3) = 4149 (the 82.98 of the synthetic run, x 50).
TEST(ForecastRun, ALongLogIsBinnedAndStillForecastsTheStep) {
  Curve c = Truth();
  c.c_mid = 1500;
  EXPECT_NEAR(c.ComputeAt(0.65), 4149, 1);
  std::vector<double> v;
  for (int i = 1; i <= 3000; ++i) v.push_back(c.Value(i));
  ProgressSeries s;
  s.path = "long";
  s.metric = "reward";
  for (size_t i = 0; i < v.size(); ++i) s.points.push_back({int(i) + 1, v[i], 0});
  s.first_step = 1;
  s.last_step = 3000;
  Options o;
  o.target = 0.65;
  o.replicates = 40;
  auto r = Forecast(s, o);
  ASSERT_TRUE(r);
  ASSERT_TRUE(r->ok) << r->reason;
  EXPECT_TRUE(r->binned);
  EXPECT_EQ(r->points_used, 1000);
  EXPECT_NEAR(r->steps_to_target, 4149, 0.02 * 4149);
}

}  // namespace
