// The built-in catalog compiled from C++ (generated at build time) against the
// same YAML parsed at run time: every field of every GPU and model equal.
#include <gtest/gtest.h>

#include "catalog/codegen.h"
#include "catalog/format.h"
#include "rlcost/catalog.h"

namespace rlcost {
namespace {

TEST(BuiltinCatalog, GeneratedEqualsParsedYaml) {
  auto generated = Catalog::Builtin();
  auto parsed = Catalog::BuiltinFromYaml();
  ASSERT_TRUE(generated) << generated.error().ToString();
  ASSERT_TRUE(parsed) << parsed.error().ToString();
  EXPECT_EQ(generated->GpuIds(), parsed->GpuIds());
  EXPECT_EQ(generated->ModelIds(), parsed->ModelIds());
  EXPECT_GT(generated->GpuIds().size(), 5u);
  EXPECT_GT(generated->ModelIds().size(), 5u);
  // CatalogToCpp writes every field (it stops compiling when a field is added
  // and not written), to 17 significant digits: equal text, equal catalogs.
  EXPECT_EQ(catalog_internal::CatalogToCpp(*generated), catalog_internal::CatalogToCpp(*parsed));
  EXPECT_EQ(FormatCatalogJson(*generated), FormatCatalogJson(*parsed));
  const GpuSpec* a = generated->FindGpu("h100-sxm");
  const GpuSpec* b = parsed->FindGpu("h100-sxm");
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->hbm_tb_per_s, b->hbm_tb_per_s);
  EXPECT_EQ(a->efficiency.decode_bw, b->efficiency.decode_bw);
  EXPECT_EQ(a->sources, b->sources);
}

TEST(BuiltinCatalog, UserFilesStillParseYamlOnTopOfIt) {
  auto cat = Catalog::Builtin();
  ASSERT_TRUE(cat);
  auto ok = cat->AddText("gpus:\n  my-gpu:\n    name: Mine\n    memory_gb: 80\n    hbm_tb_per_s: 2\n"
                         "    tflops_bf16: 500\n    intra_node_gb_per_s: 450\n    inter_node_gb_per_s: 50\n"
                         "    price_per_hour: 2\n",
                         "mine.yaml");
  ASSERT_TRUE(ok) << ok.error().ToString();
  EXPECT_NE(cat->FindGpu("my-gpu"), nullptr);
  EXPECT_NE(cat->FindGpu("h100-sxm"), nullptr);
}

}  // namespace
}  // namespace rlcost
