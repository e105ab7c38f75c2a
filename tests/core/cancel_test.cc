// core/cancel: a set flag stops every long computation on its thread — the
// analytic estimate (and so every lever of a waterfall or report), the event
// simulator, a forecast's bootstrap — with a "was cancelled" error, and a
// cleared or absent flag leaves the answer as it was.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <string>
#include <vector>

#include "core/cancel.h"
#include "decide/levers.h"
#include "forecast/forecast.h"
#include "rlcost/estimate.h"
#include "support.h"

namespace {

using namespace rlcost;

const std::string kDefault = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/default.yaml";

void ExpectCancelled(const Error& e, const std::string& where) {
  EXPECT_NE(e.ToString().find(where), std::string::npos) << e.ToString();
  EXPECT_NE(e.ToString().find("was cancelled"), std::string::npos) << e.ToString();
}

TEST(Cancel, ScopesNestAndRestoreTheFlagTheyFound) {
  std::atomic<bool> outer{false}, inner{true};
  EXPECT_EQ(CancelFlag(), nullptr);
  EXPECT_FALSE(CancelRequested());
  {
    ScopedCancel a(&outer);
    EXPECT_FALSE(CancelRequested());
    {
      ScopedCancel b(&inner);
      EXPECT_TRUE(CancelRequested());
    }
    EXPECT_EQ(CancelFlag(), &outer);
    outer = true;
    EXPECT_TRUE(CancelRequested());
  }
  EXPECT_EQ(CancelFlag(), nullptr);
  EXPECT_FALSE(CancelRequested());
}

TEST(Cancel, AnEstimateAndASimulationStopOnceTheFlagIsSet) {
  const Scenario s = test::LoadFile(kDefault);
  std::atomic<bool> stop{false};
  ScopedCancel scope(&stop);
  auto before = EstimateAnalytic(s);
  ASSERT_TRUE(before) << before.error().ToString();
  stop = true;
  auto a = EstimateAnalytic(s);
  ASSERT_FALSE(a);
  ExpectCancelled(a.error(), "estimate");
  sim::Options so;
  so.steps = 1;
  auto m = EstimateSimulated(s, so);
  ASSERT_FALSE(m);
  ExpectCancelled(m.error(), "simulat");
  stop = false;
  auto after = EstimateAnalytic(s);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->step.time_s, before->step.time_s);  // the flag changes nothing but whether it runs
}

TEST(Cancel, AWaterfallStopsAtItsNextLever) {
  const Scenario s = test::LoadFile(kDefault);
  std::atomic<bool> stop{true};
  ScopedCancel scope(&stop);
  auto wf = levers::BuildWaterfall(s, test::Cat(), levers::Options{});
  ASSERT_FALSE(wf);
  ExpectCancelled(wf.error(), "estimate");
}

TEST(Cancel, AForecastStopsBetweenItsBootstrapRefits) {
  forecast::ProgressSeries series;
  series.path = "test";
  series.metric = "reward";
  for (int i = 1; i <= 60; ++i) series.points.push_back({i, 0.3 + 0.08 * std::log(double(i)) + (i % 2 ? 0.004 : -0.004), 0});
  series.first_step = 1;
  series.last_step = 60;
  forecast::Options o;
  o.target = 0.7;
  auto free = forecast::Forecast(series, o);
  ASSERT_TRUE(free) << free.error().ToString();
  ASSERT_TRUE(free->ok) << free->reason;  // it reaches the bootstrap: a rise to extrapolate
  std::atomic<bool> stop{true};
  ScopedCancel scope(&stop);
  auto f = forecast::Forecast(series, o);
  ASSERT_FALSE(f);
  ExpectCancelled(f.error(), "forecast");
}

}  // namespace
