// `rlcost sensitivity`: a tornado on every shared scenario, sorted by swing,
// stated ranges, clipping with a reason, clear errors for bad metrics and
// ranges, and the HTML report's tornado holding the JSON's numbers.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::vector<std::string> ScenarioFiles() {
  std::vector<std::string> files;
  for (const char* dir : {"/../shared/scenarios", "/scenarios"}) {
    fs::path p = fs::path(RLCOST_SOURCE_DIR + std::string(dir));
    if (!fs::exists(p)) continue;
    for (const auto& f : fs::directory_iterator(p)) {
      if (f.path().extension() == ".yaml") files.push_back(f.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

const json* Row(const json& j, const std::string& input) {
  for (const auto& r : j) {
    if (r["input"] == input) return &r;
  }
  return nullptr;
}

TEST(Sensitivity, EveryScenarioGivesATornadoSortedBySwing) {
  auto files = ScenarioFiles();
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : files) {
    auto r = test::Rlcost("sensitivity " + f + " --json", 600);
    ASSERT_EQ(r.code, 0) << f << "\n" << r.err;
    json j = json::parse(r.out);
    ASSERT_TRUE(j.is_array()) << f;
    ASSERT_GE(j.size(), 8u) << f;
    double prev = INFINITY;
    int with_both = 0;
    for (const auto& row : j) {
      for (const char* k : {"input", "low_value", "high_value", "metric_low", "metric_high"}) {
        ASSERT_TRUE(row.contains(k)) << f << " " << k;
      }
      EXPECT_LT(row["low_value"].get<double>(), row["high_value"].get<double>()) << f << " " << row["input"];
      if (row["metric_low"].is_number() && row["metric_high"].is_number()) {
        ++with_both;
        const double swing = std::fabs(row["metric_high"].get<double>() - row["metric_low"].get<double>());
        EXPECT_LE(swing, prev * (1 + 1e-12)) << f << ": not sorted at " << row["input"];
        EXPECT_NEAR(row["swing"].get<double>(), swing, 1e-9 * std::max(1.0, swing));
        prev = swing;
      }
    }
    EXPECT_GE(with_both, 8) << f;
    // The metric moves with the GPU price in proportion (dollars = GPU-hours x price + sandbox CPUs).
    const json* price = Row(j, "hardware.price_per_gpu_hour");
    ASSERT_NE(price, nullptr) << f;
    EXPECT_LT((*price)["metric_low"].get<double>(), (*price)["metric_base"].get<double>()) << f;
    EXPECT_GT((*price)["metric_high"].get<double>(), (*price)["metric_base"].get<double>()) << f;
  }
}

TEST(Sensitivity, DefaultRangeIsPlusMinusHalfAndResponseLengthMatters) {
  auto r = test::Rlcost("sensitivity --json", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  // The default scenario has a goal: the figure is dollars to the goal.
  EXPECT_EQ(j[0]["metric"], "goal.usd");
  const json* len = Row(j, "environment.response_tokens.mean");
  ASSERT_NE(len, nullptr);
  EXPECT_DOUBLE_EQ((*len)["base_value"].get<double>(), 2000);
  EXPECT_DOUBLE_EQ((*len)["low_value"].get<double>(), 1000);
  EXPECT_DOUBLE_EQ((*len)["high_value"].get<double>(), 3000);
  EXPECT_EQ((*len)["range"], "±50%");
  // Longer responses cost more to reach the goal.
  EXPECT_LT((*len)["metric_low"].get<double>(), (*len)["metric_high"].get<double>());
  // Group size is a whole number: 16 -> 8 .. 24.
  const json* g = Row(j, "algorithm.group_size");
  ASSERT_NE(g, nullptr);
  EXPECT_DOUBLE_EQ((*g)["low_value"].get<double>(), 8);
  EXPECT_DOUBLE_EQ((*g)["high_value"].get<double>(), 24);
  // Without a goal the figure is run.usd, and the table says the band is assumed.
  auto t = test::Rlcost("sensitivity --set goal={}", 300);
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_NE(t.out.find("run.usd"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("ASSUMED"), std::string::npos) << t.out;
}

TEST(Sensitivity, DefaultEndsOutsideTheDomainAreClippedWithTheReason) {
  // Pass rate 0.8 x 1.5 = 1.2 -> clipped to 0.99; decode_bw x 1.5 > 1 -> clipped to 1.
  auto r = test::Rlcost("sensitivity --json --metric run.usd --set 'environment.pass_rate={mean: 0.8, concentration: 2}'", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  const json* p = Row(j, "environment.pass_rate.mean");
  ASSERT_NE(p, nullptr);
  EXPECT_DOUBLE_EQ((*p)["high_value"].get<double>(), 0.99);
  EXPECT_NE((*p)["clipped"].get<std::string>().find("strictly between 0 and 1"), std::string::npos);
  const json* bw = Row(j, "efficiency.decode_bw");
  ASSERT_NE(bw, nullptr);
  EXPECT_DOUBLE_EQ((*bw)["high_value"].get<double>(), 1.0);
  EXPECT_NE((*bw)["clipped"].get<std::string>().find("cannot exceed 1"), std::string::npos);
}

TEST(Sensitivity, UserRangesAreUsedAndCheckedNotClipped) {
  auto r = test::Rlcost("sensitivity --json --range environment.response_tokens.mean=1500:6000", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  const json* len = Row(j, "environment.response_tokens.mean");
  ASSERT_NE(len, nullptr);
  EXPECT_DOUBLE_EQ((*len)["high_value"].get<double>(), 6000);
  EXPECT_EQ((*len)["range"], "your range");
  // A pass rate above 1: an error naming --range, the value and the domain; no result printed.
  auto bad = test::Rlcost("sensitivity --range environment.pass_rate.mean=0.2:1.2", 300);
  EXPECT_EQ(bad.code, 2);
  EXPECT_TRUE(bad.out.empty()) << bad.out;
  EXPECT_NE(bad.err.find("--range"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("1.2 is outside"), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("(0, 1)"), std::string::npos) << bad.err;
  // A group size that is not a whole number, reversed ends, an unknown input, a malformed flag.
  auto g = test::Rlcost("sensitivity --range algorithm.group_size=2.5:8", 300);
  EXPECT_EQ(g.code, 2);
  EXPECT_NE(g.err.find("not a whole number"), std::string::npos) << g.err;
  auto rev = test::Rlcost("sensitivity --range hardware.price_per_gpu_hour=4:2", 300);
  EXPECT_EQ(rev.code, 2);
  EXPECT_NE(rev.err.find("LOW < HIGH"), std::string::npos) << rev.err;
  auto unk = test::Rlcost("sensitivity --range environment.respons_tokens.mean=1:2", 300);
  EXPECT_EQ(unk.code, 2);
  EXPECT_NE(unk.err.find("unknown input 'environment.respons_tokens.mean'"), std::string::npos) << unk.err;
  EXPECT_NE(unk.err.find("environment.response_tokens.mean"), std::string::npos) << unk.err;
  auto mal = test::Rlcost("sensitivity --range price", 300);
  EXPECT_EQ(mal.code, 2);
  EXPECT_NE(mal.err.find("INPUT=LOW:HIGH"), std::string::npos) << mal.err;
}

TEST(Sensitivity, BadMetricsAreClearErrors) {
  auto r = test::Rlcost("sensitivity --metric goal.dollars", 300);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown metric 'goal.dollars'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("goal.usd"), std::string::npos) << r.err;  // the list of known ones
  auto g = test::Rlcost("sensitivity --metric goal.usd --set goal={}", 300);
  EXPECT_EQ(g.code, 2);
  EXPECT_NE(g.err.find("goal.target_pass_rate"), std::string::npos) << g.err;
  auto span = test::Rlcost("sensitivity --span 1.5", 300);
  EXPECT_EQ(span.code, 2);
}

// The HTML report's tornado draws the rows `rlcost sensitivity --json` prints,
// in the same order, with the same numbers.
TEST(Sensitivity, HtmlTornadoCarriesTheJsonNumbers) {
  const std::string html_path = (fs::temp_directory_path() / ("rlcost_tornado_" + std::to_string(::getpid()) + ".html")).string();
  auto rep = test::Rlcost("report -o " + html_path, 600);
  ASSERT_EQ(rep.code, 0) << rep.err;
  std::stringstream ss;
  ss << std::ifstream(html_path).rdbuf();
  fs::remove(html_path);
  const std::string html = ss.str();
  ASSERT_NE(html.find("id=\"chart-tornado\""), std::string::npos);
  auto r = test::Rlcost("sensitivity --json", 300);
  ASSERT_EQ(r.code, 0) << r.err;
  json j = json::parse(r.out);
  std::regex row_re(R"re(<g class="tornado-row" data-input="([^"]*)" data-low-value="([^"]*)" data-high-value="([^"]*)" data-metric-low="([^"]*)" data-metric-high="([^"]*)")re");
  size_t i = 0;
  for (auto it = std::sregex_iterator(html.begin(), html.end(), row_re); it != std::sregex_iterator(); ++it, ++i) {
    ASSERT_LT(i, j.size());
    const auto& m = *it;
    EXPECT_EQ(m[1].str(), j[i]["input"].get<std::string>()) << i;
    EXPECT_NEAR(std::stod(m[2]), j[i]["low_value"].get<double>(), 1e-6 * std::fabs(j[i]["low_value"].get<double>()));
    EXPECT_NEAR(std::stod(m[3]), j[i]["high_value"].get<double>(), 1e-6 * std::fabs(j[i]["high_value"].get<double>()));
    if (j[i]["metric_low"].is_number()) {
      EXPECT_NEAR(std::stod(m[4]), j[i]["metric_low"].get<double>(), 1e-6 * std::fabs(j[i]["metric_low"].get<double>()));
    } else {
      EXPECT_EQ(m[4].str(), "null");
    }
    if (j[i]["metric_high"].is_number()) {
      EXPECT_NEAR(std::stod(m[5]), j[i]["metric_high"].get<double>(), 1e-6 * std::fabs(j[i]["metric_high"].get<double>()));
    } else {
      EXPECT_EQ(m[5].str(), "null");
    }
  }
  EXPECT_EQ(i, j.size());
}


// Each 2026 lever the scenario states is an input of its own (docs/model.md,
// "Sensitivity"), and moves the answer where the lever acts: a re-split run
// whose stops cost more re-splits less and costs more; on flat lengths it
// never re-splits, so the stop moves nothing.
TEST(Sensitivity, LeverInputsSwingWhereTheLeverActs) {
  const std::string dir = std::string(RLCOST_SOURCE_DIR) + "/scenarios/levers/";
  auto grow = test::Rlcost("sensitivity " + dir + "resplit-lengths-grow.yaml --json --range placement.resplit.restart_s=0:30000", 300);
  ASSERT_EQ(grow.code, 0) << grow.err;
  const json g = json::parse(grow.out);
  const json* stop = Row(g, "placement.resplit.restart_s");
  ASSERT_NE(stop, nullptr);
  EXPECT_GT((*stop)["metric_high"].get<double>(), (*stop)["metric_low"].get<double>());
  auto flat = test::Rlcost("sensitivity " + dir + "resplit-lengths-flat.yaml --json", 300);
  ASSERT_EQ(flat.code, 0) << flat.err;
  const json f = json::parse(flat.out);
  const json* none = Row(f, "placement.resplit.restart_s");
  ASSERT_NE(none, nullptr);
  EXPECT_EQ((*none)["swing"].get<double>(), 0.0);
  // The spot reclaim rate, the draft's acceptance and the tail's over-launch likewise.
  for (auto [file, input] : {std::pair{"spot-rollout-helps.yaml", "hardware.spot.rollout.preemptions_per_hour"},
                             std::pair{"speculative-helps.yaml", "engine.speculative.acceptance"},
                             std::pair{"tail-batching-helps.yaml", "pipeline.tail.over_launch"}}) {
    auto r = test::Rlcost(std::string("sensitivity ") + dir + file + " --json", 300);
    ASSERT_EQ(r.code, 0) << file << r.err;
    const json rows = json::parse(r.out);
    const json* row = Row(rows, input);
    ASSERT_NE(row, nullptr) << file;
    EXPECT_GT((*row)["swing"].get<double>(), 0.0) << file;
  }
}

}  // namespace
}  // namespace rlcost
