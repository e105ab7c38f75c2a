// LoadOneYamlDocument: one document from a user's text, and every input
// yaml-cpp 0.7 loops on (a ',' where a value should start) refused at its
// line instead of hanging.
#include "core/yaml.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

// Runs `f` on its own thread; past `seconds` the test binary ends at once with
// the reason (a std::async future would wait for the hung call when dropped).
template <typename F>
auto WithDeadline(F f, int seconds, const std::string& what) {
  auto fut = std::async(std::launch::async, std::move(f));
  if (fut.wait_for(std::chrono::seconds(seconds)) != std::future_status::ready) {
    std::fprintf(stderr, "FAILED: still running after %d s (a hang): %s\n", seconds, what.c_str());
    std::fflush(stderr);
    std::_Exit(1);
  }
  return fut.get();
}

std::string Message(const Result<YAML::Node>& r) { return r ? std::string("(loaded)") : r.error().ToString(); }

TEST(OneYamlDocument, LoadsOneDocumentAndEmptyText) {
  auto r = LoadOneYamlDocument("a: 1\nb: [1, 2]\n", "x.yaml", "a test file");
  ASSERT_TRUE(r.has_value()) << Message(r);
  EXPECT_EQ((*r)["a"].as<int>(), 1);
  EXPECT_EQ((*r)["b"].size(), 2u);
  auto empty = LoadOneYamlDocument("# only a comment\n", "x.yaml", "a test file");
  ASSERT_TRUE(empty.has_value());
  EXPECT_TRUE(empty->IsNull());
  auto explicit_start = LoadOneYamlDocument("---\na: 1\n...\n", "x.yaml", "a test file");
  ASSERT_TRUE(explicit_start.has_value()) << Message(explicit_start);
  EXPECT_EQ((*explicit_start)["a"].as<int>(), 1);
}

TEST(OneYamlDocument, ASecondDocumentIsRefusedAtItsLine) {
  auto r = LoadOneYamlDocument("a: 1\nb: 2\n---\nc: 3\n", "x.yaml", "a test file");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(Message(r),
            "x.yaml:3: a second YAML document starts here; a test file holds one document (remove the '---' or "
            "split the file)");
}

TEST(OneYamlDocument, MalformedYamlNamesTheLine) {
  auto r = LoadOneYamlDocument("a: 1\nb: [1, 2\n", "x.yaml", "a test file");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(Message(r).find("x.yaml:"), std::string::npos) << Message(r);
  EXPECT_NE(Message(r).find("malformed YAML"), std::string::npos) << Message(r);
}

// yaml-cpp 0.7's LoadAll yields an endless stream of empty documents at a
// ',' that starts a document (jbeder/yaml-cpp#1040); Load returns null and
// drops the rest. Each case runs on its own thread with a deadline, so a
// regression fails the test instead of hanging it.
TEST(OneYamlDocument, ACommaWhereAValueStartsIsRefusedNotLoopedOn) {
  struct Case {
    const char* text;
    const char* where;
  } cases[] = {
      {",\n", "x.yaml:1: malformed YAML: ',' at column 1 cannot start a value"},
      {",# x\nname: y\n", "x.yaml:1: malformed YAML: ',' at column 1"},
      {"# a comment\n\n  ,  params_b: 1.54\n", "x.yaml:3: malformed YAML: ',' at column 3"},
      {",x\n", "x.yaml:1: malformed YAML: ',' at column 1"},
  };
  for (const auto& c : cases) {
    auto r = WithDeadline([&] { return LoadOneYamlDocument(c.text, "x.yaml", "a test file"); }, 20, c.text);
    ASSERT_FALSE(r.has_value()) << c.text;
    EXPECT_NE(Message(r).find(c.where), std::string::npos) << c.text << " -> " << Message(r);
    EXPECT_NE(Message(r).find("only inside [ ] or { }"), std::string::npos) << Message(r);
  }
}

std::string ReadAll(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Every input a fuzzer once hung or crashed on (fuzz/regressions/<target>/),
// through the same entry point as its fuzz target: it must end, with an
// error naming the file and a line.
TEST(FuzzRegressions, ScenarioAndCatalogInputsEndWithALineNumberedError) {
  const fs::path root = fs::path(RLCOST_SOURCE_DIR) / "fuzz" / "regressions";
  const Catalog builtin = Catalog::Builtin().value();
  int checked = 0;
  for (const char* target : {"scenario", "catalog"}) {
    if (!fs::is_directory(root / target)) continue;
    for (const auto& e : fs::directory_iterator(root / target)) {
      const std::string text = ReadAll(e.path());
      const std::string name = e.path().filename().string();
      auto run = [&]() -> std::string {
        if (std::string(target) == "scenario") {
          auto s = LoadScenarioText(text, builtin, name, "/nonexistent");
          return s ? std::string() : s.error().ToString();
        }
        Catalog c = builtin;
        auto r = c.AddText(text, name);
        return r ? std::string() : r.error().ToString();
      };
      const std::string err = WithDeadline(run, 30, e.path().string());
      EXPECT_NE(err.find(name + ":"), std::string::npos) << e.path() << ": " << err;
      ++checked;
    }
  }
  EXPECT_GE(checked, 2) << "regression inputs missing under " << root;
}

}  // namespace
}  // namespace rlcost
