// The named fits of catalog/efficiency.yaml (docs/model.md, "Named fits"):
// the catalog holds what `rlcost validate ../shared/validation/logs --fits`
// recomputes now, and the fit itself, worked on a grid by hand.
#include "fit/named_fit.h"

#include <cmath>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "support.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

// A model change that moves the update or the refit moves the fits; the
// catalog must then be refitted (and docs/model.md's figures with it).
TEST(NamedFit, CatalogHoldsTheFitsRecomputedFromTheLogs) {
  const std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/logs";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared/validation/logs absent";
  auto r = validate::FitNamedDefaults(dir, test::Cat(), validate::Options{});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_EQ(r->fits.size(), 2u);
  const auto& share = r->fits[0];
  EXPECT_EQ(share.field, "typical_update_share");
  EXPECT_EQ(share.runs, 8);
  EXPECT_NEAR(share.value, share.catalog, 0.005)
      << "refit catalog/efficiency.yaml typical_update_share: `rlcost validate ../shared/validation/logs --fits`";
  const auto& rate = r->fits[1];
  EXPECT_EQ(rate.field, "pageable_copy_s_per_gb");
  EXPECT_EQ(rate.runs, 6);  // the NeMo RL runs time the refit; veRL's logs here do not
  EXPECT_NEAR(rate.value, rate.catalog, 0.05)
      << "refit catalog/efficiency.yaml pageable_copy_s_per_gb: `rlcost validate ../shared/validation/logs --fits`";
  // Each fold leaves one run out and refits on the others.
  EXPECT_EQ(share.folds.size(), 8u);
  EXPECT_EQ(rate.folds.size(), 6u);
  // Leave one run out on both paths: every metric of the eight runs.
  ASSERT_EQ(r->loo.size(), 2u);
  for (const auto& l : r->loo) EXPECT_EQ(l.checks.size(), 30u) << validate::ToString(l.path);
}

// A fold's own value comes from the other runs only: a run whose update the
// model already gets right pulls the fit towards 1 when it is in, so leaving
// it out moves the fit down (or leaves it), never up.
TEST(NamedFit, AFoldIsFittedWithoutItsRun) {
  const std::string dir = std::string(RLCOST_SOURCE_DIR) + "/../shared/validation/logs";
  if (!fs::exists(dir)) GTEST_SKIP() << "../shared/validation/logs absent";
  auto r = validate::FitNamedDefaults(dir, test::Cat(), validate::Options{.simulated = false});
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  ASSERT_EQ(r->loo.size(), 1u);  // the analytic path only
  const auto& share = r->fits[0];
  for (const auto& [run, v] : share.folds) {
    // The 8B Megatron run's update is priced 1.01x measured at the published MFU.
    if (run == "nemo-v03-llama31-8b-megatron-1n8g.yaml") EXPECT_LE(v, share.value + 1e-9);
    // The 70B DTensor run's update hardly moves with the MFU (network-bound), so it
    // pulls the fit down; without it the fit rises or stays.
    if (run == "nemo-v03-llama31-70b-dtensor-8n8g.yaml") EXPECT_GE(v, share.value - 1e-9);
  }
}

TEST(NamedFit, AFolderWithoutTheFitsMetricsIsAnError) {
  const std::string dir = testing::TempDir() + "/named_fit_empty";
  fs::create_directories(dir);
  {
    std::FILE* f = std::fopen((dir + "/a.yaml").c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("name: a\nmodel: llama-3.1-8b\nhardware: {gpu: h100-sxm, gpus: 8}\n"
               "expect:\n  source: test\n  metrics:\n    step.time_s: {value: 100, tolerance: 0.25}\n",
               f);
    std::fclose(f);
  }
  auto r = validate::FitNamedDefaults(dir, test::Cat(), validate::Options{.simulated = false});
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().ToString().find("step.train_s"), std::string::npos) << r.error().ToString();
}

}  // namespace
}  // namespace rlcost
