// Where the GPU price comes from is shown beside it: the catalog's dated
// source, a --price flag, a partial --catalog entry, or the scenario itself.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "support.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

TEST(PriceSource, EstimateNamesWhereThePriceComesFrom) {
  auto def = test::Rlcost("estimate", 120);
  ASSERT_EQ(def.code, 0) << def.err;
  EXPECT_NE(def.out.find("GPU price: $6.16/GPU-h, DEFAULT, override it: CoreWeave"), std::string::npos) << def.out;
  EXPECT_NE(def.out.find("Feb 2026"), std::string::npos) << def.out;

  auto flag = test::Rlcost("estimate --price h100-sxm=2.5", 120);
  ASSERT_EQ(flag.code, 0) << flag.err;
  EXPECT_NE(flag.out.find("GPU price: $2.50/GPU-h, set with --price"), std::string::npos) << flag.out;

  const fs::path cat = fs::temp_directory_path() / ("rlcost_price_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(cat) << "gpus:\n  h100-sxm:\n    price_per_hour: 2.95\n";
  auto partial = test::Rlcost("estimate --catalog " + cat.string(), 120);
  fs::remove(cat);
  ASSERT_EQ(partial.code, 0) << partial.err;
  EXPECT_NE(partial.out.find("GPU price: $2.95/GPU-h, set in " + cat.string()), std::string::npos) << partial.out;

  auto own = test::Rlcost("estimate --set hardware.price_per_gpu_hour=4", 120);
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_NE(own.out.find("GPU price: $4.00/GPU-h, set in the scenario (hardware.price_per_gpu_hour)"), std::string::npos)
      << own.out;
}

}  // namespace
}  // namespace rlcost
