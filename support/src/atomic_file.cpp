#include "tpc/support/atomic_file.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <system_error>

#include <fmt/format.h>

#include "tpc/support/error.h"

namespace tpc {

namespace {

// Thread-safe text for an errno value (strerror is not).
std::string osError(int err) { return std::system_category().message(err); }

// The process umask. umask() can only be read by setting it, which races with other threads creating
// files, so read it from /proc instead; 022 is the usual default if /proc is unavailable.
mode_t currentUmask() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("Umask:", 0) == 0) return static_cast<mode_t>(std::strtoul(line.c_str() + 6, nullptr, 8) & 0777);
  }
  return 022;
}

// Owns the temporary file until it is renamed into place; removes it on any early exit.
class TempFile {
 public:
  explicit TempFile(const std::string& target) : name_(target + ".tmpXXXXXX") {
    fd_ = mkstemp(name_.data());
    if (fd_ < 0) throw UserError(fmt::format("{}: cannot create a temporary file: {}", target, osError(errno)));
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(name_.c_str());
  }

  int fd() const { return fd_; }
  const std::string& name() const { return name_; }
  // Closes the descriptor; returns 0 or an errno value (close can report a delayed write error).
  int close() {
    int rc = ::close(fd_);
    fd_ = -1;
    return rc == 0 ? 0 : errno;
  }
  void commit() { committed_ = true; }

 private:
  std::string name_;
  int fd_ = -1;
  bool committed_ = false;
};

// Writes all bytes, retrying short writes and signals; returns 0 or an errno value.
int writeAll(int fd, std::span<const uint8_t> bytes) {
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    done += static_cast<size_t>(n);
  }
  return 0;
}

}  // namespace

void writeFileAtomically(const std::string& path, std::span<const uint8_t> bytes) {
  if (path.empty()) throw UserError("cannot write a file with an empty name");
  TempFile tmp(path);

  // mkstemp creates the file as 0600; give it the mode a plain open(O_CREAT, 0666) would have given,
  // or keep the mode of the file being replaced.
  struct stat st {};
  mode_t mode = (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ? (st.st_mode & 07777)
                                                                          : (0666 & ~currentUmask());
  if (::fchmod(tmp.fd(), mode) != 0)
    throw UserError(fmt::format("{}: cannot set the mode of temporary file {}: {}", path, tmp.name(), osError(errno)));

  if (int err = writeAll(tmp.fd(), bytes))
    throw UserError(fmt::format("{}: cannot write temporary file {}: {}", path, tmp.name(), osError(err)));
  if (int err = tmp.close())
    throw UserError(fmt::format("{}: cannot write temporary file {}: {}", path, tmp.name(), osError(err)));
  if (std::rename(tmp.name().c_str(), path.c_str()) != 0)
    throw UserError(fmt::format("{}: cannot replace with temporary file {}: {}", path, tmp.name(), osError(errno)));
  tmp.commit();
}

std::vector<uint8_t> readFileBytes(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw UserError(fmt::format("{}: cannot open: {}", path, osError(errno)));

  std::vector<uint8_t> bytes;
  struct stat st {};
  // The size is only a hint: pipes and /proc files report 0, and a file may change while being read.
  size_t capacity = (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) ? static_cast<size_t>(st.st_size) + 1 : 0;
  bytes.resize(std::max<size_t>(capacity, 4096));
  size_t used = 0;
  for (;;) {
    if (used == bytes.size()) bytes.resize(bytes.size() * 2);
    ssize_t n = ::read(fd, bytes.data() + used, bytes.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      throw UserError(fmt::format("{}: cannot read: {}", path, osError(err)));
    }
    if (n == 0) break;
    used += static_cast<size_t>(n);
  }
  ::close(fd);
  bytes.resize(used);
  return bytes;
}

}  // namespace tpc
