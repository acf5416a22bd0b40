// Whole-file reads and crash-safe whole-file writes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace tpc {

// Writes bytes to path so that readers see either the old content or the new, never a partial file:
// the data goes to a unique temporary file in the same directory (path + ".tmpXXXXXX"), which is then
// renamed over path. A new file gets mode 0666 & ~umask; an existing regular file keeps its mode; a
// symlink at path is replaced by the file rather than written through.
// On failure the temporary is removed and UserError names path and the OS error.
void writeFileAtomically(const std::string& path, std::span<const uint8_t> bytes);

// The whole content of path. Throws UserError, e.g. "missing.npy: cannot open: No such file or directory".
std::vector<uint8_t> readFileBytes(const std::string& path);

}  // namespace tpc
