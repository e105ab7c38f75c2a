// Chrome trace-event JSON (the "JSON Array/Object format" read by Perfetto and
// chrome://tracing): complete events ("ph":"X") on one track (tid) per engine,
// the trainer and the sandbox pool, counters ("ph":"C") for the pool. Bounded:
// the writer drops everything after kMaxEvents.
#pragma once

#include <cstdio>
#include <string>

#include "rlcost/error.h"

namespace rlcost::sim {

class TraceWriter {
 public:
  static constexpr long kMaxEvents = 200000;

  TraceWriter() = default;
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;
  ~TraceWriter();

  Result<void> Open(const std::string& path);
  bool on() const { return f_ != nullptr && events_ < kMaxEvents; }
  void ThreadName(int tid, const std::string& name);
  // A span [t0_s, t1_s] on track tid; `args` is a JSON object body or empty.
  void Span(int tid, const char* name, double t0_s, double t1_s, const std::string& args = {});
  void Counter(const char* name, double t_s, double value);
  Result<void> Close();

 private:
  void Sep();
  std::FILE* f_ = nullptr;
  std::string path_;
  long events_ = 0;
};

}  // namespace rlcost::sim
