#include "core/file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

namespace rlcost {
namespace {

Error FileError(ErrorCode code, const std::string& path, std::string message) {
  Error e(code, "", std::move(message));
  e.problems.back().file = path;
  return e;
}

const char* KindOf(mode_t mode) {
  return S_ISDIR(mode)    ? "a folder"
         : S_ISFIFO(mode) ? "a pipe (FIFO)"
         : S_ISCHR(mode)  ? "a character device"
         : S_ISBLK(mode)  ? "a block device"
         : S_ISSOCK(mode) ? "a socket"
                          : "not a regular file";
}

std::string Mib(uint64_t bytes) { return fmt::format("{:.0f} MiB", double(bytes) / (1 << 20)); }

}  // namespace

namespace {

// Standard input, read once (bounded) and kept: a command may load its
// scenario more than once (a report's variants), and standard input can be
// read only once.
Result<std::string> ReadStdinOnce(uint64_t max_bytes, std::string_view what) {
  static std::mutex mu;
  static std::optional<Result<std::string>> kept;
  std::lock_guard<std::mutex> lock(mu);
  if (kept) return *kept;
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(0, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      kept = Fail(FileError(ErrorCode::kNotFound, "<stdin>", fmt::format("error reading the {} ({})", what, std::strerror(err))));
      return *kept;
    }
    if (n == 0) break;
    if (text.size() + size_t(n) > max_bytes) {
      kept = Fail(FileError(ErrorCode::kInvalidInput, "<stdin>",
                            fmt::format("the {} is larger than {}; expected at most {} bytes", what, Mib(max_bytes), max_bytes)));
      return *kept;
    }
    text.append(buf, size_t(n));
  }
  kept = text;
  return *kept;
}

}  // namespace

Result<std::string> ReadBoundedFile(const std::string& path, uint64_t max_bytes, std::string_view what) {
  if (path == kStdinPath) return ReadStdinOnce(max_bytes, what);
  // Opened without blocking (a FIFO would wait for a writer), then checked on
  // the open descriptor (fstat), so a path swapped for a FIFO or a device
  // between a check and the open is still refused.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) {
    int err = errno;
    return Fail(FileError(ErrorCode::kNotFound, path,
                          fmt::format("{} not found or not readable ({})", what, std::strerror(err))));
  }
  std::unique_ptr<int, void (*)(int*)> closer(new int(fd), [](int* p) {
    ::close(*p);
    delete p;
  });
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    return Fail(FileError(ErrorCode::kNotFound, path, fmt::format("cannot read the {} ({})", what, std::strerror(err))));
  }
  if (!S_ISREG(st.st_mode)) {
    return Fail(FileError(ErrorCode::kInvalidInput, path,
                          fmt::format("cannot read the {}: it is {}; expected a regular file", what, KindOf(st.st_mode))));
  }
  if (uint64_t(st.st_size) > max_bytes) {
    return Fail(FileError(ErrorCode::kInvalidInput, path,
                          fmt::format("the {} is {} bytes; expected at most {} ({} bytes)", what,
                                      uint64_t(st.st_size), Mib(max_bytes), max_bytes)));
  }
  // A regular file never blocks; back to blocking reads for clarity.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::string text;
  text.reserve(size_t(st.st_size));
  char buf[65536];
  // The file may grow between fstat() and the read: the bound holds regardless.
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      return Fail(FileError(ErrorCode::kNotFound, path, fmt::format("error reading the {} ({})", what, std::strerror(err))));
    }
    if (n == 0) break;
    if (text.size() + size_t(n) > max_bytes) {
      return Fail(FileError(ErrorCode::kInvalidInput, path,
                            fmt::format("the {} is larger than {}; expected at most {} bytes", what, Mib(max_bytes),
                                        max_bytes)));
    }
    text.append(buf, size_t(n));
  }
  return text;
}

std::string NonRegularKind(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return "";
  return KindOf(st.st_mode);
}

Result<void> CheckOutputNotInput(const std::string& path, std::string_view option, const std::vector<std::string>& inputs) {
  struct stat out {};
  if (path.empty() || path == "-" || ::stat(path.c_str(), &out) != 0 || !S_ISREG(out.st_mode)) return {};
  for (const auto& in : inputs) {
    struct stat st {};
    if (in.empty() || ::stat(in.c_str(), &st) != 0) continue;
    if (st.st_dev == out.st_dev && st.st_ino == out.st_ino) {
      return Fail(ErrorCode::kInvalidInput, std::string(option),
                  fmt::format("'{}' is also an input of this command ('{}'); writing it would replace what is being "
                              "read: choose another output file",
                              path, in));
    }
  }
  return {};
}

std::FILE* OpenForWriting(const std::string& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0666);
  if (fd < 0) return nullptr;
  // Blocking again for the writes themselves (a pipe's reader may be slow).
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "w");
  if (!f) {
    const int err = errno;
    ::close(fd);
    errno = err;
  }
  return f;
}

std::string WriteErrorText(int err) {
  return err == ENXIO ? "it is a pipe (FIFO) that no program is reading" : std::strerror(err);
}

Result<void> WriteFileAtomic(const std::string& path, std::string_view text, std::string_view option) {
  struct stat st {};
  const bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (special && S_ISDIR(st.st_mode)) {
    return Fail(ErrorCode::kInvalidInput, std::string(option),
                fmt::format("cannot write '{}': it is a folder; expected a file name", path));
  }
  const std::string tmp = special ? path : path + ".tmp" + std::to_string(::getpid());
  auto fail = [&](int err) {
    if (!special) std::remove(tmp.c_str());
    return Fail(ErrorCode::kInvalidInput, std::string(option),
                fmt::format("cannot write '{}': {}", path, WriteErrorText(err)));
  };
  FILE* f = OpenForWriting(tmp);
  if (!f) return fail(errno);
  size_t n = std::fwrite(text.data(), 1, text.size(), f);
  int err = errno;
  bool ok = n == text.size() && std::fflush(f) == 0;
  if (!ok) err = errno;
  if (std::fclose(f) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) return fail(err ? err : EIO);
  if (!special && std::rename(tmp.c_str(), path.c_str()) != 0) return fail(errno);
  return {};
}

}  // namespace rlcost
