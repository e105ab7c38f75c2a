// `rlcost serve ...`: runs the server program, rlcost-serve, found next to this
// executable, with the same arguments (it takes this process's place, so its
// process id, signals and exit status are those of `rlcost serve`). The server
// is a program of its own so that `rlcost` does not load the HTTP library and
// what it brings (OpenSSL, zlib, Brotli) at every start (docs/performance.md,
// "Start-up").
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/common.h"

namespace rlcost::cli {
namespace {

// The directory of the running executable ("" when it cannot be read).
std::string ExecutableDir() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return "";
  std::string path(buf.data(), static_cast<size_t>(n));
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash);
}

int ExecServer(const std::vector<std::string>& args) {
  const std::string dir = ExecutableDir();
  const std::string server = (dir.empty() ? std::string(".") : dir) + "/rlcost-serve";
  std::vector<char*> argv;
  argv.push_back(const_cast<char*>(server.c_str()));
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::cout.flush();
  ::execv(server.c_str(), argv.data());
  // Only reached when the program could not be started.
  std::cerr << "error: cannot run the server program " << server << ": " << std::strerror(errno)
            << " (rlcost-serve is built and installed next to rlcost)\n";
  return 1;
}

}  // namespace

void RegisterServe(CLI::App& app, int& exit_code) {
  auto* sub = app.add_subcommand("serve", ops::kServeDescription);
  // Every argument, --help included, goes to the server program unparsed.
  sub->set_help_flag();
  sub->prefix_command();
  sub->allow_extras();
  sub->callback([sub, &exit_code] { exit_code = ExecServer(sub->remaining()); });
}

}  // namespace rlcost::cli
