// readObjectFile / writeObjectFile: whole-file I/O, with the write made atomic by a temporary file in
// the destination directory and rename(2).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "byte_io.h"

namespace tpc::obj {

namespace {

std::string errnoText(int err) { return std::strerror(err); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Closes now and reports close(2)'s error (0 on success).
  int reset() {
    int err = 0;
    if (fd_ >= 0 && ::close(fd_) != 0) err = errno;
    fd_ = -1;
    return err;
  }

 private:
  int fd_;
};

}  // namespace

KernelObject readObjectFile(const std::string& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) throw ObjectError(path, "cannot open: " + errnoText(errno));
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) throw ObjectError(path, "cannot stat: " + errnoText(errno));
  if (!S_ISREG(st.st_mode)) throw ObjectError(path, "not a regular file");
  std::vector<uint8_t> bytes(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < bytes.size()) {
    ssize_t n = ::read(fd.get(), bytes.data() + got, bytes.size() - got);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw ObjectError(path, "read failed: " + errnoText(errno));
    }
    if (n == 0) break;  // the file shrank under us; parse what we have
    got += static_cast<size_t>(n);
  }
  bytes.resize(got);
  return readObject(bytes, path);
}

void writeObjectFile(const std::string& path, const KernelObject& obj) {
  std::vector<uint8_t> bytes;
  try {
    bytes = writeObject(obj);
  } catch (const ObjectError& e) {
    throw ObjectError(path, e.detail());
  }

  namespace fs = std::filesystem;
  const fs::path target(path);
  fs::path dir = target.parent_path();
  if (dir.empty()) dir = ".";
  static std::atomic<unsigned> counter{0};

  std::string tmp;
  int raw = -1;
  for (int attempt = 0; attempt < 100 && raw < 0; ++attempt) {
    tmp = (dir / fmt::format(".{}.tmp.{}.{}", target.filename().string(), ::getpid(), counter++)).string();
    raw = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (raw < 0 && errno != EEXIST) break;
  }
  if (raw < 0) throw ObjectError(path, "cannot create temporary file '" + tmp + "': " + errnoText(errno));
  Fd fd(raw);

  auto failAndRemove = [&](const std::string& what, int err) {
    fd.reset();
    ::unlink(tmp.c_str());
    throw ObjectError(path, what + ": " + errnoText(err));
  };
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      failAndRemove("write failed", errno);
    }
    if (n == 0) failAndRemove("write failed", EIO);
    done += static_cast<size_t>(n);
  }
  if (int err = fd.reset(); err != 0) failAndRemove("close failed", err);
  if (::rename(tmp.c_str(), path.c_str()) != 0) failAndRemove("cannot rename temporary file into place", errno);
}

}  // namespace tpc::obj
