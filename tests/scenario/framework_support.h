// What the framework tests (framework_*_test.cc) share: a minimal scenario to
// add `framework:` to, loading it with overrides, the fields a framework
// supplied, an expected error's text and the commit every source names.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "rlcost/scenario.h"
#include "support.h"

namespace rlcost::fwtest {

inline const std::string kData = RLCOST_SOURCE_DIR "/tests/data/spec";

inline const std::string kBase = R"(name: t
model: qwen3-8b
hardware: {gpu: h100-sxm, gpus: 8}
)";

inline Result<Scenario> Load(const std::string& text, std::vector<Override> ov = {}) {
  return LoadScenarioText(text, test::Cat(), "fw.yaml", kData, ov);
}

// The fields the framework supplied, in the order it supplied them.
inline std::vector<std::string> Paths(const Scenario& s) {
  std::vector<std::string> out;
  for (const auto& d : s.framework_defaults) out.push_back(d.path);
  return out;
}

// Every supplied default names the tag's commit it was read from.
inline void ExpectSourcesName(const Scenario& s, const std::string& commit) {
  for (const auto& d : s.framework_defaults)
    EXPECT_NE(d.source.find(commit), std::string::npos) << d.path << ": " << d.source;
}

inline std::string ErrorOf(const std::string& text) {
  auto s = Load(text);
  EXPECT_FALSE(s) << text;
  return s ? std::string() : s.error().ToString();
}

}  // namespace rlcost::fwtest
