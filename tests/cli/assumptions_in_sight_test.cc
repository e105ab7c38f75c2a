// Every assumption that moves a figure is shown where the figure is (issue
// 39): the speculative method's acceptance and its source in `estimate`'s
// brief text and JSON; a price card without tenants does not say "per
// tenant"; a quoted number is refused naming its field; `import` writes a
// scenario `estimate` prices from the veRL quickstart and NeMo RL's
// grpo_math_1B.yaml as their repositories ship them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "support.h"

namespace {

using rlcost::test::Rlcost;
namespace fs = std::filesystem;

std::string Source(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/" + rel; }

TEST(AssumptionsInSight, SpeculativeAcceptanceAndItsSourceInTheBriefAndJson) {
  const std::string args = "estimate " + Source("scenarios/default.yaml") +
                           " --set model=qwen3-32b --set hardware.gpus=16 --set placement.rollout_tp=2 --set 'engine.speculative={method: mtp}'";
  auto brief = Rlcost(args);
  ASSERT_EQ(brief.code, 0) << brief.err;
  EXPECT_NE(brief.out.find("speculative decoding (engine.speculative): method mtp, 1 drafted token per step at "
                           "acceptance 0.85"),
            std::string::npos)
      << brief.out;
  EXPECT_NE(brief.out.find("ASSUMED: DeepSeek-V3's MTP acceptance (arXiv 2412.19437 sec. 5.4.3); Qwen3-32B has no MTP "
                           "module"),
            std::string::npos)
      << brief.out;
  auto json = Rlcost(args + " --json");
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  bool listed = false;
  for (const auto& a : j["assumptions"]) {
    const std::string s = a.get<std::string>();
    listed = listed || (s.find("acceptance 0.85") != std::string::npos && s.find("2412.19437") != std::string::npos);
  }
  EXPECT_TRUE(listed) << j["assumptions"].dump();
  // An acceptance the scenario gives is named as the scenario's.
  auto own = Rlcost("estimate " + Source("scenarios/default.yaml") +
                    " --set 'engine.speculative={method: eagle, acceptance: 0.7, draft_tokens: 3}'");
  ASSERT_EQ(own.code, 0) << own.err;
  EXPECT_NE(own.out.find("method eagle, 3 drafted tokens per step at acceptance 0.7 (engine.speculative.acceptance, "
                         "as the scenario gives it)"),
            std::string::npos)
      << own.out;
}

TEST(AssumptionsInSight, APriceCardWithoutTenantsSaysNoTenant) {
  auto card = Rlcost("price " + Source("scenarios/default.yaml"));
  ASSERT_EQ(card.code, 0) << card.err;
  EXPECT_EQ(card.out.find("per tenant"), std::string::npos) << card.out;
  auto lora = Rlcost("price " + Source("scenarios/default.yaml") + " --stack lora");
  ASSERT_EQ(lora.code, 0) << lora.err;
  EXPECT_NE(lora.out.find("per tenant"), std::string::npos) << lora.out;
}

TEST(AssumptionsInSight, AQuotedNumberIsRefusedNamingItsField) {
  const fs::path p = fs::temp_directory_path() / ("rlcost_quoted_" + std::to_string(::getpid()) + ".json");
  std::ofstream(p) << R"({"model": "qwen3-8b", "hardware": {"gpu": "h100-sxm", "gpus": "8"}})";
  auto r = Rlcost("estimate " + p.string());
  fs::remove(p);
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_NE(r.err.find("hardware.gpus: expected a whole number, got the text \"8\""), std::string::npos) << r.err;
}

TEST(AssumptionsInSight, UpstreamQuickstartsImportAndPrice) {
  const fs::path dir = fs::temp_directory_path() / ("rlcost_quickstarts_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string args;
  {
    std::ifstream in(Source("tests/data/ingest/verl/upstream/quickstart_gsm8k.args"));
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line[0] != '#') args += " '" + line + "'";
    }
  }
  const std::string verl = (dir / "verl.yaml").string(), nemo = (dir / "nemo.yaml").string();
  auto a = Rlcost("import verl " + Source("tests/data/ingest/verl/upstream/ppo_trainer_generated.yaml") + args +
                  " -o " + verl);
  EXPECT_EQ(a.code, 0) << a.err;
  auto b = Rlcost("import nemo-rl " + Source("tests/data/ingest/nemo-rl/upstream/grpo_math_1B.yaml") + " -o " + nemo);
  EXPECT_EQ(b.code, 0) << b.err;
  for (const auto& f : {verl, nemo}) {
    auto e = Rlcost("estimate " + f + " --json");
    ASSERT_EQ(e.code, 0) << f << ": " << e.err;
    const auto j = nlohmann::json::parse(e.out);
    EXPECT_GT(j["run"]["usd_by_phase"]["checkpoints"].get<double>(), 0) << f << "\n" << j["run"].dump();
    EXPECT_GT(j["run"]["usd_by_phase"]["evaluation"].get<double>(), 0) << f << "\n" << j["run"].dump();
  }
  fs::remove_all(dir);
}

}  // namespace
