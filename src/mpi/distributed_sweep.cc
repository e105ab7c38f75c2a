#include "mpi/distributed_sweep.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

namespace rlcost::mpi {
namespace {

constexpr int kTagRow = 1;   // worker -> 0: one encoded row
constexpr int kTagDone = 2;  // worker -> 0: finished; payload: rows sent (uint64)
constexpr int kTagStop = 3;  // 0 -> worker: finish the points under way, start no more

template <class T>
void Put(std::vector<char>& out, const T& v) {
  const char* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof(T));
}

template <class T>
bool Get(const char*& p, const char* end, T& v) {
  if (static_cast<size_t>(end - p) < sizeof(T)) return false;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return true;
}

}  // namespace

std::vector<char> EncodeRow(const explore::PointRow& row) {
  std::vector<char> out;
  out.reserve(56 + row.reason.size() + row.goal_curve.size() + row.note.size() + 9 * row.metrics.size());
  Put(out, row.index);
  Put(out, static_cast<int32_t>(row.status));
  Put(out, static_cast<uint32_t>(row.reason.size()));
  out.insert(out.end(), row.reason.begin(), row.reason.end());
  Put(out, static_cast<uint32_t>(row.goal_curve.size()));
  out.insert(out.end(), row.goal_curve.begin(), row.goal_curve.end());
  Put(out, static_cast<uint32_t>(row.metrics.size()));
  for (const auto& m : row.metrics) {
    Put(out, static_cast<uint8_t>(m.has_value()));
    Put(out, m.value_or(0.0));
  }
  // The note and the figures process 0 compares across rows (NeighbourNotes).
  Put(out, row.step_s);
  Put(out, row.usd_per_step);
  Put(out, static_cast<int32_t>(row.gpus));
  Put(out, static_cast<uint32_t>(row.note.size()));
  out.insert(out.end(), row.note.begin(), row.note.end());
  return out;
}

bool DecodeRow(const char* data, size_t size, explore::PointRow& row) {
  const char* p = data;
  const char* end = data + size;
  int32_t status = 0;
  uint32_t reason_size = 0, metrics = 0;
  if (!Get(p, end, row.index) || !Get(p, end, status) || !Get(p, end, reason_size)) return false;
  if (status < 0 || status > static_cast<int32_t>(explore::PointStatus::kNotYet)) return false;
  row.status = static_cast<explore::PointStatus>(status);
  if (static_cast<size_t>(end - p) < reason_size) return false;
  row.reason.assign(p, reason_size);
  p += reason_size;
  uint32_t curve_size = 0;
  if (!Get(p, end, curve_size) || static_cast<size_t>(end - p) < curve_size) return false;
  row.goal_curve.assign(p, curve_size);
  p += curve_size;
  if (!Get(p, end, metrics) || static_cast<size_t>(end - p) < size_t{metrics} * 9) return false;
  row.metrics.assign(metrics, std::nullopt);
  for (uint32_t i = 0; i < metrics; ++i) {
    uint8_t has = 0;
    double v = 0;
    Get(p, end, has);
    Get(p, end, v);
    if (has) row.metrics[i] = v;
  }
  int32_t gpus = 0;
  uint32_t note_size = 0;
  if (!Get(p, end, row.step_s) || !Get(p, end, row.usd_per_step) || !Get(p, end, gpus) || !Get(p, end, note_size))
    return false;
  row.gpus = gpus;
  if (static_cast<size_t>(end - p) != note_size) return false;
  row.note.assign(p, note_size);
  return true;
}

int LocalProcesses(MPI_Comm comm) {
  MPI_Comm local;
  int rank = 0, n = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  MPI_Comm_size(local, &n);
  MPI_Comm_free(&local);
  return std::max(1, n);
}

