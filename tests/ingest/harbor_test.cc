// `rlcost import harbor`: Harbor task folders (task.toml, instruction.md,
// environment/Dockerfile, tests/test.sh; fixtures in tests/data/ingest/harbor
// in the format's public shape) become scenarios whose sandbox and verifier
// come from the task; bad folders are errors naming the file (and line).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "ingest/import.h"
#include "rlcost/estimate.h"
#include "support.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

std::string Data(const std::string& rel) { return std::string(RLCOST_SOURCE_DIR) + "/tests/data/ingest/harbor/" + rel; }

Scenario Imported(const std::string& dir, const ingest::ImportOptions& opt = {}) {
  auto r = ingest::ImportHarbor(dir, test::Cat(), opt);
  EXPECT_TRUE(r) << r.error().ToString();
  if (!r) return {};
  auto s = LoadScenarioText(r->yaml, test::Cat(), "imported", ".");
  EXPECT_TRUE(s) << s.error().ToString() << "\n" << r->yaml;
  return s ? *s : Scenario{};
}

TEST(Harbor, TaskMapsSandboxVerifierAndTimeouts) {
  const std::string dir = Data("dataset/log-summary");
  auto r = ingest::ImportHarbor(dir, test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  const Scenario s = Imported(dir);
  ASSERT_TRUE(s.environment.sandbox);
  EXPECT_DOUBLE_EQ(s.environment.sandbox->cpus_per_rollout, 2);             // [environment] cpus
  EXPECT_EQ(s.environment.reward.verifier.kind, VerifierKind::kTests);      // tests/test.sh
  EXPECT_DOUBLE_EQ(s.environment.reward.verify_s.max(), 300);              // [verifier] timeout_sec
  EXPECT_DOUBLE_EQ(s.environment.tool_latency_s.max(), 1800);              // [agent] timeout_sec
  // instruction.md: 731 bytes at 4 characters per token.
  std::ifstream in(dir + "/instruction.md", std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  EXPECT_DOUBLE_EQ(s.environment.prompt_tokens.mean(), std::round(ss.str().size() / 4.0));
  EXPECT_EQ(s.name, "harbor-log-summary");
  // What a task cannot say is marked, and what has no counterpart is listed.
  EXPECT_NE(r->yaml.find("model: qwen3-8b"), std::string::npos);
  EXPECT_NE(r->yaml.find("ASSUMED: a task does not say which policy"), std::string::npos);
  EXPECT_NE(r->yaml.find("ASSUMED: agent turns per trial"), std::string::npos);
  EXPECT_NE(r->yaml.find("environment.memory_mb = 4096"), std::string::npos) << r->yaml;
  EXPECT_NE(r->yaml.find("metadata.difficulty = \"medium\""), std::string::npos) << r->yaml;
  EXPECT_NE(r->yaml.find("build_timeout_sec 600"), std::string::npos) << r->yaml;
  // It estimates.
  auto e = EstimateAnalytic(s);
  ASSERT_TRUE(e) << e.error().ToString();
  EXPECT_GT(e->usd_sandbox_per_step, 0);
}

TEST(Harbor, OptionsNameThePolicyAndGpu) {
  const Scenario s = Imported(Data("dataset/sqlite-recover"), {.gpu = "H100", .model = "Qwen/Qwen3-32B"});
  EXPECT_EQ(s.model.id, "qwen3-32b");
  EXPECT_EQ(s.hardware.gpu.id, "h100-sxm");
  EXPECT_DOUBLE_EQ(s.environment.sandbox->cpus_per_rollout, 4);
  EXPECT_DOUBLE_EQ(s.environment.reward.verify_s.max(), 600);
  auto bad = ingest::ImportHarbor(Data("dataset/sqlite-recover"), test::Cat(), {.model = "gpt-9"});
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().ToString().find("model: unknown model 'gpt-9'"), std::string::npos);
}

TEST(Harbor, DatasetFolderAggregatesItsTasks) {
  auto r = ingest::ImportHarbor(Data("dataset"), test::Cat(), {});
  ASSERT_TRUE(r) << r.error().ToString();
  const Scenario s = Imported(Data("dataset"));
  EXPECT_DOUBLE_EQ(s.environment.sandbox->cpus_per_rollout, 3);          // mean of 2 and 4
  EXPECT_DOUBLE_EQ(s.environment.reward.verify_s.max(), 600);           // the longest verifier timeout
  EXPECT_DOUBLE_EQ(s.environment.tool_latency_s.max(), 3600);
  EXPECT_EQ(s.environment.prompt_tokens.kind(), DistKind::kEmpirical);   // one instruction per task
  EXPECT_NE(r->yaml.find("(2 tasks)"), std::string::npos);
  EXPECT_NE(r->yaml.find("sqlite-recover: environment.memory_mb = 8192"), std::string::npos) << r->yaml;
}

TEST(Harbor, BadFoldersNameTheFile) {
  auto none = ingest::ImportHarbor(Data("broken/no-toml"), test::Cat(), {});
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().ToString().find("broken/no-toml/task.toml: not found"), std::string::npos)
      << none.error().ToString();
  // A TOML syntax error: the file and its line (a real TOML parser, toml++).
  auto syntax = ingest::ImportHarbor(Data("broken/bad-toml"), test::Cat(), {});
  ASSERT_FALSE(syntax);
  EXPECT_NE(syntax.error().ToString().find("broken/bad-toml/task.toml:7: malformed TOML"), std::string::npos)
      << syntax.error().ToString();
  // A value of the wrong type: file, line and the key.
  auto value = ingest::ImportHarbor(Data("broken/bad-value"), test::Cat(), {});
  ASSERT_FALSE(value);
  EXPECT_NE(value.error().ToString().find("broken/bad-value/task.toml:7: environment.cpus: \"two\" is not a number"),
            std::string::npos)
      << value.error().ToString();
  auto missing = ingest::ImportHarbor(Data("no-such-folder"), test::Cat(), {});
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().ToString().find("no-such-folder"), std::string::npos);
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("rlcost_harbor_" + std::to_string(::getpid()));
  TempDir() { fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

TEST(Harbor, CommandWritesOnlyOnSuccess) {
  TempDir dir;
  const std::string out = (dir.path / "task.yaml").string();
  auto bad = test::Rlcost("import harbor " + Data("broken/bad-toml") + " -o " + out);
  EXPECT_EQ(bad.code, 2) << bad.err;
  EXPECT_NE(bad.err.find("task.toml:7"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(fs::is_empty(dir.path));
  auto ok = test::Rlcost("import harbor " + Data("dataset/log-summary") + " --gpu h100 -o " + out);
  EXPECT_EQ(ok.code, 0) << ok.err;
  ASSERT_TRUE(fs::exists(out));
  auto est = test::Rlcost("estimate " + out + " --json");
  EXPECT_EQ(est.code, 0) << est.err;
  EXPECT_NE(est.out.find("usd_sandbox_per_step"), std::string::npos);
}

// Non-ASCII characters where TOML expects whitespace or the end of a value:
// Debian's toml++ 3.3.0 reached its own "unreachable" (undefined behaviour) on
// some of them (fuzz_import; src/link/toml.h carries upstream's fix). Each
// input kept under fuzz/regressions/import is now a TOML error with its line.
TEST(Harbor, NonAsciiWhereTomlWantsWhitespaceIsAnErrorWithItsLine) {
  const fs::path dir = fs::temp_directory_path() / ("rlcost_harbor_nonascii_" + std::to_string(::getpid()));
  auto import_toml = [&](const std::string& toml) {
    fs::create_directories(dir / "tests");
    std::ofstream(dir / "task.toml", std::ios::binary) << toml;
    std::ofstream(dir / "instruction.md") << "Fix the bug.\n";
    std::ofstream(dir / "tests" / "test.sh") << "#!/bin/sh\nexit 0\n";
    auto r = ingest::ImportHarbor(dir.string(), test::Cat(), {});
    fs::remove_all(dir);
    return r;
  };
  for (const char* name : {"ubsan_toml_unreachable_nonascii", "ubsan_toml_unreachable_after_value"}) {
    std::ifstream in(fs::path(RLCOST_SOURCE_DIR) / "fuzz" / "regressions" / "import" / name, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string bytes = ss.str();
    ASSERT_GT(bytes.size(), 1u) << name;
    auto r = import_toml(bytes.substr(1));  // the first byte picks the importer (2: Harbor)
    ASSERT_FALSE(r) << name;
    EXPECT_NE(r.error().ToString().find("task.toml:1: malformed TOML"), std::string::npos) << r.error().ToString();
  }
  // Code points of the lookup buckets toml++ 3.3.0 got wrong (U+00A7, U+0269,
  // U+00E9, U+3001, U+FE10), after a value and as a key.
  for (const char* bad : {"x=0\"\xc2\xa7", "x=0\"\xc9\xa9", "x=0 \xc2\xa7\n", "\xc3\xa9 = 1\n", "x=0\"\xe3\x80\x81",
                          "x=0\"\xef\xb8\x90"}) {
    auto r = import_toml(bad);
    ASSERT_FALSE(r) << bad;
    EXPECT_NE(r.error().ToString().find("malformed TOML"), std::string::npos) << r.error().ToString();
  }
  // Non-ASCII text inside strings and comments is TOML and still reads, also
  // after a line-ending backslash (U+00A7 there is upstream's #190).
  auto ok = import_toml("# café\n[task]\nname = \"café-ünïcode\"\ndescription = \"\"\"\\\n\xc2\xa7 café\"\"\"\n[verifier]\ntimeout_sec = 60.0\n"
                        "[environment]\ndocker_image = \"python:3.12\"\n");
  EXPECT_TRUE(ok.has_value()) << (ok ? "" : ok.error().ToString());
}

}  // namespace
}  // namespace rlcost
