// The exception type for bad user input (files, command-line arguments).
#pragma once

#include <stdexcept>

namespace tpc {

// Thrown for anything the user can fix: a malformed file, a wrong argument, an OS error on a path they gave.
// Tools print what() as-is and exit non-zero, so the message must stand on its own: it names the file or
// argument, the place in it, and what was expected. Programming errors use other exception types.
class UserError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace tpc
