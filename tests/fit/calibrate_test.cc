// `rlcost calibrate`: log parsing, calibration files, and the fit.
#include <algorithm>
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "fit/calibrate.h"
#include "ingest/training_log.h"
#include "rlcost/calibration.h"
#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace rlcost::calib {
namespace {

const std::string kLogs = std::string(RLCOST_SOURCE_DIR) + "/tests/data/logs/";

Scenario LoadSample(const std::string& name) {
  auto cat = Catalog::Builtin();
  EXPECT_TRUE(cat.has_value());
  auto s = LoadScenarioFile(kLogs + name, *cat);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
  return *s;
}

void ExpectPlausible(const Calibration& c) {
  for (const auto& f : EfficiencyFields()) {
    double v = c.efficiency.*(f.member);
    if (f.fraction) {
      EXPECT_GT(v, 0) << f.name;
      EXPECT_LE(v, 1) << f.name;
    } else {
      EXPECT_GE(v, 0) << f.name;
    }
  }
}

TEST(LogParse, Numbers) {
  EXPECT_EQ(ParseLogNumber("42.9"), 42.9);
  EXPECT_EQ(ParseLogNumber(" 1e3 "), 1000);
  EXPECT_EQ(ParseLogNumber("np.float64(-0.5)"), -0.5);
  EXPECT_EQ(ParseLogNumber("tensor(3)"), 3);
  EXPECT_FALSE(ParseLogNumber("abc").has_value());
  EXPECT_FALSE(ParseLogNumber("12 s").has_value());
  EXPECT_FALSE(ParseLogNumber("nan").has_value());
}

TEST(LogParse, VerlConsoleLinesWithPrefixAndNoise) {
  std::string text =
      "INFO starting\n"
      "(TaskRunner pid=1) step:1 - timing_s/gen:42.9 - timing_s/update_actor:82.6 - response_length/mean:199\n"
      "some other line with step: words\n"
      "step:2 - timing_s/gen:np.float64(40.5) - timing_s/old_log_prob:10 - timing_s/ref:5 - timing_s/step:140 - "
      "val/note:hello\n";
  auto log = ParseTrainingLogText(text, "run.log");
  ASSERT_TRUE(log.has_value()) << log.error().ToString();
  EXPECT_EQ(log->format, "verl-console");
  ASSERT_EQ(log->records.size(), 2u);
  EXPECT_EQ(log->records[0].step, 1);
  EXPECT_EQ(log->records[0].line, 2);
  EXPECT_DOUBLE_EQ(log->records[1].values.at("timing_s/gen"), 40.5);
  auto steps = ExtractPhases(*log);
  ASSERT_TRUE(steps.has_value());
  // Step 1 has no timing_s/step: the step is the sum of its phases, 42.9 + 82.6.
  EXPECT_FALSE((*steps)[0].step_s_logged);
  EXPECT_DOUBLE_EQ((*steps)[0].step_s, 125.5);
  EXPECT_DOUBLE_EQ((*steps)[0].response_mean, 199);
  // Step 2: old log-prob 10 + reference 5 = 15.
  EXPECT_DOUBLE_EQ((*steps)[1].logprob_s, 15);
  EXPECT_DOUBLE_EQ((*steps)[1].step_s, 140);
}

TEST(LogParse, MalformedConsoleValueNamesTheLine) {
  std::string text = "step:1 - timing_s/gen:4\nstep:2 - timing_s/gen:fast\n";
  auto log = ParseTrainingLogText(text, "run.log");
  ASSERT_FALSE(log.has_value());
  EXPECT_NE(log.error().ToString().find("run.log:2:"), std::string::npos) << log.error().ToString();
  EXPECT_NE(log.error().ToString().find("timing_s/gen"), std::string::npos);
}

TEST(LogParse, MalformedJsonlNamesTheLine) {
  std::string text = "{\"step\": 1, \"timing/train/generation\": 3}\n\n{\"step\": 2, oops}\n";
  auto log = ParseTrainingLogText(text, "m.jsonl");
  ASSERT_FALSE(log.has_value());
  EXPECT_NE(log.error().ToString().find("m.jsonl:3: not valid JSON"), std::string::npos) << log.error().ToString();
}

TEST(LogParse, NemoKeysAndTensorboardDump) {
  std::string jsonl =
      "{\"step\": 3, \"timing/train/total_step_time\": 90, \"timing/train/generation\": 50, "
      "\"timing/train/policy_and_reference_logprobs\": 12, \"timing/train/policy_training\": 20, "
      "\"train/mean_gen_tokens_per_sample\": 900}\n";
  auto a = ParseTrainingLogText(jsonl, "a.jsonl");
  ASSERT_TRUE(a.has_value()) << a.error().ToString();
  auto sa = ExtractPhases(*a);
  ASSERT_TRUE(sa.has_value());
  EXPECT_EQ((*sa)[0].step, 3);
  EXPECT_DOUBLE_EQ((*sa)[0].gen_s, 50);
  EXPECT_DOUBLE_EQ((*sa)[0].logprob_s, 12);
  EXPECT_DOUBLE_EQ((*sa)[0].update_s, 20);
  EXPECT_DOUBLE_EQ((*sa)[0].response_mean, 900);

  std::string tb = "{\"timing/train/total_step_time\": {\"1\": 80, \"2\": 82}, \"timing/train/generation\": {\"1\": 40, \"2\": 41}}";
  auto b = ParseTrainingLogText(tb, "metrics.json");
  ASSERT_TRUE(b.has_value()) << b.error().ToString();
  EXPECT_EQ(b->format, "tensorboard-json");
  ASSERT_EQ(b->records.size(), 2u);
  EXPECT_DOUBLE_EQ(b->records[1].values.at("timing/train/generation"), 41);
}

TEST(LogParse, NoTimingIsAnError) {
  auto log = ParseTrainingLogText("step:1 - actor/pg_loss:0.1\n", "x.log");
  ASSERT_TRUE(log.has_value());
  auto steps = ExtractPhases(*log);
  ASSERT_FALSE(steps.has_value());
  EXPECT_NE(steps.error().ToString().find("x.log"), std::string::npos);
}

TEST(CalibrationFile, RoundTripAndApplyOnlyFitted) {
  Calibration c;
  c.gpu_id = "h100-sxm";
  c.source = "run.log";
  c.efficiency.decode_bw = 0.61;
  c.efficiency.train_mfu = 0.33;
  c.efficiency.logprob_mfu = 0.99;  // not fitted: must not be applied
  c.fitted = {"decode_bw", "train_mfu"};
  c.error_before = 0.2;
  c.error_after = 0.01;
  auto back = ParseCalibrationText(CalibrationToYaml(c), "c.yaml");
  ASSERT_TRUE(back.has_value()) << back.error().ToString();
  EXPECT_EQ(back->gpu_id, "h100-sxm");
  EXPECT_DOUBLE_EQ(back->efficiency.decode_bw, 0.61);
  EXPECT_DOUBLE_EQ(back->error_after, 0.01);
  EXPECT_EQ(back->fitted, c.fitted);
  Scenario s;
  s.hardware.gpu.efficiency.logprob_mfu = 0.42;
  ApplyCalibration(*back, s);
  EXPECT_DOUBLE_EQ(s.hardware.gpu.efficiency.decode_bw, 0.61);
  EXPECT_DOUBLE_EQ(s.hardware.gpu.efficiency.train_mfu, 0.33);
  EXPECT_DOUBLE_EQ(s.hardware.gpu.efficiency.logprob_mfu, 0.42);
}

TEST(CalibrationFile, ImplausibleValueIsAnErrorWithLine) {
  std::string text = "calibration:\n  gpu: h100-sxm\n  efficiency:\n    train_mfu: 1.5\n    decode_bww: 0.5\n";
  auto c = ParseCalibrationText(text, "bad.yaml");
  ASSERT_FALSE(c.has_value());
  std::string msg = c.error().ToString();
  EXPECT_NE(msg.find("bad.yaml:4: calibration.efficiency.train_mfu: 1.5 is outside (0, 1]"), std::string::npos) << msg;
  EXPECT_NE(msg.find("did you mean decode_bw?"), std::string::npos) << msg;
}

TEST(CalibrationFile, StepsMustBeAWholeNumber) {
  for (const char* steps : {"1e300", "-2", "2.5", ".nan", "[1]"}) {
    std::string text = std::string("calibration:\n  gpu: h100-sxm\n  steps: ") + steps +
                       "\n  efficiency:\n    train_mfu: 0.4\n";
    auto c = ParseCalibrationText(text, "c.yaml");
    ASSERT_FALSE(c.has_value()) << steps;
    EXPECT_NE(c.error().ToString().find("c.yaml:3: calibration.steps: expected a whole number of logged steps >= 0"),
              std::string::npos)
        << c.error().ToString();
  }
}

TEST(CalibrationFile, ASecondYamlDocumentIsRefusedWithItsLine) {
  Calibration c;
  c.gpu_id = "h100-sxm";
  c.efficiency.decode_bw = 0.61;
  c.fitted = {"decode_bw"};
  const std::string one = CalibrationToYaml(c);
  ASSERT_TRUE(ParseCalibrationText(one, "c.yaml").has_value());
  // Was read as the first document alone, the second silently dropped.
  const int lines = static_cast<int>(std::count(one.begin(), one.end(), '\n'));
  auto two = ParseCalibrationText(one + "---\n" + one, "c.yaml");
  ASSERT_FALSE(two.has_value());
  const std::string msg = two.error().ToString();
  EXPECT_NE(msg.find("c.yaml:" + std::to_string(lines + 1) + ": "), std::string::npos) << msg;
  EXPECT_NE(msg.find("second YAML document"), std::string::npos) << msg;
  EXPECT_NE(msg.find("a calibration file holds one document"), std::string::npos) << msg;
}

// Noise-free steps generated by the model itself with known factors: the fit
// must recover them (the objective is zero there).
TEST(Fit, RecoversKnownFactorsFromModelGeneratedSteps) {
  Scenario s = LoadSample("verl_qwen25_7b_8xh100.scenario.yaml");
  Efficiency truth = s.hardware.gpu.efficiency;
  truth.decode_bw = 0.5;
  truth.train_mfu = 0.3;
  truth.typical_update_share = 1.0;  // the run's own update MFU is 0.3: a log is the run (docs/model.md, "Named fits")
  truth.logprob_mfu = 0.35;
  truth.step_overhead_s = 4.0;
  std::vector<LoggedStep> steps;
  for (int i = 0; i < 8; ++i) {
    LoggedStep st;
    st.step = i + 1;
    st.line = i + 1;
    st.prompt_mean = 280 + 5 * i;
    st.response_mean = 800 + 60 * i;
    auto p = PredictStep(s, truth, st);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    st.gen_s = p->gen_s;
    st.update_s = p->update_s;
    st.logprob_s = p->logprob_s;
    st.step_s = p->step_s;
    st.step_s_logged = true;
    steps.push_back(st);
  }
  auto fit = FitCalibration(s, steps, "generated");
  ASSERT_TRUE(fit.has_value()) << fit.error().ToString();
  const Efficiency& e = fit->calibration.efficiency;
  EXPECT_NEAR(e.decode_bw, 0.5, 0.005);
  EXPECT_NEAR(e.train_mfu, 0.3, 0.003);
  // The typical-run share of the catalog (0.84) is not applied on top of the
  // run's own MFU: fitted with the update, at 1.
  EXPECT_EQ(e.typical_update_share, 1.0);
  const auto& fitted = fit->calibration.fitted;
  EXPECT_NE(std::find(fitted.begin(), fitted.end(), "typical_update_share"), fitted.end());
  EXPECT_NEAR(e.logprob_mfu, 0.35, 0.0035);
  EXPECT_NEAR(e.step_overhead_s, 4.0, 0.05);
  EXPECT_LT(fit->calibration.error_after, 0.002);
  EXPECT_GT(fit->calibration.error_before, 0.05);  // the catalog factors are not the truth
  ExpectPlausible(fit->calibration);
}

// A long log (#27 item 5: each step cost ~22 ms of fitting) is fitted on a grid
// of 9 x 3 lengths spanning it and interpolated: the same factors as the
// step-by-step fit. 96 steps of factors known (decode_bw 0.5, train_mfu 0.3,
// logprob_mfu 0.35, overhead 4 s), lengths drifting as a run's do (responses
// 800 -> ~1560 tokens, prompts 280 +- 20): both fits recover the factors to
// 1%, and agree with each other to 0.5%.
TEST(Fit, LongLogOnTheLengthGridGivesTheStepByStepFactors) {
  Scenario s = LoadSample("verl_qwen25_7b_8xh100.scenario.yaml");
  Efficiency truth = s.hardware.gpu.efficiency;
  truth.decode_bw = 0.5;
  truth.train_mfu = 0.3;
  truth.typical_update_share = 1.0;  // the run's own update MFU is 0.3: a log is the run (docs/model.md, "Named fits")
  truth.logprob_mfu = 0.35;
  truth.step_overhead_s = 4.0;
  std::vector<LoggedStep> steps;
  for (int i = 0; i < 96; ++i) {
    LoggedStep st;
    st.step = i + 1;
    st.line = i + 1;
    st.prompt_mean = 280 + 20 * std::sin(i * 0.7);
    st.response_mean = 800 + 8 * i;
    auto p = PredictStep(s, truth, st);
    ASSERT_TRUE(p.has_value()) << p.error().ToString();
    st.gen_s = p->gen_s;
    st.update_s = p->update_s;
    st.logprob_s = p->logprob_s;
    st.step_s = p->step_s;
    st.step_s_logged = true;
    steps.push_back(st);
  }
  auto grid = FitCalibration(s, steps, "generated");  // 96 > kExactFitSteps: the grid
  auto exact = FitCalibration(s, steps, "generated", steps.size());
  ASSERT_TRUE(grid.has_value()) << grid.error().ToString();
  ASSERT_TRUE(exact.has_value()) << exact.error().ToString();
  const auto& notes = grid->calibration.notes;
  EXPECT_TRUE(std::any_of(notes.begin(), notes.end(), [](const std::string& n) { return n.find("interpolated") != std::string::npos; }));
  for (const char* name : {"decode_bw", "train_mfu", "logprob_mfu", "step_overhead_s"}) {
    const EfficiencyField& f = *FindEfficiencyField(name);
    const double g = grid->calibration.efficiency.*(f.member), x = exact->calibration.efficiency.*(f.member),
                 t = truth.*(f.member);
    EXPECT_NEAR(g, t, 0.01 * t) << name;
    EXPECT_NEAR(x, t, 0.01 * t) << name;
    EXPECT_NEAR(g, x, 0.005 * x) << name;
  }
  EXPECT_LT(grid->calibration.error_after, 0.01);
}

// The shipped synthetic veRL log (2% noise): the fitted run's predicted step is
// within 5% of the logged one and every factor stays physical.
TEST(Fit, SampleVerlLogWithinFivePercent) {
  Scenario s = LoadSample("verl_qwen25_7b_8xh100.scenario.yaml");
  auto log = ParseTrainingLogFile(kLogs + "verl_qwen25_7b_8xh100.log");
  ASSERT_TRUE(log.has_value()) << log.error().ToString();
  auto steps = ExtractPhases(*log);
  ASSERT_TRUE(steps.has_value()) << steps.error().ToString();
  ASSERT_EQ(steps->size(), 20u);
  auto fit = FitCalibration(s, *steps, "verl sample");
  ASSERT_TRUE(fit.has_value()) << fit.error().ToString();
  const Calibration& c = fit->calibration;
  EXPECT_LT(c.error_after, 0.05);
  EXPECT_LT(c.error_after, c.error_before);
  EXPECT_NEAR(fit->predicted_step_mean_after_s / fit->logged_step_mean_s, 1.0, 0.05);
  ExpectPlausible(c);
  for (const auto* f : {"decode_bw", "train_mfu", "logprob_mfu", "step_overhead_s"}) {
    EXPECT_NE(std::find(c.fitted.begin(), c.fitted.end(), f), c.fitted.end()) << f;
  }
}

TEST(Fit, SampleNemoJsonlWithinFivePercent) {
  Scenario s = LoadSample("nemo_llama8b_16xh100.scenario.yaml");
  auto log = ParseTrainingLogFile(kLogs + "nemo_llama8b_16xh100.jsonl");
  ASSERT_TRUE(log.has_value()) << log.error().ToString();
  auto steps = ExtractPhases(*log);
  ASSERT_TRUE(steps.has_value()) << steps.error().ToString();
  auto fit = FitCalibration(s, *steps, "nemo sample");
  ASSERT_TRUE(fit.has_value()) << fit.error().ToString();
  EXPECT_LT(fit->calibration.error_after, 0.05);
  EXPECT_NEAR(fit->predicted_step_mean_after_s / fit->logged_step_mean_s, 1.0, 0.05);
  ExpectPlausible(fit->calibration);
}

// An update logged far faster than any GPU can do it: train_mfu stops at its
// bound 1 and the fit says so instead of returning an MFU above 1.
TEST(Fit, BoundIsHitAndReported) {
  Scenario s = LoadSample("verl_qwen25_7b_8xh100.scenario.yaml");
  LoggedStep st;
  st.step = 1;
  st.line = 1;
  auto p = PredictStep(s, s.hardware.gpu.efficiency, st);
  ASSERT_TRUE(p.has_value());
  st.update_s = p->update_s * 0.01;  // needs 100x the catalog MFU: impossible
  st.gen_s = p->gen_s;
  st.step_s = p->step_s;
  auto fit = FitCalibration(s, {st}, "fast");
  ASSERT_TRUE(fit.has_value()) << fit.error().ToString();
  EXPECT_DOUBLE_EQ(fit->calibration.efficiency.train_mfu, 1.0);
  bool noted = false;
  for (const auto& n : fit->calibration.notes) noted |= n.find("bound hit: train_mfu") != std::string::npos;
  EXPECT_TRUE(noted);
  ExpectPlausible(fit->calibration);
}

}  // namespace
}  // namespace rlcost::calib
