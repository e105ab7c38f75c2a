// What a person reads (issue #27 "What a person sees"): the text of
// `optimize` and the `simulate` headline, each held to the JSON the same
// command prints.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "rlcost/estimate.h"
#include "support.h"

namespace rlcost {
namespace {

using test::Rlcost;

std::string Bundled(const std::string& name) { return std::string(RLCOST_SOURCE_DIR) + "/scenarios/" + name; }
std::string Shared(const std::string& name) { return std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/" + name; }

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// The line after the one that starts with `title`.
std::string LineAfter(const std::string& text, const std::string& title) {
  auto ls = Lines(text);
  for (size_t i = 0; i + 1 < ls.size(); ++i) {
    if (ls[i].rfind(title, 0) == 0) return ls[i + 1];
  }
  return "";
}

// Cells of a table line: runs of text separated by two spaces or more.
std::vector<std::string> Cells(const std::string& line) {
  std::vector<std::string> out;
  std::regex sep("  +");
  for (std::sregex_token_iterator it(line.begin(), line.end(), sep, -1), end; it != end; ++it) {
    if (!it->str().empty()) out.push_back(it->str());
  }
  return out;
}

// issue #27: `optimize` printed "goal.usd = 158.1, 10.6 h wall: ..." and a
// Pareto front of bare numbers. Every column header now carries its unit: the
// objective's from the metric registry ($ for USD), wall time in h, a GPU
// count in GPUs; a choice (the GPU type) has none.
// An open range is refused before any point is priced, naming --over (#40:
// hardware.gpus=8..1000000:8 took 125 s and printed a front of 124,894 rows).
TEST(WhatAPersonSees, OptimizeRefusesASearchOfMoreThanTwentyThousandPoints) {
  auto t = Rlcost("optimize --minimize goal.usd --over hardware.gpus=8..1000000:8", 30);
  EXPECT_EQ(t.code, 2) << t.out;
  EXPECT_NE(t.err.find("--over: the search has more than 20000 points"), std::string::npos) << t.err;
  auto ok = Rlcost("optimize --minimize run.usd --over hardware.gpus=8..64:8 --top 1", 120);
  EXPECT_EQ(ok.code, 0) << ok.err;
}

TEST(WhatAPersonSees, OptimizeHeadersCarryTheirUnits) {
  const std::string args = "optimize " + Bundled("default.yaml") +
                           " --minimize run.usd --over hardware.gpus=8,16 --over hardware.gpu=h100-sxm,b200 --top 2";
  auto t = Rlcost(args, 120);
  ASSERT_EQ(t.code, 0) << t.err;
  const std::vector<std::string> want = {"#", "run.usd ($)", "wall time (h)", "hardware.gpus (GPUs)", "hardware.gpu"};
  EXPECT_EQ(Cells(LineAfter(t.out, "best configurations")), want) << t.out;
  const std::vector<std::string> front(want.begin() + 1, want.end());
  EXPECT_EQ(Cells(LineAfter(t.out, "Pareto front")), front) << t.out;
  ASSERT_NE(FindMetric("run.usd"), nullptr);
  EXPECT_EQ(FindMetric("run.usd")->unit, "USD");
  // The first row under the header is the JSON's best configuration.
  auto j = Rlcost(args + " --json", 120);
  ASSERT_EQ(j.code, 0) << j.err;
  const auto best = nlohmann::json::parse(j.out)["best"][0];
  auto lines = Lines(t.out);
  std::vector<std::string> first;
  for (size_t i = 0; i + 2 < lines.size(); ++i) {
    if (lines[i].rfind("best configurations", 0) == 0) first = Cells(lines[i + 2]);
  }
  ASSERT_EQ(first.size(), want.size()) << t.out;
  EXPECT_EQ(first[0], "1");
  EXPECT_EQ(first[1], fmt::format("{:.4g}", best["run.usd"].get<double>()));
  EXPECT_EQ(first[2], fmt::format("{:.3g}", best["run.wall_time_h"].get<double>()));
  EXPECT_EQ(first[3], best["config"]["hardware.gpus"].get<std::string>());
  EXPECT_EQ(first[4], best["config"]["hardware.gpu"].get<std::string>());
}

// issue #27: the simulate headline said "rollout 85%" beside a
// rollout_fraction of 0.618 and a reader took them for one figure. They are
// two: the share of the step's wall time in the rollout phase
// (step.rollout_share = step.rollout_s / step.time_s) and the share of GPU
// time spent generating (rollout_fraction). Each is named on its line and
// equals the value `simulate --json` prints under its key.
TEST(WhatAPersonSees, SimulateHeadlineSharesAreTheRegistrysAndTheJsons) {
  for (const char* key : {"step.rollout_share", "step.train_share", "step.other_share", "rollout_fraction"}) {
    ASSERT_NE(FindMetric(key), nullptr) << key;
  }
  EXPECT_NE(FindMetric("step.rollout_share")->description.find("wall time"), std::string_view::npos);
  EXPECT_NE(FindMetric("rollout_fraction")->description.find("GPU time"), std::string_view::npos);
  const std::string args = "simulate " + Shared("default.yaml") + " --seed 3 --set algorithm.steps=20";
  auto t = Rlcost(args, 120);
  ASSERT_EQ(t.code, 0) << t.err;
  auto j = Rlcost(args + " --json", 120);
  ASSERT_EQ(j.code, 0) << j.err;
  const auto js = nlohmann::json::parse(j.out);
  const double rollout_s = js["step"]["rollout_s"], train_s = js["step"]["train_s"], other_s = js["step"]["other_s"],
               time_s = js["step"]["time_s"], fraction = js["rollout_fraction"];
  // The JSON's shares are the registry's definition: phase seconds over step seconds.
  ASSERT_TRUE(js["step"].contains("rollout_share")) << js["step"].dump();
  EXPECT_NEAR(js["step"]["rollout_share"].get<double>(), rollout_s / time_s, 1e-12);
  EXPECT_NEAR(js["step"]["train_share"].get<double>(), train_s / time_s, 1e-12);
  EXPECT_NEAR(js["step"]["other_share"].get<double>(), other_s / time_s, 1e-12);
  std::smatch m;
  const std::regex step_line(
      R"(step: .* of wall time: rollout (\d+)%, train (\d+)%, other (\d+)% of the step's wall time)");
  ASSERT_TRUE(std::regex_search(t.out, m, step_line)) << t.out;
  EXPECT_EQ(m[1].str(), fmt::format("{:.0f}", 100 * rollout_s / time_s));
  EXPECT_EQ(m[2].str(), fmt::format("{:.0f}", 100 * train_s / time_s));
  EXPECT_EQ(m[3].str(), fmt::format("{:.0f}", 100 * other_s / time_s));
  const std::regex fraction_line(R"(rollout_fraction ([0-9.]+)% \(share of GPU time spent generating\))");
  ASSERT_TRUE(std::regex_search(t.out, m, fraction_line)) << t.out;
  EXPECT_EQ(m[1].str(), fmt::format("{:.1f}", 100 * fraction));
}

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// issue #27 item 8: "Likely range (80%) ... probability 88%" contradicted
// itself and repeated. Each command's text now says where the band comes from
// once, as the 80% band read off the published runs with its leave-one-out
// coverage, and no other probability.
TEST(WhatAPersonSees, LikelyRangeIsExplainedOnceAsTheEightyPercentBand) {
  for (const std::string cmd : {"estimate", "simulate"}) {
    auto t = Rlcost(cmd + " " + Shared("default.yaml") + " --set algorithm.steps=20", 120);
    ASSERT_EQ(t.code, 0) << t.err;
    EXPECT_EQ(Count(t.out, "likely range: the 80% band read off the published runs"), 1u) << cmd << "\n" << t.out;
    EXPECT_EQ(Count(t.out, "leave-one-out coverage"), 1u) << cmd << "\n" << t.out;
    EXPECT_EQ(t.out.find("probability"), std::string::npos) << cmd << "\n" << t.out;
  }
}

// The plan line counts in words: the built-in default writes its layout, so
// one layout is tried ("1 layouts tried, 1 fit" before); a planned one says
// how many were tried and how many fit.
TEST(WhatAPersonSees, PlanLineCountsLayoutsInWords) {
  auto t = Rlcost("estimate", 60);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("(1 layout tried, 1 fits in memory)"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("1 layouts"), std::string::npos) << t.out;
}

// Each row of optimize's Pareto front says how it runs (its planned layout), as
// the best configurations do, or which best configuration it is; a field the
// user searches with --over is not reported as "kept as the scenario writes it".
TEST(WhatAPersonSees, ParetoRowsSayHowTheyRunAndSearchedFieldsAreNotKept) {
  const std::string args = "optimize " + Bundled("default.yaml") +
                           " --minimize run.usd --over hardware.gpus=8,16,32 --over placement.mode=colocated,disaggregated --top 2";
  auto t = Rlcost(args, 120);
  ASSERT_EQ(t.code, 0) << t.err;
  auto j = Rlcost(args + " --json", 120);
  ASSERT_EQ(j.code, 0) << j.err;
  const auto front = nlohmann::json::parse(j.out)["pareto_front"];
  ASSERT_GE(front.size(), 2u) << j.out;
  for (size_t i = 0; i < front.size(); ++i) {
    const std::string row = "  row " + std::to_string(i + 1) + " of the front ";
    EXPECT_NE(t.out.find(row), std::string::npos) << row << "\n" << t.out;
  }
  // At least one front row is not among the two best and so spells its layout.
  EXPECT_NE(t.out.find("of the front runs as: "), std::string::npos) << t.out;
  // placement.mode is searched: not "kept"; rollout_tp is written and kept (one field: "it").
  EXPECT_NE(t.out.find("note: placement.rollout_tp as the scenario writes it in every configuration"), std::string::npos)
      << t.out;
  EXPECT_EQ(t.out.find("placement.mode as the scenario"), std::string::npos) << t.out;
  EXPECT_EQ(t.out.find("placement.mode, "), std::string::npos) << t.out;
}

}  // namespace
}  // namespace rlcost
