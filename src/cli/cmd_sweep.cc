// `rlcost sweep [FILE] --vary KEY=V1,V2,... --vary KEY=LO..HI[:STEP] ... [--sample N]
//   [--simulate] [--metric M ...] [-o sweep.db | --csv FILE | --jsonl FILE]`
// (the same command line, split over processes: `mpirun -np N rlcost-sweep-mpi ...`)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/sweep_command.h"
#include "core/interrupt.h"

namespace rlcost::cli {
namespace {

std::string Clock(double s) {
  if (!(s >= 0) || s > 359999) return "--:--";
  const int t = static_cast<int>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60) : fmt::format("{}:{:02}", t / 60, t % 60);
}

int Run(const SweepArgs& a) {
  InterruptGuard guard;
  const ops::SweepRunInput in = SweepRequest(a);
  auto prepared = ops::PrepareSweep(in);
  if (!prepared) return PrintError(prepared.error(), false, kSweepFlags);
  auto& p = *prepared;
  auto output = ops::SweepFiles::Open(in, p.header);
  if (!output) return PrintError(output.error(), false, kSweepFlags);

  const auto start = std::chrono::steady_clock::now();
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  std::function<void(const ops::SweepProgress&)> bar;
  if (tty) {
    bar = [](const ops::SweepProgress& pr) {
      const int width = 30;
      const int filled = static_cast<int>(width * static_cast<double>(pr.done) / static_cast<double>(pr.planned));
      std::fprintf(stderr, "\r[%s%s] %llu/%llu points  %.0f/s  ETA %s\033[K", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), static_cast<unsigned long long>(pr.done),
                   static_cast<unsigned long long>(pr.planned), pr.rate, Clock(pr.remaining_s).c_str());
      std::fflush(stderr);
    };
  }
  const uint64_t done = ops::RunPreparedSweep(p, *output, &InterruptGuard::Interrupted(), bar);
  if (tty) std::fprintf(stderr, "\r\033[K");
  auto summary = output->Finish(done, p.design.size(), start, p.header.engine);
  if (!summary) return PrintError(summary.error(), false, kSweepFlags);
  std::cout << summary->text;
  std::cerr << summary->stopped;
  return summary->exit_code;
}

}  // namespace

void RegisterSweep(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<SweepArgs>();
  auto* sub = app.add_subcommand("sweep", "a full estimate at every point of a grid or sample of scenario fields");
  AddSweepOptions(sub, *a);
  sub->callback([a, &exit_code] { exit_code = Run(*a); });
}

}  // namespace rlcost::cli
