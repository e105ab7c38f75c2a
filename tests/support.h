// Helpers shared by the test binaries: the built-in catalog, scenario loading
// that reports its problems through GoogleTest, and the shared scenario files.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace rlcost::test {

inline const Catalog& Cat() {
  static const Catalog c = Catalog::Builtin().value();
  return c;
}

inline Scenario Load(const std::string& yaml) {
  auto s = LoadScenarioText(yaml, Cat());
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
  return *s;
}

inline Scenario LoadFile(const std::string& path, const std::vector<Override>& ov = {}) {
  auto s = LoadScenarioFile(path, Cat(), ov);
  EXPECT_TRUE(s.has_value()) << (s ? "" : s.error().ToString());
  return *s;
}

// Every *.yaml of ../shared/scenarios and ../shared/validation, sorted.
inline std::vector<std::string> SharedScenarioFiles() {
  namespace fs = std::filesystem;
  std::vector<std::string> files;
  for (const char* dir : {"/../shared/scenarios", "/../shared/validation"}) {
    fs::path p = fs::path(RLCOST_SOURCE_DIR + std::string(dir));
    if (!fs::exists(p)) continue;
    for (const auto& f : fs::directory_iterator(p)) {
      if (f.path().extension() == ".yaml") files.push_back(f.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace rlcost::test
