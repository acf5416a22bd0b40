// The -t argument of the simulator CLI: which .npy file backs a kernel tensor, and how.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tpc/support/dtype.h"
#include "tpc/support/host_tensor.h"

namespace tpc {

// One of three forms:
//   FILE.npy                   an existing file, used with the data type it was saved with;
//   FILE.npy:DTYPE             an existing file whose elements are reinterpreted as DTYPE (same element
//                              size), e.g. bf16 data that NumPy saved as <u2;
//   FILE.npy=DTYPE[S0,S1,...]  a new zero-filled tensor with that NumPy shape (1 to 5 dims, each >= 1),
//                              typically an output that the tool writes to FILE.npy afterwards.
struct TensorSpec {
  std::string path;
  std::optional<DType> reinterpret;  // set for FILE.npy:DTYPE
  bool create = false;               // true for FILE.npy=DTYPE[...]
  DType createType = DType::F32;
  std::vector<int64_t> createShape;
  std::string text;  // the argument as given, quoted in error messages
};

// Splits the argument from the right, so that ':' and '=' may appear in directory names: a suffix after
// the last '=' is a creation spec if it contains '[' (or, having no '.' or '/', the whole argument is not
// an existing file); a suffix after the last ':' is a reinterpretation if it is a data type name (or, having
// no '.' or '/', the whole argument is not an existing file). Anything else is a plain path.
// Throws UserError like "-t 'out.npy=f33[4]': unknown data type 'f33' (expected one of f32 bf16 ...)".
TensorSpec parseTensorSpec(std::string_view arg);

// Reads the file (applying the reinterpretation) or creates the zero tensor. Throws UserError.
HostTensor materialize(const TensorSpec& spec);

}  // namespace tpc
