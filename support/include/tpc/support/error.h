// The exception type for bad user input (files, command-line arguments).
#pragma once

#include <stdexcept>
#include <string>

#include "tpc/support/text.h"

namespace tpc {

// Thrown for anything the user can fix: a malformed file, a wrong argument, an OS error on a path they gave.
// Tools print what() as-is and exit non-zero, so the message must stand on its own: it names the file or
// argument, the place in it, and what was expected. Programming errors use other exception types.
// Messages often echo what the user gave (a key from a damaged file, an argument): every byte outside
// printable ASCII, but a newline, is written as \xHH, so a message never carries raw bytes to a terminal.
class UserError : public std::runtime_error {
 public:
  explicit UserError(const std::string& message) : std::runtime_error(escapeNonPrintable(message)) {}
  explicit UserError(const char* message) : UserError(std::string(message)) {}
};

}  // namespace tpc
