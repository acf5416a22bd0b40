#include "tpc/support/dtype.h"

#include <array>

namespace tpc {

namespace {
constexpr std::array<std::string_view, kNumDTypes> kNames = {"f32", "bf16", "f16", "i32", "u32",
                                                             "i16", "u16",  "i8",  "u8"};
}

std::string_view dtypeName(DType t) {
  auto i = static_cast<size_t>(t);
  return i < kNames.size() ? kNames[i] : std::string_view("?");
}

std::optional<DType> parseDType(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<DType>(i);
  return std::nullopt;
}

}  // namespace tpc
