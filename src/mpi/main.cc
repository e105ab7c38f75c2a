// rlcost-sweep-mpi: `rlcost sweep` split over the processes of an MPI job.
//
//   mpirun -np 4 rlcost-sweep-mpi run.yaml --vary algorithm.group_size=2..16 \
//       --vary rollout.gpus=8,16,32 -o sweep.db
//
// The command line is `rlcost sweep`'s. Every process reads the scenario and
// catalog files itself (a shared file system is assumed, and checked: they must
// read the same text); process 0 writes the files and prints the summary. The
// rows are those `rlcost sweep` writes, in the same order.
#include <mpi.h>

#include <chrono>
#include <functional>
#include <iostream>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

#include "api/sweep_run.h"
#include "cli/common.h"
#include "cli/sweep_command.h"
#include "core/interrupt.h"
#include "mpi/distributed_sweep.h"

// Under the address sanitizer (preset asan-ubsan): what Open MPI's libraries
// keep allocated until exit is theirs, not a leak of this program.
extern "C" const char* __lsan_default_suppressions() {
  return "leak:libmpi\nleak:libopen-pal\nleak:libopen-rte\nleak:libhwloc\nleak:libpmix\nleak:libevent\n"
         "leak:mca_\n";
}

namespace {

// True on every process when `ok` holds on every process.
bool AllOk(bool ok) {
  int mine = ok ? 1 : 0, all = 0;
  MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  return all == 1;
}

int Finalize(int code) {
  MPI_Finalize();
  return code;
}

int Run(const rlcost::cli::SweepArgs& a, int rank, int size) {
  using namespace rlcost;
  InterruptGuard guard;
  const ops::SweepRunInput in = cli::SweepRequest(a, "rlcost-sweep-mpi");
  auto prepared = ops::PrepareSweep(in);
  // Bad input fails the same way on every process: process 0 says it once. A
  // process that fails alone (a file it cannot read) says why itself.
  int root_ok = prepared.has_value() ? 1 : 0;
  MPI_Bcast(&root_ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (!AllOk(prepared.has_value())) {
    if (!prepared && (rank == 0 || root_ok)) {
      if (rank != 0) std::cerr << "rlcost-sweep-mpi: process " << rank << " of " << size << ":\n";
      return cli::PrintError(prepared.error(), false, cli::kSweepFlags);
    }
    if (prepared && rank == 0)
      std::cerr << "rlcost-sweep-mpi: another process could not start the sweep (its error is printed above)\n";
    return 2;
  }
  auto& p = *prepared;
  // Every process must sweep the same scenario: compare its text with process 0's.
  unsigned long long digest = std::hash<std::string>{}(p.doc.text()), root_digest = digest;
  MPI_Bcast(&root_digest, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD);
  if (!AllOk(digest == root_digest)) {
    if (digest != root_digest)
      std::cerr << "rlcost-sweep-mpi: process " << rank << " read a different scenario from '"
                << (in.file.empty() ? std::string("(built-in default)") : in.file)
                << "' than process 0; every process must see the same files\n";
    return 2;
  }
  if (in.jobs == 0) {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    p.opt.threads = std::max(1u, cores / static_cast<unsigned>(mpi::LocalProcesses(MPI_COMM_WORLD)));
  }
  Result<ops::SweepFiles> output = ops::SweepFiles{};
  if (rank == 0) output = ops::SweepFiles::Open(in, p.header);
  if (!AllOk(output.has_value())) return rank == 0 ? cli::PrintError(output.error(), false, cli::kSweepFlags) : 2;

  explore::SweepOptions opt = p.opt;
  opt.stop = &InterruptGuard::Interrupted();
  const auto start = std::chrono::steady_clock::now();
  const uint64_t done = mpi::RunSweep(MPI_COMM_WORLD, p.doc, p.catalog, p.design, opt, [&](explore::PointRow&& row) {
    output->Write(std::move(row), &InterruptGuard::Interrupted());
  });
  if (rank != 0) return 0;
  const std::string engine = p.header.engine + ", " + std::to_string(size) + " processes";
  auto summary = output->Finish(done, p.design.size(), start, engine);
  if (!summary) return cli::PrintError(summary.error(), false, cli::kSweepFlags);
  std::cout << summary->text;
  std::cerr << summary->stopped;
  return summary->exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  CLI::App app{"rlcost-sweep-mpi: `rlcost sweep` split over the processes of an MPI job "
               "(mpirun -np N rlcost-sweep-mpi FILE --vary ...). Every process reads the files itself; "
               "process 0 writes the output."};
  rlcost::cli::SweepArgs a;
  rlcost::cli::AddSweepOptions(&app, a);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = 0;
    if (rank == 0) code = app.exit(e);
    return Finalize(code == 0 && e.get_exit_code() == 0 ? 0 : 2);
  }
  try {
    return Finalize(Run(a, rank, size));
  } catch (const std::exception& e) {
    std::cerr << "rlcost-sweep-mpi: internal error on process " << rank << ": " << e.what() << "\n";
    MPI_Abort(MPI_COMM_WORLD, 3);
  }
  return 3;
}
