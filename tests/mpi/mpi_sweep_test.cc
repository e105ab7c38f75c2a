// rlcost-sweep-mpi under Open MPI's mpirun: the same rows, in the same order, as
// `rlcost sweep` in one process; bad input said once, before any work.
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "support.h"

namespace {

namespace fs = std::filesystem;

// mpirun as CI runs it: as root, two processes on a 2-core machine, shared memory only.
// Under AddressSanitizer the ranks run without its leak check (address and
// undefined-behaviour checks stay on): Open MPI's plugins, loaded with dlopen
// and unloaded at MPI_Finalize, leave allocations (and vasprintf buffers of
// Open MPI itself) that LeakSanitizer reports from "<unknown module>", where a
// suppression cannot name them. The sweep code the ranks run is leak-checked
// in-process by the sweep tests. In other builds ASAN_OPTIONS is not read.
std::string Mpirun(int np, const std::string& args) {
  return std::string("env ASAN_OPTIONS=detect_leaks=0 OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_btl=self,vader ") + RLCOST_MPIEXEC +
         " --allow-run-as-root --oversubscribe -np " + std::to_string(np) + " " + RLCOST_MPI_BINARY + " " + args;
}

bool Available(std::string* why) {
  if (std::string(RLCOST_MPIEXEC).empty() || !fs::exists(RLCOST_MPI_BINARY)) {
    *why = "Open MPI was not found when this was built (scripts/install-deps.sh installs it)";
    return false;
  }
  return true;
}

std::string Slurp(const fs::path& p) {
  std::stringstream ss;
  ss << std::ifstream(p).rdbuf();
  return ss.str();
}

fs::path TempDir(const std::string& name) {
  auto d = fs::temp_directory_path() / ("rlcost_mpi_" + std::to_string(::getpid()) + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

const std::string kVary =
    " --vary algorithm.group_size=2,4,8,16 --vary algorithm.prompts_per_step=32,128,512"
    " --vary model=qwen3-8b,qwen3-32b";

size_t CountOf(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(MpiSweep, TwoProcessesWriteTheRowsOneProcessWrites) {
  std::string why;
  if (!Available(&why)) GTEST_SKIP() << why;
  const auto dir = TempDir("rows");
  const std::string scenario = std::string(RLCOST_SOURCE_DIR) + "/../shared/scenarios/default.yaml";
  auto one = rlcost::test::Rlcost("sweep " + scenario + kVary + " --jobs 1 --jsonl " + (dir / "one.jsonl").string(), 300);
  ASSERT_EQ(one.code, 0) << one.err;
  auto two = rlcost::test::RunCommand(
      "timeout 300 " + Mpirun(2, scenario + kVary + " --jobs 1 --jsonl " + (dir / "two.jsonl").string() + " -o " +
                                     (dir / "two.db").string()));
  ASSERT_EQ(two.code, 0) << two.out << two.err;
  EXPECT_NE(two.out.find("swept 24 of 24 points (analytic, 2 processes)"), std::string::npos) << two.out;
  const std::string a = Slurp(dir / "one.jsonl"), b = Slurp(dir / "two.jsonl");
  EXPECT_EQ(std::count(a.begin(), a.end(), '\n'), 24);
  EXPECT_EQ(a, b);
  // What the goal figures rest on crosses between the processes with the row.
  EXPECT_EQ(CountOf(b, "\"goal_curve\":\"illustrative\""), 24u);
  // The database holds every point once, and says it is complete.
  auto q = rlcost::test::RunCommand("sqlite3 " + (dir / "two.db").string() +
                                    " \"SELECT COUNT(*), COUNT(DISTINCT point) FROM points;"
                                    " SELECT value FROM sweep WHERE key='complete';\"");
  EXPECT_EQ(q.out, "24|24\n1\n") << q.err;
  fs::remove_all(dir);
}

TEST(MpiSweep, SimulatedRowsMatchToo) {
  std::string why;
  if (!Available(&why)) GTEST_SKIP() << why;
  const auto dir = TempDir("sim");
  const std::string args = " --vary algorithm.group_size=4,8,16 --simulate --steps 2 --seed 7 --jobs 1 --jsonl ";
  auto one = rlcost::test::Rlcost("sweep" + args + (dir / "one.jsonl").string(), 300);
  ASSERT_EQ(one.code, 0) << one.err;
  auto three = rlcost::test::RunCommand("timeout 300 " + Mpirun(3, args + (dir / "three.jsonl").string()));
  ASSERT_EQ(three.code, 0) << three.out << three.err;
  EXPECT_EQ(Slurp(dir / "one.jsonl"), Slurp(dir / "three.jsonl"));
  fs::remove_all(dir);
}

TEST(MpiSweep, BadInputIsSaidOnceAndNothingIsWritten) {
  std::string why;
  if (!Available(&why)) GTEST_SKIP() << why;
  const auto dir = TempDir("bad");
  auto r = rlcost::test::RunCommand(
      "timeout 120 " + Mpirun(2, "--vary algorithm.no_such_key=1,2 -o " + (dir / "x.db").string()));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  const std::string all = r.out + r.err;
  const std::string said = "error: --vary: algorithm.no_such_key: not a scenario field";
  const auto first = all.find(said);
  ASSERT_NE(first, std::string::npos) << all;
  EXPECT_EQ(all.find(said, first + 1), std::string::npos) << "said more than once:\n" << all;
  EXPECT_FALSE(fs::exists(dir / "x.db"));
  fs::remove_all(dir);
}

}  // namespace
