// Reading a user's file with bounds: only regular files are read (a FIFO, a
// device such as /dev/zero or a folder is refused before it is opened, so
// nothing blocks or reads forever), and at most `max_bytes` of it.
//
//   auto text = rlcost::ReadBoundedFile(path, rlcost::kMaxScenarioBytes, "scenario file");
//   if (!text) return Fail(text.error());
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

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

// "-" names standard input: read once, bounded, and the same text returned
// to every later read (a command may load its scenario more than once).
inline constexpr std::string_view kStdinPath = "-";

// The whole file, or kNotFound (missing, unreadable) / kInvalidInput (not a
// regular file, larger than `max_bytes`) with the file named in the problem.
// `what` names the file's role in messages ("scenario file").
Result<std::string> ReadBoundedFile(const std::string& path, uint64_t max_bytes, std::string_view what);

// Writes `text` to `path` whole or not at all: into a temporary file beside
// it, flushed and checked (a full disk, /dev/full), then renamed over `path`.
// A failure leaves `path` as it was and names `option` in the problem. A
// path that is not a regular file (/dev/stdout, a FIFO, /dev/null) is written
// in place, never renamed over (a device node stays a device node); a folder
// is refused.
Result<void> WriteFileAtomic(const std::string& path, std::string_view text, std::string_view option);

// Opens `path` for writing ("w": created or truncated) without waiting for
// a reader: a FIFO nobody reads fails at once (ENXIO, worded by
// WriteErrorText) instead of blocking forever, as fopen would (#40).
// nullptr with errno set on failure.
std::FILE* OpenForWriting(const std::string& path);
// strerror(err), or for ENXIO on a pipe "a pipe (FIFO) that no program is reading".
std::string WriteErrorText(int err);

// Refuses to write `path` (named by `option` in the problem) when it is one of
// the command's `inputs` (the same file, however spelt: device and inode), so
// `sweep s.yaml -o s.yaml` cannot replace its own scenario.
Result<void> CheckOutputNotInput(const std::string& path, std::string_view option, const std::vector<std::string>& inputs);

// What is at `path` when it exists and is not a regular file ("a character
// device", "a folder", ...); "" for a regular file or nothing there. An output
// is renamed into place only over a regular file (or nothing).
std::string NonRegularKind(const std::string& path);

}  // namespace rlcost
