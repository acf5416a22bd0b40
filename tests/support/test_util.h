// Helpers shared by the support tests: scratch directories, hand-built .npy files, error capture.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdint>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "tpc/support/error.h"

namespace tpc::test {

// A fresh directory under the GoogleTest temp dir, removed with everything in it at scope exit.
class ScratchDir {
 public:
  ScratchDir() {
    std::string tmpl = ::testing::TempDir() + "tpc_support_XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string operator/(const std::string& name) const { return (path_ / name).string(); }
  const std::filesystem::path& path() const { return path_; }

  // Names of the entries directly inside the directory.
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_)) names.insert(e.path().filename().string());
    return names;
  }

 private:
  std::filesystem::path path_;
};

inline std::vector<uint8_t> bytesOf(const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); }

// A .npy file assembled from parts: magic, version major.0, little-endian header length (2 bytes for
// 1.0, 4 for 2.0 and 3.0), the header text as given, then the data.
inline std::vector<uint8_t> npyFile(int major, const std::string& header, const std::vector<uint8_t>& data) {
  std::vector<uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', static_cast<uint8_t>(major), 0};
  size_t lengthBytes = major == 1 ? 2 : 4;
  for (size_t i = 0; i < lengthBytes; ++i) out.push_back(static_cast<uint8_t>(header.size() >> (8 * i)));
  out.insert(out.end(), header.begin(), header.end());
  out.insert(out.end(), data.begin(), data.end());
  return out;
}

// The message of the UserError that f throws; records a failure if it throws nothing.
// Any other exception type escapes and fails the test.
template <typename F>
std::string userErrorOf(F&& f) {
  try {
    f();
  } catch (const UserError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected a UserError";
  return {};
}

}  // namespace tpc::test
