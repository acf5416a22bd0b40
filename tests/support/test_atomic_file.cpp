#include "tpc/support/atomic_file.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "test_util.h"

namespace tpc {
namespace {

using test::bytesOf;
using test::userErrorOf;

mode_t modeOf(const std::string& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0);
  return st.st_mode & 07777;
}

// Sets the umask for one test and restores it.
class ScopedUmask {
 public:
  explicit ScopedUmask(mode_t m) : old_(::umask(m)) {}
  ~ScopedUmask() { ::umask(old_); }

 private:
  mode_t old_;
};

TEST(AtomicFile, WritesNewFileAndLeavesNoTemporary) {
  test::ScratchDir dir;
  std::string path = dir / "out.bin";
  writeFileAtomically(path, bytesOf("hello"));
  EXPECT_EQ(readFileBytes(path), bytesOf("hello"));
  EXPECT_EQ(dir.entries(), std::set<std::string>{"out.bin"});
}

TEST(AtomicFile, ReplacesExistingContent) {
  test::ScratchDir dir;
  std::string path = dir / "out.bin";
  writeFileAtomically(path, std::vector<uint8_t>(10000, 0xee));
  writeFileAtomically(path, bytesOf("abc"));  // shorter: nothing of the old content may remain
  EXPECT_EQ(readFileBytes(path), bytesOf("abc"));
  writeFileAtomically(path, {});
  EXPECT_EQ(readFileBytes(path), std::vector<uint8_t>{});
  EXPECT_EQ(dir.entries(), std::set<std::string>{"out.bin"});
}

TEST(AtomicFile, MissingDirectoryThrowsAndCreatesNothing) {
  test::ScratchDir dir;
  std::string path = dir / "no/such/dir/out.npy";
  std::string msg = userErrorOf([&] { writeFileAtomically(path, bytesOf("x")); });
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  EXPECT_NE(msg.find("No such file or directory"), std::string::npos) << msg;
  EXPECT_TRUE(dir.entries().empty());
}

// rename() cannot replace a non-empty directory: the temporary must be cleaned up.
TEST(AtomicFile, FailedRenameRemovesTemporary) {
  test::ScratchDir dir;
  std::string path = dir / "taken";
  std::filesystem::create_directory(path);
  std::ofstream(path + "/inside") << "keep";
  std::string msg = userErrorOf([&] { writeFileAtomically(path, bytesOf("x")); });
  EXPECT_EQ(msg.rfind(path + ": ", 0), 0u) << msg;
  EXPECT_EQ(dir.entries(), std::set<std::string>{"taken"});
  EXPECT_EQ(readFileBytes(path + "/inside"), bytesOf("keep"));
}

TEST(AtomicFile, EmptyPathIsAnError) {
  EXPECT_THROW(writeFileAtomically("", bytesOf("x")), UserError);
}

TEST(AtomicFile, NewFileModeFollowsUmask) {
  test::ScratchDir dir;
  ScopedUmask mask(027);
  writeFileAtomically(dir / "a", bytesOf("x"));
  EXPECT_EQ(modeOf(dir / "a"), 0640u);
}

TEST(AtomicFile, ReplacedFileKeepsItsMode) {
  test::ScratchDir dir;
  std::string path = dir / "a";
  writeFileAtomically(path, bytesOf("x"));
  ASSERT_EQ(::chmod(path.c_str(), 0604), 0);
  writeFileAtomically(path, bytesOf("y"));
  EXPECT_EQ(modeOf(path), 0604u);
}

TEST(ReadFileBytes, MissingFile) {
  test::ScratchDir dir;
  std::string path = dir / "missing.npy";
  EXPECT_EQ(userErrorOf([&] { readFileBytes(path); }), path + ": cannot open: No such file or directory");
  EXPECT_EQ(userErrorOf([] { readFileBytes("missing.npy"); }), "missing.npy: cannot open: No such file or directory");
}

TEST(ReadFileBytes, Directory) {
  test::ScratchDir dir;
  std::string msg = userErrorOf([&] { readFileBytes(dir.path().string()); });
  EXPECT_EQ(msg, dir.path().string() + ": cannot read: Is a directory");
}

TEST(ReadFileBytes, LargerThanOneBuffer) {
  test::ScratchDir dir;
  std::vector<uint8_t> big(100000);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 7);
  writeFileAtomically(dir / "big", big);
  EXPECT_EQ(readFileBytes(dir / "big"), big);
}

}  // namespace
}  // namespace tpc
