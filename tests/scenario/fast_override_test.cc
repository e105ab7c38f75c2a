// `--set` overrides written straight into a loaded Scenario
// (spec/fast_override.h) give what the YAML way gives: the same estimate, to
// the last bit, or the same error, on every shared scenario and for values
// in and out of each field's range.
#include <gtest/gtest.h>

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
  files.push_back(std::string(RLCOST_SOURCE_DIR) + "/scenarios/default.yaml");
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

}  // namespace
}  // namespace rlcost::scenario_internal
