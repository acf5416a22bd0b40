// Helpers of the test_tools suite: run the real command-line tools (tpc-sim, tpc-as, tpc-objdump) in a fresh
// directory with captured stdout, stderr and exit status, and check they never crash or hang.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "tpc/support/host_tensor.h"
#include "tpc/support/npy.h"

namespace tooltest {

namespace fs = std::filesystem;

struct Result {
  int status = -1;  // exit status; 128 + signal when killed
  std::string out, err;
  std::string command;
};

inline std::string readText(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
inline std::vector<uint8_t> readBytes(const fs::path& p) {
  std::string s = readText(p);
  return std::vector<uint8_t>(s.begin(), s.end());
}
inline void writeBytes(const fs::path& p, const std::vector<uint8_t>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}
inline void writeText(const fs::path& p, const std::string& s) { writeBytes(p, std::vector<uint8_t>(s.begin(), s.end())); }

inline bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

inline std::string tool(const std::string& name) { return std::string(TPC_TOOL_DIR) + "/" + name; }

// A fresh directory per test: `work` is the tool's working directory (only the test's and the tool's files
// are there), `io` holds the captured output streams.
class ToolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = ::testing::TempDir() + "tpc_tools_XXXXXX";
    ASSERT_NE(mkdtemp(tmpl.data()), nullptr);
    root_ = tmpl;
    work_ = root_ / "work";
    io_ = root_ / "io";
    fs::create_directories(work_);
    fs::create_directories(io_);
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(root_, ec);
  }

  fs::path path(const std::string& name) const { return work_ / name; }

  // Runs `args` (the tool name first) in the work directory under `timeout 20`. Fails the test on a crash,
  // a hang or a sanitizer report; the caller checks the status it expects.
  Result run(const std::string& args) {
    Result r;
    r.command = args;
    std::string cmd = "cd '" + work_.string() + "' && timeout 20 " + args + " >'" + (io_ / "stdout").string() +
                      "' 2>'" + (io_ / "stderr").string() + "'";
    int rc = std::system(cmd.c_str());
    if (rc == -1) {
      ADD_FAILURE() << "cannot run " << cmd;
      return r;
    }
    r.status = WIFEXITED(rc) ? WEXITSTATUS(rc) : 128 + WTERMSIG(rc);
    r.out = readText(io_ / "stdout");
    r.err = readText(io_ / "stderr");
    EXPECT_NE(r.status, 124) << "hang (timeout): " << args;
    EXPECT_LT(r.status, 124) << "crash: " << args << "\n" << r.err;
    EXPECT_FALSE(contains(r.err, "Sanitizer") || contains(r.err, "runtime error:")) << args << "\n" << r.err;
    return r;
  }

  // Names in the work directory.
  std::set<std::string> entries() const {
    std::set<std::string> names;
    for (const auto& e : fs::directory_iterator(work_)) names.insert(e.path().filename().string());
    return names;
  }

  void writeNpy(const std::string& name, const tpc::HostTensor& t) { tpc::writeNpy(path(name).string(), t); }
  tpc::HostTensor readNpy(const std::string& name) { return tpc::readNpy(path(name).string()); }

  // Assembles a sample (or any .s in the work directory) into an object in the work directory.
  void assembleSample(const std::string& sample, const std::string& object) {
    Result r = run(tool("tpc-as") + " '" + std::string(TPC_SOURCE_DIR) + "/samples/asm/" + sample + "' -o " + object);
    ASSERT_EQ(r.status, 0) << r.err;
  }
  void assembleText(const std::string& text, const std::string& object) {
    writeText(path(object + ".s"), text);
    Result r = run(tool("tpc-as") + " " + object + ".s -o " + object);
    ASSERT_EQ(r.status, 0) << r.err;
    fs::remove(path(object + ".s"));
  }

  fs::path root_, work_, io_;
};

// Host tensors.
template <class T> tpc::HostTensor makeTensor(tpc::DType dt, std::vector<int64_t> shape, const std::vector<T>& values) {
  tpc::HostTensor t = tpc::makeZeroTensor(dt, std::move(shape));
  EXPECT_EQ(t.data.size(), values.size() * sizeof(T));
  std::memcpy(t.data.data(), values.data(), t.data.size());
  return t;
}
template <class T> std::vector<T> valuesOf(const tpc::HostTensor& t) {
  std::vector<T> v(t.data.size() / sizeof(T));
  std::memcpy(v.data(), t.data.data(), v.size() * sizeof(T));
  return v;
}

inline uint32_t bitsOf(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace tooltest
