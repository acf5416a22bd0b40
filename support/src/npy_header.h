// Parser for the header of a .npy file: a Python dict literal such as
// {'descr': '<f4', 'fortran_order': False, 'shape': (3, 100), } followed by padding.
// Private to tpcsupport; npy.cpp gives the fields their meaning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tpc::detail {

struct NpyHeaderFields {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

// text is the header after the length field; textOffset is where it starts in the file and name is the
// file name, both only for messages. Accepts exactly the three keys in any order, either quote style,
// any whitespace, trailing commas and the Python 2 'L' suffix on integers; throws UserError otherwise.
NpyHeaderFields parseNpyHeaderText(std::string_view text, size_t textOffset, const std::string& name);

}  // namespace tpc::detail
