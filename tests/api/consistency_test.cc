// One answer per question (issue #38): every way of asking for a shared
// scenario's run — estimate, the HTTP server's and the Python module's
// operation, simulate's plan, compare (a file against itself), the
// waterfall's first row, the report's figures and forecast --scenario — gives
// the same step time and dollars; and each lever's factor is the same in the
// waterfall, the report, the web page's data (/v1/waterfall) and the claims.
// They share one path (api::LoadRun, api::EstimateRun), so they agree to
// 1e-9 relative.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/ops.h"
#include "api/views.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

std::string SharedDir() { return std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios"; }

std::vector<std::string> SharedScenarios() {
  std::vector<std::string> out;
  std::error_code ec;
  if (!fs::is_directory(SharedDir(), ec)) return out;
  for (const auto& f : fs::directory_iterator(SharedDir())) {
    if (f.path().extension() == ".yaml") out.push_back(f.path().filename().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Relative agreement to 1e-9: the same computation on the same inputs.
void ExpectSame(double want, const nlohmann::json& got, const std::string& what) {
  ASSERT_TRUE(got.is_number()) << what << ": " << got.dump();
  const double g = got.get<double>();
  EXPECT_NEAR(g, want, 1e-9 * std::max(1.0, std::fabs(want))) << what;
}

struct Figures {
  double step_s = 0;
  double usd_per_step = 0;
};

Figures Of(const nlohmann::json& estimate) {
  return {estimate.at("step").at("time_s").get<double>(), estimate.at("cost").at("usd_per_step").get<double>()};
}

class Consistency : public ::testing::TestWithParam<std::string> {
 protected:
  ops::ScenarioInput In() const {
    ops::ScenarioInput in;
    in.file = SharedDir() + "/" + GetParam();
    return in;
  }
};

TEST_P(Consistency, EveryViewGivesEstimatesStepTimeAndDollars) {
  const auto in = In();
  auto est = ops::EstimateView(in);
  ASSERT_TRUE(est) << est.error().ToString();
  const Figures want = Of(est->json);
  ASSERT_GT(want.step_s, 0);

  // HTTP and Python call the JSON operation.
  auto json_op = ops::Estimate(in);
  ASSERT_TRUE(json_op) << json_op.error().ToString();
  ExpectSame(want.step_s, json_op->at("step").at("time_s"), "ops::Estimate step");
  ExpectSame(want.usd_per_step, json_op->at("cost").at("usd_per_step"), "ops::Estimate $/step");

  // The server reads a request body: the scenario's text (files refused).
  std::ifstream f(in.file);
  std::stringstream text;
  text << f.rdbuf();
  auto body = ops::ParseRequestBody(nlohmann::json{{"scenario", text.str()}}.dump(), false, {});
  ASSERT_TRUE(body) << body.error().ToString();
  auto http = ops::Estimate(body->in);
  if (http) {
    ExpectSame(want.step_s, http->at("step").at("time_s"), "request step");
    ExpectSame(want.usd_per_step, http->at("cost").at("usd_per_step"), "request $/step");
  } else {
    // Only a scenario that names a file of its own may differ: a request cannot read files.
    EXPECT_NE(http.error().ToString().find("file"), std::string::npos) << http.error().ToString();
  }

  // compare, a file against itself: both columns are estimate's run.
  ops::CompareInput c;
  c.scenarios = {in, in};
  c.labels = {"A", "B"};
  auto cmp = ops::CompareView(c);
  ASSERT_TRUE(cmp) << cmp.error().ToString();
  for (const auto& e : cmp->json.at("entries")) {
    ExpectSame(want.step_s, e.at("estimate").at("step").at("time_s"), "compare step");
    ExpectSame(want.usd_per_step, e.at("estimate").at("cost").at("usd_per_step"), "compare $/step");
  }

  // The waterfall starts from the run.
  auto wf = ops::WaterfallView(in, ops::LeverInput{});
  ASSERT_TRUE(wf) << wf.error().ToString();
  EXPECT_EQ(wf->json.at("baseline_kind"), "run");
  const auto& first = wf->json.at("baseline");
  ExpectSame(want.step_s, first.at("estimate").at("step").at("time_s"), "waterfall first row step");
  ExpectSame(want.usd_per_step, first.at("estimate").at("cost").at("usd_per_step"), "waterfall first row $/step");

  // The claims start from the run too, except the essay's lever claims,
  // which say they start from its naive baseline.
  auto cl = ops::Claims(in);
  ASSERT_TRUE(cl) << cl.error().ToString();
  int from_run = 0;
  for (const auto& claim : *cl) {
    if (claim.at("from") != "run") continue;
    ++from_run;
    ExpectSame(want.step_s, claim.at("starting_run").at("step_time_s"), "claims' run step");
    ExpectSame(want.usd_per_step, claim.at("starting_run").at("usd_per_step"), "claims' run $/step");
  }
  EXPECT_GE(from_run, 10);
  ExpectSame(want.usd_per_step, first.at("values").at("usd_per_step"), "waterfall first row values $/step");

  // forecast --scenario prices the log's steps with the run's step.
  ops::ForecastInput fi;
  fi.logs = {std::string(RLCOST_SOURCE_DIR) + "/tests/data/forecast/synthetic_gsm8k.csv"};
  fi.target = 0.5;
  fi.replicates = 0;
  fi.with_scenario = true;
  fi.scenario = in;
  auto fc = ops::ForecastView(fi);
  ASSERT_TRUE(fc) << fc.error().ToString();
  ExpectSame(want.step_s, fc->json.at("forecast").at("step_cost").at("step_s"), "forecast step");
  ExpectSame(want.usd_per_step, fc->json.at("forecast").at("step_cost").at("usd_per_step"), "forecast $/step");

  // simulate plans the same layout before it simulates.
  ops::SimulateInput si;
  si.steps = 1;
  auto sim = ops::SimulateView(in, si);
  ASSERT_TRUE(sim) << sim.error().ToString();
  EXPECT_EQ(sim->json.value("plan", nlohmann::json()), est->json.value("plan", nlohmann::json()));
}

// Each lever's factor is one number wherever it is shown: the waterfall, the
// web page's data (/v1/waterfall is ops::Waterfall), the HTML report, and the
// claims' combined figure (the 20-50x claim against the naive baseline).
TEST_P(Consistency, EachLeversFactorIsTheSameInEveryView) {
  const auto in = In();
  auto wf = ops::WaterfallView(in, ops::LeverInput{});
  ASSERT_TRUE(wf) << wf.error().ToString();
  auto web = ops::Waterfall(in, ops::LeverInput{});
  ASSERT_TRUE(web) << web.error().ToString();
  auto rep = ops::Report(in, ops::ReportInput{});
  ASSERT_TRUE(rep) << rep.error().ToString();
  auto est = ops::Estimate(in);
  ASSERT_TRUE(est);
  ExpectSame(Of(*est).step_s, rep->estimate_json.at("step").at("time_s"), "report step");
  ExpectSame(Of(*est).usd_per_step, rep->estimate_json.at("cost").at("usd_per_step"), "report $/step");
  ASSERT_TRUE(rep->waterfall_json.is_object()) << rep->waterfall_error;
  const auto& stages = wf->json.at("stages");
  ASSERT_EQ(stages.size(), web->at("stages").size());
  ASSERT_EQ(stages.size(), rep->waterfall_json.at("stages").size());
  for (size_t i = 0; i < stages.size(); ++i) {
    for (const auto& [metric, f] : stages[i].at("factor_vs_previous").items()) {
      if (!f.is_number()) continue;
      const std::string what = stages[i].at("id").get<std::string>() + " " + metric;
      ExpectSame(f.get<double>(), web->at("stages")[i].at("factor_vs_previous").at(metric), "web " + what);
      ExpectSame(f.get<double>(), rep->waterfall_json.at("stages")[i].at("factor_vs_previous").at(metric), "report " + what);
    }
  }
  // The claims' combined figure: the last stage against the naive baseline.
  auto cl = ops::Claims(in);
  ASSERT_TRUE(cl) << cl.error().ToString();
  for (const auto& claim : *cl) {
    if (claim.at("id") != "combined" || !claim.at("value").is_number()) continue;
    for (const auto& v : wf->json.at("claim").at("verdicts")) {
      if (v.at("metric") == "usd_per_useful_sample") {
        EXPECT_NEAR(v.at("combined_factor").get<double>(), claim.at("value").get<double>(),
                    1e-9 * claim.at("value").get<double>());
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(SharedScenarios, Consistency, ::testing::ValuesIn(SharedScenarios()),
                         [](const auto& info) {
                           std::string n = info.param.substr(0, info.param.find('.'));
                           for (char& ch : n) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return n;
                         });
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Consistency);

// The step of the waterfall's hardware lever applied alone to the run of `in`.
void ExpectSoloHardwareStep(const ops::ScenarioInput& in, const ops::LeverInput& lv, double want, const std::string& what) {
  auto wf = ops::Waterfall(in, lv);
  ASSERT_TRUE(wf) << wf.error().ToString();
  bool found = false;
  for (const auto& so : wf->at("solo")) {
    if (so.at("id") != "solo:hardware") continue;
    found = true;
    ExpectSame(want, so.at("values").at("step_time_s"), what);
  }
  EXPECT_TRUE(found) << wf->dump();
}

// A lever that changes the GPU keeps the scenario's engine: on a B200 with
// SGLang, estimate, the price card's B200 row and the waterfall's hardware
// lever (to the same B200) price the same step. Before #38, SetGpu swapped in
// the catalog GPU with plain vLLM's decode overhead (116.6 s against 83.8 s).
TEST(OneAnswer, HardwareLeverKeepsTheEngine) {
  ops::ScenarioInput in;
  in.sets = {"hardware.gpu=b200", "placement.engine=sglang"};
  auto est = ops::Estimate(in);
  ASSERT_TRUE(est) << est.error().ToString();
  const double step = est->at("step").at("time_s").get<double>();
  ops::PriceInput p;
  p.gpus = {"b200"};
  auto card = ops::Price(in, p);
  ASSERT_TRUE(card) << card.error().ToString();
  ASSERT_EQ(card->at("rows").size(), 1u);
  ExpectSame(step, card->at("rows")[0].at("step_time_s"), "price --gpus b200");
  ops::LeverInput lv;
  lv.order = "hardware";
  lv.gpu = "b200";
  // The lever alone on the run (a planned layout lever may stand first in the stages).
  ExpectSoloHardwareStep(in, lv, step, "waterfall hardware lever");
  // And the engine's default is what the estimate states.
  const std::string assumptions = est->dump();
  EXPECT_NE(assumptions.find("sglang (0.00 ms of fixed cost per decode iteration"), std::string::npos);
}

// From a run on H100s, each price card row is the run `estimate` prices with
// that model and GPU set: the row is planned for its own GPU from the file as
// written, not with the layout planned for the H100s (before: 52.49 s against
// estimate's 51.67 s for Qwen3-8B with SGLang swapped to a B200). And the
// waterfall's hardware lever, alone on the run, prices that same B200 step.
TEST(OneAnswer, PriceRowsAreTheEstimatesOfTheirModelAndGpu) {
  ops::ScenarioInput in;
  in.sets = {"placement.engine=sglang"};
  ops::PriceInput p;
  p.gpus = {"b200", "h100-sxm"};
  p.models = {"qwen3-8b", "qwen3-32b"};
  auto card = ops::Price(in, p);
  ASSERT_TRUE(card) << card.error().ToString();
  ASSERT_EQ(card->at("rows").size(), 4u);
  for (const auto& row : card->at("rows")) {
    ops::ScenarioInput one = in;
    one.sets.push_back("model=" + row.at("model").get<std::string>());
    one.sets.push_back("hardware.gpu=" + row.at("gpu").get<std::string>());
    auto est = ops::Estimate(one);
    // A pair that does not fit is refused by both (Qwen3-32B at the default's rollout_tp 1 on an H100).
    ASSERT_EQ(bool(est), row.at("ok").get<bool>()) << row.dump();
    if (!est) continue;
    ExpectSame(est->at("step").at("time_s").get<double>(), row.at("step_time_s"),
               "price row " + row.at("model").get<std::string>() + " on " + row.at("gpu").get<std::string>());
  }
  ops::ScenarioInput b200 = in;
  b200.sets.push_back("hardware.gpu=b200");
  auto est = ops::Estimate(b200);
  ASSERT_TRUE(est) << est.error().ToString();
  ops::LeverInput lv;
  lv.order = "hardware";
  lv.gpu = "b200";
  ExpectSoloHardwareStep(in, lv, est->at("step").at("time_s").get<double>(), "waterfall hardware lever from H100");
}

// A request names its own fields: /v1/waterfall {"gpu": "nope"} says `gpu`,
// not the command line's --gpu.
TEST(OneAnswer, RequestErrorsNameTheRequestsField) {
  auto wf = ops::Waterfall(ops::ScenarioInput{}, [] {
    ops::LeverInput lv;
    lv.gpu = "nope";
    return lv;
  }());
  ASSERT_FALSE(wf);
  ASSERT_FALSE(wf.error().problems.empty());
  EXPECT_EQ(wf.error().problems[0].path, "gpu");
  EXPECT_EQ(wf.error().ToString().find("--"), std::string::npos) << wf.error().ToString();
}

}  // namespace
}  // namespace rlcost
