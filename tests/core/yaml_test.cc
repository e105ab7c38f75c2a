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

#include "core/problems.h"
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

// Nested aliases: `levels` anchors, each a list of ten aliases of the one
// before; the last stands for 10^levels leaves. The flow mapping `run={...}`
// of #40's 405-byte request.
std::string AliasBomb(int levels, const std::string& leaf = "x") {
  std::string out = "{a0: &a0 [" + leaf;
  for (int i = 1; i < 10; ++i) out += "," + leaf;
  out += "]";
  for (int l = 1; l < levels; ++l) {
    const std::string prev = "*a" + std::to_string(l - 1);
    out += ", a" + std::to_string(l) + ": &a" + std::to_string(l) + " [" + prev;
    for (int i = 1; i < 10; ++i) out += "," + prev;
    out += "]";
  }
  return out + "}";
}

double Seconds(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(YamlAliases, AFewAliasesLoad) {
  // A shared list named twice: 3 leaves + 3 copied, well inside the budget.
  auto r = LoadOneYamlDocument("base: &b [1, 2, 3]\nother: *b\n", "f.yaml", "a file");
  ASSERT_TRUE(r) << Message(r);
  EXPECT_EQ((*r)["other"].size(), 3u);
  size_t budget = 100;
  auto v = LoadYamlValue("{a: &a [1, 2], b: *a, c: *a}", "run", "--set", &budget);
  ASSERT_TRUE(v) << Message(v);
  EXPECT_EQ(budget, 100u - 6u);  // two copies of a 3-node list (the list and its two items)
}

TEST(YamlAliases, ANestedAliasBombIsRefusedBeforeAnyWalk) {
  // 10^8 leaves in ~400 bytes (#40): refused from the parser's events, in
  // far less than the 20 s the first walk took.
  const std::string bomb = AliasBomb(8);
  ASSERT_LT(bomb.size(), 420u);
  auto t0 = std::chrono::steady_clock::now();
  auto doc = LoadOneYamlDocument("run: " + bomb + "\n", "f.yaml", "a file");
  EXPECT_LT(Seconds(t0), 0.1);
  ASSERT_FALSE(doc);
  EXPECT_NE(Message(doc).find("f.yaml:1: YAML aliases here stand for more than 100000 copied nodes"), std::string::npos)
      << Message(doc);
  // Ten times the leaves: the same time, as nothing is expanded.
  t0 = std::chrono::steady_clock::now();
  auto v = LoadYamlValue(AliasBomb(40), "run", "--set");
  EXPECT_LT(Seconds(t0), 0.1);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().problems.at(0).path, "run");
  EXPECT_EQ(v.error().problems.at(0).file, "--set");
  EXPECT_NE(YamlAliasProblem(AliasBomb(8)), "");
  EXPECT_EQ(YamlAliasProblem(AliasBomb(2)), "");  // 100 leaves: read
}

TEST(YamlAliases, TheBudgetIsSharedAndCountsWhatAliasesStandFor) {
  // 5 levels: 10 + 100 + ... copies; 4 levels of it are 11,110 + lists.
  size_t budget = kMaxYamlAliasNodes;
  ASSERT_TRUE(LoadYamlValue(AliasBomb(4), "a", "--set", &budget));
  const size_t used = kMaxYamlAliasNodes - budget;
  EXPECT_GT(used, 10000u);
  // The same value eight more times in the same input passes the budget.
  bool refused = false;
  for (int i = 0; i < 9 && !refused; ++i) refused = !LoadYamlValue(AliasBomb(4), "a", "--set", &budget);
  EXPECT_TRUE(refused);
}

TEST(YamlAliases, AnAliasInsideTheNodeItNamesIsRefused) {
  // yaml-cpp would build a cycle, and every walk of the tree would recurse
  // until the stack ran out.
  auto r = LoadOneYamlDocument("a: &a [1, *a]\n", "f.yaml", "a file");
  ASSERT_FALSE(r);
  EXPECT_NE(Message(r).find("a cycle"), std::string::npos) << Message(r);
  auto m = LoadOneYamlDocument("a: &a {b: *a}\n", "f.yaml", "a file");
  EXPECT_FALSE(m);
}

TEST(YamlAliases, ScenarioSetValueBombIsRefusedFast) {
  // #40 item 1 through the scenario loader: --set run={a0: &a0 [...], ...}.
  const Catalog builtin = Catalog::Builtin().value();
  auto o = ParseOverride("run=" + AliasBomb(8));
  ASSERT_FALSE(o);
  Override raw{"run", AliasBomb(8)};
  auto t0 = std::chrono::steady_clock::now();
  auto s = DefaultScenario(builtin, {raw});
  EXPECT_LT(Seconds(t0), 0.1);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().ToString().find("set: run: YAML aliases here stand for more than"), std::string::npos)
      << s.error().ToString();
}

TEST(YamlAliases, InvalidUtf8InAliasedLeavesGivesABoundedError) {
  // #40: a 381-byte YAML body whose aliases copy an invalid UTF-8 leaf gave
  // 11 million error lines. 10^4 copies fit the alias budget; the error
  // lists the first 100 and counts the rest.
  const Catalog builtin = Catalog::Builtin().value();
  const std::string text = "model: qwen3-8b\nhardware: {gpu: h100-sxm, gpus: 8}\nrun: " + AliasBomb(4, "\xe9") + "\n";
  auto s = LoadScenarioText(text, builtin, "bad.yaml", ".");
  ASSERT_FALSE(s);
  const auto& pr = s.error().problems;
  EXPECT_EQ(pr.size(), kMaxProblems + 1);
  EXPECT_NE(pr.back().message.find("more problems not shown"), std::string::npos) << pr.back().message;
  EXPECT_LT(s.error().ToString().size(), 20000u);
  // Past the budget: one line.
  auto big = LoadScenarioText("run: " + AliasBomb(7, "\xe9") + "\n", builtin, "bad.yaml", ".");
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().problems.size(), 1u);
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
