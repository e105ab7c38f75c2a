// `--set` overrides written straight into a loaded Scenario
// (spec/fast_override.h) give what the YAML way gives: the same estimate, to
// the last bit, or the same error, on every shared scenario and for values
// in and out of each field's range.
#include <gtest/gtest.h>

#include <filesystem>

#include <yaml-cpp/yaml.h>

#include "report/report.h"
#include "rlcost/estimate.h"
#include "scenario/document.h"
#include "scenario/fast_override.h"
#include "support.h"

namespace rlcost::scenario_internal {
namespace {

// The whole estimate as JSON (every figure and note), or the error's text.
std::string Outcome(const Result<Scenario>& s) {
  if (!s) return "error: " + s.error().ToString();
  auto e = EstimateAnalytic(*s);
  if (!e) return "estimate error: " + e.error().ToString();
  return report::EstimateToJson(*s, *e).dump();
}

TEST(FastOverrides, PlainNumbersReadAsTheLoaderReadsThem) {
  for (const char* text : {"0", "16", "-3", "0.35", "1e3", "2.5E-4", "123456789012345", "0.1", "0.30000000000000004",
                           "1e308", "4.9e-324", "-0"}) {
    double fast = 0, yaml = 0;
    ASSERT_TRUE(FastOverrides::PlainNumber(text, fast)) << text;
    ASSERT_TRUE(YAML::convert<double>::decode(YAML::Load(text), yaml)) << text;
    EXPECT_EQ(fast, yaml) << text;
  }
  // Anything else goes through YAML (and the loader's messages).
  for (const char* text : {"", "-", "+1", ".5", "5.", "016", "0x10", "1_000", " 1", "1 ", ".inf", "nan", "1e",
                           "1e+", "'8'", "8,", "1e999", "{mean: 1}", "abc"}) {
    double v = 0;
    EXPECT_FALSE(FastOverrides::PlainNumber(text, v)) << text;
  }
}

TEST(FastOverrides, EveryFieldGivesWhatTheYamlWayGivesOnEverySharedScenario) {
  const std::vector<std::string> values = {"0", "1", "8", "0.1", "0.35", "0.999", "1.5", "300", "1001", "-1",
                                           "1e13", "'8'"};
  auto files = test::SharedScenarioFiles();
  // Under the sanitizers (85 s for every file) the stated sample: every sixth
  // shared file in name order, the first included, and default.yaml. The
  // release suite compares every file.
  if (test::kUnderSanitizers) {
    std::vector<std::string> sample;
    for (size_t i = 0; i < files.size(); i += 6) sample.push_back(files[i]);
    files = sample;
  }
  // The repository's scenarios too: a verifier ensemble (whose combined
  // error rates read the pass rate), trajectory bounds (which rebuild the lengths).
  for (const auto& f : std::filesystem::directory_iterator(std::string(RLCOST_SOURCE_DIR) + "/scenarios")) {
    if (f.path().extension() == ".yaml") files.push_back(f.path().string());
  }
  int direct = 0, compared = 0;
  for (const auto& file : files) {
    auto doc = ScenarioDocument::FromFile(file);
    ASSERT_TRUE(doc) << file;
    FastOverrides fast(*doc, test::Cat());
    for (std::string_view field : FastOverrides::Fields()) {
      direct += fast.Direct(field);
      for (const auto& v : values) {
        const std::vector<Override> ov = {{std::string(field), v}};
        ASSERT_EQ(Outcome(fast.Load(ov)), Outcome(doc->Load(test::Cat(), ov))) << file << " --set " << field << "=" << v;
        ++compared;
      }
    }
  }
  EXPECT_GT(direct, 20);  // the shared scenarios do take the direct way
  EXPECT_GT(compared, 1000);
}

TEST(FastOverrides, SeveralFieldsAtOnceAndFixedOverridesGiveWhatTheYamlWayGives) {
  auto doc = ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
  ASSERT_TRUE(doc);
  for (const std::vector<Override>& fixed : std::vector<std::vector<Override>>{
           {},
           {{"environment.pass_rate.concentration", "5"}},
           {{"environment.pass_rate", "{a: 1, b: 3}"}},  // another form: the pass rate goes the YAML way
           {{"environment.sandbox", "{max_concurrent: 64}"}},
           {{"algorithm.group_size", "0"}},  // the document no longer loads without the point's values
       }) {
    FastOverrides fast(*doc, test::Cat(), fixed);
    for (const std::vector<Override>& ov : std::vector<std::vector<Override>>{
             {{"algorithm.group_size", "8"}, {"environment.pass_rate.mean", "0.2"}},
             {{"environment.pass_rate.concentration", "3"}, {"environment.pass_rate.mean", "0.6"}},
             {{"environment.pass_rate.mean", "0.6"}, {"environment.pass_rate.mean", "1"}},
             {{"algorithm.group_size", "0"}, {"algorithm.group_size", "4"}},
             {{"environment.sandbox.max_concurrent", "128"}, {"goal.target_pass_rate", "0.7"}},
             {{"hardware.gpus", "16"}, {"algorithm.prompts_per_step", "32"}},  // hardware.gpus: YAML way
             {{"pipeline.max_staleness", "2"}, {"hardware.price_per_gpu_hour", "1.5"}, {"algorithm.steps", "50"}},
         }) {
      std::vector<Override> all = fixed;
      all.insert(all.end(), ov.begin(), ov.end());
      std::string what;
      for (const auto& o : all) what += " --set " + o.path + "=" + o.value;
      EXPECT_EQ(Outcome(fast.Load(ov)), Outcome(doc->Load(test::Cat(), all))) << what;
    }
  }
}

TEST(FastOverrides, AFieldWhoseBlockTheFileLeavesOutGoesTheYamlWay) {
  // default.yaml has no sandbox: --set environment.sandbox.max_concurrent=64 switches one on.
  auto doc = ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
  ASSERT_TRUE(doc);
  FastOverrides fast(*doc, test::Cat());
  EXPECT_FALSE(fast.Direct("environment.sandbox.max_concurrent"));
  EXPECT_TRUE(fast.Direct("algorithm.group_size"));
  EXPECT_TRUE(fast.Direct("environment.pass_rate.mean"));
  auto s = fast.Load({{"environment.sandbox.max_concurrent", "64"}});
  ASSERT_TRUE(s) << s.error().ToString();
  ASSERT_TRUE(s->environment.sandbox.has_value());
  EXPECT_EQ(s->environment.sandbox->max_concurrent, 64);
}

// A length's mean (environment.prompt_tokens.mean, response_tokens.mean) is
// written straight in by making the distribution with the loader's own
// ReadDist from the document's other figures: each of those figures (cv, min,
// max, dist, clipped; set here as fixed overrides, each its own
// FastOverrides as a sweep's runner keeps one per set of such values) changes
// the distribution, and the means are kept per value, so each figure and
// value must give what the YAML way gives, the loader's refusals included.
TEST(FastOverrides, ALengthsMeanGivesTheLoadersDistributionForEveryShape) {
  auto doc = ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
  ASSERT_TRUE(doc);
  const std::vector<std::vector<Override>> shapes = {
      {},
      {{"environment.response_tokens.cv", "0.3"}, {"environment.prompt_tokens.cv", "1.2"}},
      {{"environment.response_tokens.max", "3000"}, {"environment.prompt_tokens.max", "400"}},
      {{"environment.response_tokens.min", "700"}, {"environment.prompt_tokens.min", "100"}},
      {{"environment.response_tokens.dist", "normal"}, {"environment.prompt_tokens.dist", "uniform"}},
      {{"environment.response_tokens", "{mean: 2000, dist: exponential, max: 8192}"}},
      {{"environment.response_tokens.clipped", "0.05"}},
      {{"environment.response_tokens", "{mean: 2000, cv: 0.8}"}, {"environment.prompt_tokens", "{mean: 300}"}},
  };
  const std::vector<std::string> means = {"1", "150", "700", "2000", "2000.5", "2999", "5000", "8192", "9000",
                                          "0", "1e13", "-5"};
  int direct = 0;
  for (const auto& fixed : shapes) {
    FastOverrides fast(*doc, test::Cat(), fixed);
    for (const char* field : {"environment.response_tokens.mean", "environment.prompt_tokens.mean"}) {
      direct += fast.Direct(field);
      // Twice over: the second pass reads the kept answers.
      for (int pass = 0; pass < 2; ++pass) {
        for (const auto& v : means) {
          std::vector<Override> all = fixed;
          all.push_back({field, v});
          std::string what;
          for (const auto& o : all) what += " --set " + o.path + "=" + o.value;
          ASSERT_EQ(Outcome(fast.Load({{field, v}})), Outcome(doc->Load(test::Cat(), all))) << what;
        }
      }
    }
    // Both means at once, with a field of another kind.
    const std::vector<Override> ov = {{"environment.prompt_tokens.mean", "200"},
                                      {"environment.response_tokens.mean", "1500"},
                                      {"algorithm.group_size", "8"}};
    std::vector<Override> all = fixed;
    all.insert(all.end(), ov.begin(), ov.end());
    EXPECT_EQ(Outcome(fast.Load(ov)), Outcome(doc->Load(test::Cat(), all)));
  }
  EXPECT_EQ(direct, 2 * int(shapes.size()));
}

TEST(FastOverrides, ALengthsMeanGoesTheYamlWayWhereTheLoaderReadsTheLengthsAgain) {
  auto doc = ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
  ASSERT_TRUE(doc);
  struct Case {
    std::vector<Override> fixed;
    bool prompt_direct, response_direct;
  };
  const std::vector<Case> cases = {
      // The evaluation's lengths default to the environment's.
      {{{"run.evaluation", "{every_steps: 10, prompts: 100}"}}, false, false},
      // Trajectory bounds rebuild the lengths from draws.
      {{{"environment.max_trajectory_tokens", "6000"}}, false, false},
      // A schedule keeps the responses' shape and replaces them.
      {{{"environment.response_tokens_schedule", "{start_mean: 1000, end_mean: 3000}"}}, true, false},
      // Samples: a mean is not used with them.
      {{{"environment.response_tokens", "{samples: [100, 200, 4000]}"}}, true, false},
      // A fixed length written as a number: setting a mean would make a mapping of it.
      {{{"environment.prompt_tokens", "300"}}, false, true},
  };
  for (const auto& c : cases) {
    FastOverrides fast(*doc, test::Cat(), c.fixed);
    EXPECT_EQ(fast.Direct("environment.prompt_tokens.mean"), c.prompt_direct) << c.fixed[0].path;
    EXPECT_EQ(fast.Direct("environment.response_tokens.mean"), c.response_direct) << c.fixed[0].path;
    for (const char* field : {"environment.response_tokens.mean", "environment.prompt_tokens.mean"}) {
      for (const char* v : {"500", "2500"}) {
        std::vector<Override> all = c.fixed;
        all.push_back({field, v});
        EXPECT_EQ(Outcome(fast.Load({{field, v}})), Outcome(doc->Load(test::Cat(), all)))
            << c.fixed[0].path << " --set " << field << "=" << v;
      }
    }
  }
}

// A verifier ensemble's combined error rates take the mean pass rate as their
// vote's prior (the loader combines them after reading the pass rate): the
// pass rate then goes the YAML way, and the answer moves with it.
TEST(FastOverrides, APassRateUnderAVerifierEnsembleGoesTheYamlWay) {
  auto doc = ScenarioDocument::FromFile(std::string(RLCOST_SOURCE_DIR) + "/scenarios/weaver-ensemble.yaml");
  ASSERT_TRUE(doc);
  FastOverrides fast(*doc, test::Cat());
  EXPECT_FALSE(fast.Direct("environment.pass_rate.mean"));
  EXPECT_FALSE(fast.Direct("environment.pass_rate.concentration"));
  EXPECT_TRUE(fast.Direct("algorithm.group_size"));
  for (const char* v : {"0.1", "0.35", "0.6"}) {
    const std::vector<Override> ov = {{"environment.pass_rate.mean", v}};
    EXPECT_EQ(Outcome(fast.Load(ov)), Outcome(doc->Load(test::Cat(), ov))) << v;
  }
  auto low = fast.Load({{"environment.pass_rate.mean", "0.1"}});
  auto base = fast.Load({});
  ASSERT_TRUE(low && base);
  EXPECT_NE(low->environment.reward.noise.false_positive, base->environment.reward.noise.false_positive);
}

}  // namespace
}  // namespace rlcost::scenario_internal
