#include "tpc/isa/intrinsics.h"

#include <cctype>
#include <stdexcept>
#include <unordered_map>

#include <fmt/format.h>

namespace tpc::isa {

namespace {

#define TPC_DT_f32 DType::F32
#define TPC_DT_bf16 DType::BF16
#define TPC_DT_f16 DType::F16
#define TPC_DT_i32 DType::I32
#define TPC_DT_u32 DType::U32
#define TPC_DT_i16 DType::I16
#define TPC_DT_u16 DType::U16
#define TPC_DT_i8 DType::I8
#define TPC_DT_u8 DType::U8

struct Row {
  const char* name;
  const char* returnType;
  const char* params;
  Lowering lowering;
  InsnId insn;
  DType dtype, dt2;
};

#define INTRINSIC(name, rt, params, lowering, insn, t, t2) \
  Row{#name, rt, params, Lowering::lowering, InsnId::insn, TPC_DT_##t, TPC_DT_##t2},
const Row kRows[] = {
#include "../intrinsics/core.def"
};
#undef INTRINSIC

std::string trim(std::string s) {
  size_t a = s.find_first_not_of(" \t"), b = s.find_last_not_of(" \t");
  return a == std::string::npos ? std::string() : s.substr(a, b - a + 1);
}

// "float64 a, int switches=0" -> parameters. The table's own syntax; a malformed row is a bug.
std::vector<IntrinsicParam> parseParams(const std::string& text, const char* intrinsic) {
  std::vector<IntrinsicParam> params;
  if (trim(text).empty()) return params;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string part = trim(text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos));
    IntrinsicParam p;
    size_t eq = part.find('=');
    if (eq != std::string::npos) {
      p.defaultValue = trim(part.substr(eq + 1));
      part = trim(part.substr(0, eq));
    }
    size_t sp = part.find_last_of(' ');
    if (sp == std::string::npos) throw std::logic_error(fmt::format("intrinsic {}: bad parameter '{}'", intrinsic, part));
    p.type = trim(part.substr(0, sp));
    p.name = trim(part.substr(sp + 1));
    params.push_back(p);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return params;
}

struct Table {
  std::vector<IntrinsicInfo> all;
  std::unordered_map<std::string_view, size_t> byName;
  Table() {
    all.reserve(std::size(kRows));
    for (const Row& r : kRows)
      all.push_back(IntrinsicInfo{r.name, r.returnType, parseParams(r.params, r.name), r.lowering, r.insn, r.dtype, r.dt2});
    for (size_t i = 0; i < all.size(); ++i) byName.emplace(all[i].name, i);
  }
};
const Table& table() {
  static const Table t;
  return t;
}

// The C spelling of a default value of type `type`.
// A type as the generated header spells it: the reference writes some scalar types as <stdint.h> names,
// which TPC-C does not predefine (kernels may define them, also as `long int`), so the header uses the
// built-in types they stand for.
std::string cSpelling(std::string type) {
  static const std::pair<const char*, const char*> kStdint[] = {
      {"uint32_t", "unsigned int"}, {"int32_t", "int"},   {"uint16_t", "unsigned short"},
      {"int16_t", "short"},         {"uint8_t", "unsigned char"}, {"int8_t", "signed char"}};
  for (auto [from, to] : kStdint)
    for (size_t at = type.find(from); at != std::string::npos; at = type.find(from, at)) {
      const bool wordStart = at == 0 || !(std::isalnum(static_cast<unsigned char>(type[at - 1])) || type[at - 1] == '_');
      const size_t end = at + std::string_view(from).size();
      const bool wordEnd = end == type.size() || !(std::isalnum(static_cast<unsigned char>(type[end])) || type[end] == '_');
      if (wordStart && wordEnd) {
        type.replace(at, end - at, to);
        at += std::string_view(to).size();
      } else {
        at = end;
      }
    }
  return type;
}

std::string defaultExpr(const IntrinsicParam& p) {
  if (*p.defaultValue == "{}") return fmt::format("({}){{0}}", cSpelling(p.type));
  return *p.defaultValue;
}

}  // namespace

int IntrinsicInfo::paramIndex(std::string_view paramName) const {
  for (size_t i = 0; i < params.size(); ++i)
    if (params[i].name == paramName) return static_cast<int>(i);
  return -1;
}

size_t IntrinsicInfo::requiredParams() const {
  size_t n = 0;
  while (n < params.size() && !params[n].defaultValue) ++n;
  return n;
}

int tensorQueryField(Lowering lowering) {
  switch (lowering) {
    case Lowering::TensorDimSize: return 0;
    case Lowering::TensorDimStride: return 1;
    case Lowering::TensorHwprefStride: return 2;
    case Lowering::TensorPadBits: return 3;
    default: return -1;
  }
}

bool readsCoreState(const IntrinsicInfo& in) { return insnInfo(in.insn).allowsField(SwitchField::Rm); }

bool isPure(const IntrinsicInfo& in) {
  if (readsCoreState(in)) return false;
  switch (in.lowering) {
    case Lowering::IndexSpaceOffset:
    case Lowering::IndexSpaceSize:
    case Lowering::Reinterpret: return true;
    case Lowering::Op:
    case Lowering::Mac:
    case Lowering::MovDualGroup:
    case Lowering::MovDualGroupAll:
    case Lowering::WideProduct:
    case Lowering::ConvertWiden: {
      // Load and store slots touch memory; the arithmetic slots only registers.
      Slot slot = insnInfo(in.insn).slot;
      return slot == Slot::Spu || slot == Slot::Vpu;
    }
    default: return false;
  }
}

const std::vector<IntrinsicInfo>& allIntrinsics() { return table().all; }

const IntrinsicInfo* findIntrinsic(std::string_view name) {
  auto it = table().byName.find(name);
  return it == table().byName.end() ? nullptr : &table().all[it->second];
}

std::string generateIntrinsicsHeader(const ArchInfo& arch, const std::function<bool(std::string_view)>& wanted) {
  auto supported = [&](const IntrinsicInfo& in) {
    return ((arch.types >> static_cast<unsigned>(in.dtype)) & 1u) &&
           ((arch.types >> static_cast<unsigned>(in.dt2)) & 1u) && (!wanted || wanted(in.name));
  };
  std::string out =
      "// tpc-intrinsics.h: generated by tpc-clang from its intrinsic table; included implicitly.\n"
      "#ifndef TPC_INTRINSICS_H_INCLUDED\n#define TPC_INTRINSICS_H_INCLUDED\n"
      "#define __TPC_INTRINSIC static inline __attribute__((overloadable, always_inline, nodebug))\n";
  // The builtins keep their C names in C++ too: the backend finds them by name.
  out += "#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  for (const IntrinsicInfo& in : allIntrinsics()) {
    if (!supported(in)) continue;
    std::string full;
    for (size_t i = 0; i < in.params.size(); ++i)
      full += fmt::format("{}{} {}", i ? ", " : "", cSpelling(in.params[i].type), in.params[i].name);
    out += fmt::format("{}{} {}{}({});\n", isPure(in) ? "__attribute__((const)) " : "", cSpelling(in.returnType),
                       kBuiltinPrefix, in.name, full.empty() ? "void" : full);
  }
  out += "#ifdef __cplusplus\n}\n#endif\n";
  for (const IntrinsicInfo& in : allIntrinsics()) {
    if (!supported(in)) continue;
    for (size_t given = in.requiredParams(); given <= in.params.size(); ++given) {
      std::string decl, call;
      for (size_t i = 0; i < in.params.size(); ++i) {
        if (i < given) {
          decl += fmt::format("{}{} {}", i ? ", " : "", cSpelling(in.params[i].type), in.params[i].name);
          call += fmt::format("{}{}", i ? ", " : "", in.params[i].name);
        } else {
          call += fmt::format("{}{}", i ? ", " : "", defaultExpr(in.params[i]));
        }
      }
      out += fmt::format("__TPC_INTRINSIC {} {}({}) {{ {}{}{}({}); }}\n", cSpelling(in.returnType), in.name,
                         decl.empty() ? "void" : decl, in.returnType == "void" ? "" : "return ", kBuiltinPrefix,
                         in.name, call);
    }
  }
  out += "#undef __TPC_INTRINSIC\n#endif\n";
  return out;
}

}  // namespace tpc::isa
