// Format strings of TPC printf: checked once, so that formatting a value never reads anything but that
// value. A format has at most one conversion (d i u x X o c f F e E g G a A, with flags, width,
// precision and the length modifiers h hh l ll), plus %% escapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "tpc/support/dtype.h"

namespace tpc::isa {

enum class PrintfConversion : uint8_t { None, Integer, Float, Char };

struct PrintfFormat {
  PrintfConversion conversion = PrintfConversion::None;
};

// The format's conversion, or an error message saying what is wrong with it.
std::optional<PrintfFormat> parsePrintfFormat(std::string_view format, std::string* error);

// Formats a value (the raw bits of a lane or scalar register of type t) with a checked format.
std::string formatPrintf(std::string_view format, const PrintfFormat& parsed, DType t, uint32_t bits);

}  // namespace tpc::isa
