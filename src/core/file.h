// Reading a user's file with bounds: only regular files are read (a FIFO, a
// device such as /dev/zero or a folder is refused before it is opened, so
// nothing blocks or reads forever), and at most `max_bytes` of it.
//
//   auto text = rlcost::ReadBoundedFile(path, rlcost::kMaxScenarioBytes, "scenario file");
//   if (!text) return Fail(text.error());
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "rlcost/error.h"

namespace rlcost {

// A scenario, a catalog or a calibration file is a few kB; 4 MiB is several
// hundred times the largest shipped one, and keeps the parsed YAML tree (tens
// of bytes of nodes per input byte) well under a gigabyte.
inline constexpr uint64_t kMaxScenarioBytes = 4ull << 20;
// A pilot-evaluation CSV holds one short row per task: 64 MiB is a million
// tasks with long ids.
inline constexpr uint64_t kMaxTableBytes = 64ull << 20;
// A training log: console logs of long runs reach hundreds of MB.
inline constexpr uint64_t kMaxLogBytes = 1ull << 30;

// The whole file, or kNotFound (missing, unreadable) / kInvalidInput (not a
// regular file, larger than `max_bytes`) with the file named in the problem.
// `what` names the file's role in messages ("scenario file").
Result<std::string> ReadBoundedFile(const std::string& path, uint64_t max_bytes, std::string_view what);

// Writes `text` to `path` whole or not at all: into a temporary file beside
// it, flushed and checked (a full disk, /dev/full), then renamed over `path`.
// A failure leaves `path` as it was and names `option` in the problem. A
// path that is not a regular file (/dev/stdout, a FIFO) is written in place.
Result<void> WriteFileAtomic(const std::string& path, std::string_view text, std::string_view option);

}  // namespace rlcost
