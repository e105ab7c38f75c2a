// `rlcost sweep [FILE] --vary KEY=V1,V2,... --vary KEY=LO..HI[:STEP] ... [--sample N]
//   [--simulate] [--metric M ...] [-o sweep.db | --csv FILE | --jsonl FILE]`
// (the same command line, split over processes: `mpirun -np N rlcost-sweep-mpi ...`)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <memory>

#include <fmt/format.h>

#include "cli/common.h"
#include "cli/sweep_command.h"
#include "explore/eta.h"

namespace rlcost::cli {
namespace {

std::string Clock(double s) {
  if (!(s >= 0) || s > 359999) return "--:--";
  const int t = static_cast<int>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, t / 60 % 60, t % 60) : fmt::format("{}:{:02}", t / 60, t % 60);
}

int Run(const SweepArgs& a) {
  InterruptGuard guard;
  auto prepared = PrepareSweep(a);
  if (!prepared) return PrintError(prepared.error(), false);
  auto& p = *prepared;
  auto output = SweepOutput::Open(a, p.header);
  if (!output) return PrintError(output.error(), false);

  explore::SweepOptions opt = p.opt;
  opt.stop = &InterruptGuard::Interrupted();
  const uint64_t total = p.design.size();
  const auto start = std::chrono::steady_clock::now();
  const bool tty = ::isatty(STDERR_FILENO) != 0;
  // The time left from how the points' cost has moved so far, not from their
  // mean rate (explore/eta.h: on a grid whose points get dearer, the mean
  // rate's ETA came out about 2x too early).
  explore::EtaEstimator eta(total);
  if (tty) {
    // A simulated point's cost, predicted ahead from the rollouts it simulates.
    eta.SetPointCosts(explore::PredictedPointCosts(p.doc, p.catalog, p.design, opt));
    opt.progress = [&](uint64_t done) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      eta.Observe(done, s);
      const double rate = eta.MeanRate();
      const int width = 30;
      const int filled = static_cast<int>(width * static_cast<double>(done) / static_cast<double>(total));
      std::fprintf(stderr, "\r[%s%s] %llu/%llu points  %.0f/s  ETA %s\033[K", std::string(filled, '#').c_str(),
                   std::string(width - filled, '.').c_str(), static_cast<unsigned long long>(done),
                   static_cast<unsigned long long>(total), rate,
                   Clock(eta.RemainingS()).c_str());
      std::fflush(stderr);
    };
  }
  const uint64_t done = explore::RunSweep(p.doc, p.catalog, p.design, opt, [&](explore::PointRow&& row) {
    output->Write(std::move(row), &InterruptGuard::Interrupted());
  });
  if (tty) std::fprintf(stderr, "\r\033[K");
  return output->Finish(done, total, start, p.header.engine);
}

}  // namespace

void RegisterSweep(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<SweepArgs>();
  auto* sub = app.add_subcommand("sweep", "a full estimate at every point of a grid or sample of scenario fields");
  AddSweepOptions(sub, *a);
  sub->callback([a, &exit_code] { exit_code = Run(*a); });
}

}  // namespace rlcost::cli
