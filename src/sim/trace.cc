#include "sim/trace.h"

#include <cerrno>
#include <cstring>

#include "core/file.h"

namespace rlcost::sim {

TraceWriter::~TraceWriter() {
  if (f_ != nullptr) std::fclose(f_);
}

Result<void> TraceWriter::Open(const std::string& path) {
  f_ = OpenForWriting(path);  // a FIFO nobody reads: refused, not waited on
  if (f_ == nullptr) {
    return Fail(ErrorCode::kInvalidInput, "trace", "cannot write '" + path + "': " + WriteErrorText(errno));
  }
  path_ = path;
  std::fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", f_);
  return {};
}

void TraceWriter::Sep() {
  if (events_ > 0) std::fputs(",\n", f_);
  ++events_;
}

void TraceWriter::ThreadName(int tid, const std::string& name) {
  if (!on()) return;
  Sep();
  std::fprintf(f_, "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}}",
               tid, name.c_str());
  Sep();
  std::fprintf(f_, "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":%d}}",
               tid, tid);
}

void TraceWriter::Span(int tid, const char* name, double t0_s, double t1_s, const std::string& args) {
  if (!on() || t1_s <= t0_s) return;
  Sep();
  // Trace timestamps are microseconds.
  std::fprintf(f_, "{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"name\":\"%s\",\"ts\":%.3f,\"dur\":%.3f", tid, name,
               t0_s * 1e6, (t1_s - t0_s) * 1e6);
  if (!args.empty()) std::fprintf(f_, ",\"args\":{%s}", args.c_str());
  std::fputc('}', f_);
}

void TraceWriter::Counter(const char* name, double t_s, double value) {
  if (!on()) return;
  Sep();
  std::fprintf(f_, "{\"ph\":\"C\",\"pid\":1,\"name\":\"%s\",\"ts\":%.3f,\"args\":{\"value\":%.6g}}", name,
               t_s * 1e6, value);
}

Result<void> TraceWriter::Close() {
  if (f_ == nullptr) return {};
  std::fputs("\n]}\n", f_);
  bool bad = std::ferror(f_) != 0;
  bool close_failed = std::fclose(f_) != 0;
  f_ = nullptr;
  if (bad || close_failed) return Fail(ErrorCode::kInvalidInput, "trace", "error writing '" + path_ + "'");
  return {};
}

}  // namespace rlcost::sim
