// Properties over every shared scenario and random valid perturbations of
// them: the contract figures are finite and non-negative (or "n/a" with a
// reason, never null), and a simulation with the same seed prints the same
// bytes. Perturbations are drawn from a fixed seed, so a failure names the
// exact `--set` list that reproduces it.
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "report/report.h"
#include "rlcost/estimate.h"
#include "support.h"

namespace rlcost {
namespace {

// Random overrides that keep a scenario valid: sizes, lengths and rates
// moved within the ranges the loader accepts.
std::vector<Override> Perturb(std::mt19937_64& rng) {
  auto pick = [&](std::vector<std::string> v) { return v[rng() % v.size()]; };
  std::vector<Override> o;
  if (rng() % 2) o.push_back({"algorithm.group_size", pick({"1", "2", "4", "8", "16", "64"})});
  if (rng() % 2) o.push_back({"algorithm.prompts_per_step", pick({"1", "7", "32", "128", "1024"})});
  if (rng() % 2) o.push_back({"environment.response_tokens", pick({"1", "{mean: 50, cv: 2}", "{mean: 4000, cv: 0.3, max: 8192}"})});
  if (rng() % 2) o.push_back({"environment.prompt_tokens", pick({"0", "{mean: 10, cv: 0.1}", "{mean: 3000, cv: 1}"})});
  if (rng() % 2) o.push_back({"environment.pass_rate", pick({"{mean: 0.01, concentration: 0.5}", "{mean: 0.99, concentration: 50}", "{histogram: {0.0: 0.5, 1.0: 0.5}}", "{histogram: {0.0: 1}}", "{a: 1000, b: 1}"})});
  if (rng() % 2) o.push_back({"hardware.price_per_gpu_hour", pick({"0", "0.5", "1000"})});
  if (rng() % 3 == 0) o.push_back({"algorithm.steps", pick({"1", "10000"})});
  return o;
}

std::string Describe(const std::vector<Override>& o) {
  std::string s;
  for (const auto& x : o) s += " --set '" + x.path + "=" + x.value + "'";
  return s.empty() ? " (as written)" : s;
}

void ExpectContractSane(const Scenario& s, const Estimate& e, const std::string& where) {
  const nlohmann::json j = report::EstimateToJson(s, e);
  for (const auto& m : Metrics()) {
    auto v = m.get(e);
    if (!v) continue;
    if (!std::isfinite(*v)) {
      // Not a number: must be reported as "n/a" with a reason.
      ASSERT_TRUE(j.contains("not_available") && j["not_available"].contains(std::string(m.key)))
          << where << ": " << m.key << " = " << *v << " without a reason";
      continue;
    }
    if (m.contract) EXPECT_GE(*v, 0.0) << where << ": " << m.key;
  }
  // Nothing in the document is null.
  std::string text = j.dump();
  EXPECT_EQ(text.find("null"), std::string::npos) << where << ": " << text.substr(0, 400);
}

TEST(Properties, ContractFiguresAreFiniteAndNonNegative) {
  auto files = test::SharedScenarioFiles();
  if (files.empty()) GTEST_SKIP() << "../shared not present";
  std::mt19937_64 rng(12);
  int checked = 0;
  for (const auto& f : files) {
    for (int k = 0; k < 12; ++k) {
      std::vector<Override> o = k == 0 ? std::vector<Override>{} : Perturb(rng);
      auto s = LoadScenarioFile(f, test::Cat(), o);
      if (!s) continue;  // a perturbation the file's other fields make invalid (e.g. a fixed split)
      auto e = EstimateAnalytic(*s);
      if (!e) {
        // A refusal is fine if it names the field; it must never be internal.
        EXPECT_NE(e.error().code, ErrorCode::kInternal) << f << Describe(o) << ": " << e.error().ToString();
        continue;
      }
      ExpectContractSane(*s, *e, f + Describe(o));
      ++checked;
    }
  }
  EXPECT_GT(checked, int(files.size()));
}

// A sweep's rows come from estimates without their text (TextDetail::kNumbers):
// every metric must be the same number, bit for bit, as the full estimate's.
TEST(Properties, NumbersOnlyGivesTheSameNumbers) {
  auto files = test::SharedScenarioFiles();
  if (files.empty()) GTEST_SKIP() << "../shared not present";
  std::mt19937_64 rng(7);
  int compared = 0;
  for (const auto& f : files) {
    for (int k = 0; k < 6; ++k) {
      std::vector<Override> o = k == 0 ? std::vector<Override>{} : Perturb(rng);
      auto s = LoadScenarioFile(f, test::Cat(), o);
      if (!s) continue;
      auto full = EstimateAnalytic(*s);
      auto bare = EstimateAnalytic(*s, TextDetail::kNumbers);
      ASSERT_EQ(full.has_value(), bare.has_value()) << f << Describe(o);
      if (!full) continue;
      EXPECT_TRUE(bare->assumptions.empty()) << f << Describe(o);
      EXPECT_TRUE(bare->step.notes.empty()) << f << Describe(o);
      for (const MetricDef& m : Metrics()) {
        const auto a = m.get(*full), b = m.get(*bare);
        ASSERT_EQ(a.has_value(), b.has_value()) << m.key << " " << f << Describe(o);
        if (a && !(std::isnan(*a) && std::isnan(*b))) EXPECT_EQ(*a, *b) << m.key << " " << f << Describe(o);
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 100);
}

TEST(Properties, SameSeedSameBytes) {
  auto files = test::SharedScenarioFiles();
  if (files.empty()) GTEST_SKIP() << "../shared not present";
  for (const auto& f : files) {
    auto s = LoadScenarioFile(f, test::Cat());
    ASSERT_TRUE(s) << s.error().ToString();
    sim::Options opt;
    opt.seed = 7;
    opt.steps = 2;
    auto a = EstimateSimulated(*s, opt);
    auto b = EstimateSimulated(*s, opt);
    ASSERT_EQ(a.has_value(), b.has_value()) << f;
    if (!a) continue;
    EXPECT_EQ(report::EstimateToJson(*s, *a).dump(), report::EstimateToJson(*s, *b).dump()) << f;
    ExpectContractSane(*s, *a, f + " (simulated)");
  }
}

}  // namespace
}  // namespace rlcost
