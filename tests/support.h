// Helpers shared by the test binaries: the built-in catalog, scenario loading
// that reports its problems through GoogleTest, the shared scenario files, and
// running the built binary as a user would.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "rlcost/catalog.h"
#include "rlcost/scenario.h"

namespace rlcost::test {

// True in the sanitizer build (preset asan-ubsan). The few tests that loop over
// every shared scenario or a long sweep check a stated sample there, where each
// estimate costs ~10x more; the release suite checks them all.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kUnderSanitizers = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kUnderSanitizers = true;
#else
inline constexpr bool kUnderSanitizers = false;
#endif
#else
inline constexpr bool kUnderSanitizers = false;
#endif

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

// Qwen3-32B on 32 H100s with no placement (issue #26's case): every layout
// field left to the planner. The optimize and re-planning tests start from it.
inline std::string Qwen32bOn32H100NoPlacement() {
  return R"(model: qwen3-32b
hardware: {gpu: h100-sxm, gpus: 32, gpus_per_node: 8}
environment:
  prompt_tokens: {mean: 300, cv: 0.5, max: 1024}
  response_tokens: {mean: 2000, cv: 0.8, max: 8192}
  pass_rate: {mean: 0.35, concentration: 2.0}
algorithm: {name: grpo, group_size: 16, prompts_per_step: 64, steps: 300}
goal: {target_pass_rate: 0.6}
)";
}

// The built-in default less the framework it names: scenarios/default.yaml
// without its `framework:` line, which is ../shared/scenarios/default.yaml
// (Scenario.BuiltinDefaultIsTheSharedDefaultPlusItsFramework). rlcost's own
// stand, for the tests whose hand-worked figures are of a formula on that
// scenario rather than of veRL's defaults (docs/model.md, "The built-in
// default").
inline Result<Scenario> DefaultWithoutFramework(const Catalog& cat, const std::vector<Override>& ov = {}) {
  std::ifstream in(RLCOST_SOURCE_DIR "/scenarios/default.yaml", std::ios::binary);
  std::string text, line;
  while (std::getline(in, line)) {
    if (line.rfind("framework:", 0) == 0) continue;
    text += line + "\n";
  }
  return LoadScenarioText(text, cat, "default.yaml", ".", ov);
}

// "key=value;key=value" (the override column of the pinned-case files) as
// overrides; a part that does not parse is a test failure naming it.
inline std::vector<Override> ParseOverrides(const std::string& list) {
  std::vector<Override> ov;
  std::istringstream in(list);
  for (std::string kv; std::getline(in, kv, ';');) {
    auto o = ParseOverride(kv);
    EXPECT_TRUE(o.has_value()) << kv;
    if (o) ov.push_back(*o);
  }
  return ov;
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

// A command line's exit code (-1 when it did not exit normally), standard
// output and standard error.
struct CmdResult {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs `cmd` through the shell. Standard error goes to a temporary file read
// back into `err`, or with merge_stderr into `out` with standard output.
inline CmdResult RunCommand(const std::string& cmd, bool merge_stderr = false) {
  static int counter = 0;
  const std::filesystem::path err_file =
      std::filesystem::temp_directory_path() /
      ("rlcost_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
  CmdResult r;
  FILE* p = popen((cmd + (merge_stderr ? " 2>&1" : " 2>" + err_file.string())).c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  for (size_t n; (n = fread(buf.data(), 1, buf.size(), p)) > 0;) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (!merge_stderr) {
    std::stringstream ss;
    ss << std::ifstream(err_file).rdbuf();
    r.err = ss.str();
    std::filesystem::remove(err_file);
  }
  return r;
}

// Runs the built rlcost binary with `args`; with timeout_s > 0 under
// `timeout`, so that a hang shows as exit 124 instead of a stuck test.
inline CmdResult Rlcost(const std::string& args, int timeout_s = 0) {
  const std::string prefix = timeout_s > 0 ? "timeout " + std::to_string(timeout_s) + " " : "";
  return RunCommand(prefix + RLCOST_BINARY + " " + args);
}

}  // namespace rlcost::test
