// Where the GPU price comes from is shown beside it: the catalog's dated
// source, a --price flag, a partial --catalog entry, or the scenario itself.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <fmt/format.h>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "support.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

TEST(PriceSource, EstimateNamesWhereThePriceComesFrom) {
  // The built-in default, as the catalog states it: price, what it is, its date, its source.
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  const GpuSpec* h100 = cat->FindGpu("h100-sxm");
  ASSERT_NE(h100, nullptr);
  const std::string& source = h100->sources.at("price_per_hour");
  EXPECT_TRUE(std::regex_search(source, std::regex(R"(^MARKET, 20\d\d-\d\d-\d\d, override it: .*aimultiple\.com)"))) << source;
  auto def = test::Rlcost("estimate", 120);
  ASSERT_EQ(def.code, 0) << def.err;
  // One clean line: the price once, what it is and its date in words, the
  // catalog's text after its "$2.95/GPU-h, " and how to change it.
  const std::string rest = source.substr(source.find("$2.95/GPU-h, ") + std::string("$2.95/GPU-h, ").size());
  const std::string line =
      fmt::format("GPU price: ${:.2f}/GPU-h, market price as of {}: {}; a catalog default, change it with "
                  "hardware.price_per_gpu_hour\n",
                  h100->price_per_hour, source.substr(8, 10), rest);
  EXPECT_NE(def.out.find(line), std::string::npos) << def.out;
  const size_t at = def.out.find("GPU price: ");
  ASSERT_NE(at, std::string::npos);
  const std::string shown = def.out.substr(at, def.out.find('\n', at) - at);
  EXPECT_EQ(shown.find("$2.95/GPU-h, ", 12), std::string::npos) << "the price is said twice: " << shown;
  EXPECT_EQ(shown.find("override it"), std::string::npos) << shown;
  EXPECT_EQ(def.out.find("GPU price", at + 1), std::string::npos) << "the price line is repeated";
  auto json = test::Rlcost("estimate --json", 120);
  ASSERT_EQ(json.code, 0) << json.err;
  EXPECT_NE(json.out.find(fmt::format("price: ${:.2f} per GPU-hour (catalog default: {}", h100->price_per_hour,
                                      source.substr(0, 40))),
            std::string::npos)
      << json.out;

  auto flag = test::Rlcost("estimate --price h100-sxm=2.5", 120);
  ASSERT_EQ(flag.code, 0) << flag.err;
  EXPECT_NE(flag.out.find("GPU price: $2.50/GPU-h, set with --price"), std::string::npos) << flag.out;

  const fs::path file = fs::temp_directory_path() / ("rlcost_price_" + std::to_string(::getpid()) + ".yaml");
  std::ofstream(file) << "gpus:\n  h100-sxm:\n    price_per_hour: 2.75\n";
  auto partial = test::Rlcost("estimate --catalog " + file.string(), 120);
  fs::remove(file);
  ASSERT_EQ(partial.code, 0) << partial.err;
  EXPECT_NE(partial.out.find("GPU price: $2.75/GPU-h, set in " + file.string()), std::string::npos) << partial.out;

  auto own = test::Rlcost("estimate --set hardware.price_per_gpu_hour=4", 120);
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_NE(own.out.find("GPU price: $4.00/GPU-h, set in the scenario (hardware.price_per_gpu_hour)"), std::string::npos)
      << own.out;
}

// Every command that shows a price shows what it is and its date: the price
// card per GPU, the waterfall's newer-GPU lever, the catalog table.
TEST(PriceSource, PriceCardWaterfallAndCatalogDateTheirPrices) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat.has_value());
  const GpuSpec* b200 = cat->FindGpu("b200");
  ASSERT_NE(b200, nullptr);
  const std::string& source = b200->sources.at("price_per_hour");
  const std::string head = source.substr(0, source.find(", override it"));
  EXPECT_TRUE(std::regex_match(head, std::regex(R"(MARKET, 20\d\d-\d\d-\d\d)"))) << head;

  auto card = test::Rlcost("price --models qwen3-8b --gpus h100-sxm,b200", 300);
  ASSERT_EQ(card.code, 0) << card.err;
  EXPECT_NE(card.out.find(fmt::format("GPU price, b200: ${:.2f}/GPU-h, market price as of {}: ", b200->price_per_hour,
                                      head.substr(8))),
            std::string::npos)
      << card.out;
  auto card_json = test::Rlcost("price --models qwen3-8b --gpus b200 --json", 300);
  ASSERT_EQ(card_json.code, 0) << card_json.err;
  EXPECT_NE(card_json.out.find("\"gpu_price\""), std::string::npos) << card_json.out;
  EXPECT_NE(card_json.out.find(head), std::string::npos) << card_json.out;

  auto wf = test::Rlcost("waterfall", 300);
  ASSERT_EQ(wf.code, 0) << wf.err;
  EXPECT_NE(wf.out.find(fmt::format("b200 at ${:.2f}/GPU-h ({})", b200->price_per_hour, head)), std::string::npos) << wf.out;

  auto table = test::Rlcost("catalog", 60);
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("price as of"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find(head), std::string::npos) << table.out;
}

}  // namespace
}  // namespace rlcost
