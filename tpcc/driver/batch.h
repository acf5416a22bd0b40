// tpc-clang --batch FILE: many compiles in one invocation (the kernel library's build runs hundreds).
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace tpc::cc {

// A compile: tpc-clang's arguments without the program name; returns its exit status.
using CompileCommand = std::function<int(const std::vector<std::string>& arguments)>;

// Runs every line of `listPath` (one compile per line, its arguments separated by tabs; empty lines and
// lines starting with '#' are skipped) through `compile`, each in a child process forked from this one, so
// that the compiles share the loaded libraries and the tables built before the fork but nothing else. All
// compiles run, one after another; the status is 0 when every one succeeded, 1 otherwise (a compile's own
// errors are on stderr, each line that failed is named after it).
int runBatch(const std::string& listPath, const CompileCommand& compile);

}  // namespace tpc::cc
