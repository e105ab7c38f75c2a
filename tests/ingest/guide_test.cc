// docs/guide.md cannot rot: every `rlcost ...` line of its sh blocks runs,
// in order, from the repository's root, and exits 0.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

std::vector<std::string> GuideCommands() {
  std::ifstream in(std::string(RLCOST_SOURCE_DIR) + "/docs/guide.md");
  std::vector<std::string> cmds;
  bool in_sh = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) {
      in_sh = !in_sh && line == "```sh";
      continue;
    }
    if (in_sh && line.rfind("rlcost ", 0) == 0) cmds.push_back(line.substr(7));
  }
  return cmds;
}

TEST(Guide, EveryCommandRuns) {
  const auto cmds = GuideCommands();
  ASSERT_GE(cmds.size(), 12u);  // the guide's sections each show commands
  for (const auto& c : cmds) {
    const std::string line = "cd '" + std::string(RLCOST_SOURCE_DIR) + "' && '" + RLCOST_BINARY + "' " + c +
                             " >/dev/null 2>/tmp/rlcost-guide-stderr.txt";
    const int status = std::system(line.c_str());
    EXPECT_EQ(status, 0) << "rlcost " << c;
  }
}

}  // namespace
