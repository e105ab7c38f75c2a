// Determinism (issue 41): the same scenario and seed give byte-identical
// `simulate --json`, whatever else runs at the same time. Every shared
// scenario (../shared/scenarios/*.yaml) is simulated for a few steps on this
// thread, then again on two threads at once (each its own copy of every
// scenario, in opposite orders); each answer must be the same bytes as the
// first. A cache or scratch buffer shared between simulations, or any state
// that outlived a run, would show here. Another seed must change the answer
// (the check can fail).
#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/ops.h"
#include "api/views.h"

namespace rlcost {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> SharedScenarios() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios")) {
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string SimulateJson(const std::string& file, uint64_t seed) {
  ops::ScenarioInput in;
  in.file = file;
  ops::SimulateInput si;
  si.seed = seed;
  si.steps = 4;
  auto v = ops::SimulateView(in, si);
  if (!v) return "error: " + v.error().ToString();
  return ops::Dump(v->json);
}

TEST(SimDeterminism, SharedScenariosGiveTheSameBytesAloneAndOnTwoThreads) {
  const std::vector<std::string> files = SharedScenarios();
  ASSERT_GE(files.size(), 3u);
  std::vector<std::string> alone;
  for (const auto& f : files) {
    alone.push_back(SimulateJson(f, 7));
    ASSERT_EQ(alone.back().rfind("error", 0), std::string::npos) << f << ": " << alone.back();
  }
  std::vector<std::string> a(files.size()), b(files.size());
  std::thread ta([&] {
    for (size_t i = 0; i < files.size(); ++i) a[i] = SimulateJson(files[i], 7);
  });
  std::thread tb([&] {
    for (size_t i = files.size(); i-- > 0;) b[i] = SimulateJson(files[i], 7);
  });
  ta.join();
  tb.join();
  for (size_t i = 0; i < files.size(); ++i) {
    EXPECT_EQ(a[i], alone[i]) << files[i] << ": first thread";
    EXPECT_EQ(b[i], alone[i]) << files[i] << ": second thread";
  }
  // The seed reaches the simulation: another one draws other lengths.
  EXPECT_NE(SimulateJson(files.front(), 8), alone.front()) << files.front();
}

}  // namespace
}  // namespace rlcost