uint64_t RunSweep(MPI_Comm comm, const scenario_internal::ScenarioDocument& doc, const Catalog& catalog,
                  const explore::Design& design, const explore::SweepOptions& opt_in,
                  const std::function<void(explore::PointRow&&)>& sink) {
  int rank = 0, size = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  explore::SweepOptions opt = opt_in;
  opt.neighbour_notes = false;  // each process sees every size-th row: process 0 adds them in order
  opt.first = static_cast<uint64_t>(rank);
  opt.stride = static_cast<uint64_t>(size);
  opt.progress = nullptr;
  std::atomic<bool> stop{false};
  const std::atomic<bool>* user_stop = opt_in.stop;
  opt.stop = &stop;
  auto user_stopped = [&] { return user_stop && user_stop->load(); };

  if (rank != 0) {
    // A worker: run its share; each row goes to process 0 as it is handed over
    // (on this thread), and between rows it looks for a stop from process 0.
    auto poll_stop = [&] {
      int flag = 0;
      MPI_Iprobe(0, kTagStop, comm, &flag, MPI_STATUS_IGNORE);
      if (flag) {
        char dummy = 0;
        MPI_Recv(&dummy, 1, MPI_CHAR, 0, kTagStop, comm, MPI_STATUS_IGNORE);
        stop.store(true);
      }
      if (user_stopped()) stop.store(true);
    };
    opt.progress = [&](uint64_t) { poll_stop(); };
    uint64_t sent = 0;
    explore::RunSweep(doc, catalog, design, opt, [&](explore::PointRow&& row) {
      const auto bytes = EncodeRow(row);
      MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_CHAR, 0, kTagRow, comm);
      ++sent;
      poll_stop();
    });
    MPI_Send(&sent, 1, MPI_UINT64_T, 0, kTagDone, comm);
    // A stop sent after this process finished is still waiting: take it, so
    // nothing is left in flight at MPI_Finalize.
    MPI_Barrier(comm);
    int flag = 0;
    MPI_Iprobe(0, kTagStop, comm, &flag, MPI_STATUS_IGNORE);
    if (flag) {
      char dummy = 0;
      MPI_Recv(&dummy, 1, MPI_CHAR, 0, kTagStop, comm, MPI_STATUS_IGNORE);
    }
    return sent;
  }

  // Process 0: its own share runs on a thread (which makes no MPI call); this
  // thread receives the others' rows and hands every row over in point order.
  std::mutex mu;
  std::deque<explore::PointRow> local_rows;
  std::atomic<bool> local_done{false};
  std::thread local([&] {
    explore::RunSweep(doc, catalog, design, opt, [&](explore::PointRow&& row) {
      std::lock_guard<std::mutex> lock(mu);
      local_rows.push_back(std::move(row));
    });
    local_done.store(true);
  });

  const auto& metrics = opt.metrics.empty() ? explore::DefaultMetrics() : opt.metrics;
  std::map<uint64_t, explore::PointRow> pending;
  const uint64_t total = explore::PlannedPoints(design, explore::SweepOptions{});
  uint64_t next = 0, delivered = 0;
  int workers_done = 0;
  bool stop_sent = false;
  std::vector<char> buffer;
  std::optional<explore::NeighbourNotes> neighbours;
  if (opt_in.neighbour_notes) neighbours.emplace(design);
  auto deliver = [&](explore::PointRow&& row) {
    row.values = design.Values(row.index);
    if (neighbours) neighbours->Apply(row);
    sink(std::move(row));
    ++delivered;
  };
  while (true) {
    bool busy = false;
    {
      std::lock_guard<std::mutex> lock(mu);
      while (!local_rows.empty()) {
        auto row = std::move(local_rows.front());
        local_rows.pop_front();
        pending.emplace(row.index, std::move(row));
        busy = true;
      }
    }
    MPI_Status st;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &flag, &st);
    if (flag && st.MPI_TAG == kTagRow) {
      int bytes = 0;
      MPI_Get_count(&st, MPI_CHAR, &bytes);
      buffer.resize(static_cast<size_t>(std::max(bytes, 1)));
      MPI_Recv(buffer.data(), bytes, MPI_CHAR, st.MPI_SOURCE, kTagRow, comm, MPI_STATUS_IGNORE);
      explore::PointRow row;
      if (DecodeRow(buffer.data(), static_cast<size_t>(bytes), row) && row.metrics.size() == metrics.size() &&
          row.index < total) {
        pending.emplace(row.index, std::move(row));
      } else {
        // Every process runs the same program on the same design: a row that
        // does not decode is a bug, and no result is better than a wrong one.
        std::fprintf(stderr, "rlcost-sweep-mpi: internal error: a garbled row from process %d\n", st.MPI_SOURCE);
        MPI_Abort(comm, 3);
      }
      busy = true;
    } else if (flag && st.MPI_TAG == kTagDone) {
      uint64_t n = 0;
      MPI_Recv(&n, 1, MPI_UINT64_T, st.MPI_SOURCE, kTagDone, comm, MPI_STATUS_IGNORE);
      ++workers_done;
      busy = true;
    } else if (flag) {
      char dummy = 0;  // nothing else is sent to process 0; drop it
      MPI_Recv(&dummy, 0, MPI_CHAR, st.MPI_SOURCE, st.MPI_TAG, comm, MPI_STATUS_IGNORE);
    }
    while (!pending.empty() && pending.begin()->first == next) {
      deliver(std::move(pending.begin()->second));
      pending.erase(pending.begin());
      ++next;
    }
    if (!stop_sent && user_stopped()) {
      stop.store(true);
      char dummy = 0;
      for (int r = 1; r < size; ++r) MPI_Send(&dummy, 1, MPI_CHAR, r, kTagStop, comm);
      stop_sent = true;
    }
    if (local_done.load() && workers_done == size - 1) {
      std::lock_guard<std::mutex> lock(mu);
      if (local_rows.empty()) break;
      continue;
    }
    if (!busy) std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  local.join();
  // Stopped early: the points that did finish still count, in order.
  for (auto& [index, row] : pending) deliver(std::move(row));
  MPI_Barrier(comm);
  return delivered;
}

}  // namespace rlcost::mpi
