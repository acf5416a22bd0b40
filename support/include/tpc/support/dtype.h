// Element data types shared by every part of the SDK (ISA, simulator, tensors, object metadata).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace tpc {

// The order is part of the instruction encoding (the 4-bit dtype field) and of the object metadata.
enum class DType : uint8_t { F32 = 0, BF16, F16, I32, U32, I16, U16, I8, U8, Count };

inline constexpr int kNumDTypes = static_cast<int>(DType::Count);

// Size of one element in bytes.
constexpr size_t dtypeSize(DType t) {
  switch (t) {
    case DType::F32: case DType::I32: case DType::U32: return 4;
    case DType::BF16: case DType::F16: case DType::I16: case DType::U16: return 2;
    case DType::I8: case DType::U8: return 1;
    default: return 0;
  }
}

constexpr bool dtypeIsFloat(DType t) { return t == DType::F32 || t == DType::BF16 || t == DType::F16; }
constexpr bool dtypeIsSigned(DType t) {
  return dtypeIsFloat(t) || t == DType::I32 || t == DType::I16 || t == DType::I8;
}

// Lanes of one 2048-bit vector register holding elements of this type.
constexpr int dtypeLanes(DType t) { return dtypeSize(t) ? static_cast<int>(256 / dtypeSize(t)) : 0; }

// Short names used on command lines, in assembly and in docs: f32 bf16 f16 i32 u32 i16 u16 i8 u8.
std::string_view dtypeName(DType t);
std::optional<DType> parseDType(std::string_view name);

}  // namespace tpc
