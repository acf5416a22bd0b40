#include "batch.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "tpc/support/text.h"

namespace tpc::cc {

namespace {

std::vector<std::string> splitTabs(const std::string& line) {
  std::vector<std::string> fields;
  size_t start = 0;
  for (;;) {
    size_t tab = line.find('\t', start);
    fields.push_back(line.substr(start, tab == std::string::npos ? std::string::npos : tab - start));
    if (tab == std::string::npos) return fields;
    start = tab + 1;
  }
}

// The compile in a child: its exit status, or -1 with `why` set when it did not exit normally.
int runInChild(const CompileCommand& compile, const std::vector<std::string>& arguments, std::string* why) {
  std::fflush(nullptr);  // nothing buffered may be written twice
  pid_t child = fork();
  if (child < 0) {
    *why = std::string("fork failed: ") + std::strerror(errno);
    return -1;
  }
  if (child == 0) {
    int status = compile(arguments);
    std::fflush(nullptr);
    _exit(status);  // not exit(): the parent's static destructors are the parent's to run
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0)
    if (errno != EINTR) {
      *why = std::string("waitpid failed: ") + std::strerror(errno);
      return -1;
    }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  *why = WIFSIGNALED(status) ? std::string("killed by signal ") + std::to_string(WTERMSIG(status)) : "stopped";
  return -1;
}

}  // namespace

int runBatch(const std::string& listPath, const CompileCommand& compile) {
  std::ifstream list(listPath);
  if (!list) {
    std::fprintf(stderr, "tpc-clang: error: --batch: cannot read '%s': %s\n", tpc::escapeNonPrintable(listPath).c_str(),
                 std::strerror(errno));
    return 1;
  }
  std::string line;
  int lineNumber = 0, failed = 0;
  while (std::getline(list, line)) {
    ++lineNumber;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::string why;
    int status = runInChild(compile, splitTabs(line), &why);
    if (status == 0) continue;
    ++failed;
    std::fprintf(stderr, "%s:%d: error: this compile failed%s%s\n", tpc::escapeNonPrintable(listPath).c_str(), lineNumber,
                 why.empty() ? "" : ": ", why.c_str());
  }
  if (list.bad()) {
    std::fprintf(stderr, "tpc-clang: error: --batch: error reading '%s'\n", tpc::escapeNonPrintable(listPath).c_str());
    return 1;
  }
  return failed ? 1 : 0;
}

}  // namespace tpc::cc
