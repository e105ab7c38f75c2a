// mpi/distributed_sweep: the points of one sweep split over the processes of
// an MPI communicator. Process r runs points r, r + N, r + 2N, ... (with its
// own threads, as `rlcost sweep` does); every row goes to process 0, which
// hands them to `sink` in point order — the same rows, in the same order, as
// one process would produce. Only process 0 calls `sink`.
//
// A stop (Ctrl-C on process 0, or `opt.stop` set there) reaches every process:
// each finishes the points under way and starts no more; process 0 still
// receives what was finished.
//
// MPI calls are made from the calling thread only (MPI_THREAD_FUNNELED).
#pragma once

#include <mpi.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "explore/sweep.h"

namespace rlcost::mpi {

// Rows handed to `sink` on process 0 (points finished, in order); elsewhere the
// number of points this process ran.
uint64_t RunSweep(MPI_Comm comm, const scenario_internal::ScenarioDocument& doc, const Catalog& catalog,
                  const explore::Design& design, const explore::SweepOptions& opt,
                  const std::function<void(explore::PointRow&&)>& sink);

// The processes of `comm` that share this machine (threads per process default
// to the cores divided among them).
int LocalProcesses(MPI_Comm comm);

// A row as bytes and back (what travels between processes). The axis values
// are not sent: process 0 recomputes them from the design.
std::vector<char> EncodeRow(const explore::PointRow& row);
bool DecodeRow(const char* data, size_t size, explore::PointRow& row);

}  // namespace rlcost::mpi
