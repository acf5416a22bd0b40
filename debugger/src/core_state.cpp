#include "tpc/dbg/core_state.h"

#include <cstring>

#include <fmt/format.h>

#include "tpc/dbg/expression.h"

namespace tpc::dbg {

namespace {

double decode(const uint8_t* p, DType t) {
  switch (t) {
    case DType::F32: { float f; std::memcpy(&f, p, 4); return f; }
    case DType::BF16: { uint32_t b = static_cast<uint32_t>(p[0] | (p[1] << 8)) << 16; float f; std::memcpy(&f, &b, 4); return f; }
    case DType::F16: { _Float16 h; std::memcpy(&h, p, 2); return static_cast<float>(h); }
    case DType::I32: { int32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::U32: { uint32_t v; std::memcpy(&v, p, 4); return v; }
    case DType::I16: { int16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::U16: { uint16_t v; std::memcpy(&v, p, 2); return v; }
    case DType::I8: return static_cast<int8_t>(p[0]);
    case DType::U8: return p[0];
    default: return 0;
  }
}

void encode(uint8_t* p, DType t, double x) {
  x = convertToType(x, t);
  switch (t) {
    case DType::F32: { float f = static_cast<float>(x); std::memcpy(p, &f, 4); break; }
    case DType::BF16: { float f = static_cast<float>(x); uint32_t b; std::memcpy(&b, &f, 4); b >>= 16; p[0] = b & 0xff; p[1] = (b >> 8) & 0xff; break; }
    case DType::F16: { _Float16 h = static_cast<_Float16>(static_cast<float>(x)); std::memcpy(p, &h, 2); break; }
    case DType::I32: case DType::U32: { uint32_t v = static_cast<uint32_t>(static_cast<int64_t>(x)); std::memcpy(p, &v, 4); break; }
    case DType::I16: case DType::U16: { uint16_t v = static_cast<uint16_t>(static_cast<int64_t>(x)); std::memcpy(p, &v, 2); break; }
    case DType::I8: case DType::U8: p[0] = static_cast<uint8_t>(static_cast<int64_t>(x)); break;
    default: break;
  }
}

int fileCount(isa::RegFile f) {
  switch (f) {
    case isa::RegFile::V: return isa::kNumVRegs;
    case isa::RegFile::S: return isa::kNumSRegs;
    case isa::RegFile::I: return isa::kNumIRegs;
    case isa::RegFile::SP: return isa::kNumSPRegs;
    case isa::RegFile::VP: return isa::kNumVPRegs;
    case isa::RegFile::AD: return isa::kNumADRegs;
    default: return 0;
  }
}

Location regLoc(isa::RegFile f, int index, int lane, DType t, bool isBool = false) {
  Location l;
  l.space = Location::Space::Register;
  l.file = f;
  l.index = index;
  l.firstLane = lane;
  l.elem = t;
  l.isBool = isBool;
  return l;
}

}  // namespace

std::optional<RegisterName> parseRegisterName(const std::string& name) {
  std::string base = name, view;
  if (auto dot = name.find('.'); dot != std::string::npos) {
    base = name.substr(0, dot);
    view = name.substr(dot + 1);
  }
  static const std::pair<const char*, isa::RegFile> prefixes[] = {
      {"sp", isa::RegFile::SP}, {"vp", isa::RegFile::VP}, {"ad", isa::RegFile::AD},
      {"v", isa::RegFile::V},   {"s", isa::RegFile::S},   {"i", isa::RegFile::I}};
  for (auto [prefix, file] : prefixes) {
    size_t n = std::strlen(prefix);
    if (base.size() <= n || base.compare(0, n, prefix) != 0) continue;
    std::string digits = base.substr(n);
    if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 3) return std::nullopt;
    int index = std::stoi(digits);
    if (index >= fileCount(file)) return std::nullopt;
    DType t = file == isa::RegFile::V ? DType::F32 : file == isa::RegFile::S ? DType::I32 : DType::I32;
    if (!view.empty()) {
      auto d = parseDType(view);
      if (!d || (file != isa::RegFile::V && file != isa::RegFile::S)) return std::nullopt;
      t = *d;
    }
    return RegisterName{file, index, t};
  }
  return std::nullopt;
}

Value readRegister(sim::Core& core, isa::RegFile file, int index, DType view) {
  Value v;
  v.elem = view;
  sim::RegisterFile& r = core.r;
  switch (file) {
    case isa::RegFile::S: {
      uint8_t b[4];
      std::memcpy(b, &r.s[static_cast<size_t>(index)], 4);
      v.kind = ValueKind::Scalar;
      v.lanes = {decode(b, dtypeSize(view) == 4 ? view : DType::I32)};
      if (dtypeSize(view) != 4) v.elem = DType::I32;
      v.location = regLoc(file, index, 0, v.elem);
      return v;
    }
    case isa::RegFile::V: {
      v.kind = ValueKind::Vector;
      const int n = dtypeLanes(view);
      for (int k = 0; k < n; ++k) {
        v.lanes.push_back(decode(r.v[static_cast<size_t>(index)].bytes + k * dtypeSize(view), view));
        v.laneLocations.push_back(regLoc(file, index, k, view));
      }
      return v;
    }
    case isa::RegFile::I: {
      v.kind = ValueKind::Index;
      v.elem = DType::I32;
      for (int k = 0; k < 5; ++k) {
        v.lanes.push_back(r.i[static_cast<size_t>(index)][static_cast<size_t>(k)]);
        v.laneLocations.push_back(regLoc(file, index, k, DType::I32));
      }
      return v;
    }
    case isa::RegFile::SP:
      v = Value::scalar(DType::I32, r.sp[static_cast<size_t>(index)], true);
      v.location = regLoc(file, index, 0, DType::I32, true);
      return v;
    case isa::RegFile::VP: {
      v.kind = ValueKind::Predicate;
      v.isBool = true;
      v.elem = DType::U8;
      for (int k = 0; k < 256; ++k) {
        v.lanes.push_back(r.vp[static_cast<size_t>(index)].bit(k));
        v.laneLocations.push_back(regLoc(file, index, k, DType::U8, true));
      }
      return v;
    }
    case isa::RegFile::AD:
      v.kind = ValueKind::Scalar;
      v.elem = DType::U32;
      v.lanes = {static_cast<double>(r.ad[static_cast<size_t>(index)])};
      v.location = regLoc(file, index, 0, DType::U32);
      v.typeName = "address";
      return v;
    default: throw EvalError("no such register file");
  }
}

Value readVariable(sim::Core& core, const VarRecord& var) {
  std::optional<TypeInfo> t = parseTypeName(var.type);
  Value v;
  const auto file = static_cast<isa::RegFile>(var.regFile);
  if (var.regFile == obj::kLocScalarLocal || var.regFile == obj::kLocVectorLocal) {
    const bool vec = var.regFile == obj::kLocVectorLocal;
    TypeInfo ti = t ? *t : TypeInfo{vec ? ValueKind::Vector : ValueKind::Scalar, vec ? DType::F32 : DType::I32, false, vec ? 64 : 1};
    Location base;
    base.space = vec ? Location::Space::VectorLocal : Location::Space::ScalarLocal;
    base.elem = ti.elem;
    base.isBool = ti.isBool;
    const int size = static_cast<int>(dtypeSize(ti.elem));
    // A __local__ array is its elements one after another; an array of vectors is indexed by element.
    const int total = ti.lanes * ti.arrayCount;
    v.kind = ti.arrayCount > 1 && ti.kind == ValueKind::Scalar ? ValueKind::Vector : ti.kind;
    v.elem = ti.elem;
    v.isBool = ti.isBool;
    if (ti.arrayCount > 1 && ti.lanes > 1) v.elementLanes = ti.lanes;
    const uint64_t stride = vec ? static_cast<uint64_t>(isa::kVectorBytes) : static_cast<uint64_t>(ti.lanes * size);
    for (int k = 0; k < total; ++k) {
      Location l = base;
      l.address = static_cast<uint64_t>(static_cast<uint32_t>(var.localOffset)) + (k / ti.lanes) * stride +
                  static_cast<uint64_t>((k % ti.lanes) * size);
      v.lanes.push_back(readLocation(core, l));
      if (total > 1) v.laneLocations.push_back(l);
      else v.location = l;
    }
    v.typeName = var.type;
    return v;
  }
  if (!t) {
    v = readRegister(core, file, var.regIndex, DType::F32);
    v.typeName = var.type;
    return v;
  }
  switch (file) {
    case isa::RegFile::S:
      v = readRegister(core, file, var.regIndex, t->kind == ValueKind::Scalar && dtypeSize(t->elem) == 4 ? t->elem : DType::I32);
      if (dtypeSize(t->elem) != 4 || t->isBool) {
        v.lanes[0] = t->isBool ? (v.lanes[0] != 0) : convertToType(v.lanes[0], t->elem);
        v.elem = t->elem;
        v.isBool = t->isBool;
        v.location->elem = t->elem;
        v.location->isBool = t->isBool;
      }
      break;
    case isa::RegFile::V: v = readRegister(core, file, var.regIndex, t->elem); break;
    case isa::RegFile::VP: {
      v = readRegister(core, file, var.regIndex, DType::U8);
      v.lanes.resize(static_cast<size_t>(t->lanes));
      v.laneLocations.resize(static_cast<size_t>(t->lanes));
      break;
    }
    default: v = readRegister(core, file, var.regIndex, t->elem); break;
  }
  v.typeName = var.type;
  return v;
}

double readLocation(sim::Core& core, const Location& l) {
  const size_t size = dtypeSize(l.elem);
  switch (l.space) {
    case Location::Space::Register:
      switch (l.file) {
        case isa::RegFile::S: {
          uint8_t b[4];
          std::memcpy(b, &core.r.s[static_cast<size_t>(l.index)], 4);
          return l.isBool ? (decode(b, DType::I32) != 0) : decode(b, dtypeSize(l.elem) == 4 ? l.elem : DType::I32);
        }
        case isa::RegFile::V: return decode(core.r.v[static_cast<size_t>(l.index)].bytes + l.firstLane * size, l.elem);
        case isa::RegFile::I: return core.r.i[static_cast<size_t>(l.index)][static_cast<size_t>(l.firstLane)];
        case isa::RegFile::SP: return core.r.sp[static_cast<size_t>(l.index)];
        case isa::RegFile::VP: return core.r.vp[static_cast<size_t>(l.index)].bit(l.firstLane);
        case isa::RegFile::AD: return static_cast<double>(core.r.ad[static_cast<size_t>(l.index)]);
        default: throw EvalError("no such register file");
      }
    case Location::Space::ScalarLocal:
      if (l.address + size > core.scalarLocal().size())
        throw EvalError(fmt::format("Cannot access memory at scalar local address 0x{:x}", l.address));
      return decode(core.scalarLocal().data() + l.address, l.elem);
    case Location::Space::VectorLocal:
      if (l.address + size > core.vectorLocal().size())
        throw EvalError(fmt::format("Cannot access memory at vector local address 0x{:x}", l.address));
      return decode(core.vectorLocal().data() + l.address, l.elem);
    case Location::Space::Global:
      if (!core.global().contains(l.address, size))
        throw EvalError(fmt::format("Cannot access memory at global address 0x{:x}", l.address));
      return decode(core.global().hostPtr(l.address), l.elem);
  }
  return 0;
}

void writeLocation(sim::Core& core, const Location& l, double x) {
  const size_t size = dtypeSize(l.elem);
  switch (l.space) {
    case Location::Space::Register:
      switch (l.file) {
        case isa::RegFile::S: {
          uint8_t b[4] = {};
          encode(b, l.isBool ? DType::I32 : (size == 4 ? l.elem : DType::I32), l.isBool ? (x != 0) : x);
          std::memcpy(&core.r.s[static_cast<size_t>(l.index)], b, 4);
          return;
        }
        case isa::RegFile::V: encode(core.r.v[static_cast<size_t>(l.index)].bytes + l.firstLane * size, l.elem, x); return;
        case isa::RegFile::I:
          core.r.i[static_cast<size_t>(l.index)][static_cast<size_t>(l.firstLane)] = static_cast<int32_t>(convertToType(x, DType::I32));
          return;
        case isa::RegFile::SP:
          if (l.index == 0) throw EvalError("$sp0 always reads true and cannot be written");
          core.r.sp[static_cast<size_t>(l.index)] = x != 0;
          return;
        case isa::RegFile::VP: core.r.vp[static_cast<size_t>(l.index)].set(l.firstLane, x != 0); return;
        case isa::RegFile::AD: core.r.ad[static_cast<size_t>(l.index)] = static_cast<uint64_t>(x); return;
        default: throw EvalError("no such register file");
      }
    case Location::Space::ScalarLocal:
      if (l.address + size > core.scalarLocal().size()) throw EvalError("Cannot access memory");
      encode(core.scalarLocal().data() + l.address, l.elem, x);
      return;
    case Location::Space::VectorLocal:
      if (l.address + size > core.vectorLocal().size()) throw EvalError("Cannot access memory");
      encode(core.vectorLocal().data() + l.address, l.elem, x);
      return;
    case Location::Space::Global:
      if (!core.global().contains(l.address, size)) throw EvalError("Cannot access memory");
      encode(core.global().hostPtr(l.address), l.elem, x);
      return;
  }
}

uint32_t locationBytes(const Location& l) {
  if (l.space == Location::Space::Register) {
    switch (l.file) {
      case isa::RegFile::V: return 256;
      case isa::RegFile::I: return 20;
      case isa::RegFile::SP: return 1;
      case isa::RegFile::VP: return 32;
      case isa::RegFile::AD: return 8;
      default: return 4;
    }
  }
  return static_cast<uint32_t>(dtypeSize(l.elem));
}

}  // namespace tpc::dbg
