// Load- and store-slot semantics: tensor access through 5-D descriptors (reads outside the tensor return
// the padding value, writes outside it are dropped), local memories, and global memory.
#include <cstring>

#include <fmt/format.h>

#include "exec_common.h"
#include "semantics/arith.h"

namespace tpc::sim::exec {

namespace {

using isa::InsnId;

enum class Access { Load, Store };

// The tensor an access names; the access is counted for it. An access whose element size differs from
// the tensor's (an f32 load from a bf16 tensor, as the hardware allows) is addressed in bytes: the
// coordinates are in the tensor's elements, the lanes in the instruction's (see readRetyped).
template <DType T, Access A> const TensorDesc& tensorFor(Core& c, const DecodedSlot& d) {
  uint32_t n = d.field(SwitchField::Tensor);
  const TensorDesc& t = c.tensor(n);
  if (dtypeSize(t.dtype) != sizeof(St<T>) && t.strides[0] != 1)
    throw ExecError(fmt::format("tensor {} holds {} elements with dimension-0 stride {}; the instruction accesses {} "
                                "elements, which needs dimension 0 dense", n, dtypeName(t.dtype), t.strides[0],
                                dtypeName(T)));
  CoreStats& stats = c.mutableStats();
  ++(A == Access::Load ? stats.tensorLoads : stats.tensorStores)[n];
  return t;
}

bool outerInside(const TensorDesc& t, const IReg& co) {
  for (int k = 1; k < kMaxDims; ++k)
    if (co[k] < 0 || co[k] >= t.sizes[k]) return false;
  return true;
}

int64_t outerOffset(const TensorDesc& t, const IReg& co) {
  int64_t off = 0;
  for (int k = 1; k < kMaxDims; ++k) off += static_cast<int64_t>(co[k]) * t.strides[k];
  return off;
}

// Byte offset in the tensor of lane l of an access of element size `size` starting at element x0 of a
// dense dimension 0, or -1 when the lane is not wholly inside dimension 0.
inline int64_t retypedLane(const TensorDesc& t, int64_t x0, int l, size_t size) {
  const int64_t esize = static_cast<int64_t>(dtypeSize(t.dtype));
  const int64_t byte = x0 * esize + l * static_cast<int64_t>(size);
  return byte >= 0 && byte + static_cast<int64_t>(size) <= t.sizes[0] * esize ? byte : -1;
}

// Reads the vector whose lane 0 is at `co` (dimension 0 runs along the lanes).
template <DType T> void readVector(const TensorDesc& t, const IReg& co, St<T>* out) {
  constexpr int kL = kLanes<T>;
  const St<T> pad = Elem<T>::fromBits(t.padding);
  if (!outerInside(t, co)) {
    for (int l = 0; l < kL; ++l) out[l] = pad;
    return;
  }
  if (dtypeSize(t.dtype) != sizeof(St<T>)) {  // retyped: lanes by byte offset
    const int64_t outer = outerOffset(t, co) * static_cast<int64_t>(dtypeSize(t.dtype));
    for (int l = 0; l < kL; ++l) {
      int64_t b = retypedLane(t, co[0], l, sizeof(St<T>));
      if (b < 0) out[l] = pad;
      else std::memcpy(&out[l], t.host + outer + b, sizeof(St<T>));
    }
    return;
  }
  const int64_t base = outerOffset(t, co), x0 = co[0];
  const St<T>* data = reinterpret_cast<const St<T>*>(t.host);
  if (t.strides[0] == 1 && x0 >= 0 && x0 + kL <= t.sizes[0]) {
    std::memcpy(out, data + base + x0, isa::kVectorBytes);
    return;
  }
  for (int l = 0; l < kL; ++l) {
    int64_t x = x0 + l;
    out[l] = (x >= 0 && x < t.sizes[0]) ? data[base + x * t.strides[0]] : pad;
  }
}

template <DType T> St<T> rmw(isa::RmwOp op, St<T> old, St<T> v) {
  switch (op) {
    case isa::RmwOp::Add: return sem::add<T>(old, v, false);
    case isa::RmwOp::Sub: return sem::sub<T>(old, v, false);
    case isa::RmwOp::Min: return sem::fmin<T>(old, v);
    case isa::RmwOp::Max: return sem::fmax<T>(old, v);
    default: return v;
  }
}

// Writes elements [first, last) of `v` whose predicate allows it; elements outside the tensor are dropped.
// Element l came from register lane predLane[l] (identity when null), whose predicate bit decides.
template <DType T> uint64_t writeVector(Core& c, const DecodedSlot& d, const TensorDesc& t, const IReg& co,
                                        const St<T>* v, int first, int last, const int* predLane = nullptr) {
  if (!outerInside(t, co)) return 0;
  const auto op = static_cast<isa::RmwOp>(d.field(SwitchField::Rmw));
  const int64_t base = outerOffset(t, co), x0 = co[0];
  if (dtypeSize(t.dtype) != sizeof(St<T>)) {  // retyped: lanes by byte offset
    const int64_t outer = base * static_cast<int64_t>(dtypeSize(t.dtype));
    uint64_t bytes = 0;
    for (int l = first; l < last; ++l) {
      int64_t b = retypedLane(t, x0, l, sizeof(St<T>));
      if (b < 0 || (d.predVector && !laneEnabled(c, d, predLane ? predLane[l] : l))) continue;
      St<T> e;
      std::memcpy(&e, t.host + outer + b, sizeof e);
      e = op == isa::RmwOp::None ? v[l] : rmw<T>(op, e, v[l]);
      std::memcpy(t.host + outer + b, &e, sizeof e);
      bytes += sizeof(St<T>);
    }
    return bytes;
  }
  St<T>* data = reinterpret_cast<St<T>*>(t.host);
  if (!d.predVector && op == isa::RmwOp::None && t.strides[0] == 1 && x0 + first >= 0 && x0 + last <= t.sizes[0]) {
    std::memcpy(data + base + x0 + first, v + first, (last - first) * sizeof(St<T>));
    return (last - first) * sizeof(St<T>);
  }
  uint64_t bytes = 0;
  for (int l = first; l < last; ++l) {
    int64_t x = x0 + l;
    if (x < 0 || x >= t.sizes[0] || (d.predVector && !laneEnabled(c, d, predLane ? predLane[l] : l))) continue;
    St<T>& e = data[base + x * t.strides[0]];
    e = op == isa::RmwOp::None ? v[l] : rmw<T>(op, e, v[l]);
    bytes += sizeof(St<T>);
  }
  return bytes;
}

// pack=p (r = 2^p narrow elements per wide lane): element q*(n/r) + j of memory is register lane r*j + q,
// so memory holds part 0 of every wide lane, then part 1, ... (the order of the interleaved converts).
template <DType T> int packedLane(int element, uint32_t pack) {
  const int r = 1 << pack, perPart = kLanes<T> / r;
  return r * (element % perPart) + element / perPart;
}

template <DType T> void ldTnsr(Core& c, const DecodedSlot& d) {
  const TensorDesc& t = tensorFor<T, Access::Load>(c, d);
  alignas(64) St<T> out[kLanes<T>];
  readVector<T>(t, c.r.i[d.src[0]], out);
  c.mutableStats().loadBytes += isa::kVectorBytes;
  if (uint32_t pack = d.field(SwitchField::TnsrPack)) {  // unpack: spread the elements over the parts
    alignas(64) St<T> lanes[kLanes<T>];
    for (int e = 0; e < kLanes<T>; ++e) lanes[packedLane<T>(e, pack)] = out[e];
    return commitLanes(c, d, lanes);
  }
  commitLanes(c, d, out);
}

// The lanes [first, last) of a partial access: from the switch fields, or for the register forms from
// two scalar sources (size as lanes minus 1, then offset; the low byte of each, as the fields hold them).
struct LaneRange { int first, last; };
template <DType T> LaneRange partialLanes(const Core& c, const DecodedSlot& d, int sizeSrc) {
  int first, size;
  if (sizeSrc < 0) {
    first = static_cast<int>(d.field(SwitchField::PartOff));
    size = static_cast<int>(d.field(SwitchField::PartSize));
  } else {
    size = static_cast<int>(rawScalarSrc(c, d, sizeSrc) & 0xffu) + 1;
    first = static_cast<int>(rawScalarSrc(c, d, sizeSrc + 1) & 0xffu);
  }
  first = std::min<int>(kLanes<T>, first);
  return {first, std::min<int>(kLanes<T>, first + size)};
}

// Partial load: only lanes [off, off + size) are loaded; the others keep the destination's value.
template <DType T, int SizeSrc = -1> void ldTnsrPartial(Core& c, const DecodedSlot& d) {
  const TensorDesc& t = tensorFor<T, Access::Load>(c, d);
  alignas(64) St<T> loaded[kLanes<T>], out[kLanes<T>];
  readVector<T>(t, c.r.i[d.src[0]], loaded);
  std::memcpy(out, c.r.v[d.dst].bytes, isa::kVectorBytes);
  const auto [first, last] = partialLanes<T>(c, d, SizeSrc);
  for (int l = first; l < last; ++l) out[l] = loaded[l];
  c.mutableStats().loadBytes += (last > first ? last - first : 0) * sizeof(St<T>);
  commitLanes(c, d, out);
}

// Store; half=low stores lanes [0, n/2), half=high lanes [n/2, n), each at the lane's own coordinate.
template <DType T> void stTnsr(Core& c, const DecodedSlot& d) {
  const TensorDesc& t = tensorFor<T, Access::Store>(c, d);
  uint32_t half = d.field(SwitchField::Half);
  int first = half == 2 ? kLanes<T> / 2 : 0, last = half == 1 ? kLanes<T> / 2 : kLanes<T>;
  if (uint32_t pack = d.field(SwitchField::TnsrPack)) {  // gather the parts, each lane's predicate bit with it
    const St<T>* v = vsrc<T>(c, d, 1);
    alignas(64) St<T> packed[kLanes<T>];
    int fromLane[kLanes<T>];
    for (int e = 0; e < kLanes<T>; ++e) packed[e] = v[fromLane[e] = packedLane<T>(e, pack)];
    c.mutableStats().storeBytes += writeVector<T>(c, d, t, c.r.i[d.src[0]], packed, first, last, fromLane);
    return;
  }
  c.mutableStats().storeBytes += writeVector<T>(c, d, t, c.r.i[d.src[0]], vsrc<T>(c, d, 1), first, last);
}

template <DType T, int SizeSrc = -1> void stTnsrPartial(Core& c, const DecodedSlot& d) {
  const TensorDesc& t = tensorFor<T, Access::Store>(c, d);
  const auto [first, last] = partialLanes<T>(c, d, SizeSrc);
  c.mutableStats().storeBytes += writeVector<T>(c, d, t, c.r.i[d.src[0]], vsrc<T>(c, d, 1), first, last);
}

// Scalar local memory: natural alignment of the element.
// With mmio, the address is an MMIO register of the core (32 bits) instead of scalar local memory.
template <DType T> void checkMmioWidth(const DecodedSlot& d) {
  if (sizeof(St<T>) != sizeof(uint32_t))
    throw ExecError(fmt::format("MMIO access of {}-bit elements: MMIO registers are 32 bits", sizeof(St<T>) * 8));
}
template <DType T> void ldL(Core& c, const DecodedSlot& d) {
  St<T> v;
  if (d.field(SwitchField::Mmio)) {
    checkMmioWidth<T>(d);
    const uint32_t raw = c.readMmio(rawScalarSrc(c, d, 0));
    std::memcpy(&v, &raw, sizeof v);
  } else {
    std::memcpy(&v, c.scalarLocalAt(rawScalarSrc(c, d, 0), sizeof(St<T>)), sizeof v);
  }
  writeScalar<T>(c, d, v);
}
template <DType T> void stL(Core& c, const DecodedSlot& d) {
  St<T> v = sem::fromScalarReg<T>(c.r.s[d.src[1]]);
  if (d.field(SwitchField::Mmio)) {
    checkMmioWidth<T>(d);
    c.writeMmio(rawScalarSrc(c, d, 0), c.r.s[d.src[1]]);
    return;
  }
  std::memcpy(c.scalarLocalAt(rawScalarSrc(c, d, 0), sizeof(St<T>)), &v, sizeof v);
}

// Vector local memory: 256-byte aligned; a vector predicate selects lanes of the instruction's type.
template <DType T> void ldLV(Core& c, const DecodedSlot& d) {
  alignas(64) St<T> out[kLanes<T>];
  std::memcpy(out, c.vectorLocalAt(rawScalarSrc(c, d, 0)), isa::kVectorBytes);
  commitLanes(c, d, out);
}
template <DType T> void storeLanes(Core& c, const DecodedSlot& d, uint8_t* p, const St<T>* v) {
  if (!d.predVector) {
    std::memcpy(p, v, isa::kVectorBytes);
    return;
  }
  for (int l = 0; l < kLanes<T>; ++l)
    if (laneEnabled(c, d, l)) std::memcpy(p + sizeof(St<T>) * l, v + l, sizeof(St<T>));
}
template <DType T> void stLV(Core& c, const DecodedSlot& d) {
  storeLanes<T>(c, d, c.vectorLocalAt(rawScalarSrc(c, d, 0)), vsrc<T>(c, d, 1));
}

// Global memory through address registers.
template <DType T> void ldG(Core& c, const DecodedSlot& d) {
  St<T> v;
  std::memcpy(&v, c.globalForRead(c.r.ad[d.src[0]], sizeof(St<T>)), sizeof v);
  c.mutableStats().loadBytes += sizeof v;
  writeScalar<T>(c, d, v);
}
template <DType T> void ldGV(Core& c, const DecodedSlot& d) {
  alignas(64) St<T> out[kLanes<T>];
  std::memcpy(out, c.globalForRead(c.r.ad[d.src[0]], isa::kVectorBytes), isa::kVectorBytes);
  c.mutableStats().loadBytes += isa::kVectorBytes;
  commitLanes(c, d, out);
}
template <DType T> void stG(Core& c, const DecodedSlot& d) {
  St<T> v = sem::fromScalarReg<T>(c.r.s[d.src[1]]);
  std::memcpy(c.globalAt(c.r.ad[d.src[0]], sizeof(St<T>)), &v, sizeof v);
  c.mutableStats().storeBytes += sizeof v;
}
template <DType T> void stGV(Core& c, const DecodedSlot& d) {
  storeLanes<T>(c, d, c.globalAt(c.r.ad[d.src[0]], isa::kVectorBytes), vsrc<T>(c, d, 1));
  c.mutableStats().storeBytes += isa::kVectorBytes;
}

// gen_addr: the global address of the element at the coordinates (checked when it is accessed).
// set_lut: user lookup tables (lookup ptr) are read from this global address on.
void setLut(Core& c, const DecodedSlot& d) { c.mmio.lutPointer = c.r.ad[d.src[0]]; }

void genAddr(Core& c, const DecodedSlot& d) {
  uint32_t n = d.field(SwitchField::Tensor);
  const TensorDesc& t = c.tensor(n);
  const IReg& co = c.r.i[d.src[0]];
  int64_t off = outerOffset(t, co) + static_cast<int64_t>(co[0]) * t.strides[0];
  c.r.ad[d.dst] = t.base + static_cast<uint64_t>(off * static_cast<int64_t>(dtypeSize(t.dtype)));
}

// ld_tdesc: a field of a tensor descriptor: the size of dimension `dim`, its stride (in elements), the
// hardware prefetch stride, or the pad value's raw bits. The simulator has no hardware prefetcher and its
// launches configure none, so the prefetch stride reads 0 (kernels use it as a count of prefetches, which
// have no architectural effect).
void ldTdesc(Core& c, const DecodedSlot& d) {
  const TensorDesc& t = c.tensor(d.field(SwitchField::Tensor));
  const uint32_t dim = d.field(SwitchField::Dim) % kMaxDims;
  switch (d.field(SwitchField::TdescField)) {
    case 0: c.r.s[d.dst] = static_cast<uint32_t>(t.sizes[dim]); break;
    case 1: c.r.s[d.dst] = static_cast<uint32_t>(t.strides[dim]); break;
    case 2: c.r.s[d.dst] = 0; break;
    default: c.r.s[d.dst] = t.padding; break;
  }
}

void prefetch(Core&, const DecodedSlot&) {}  // a cache hint: no architectural effect

// aso: counts SEMAPHORE up (or down with dec) once older stores are observable; on the simulator a store is
// observable when its bundle ends, so the count changes at once.
void aso(Core& c, const DecodedSlot& d) { c.mmio.semaphore += d.field(SwitchField::AsoDec) ? ~0u : 1u; }


#define MEM_TYPED(Name) sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn { return &Name<T>; })

}  // namespace

ExecFn memoryExec(const isa::SlotInsn& insn) {
  switch (insn.id) {
    case InsnId::LdTnsr: return MEM_TYPED(ldTnsr);
    case InsnId::LdTnsrPartial: return MEM_TYPED(ldTnsrPartial);
    case InsnId::StTnsr: return MEM_TYPED(stTnsr);
    case InsnId::StTnsrPartial: return MEM_TYPED(stTnsrPartial);
    case InsnId::LdTnsrPartialR:  // size and offset in sources 1 and 2
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn { return &ldTnsrPartial<T, 1>; });
    case InsnId::StTnsrPartialR:  // size and offset in sources 2 and 3
      return sem::dispatchDType(insn.dtype, []<DType T>() -> ExecFn { return &stTnsrPartial<T, 2>; });
    case InsnId::LdL: return MEM_TYPED(ldL);
    case InsnId::StL: return MEM_TYPED(stL);
    case InsnId::LdLV: return MEM_TYPED(ldLV);
    case InsnId::StLV: return MEM_TYPED(stLV);
    case InsnId::LdG: return MEM_TYPED(ldG);
    case InsnId::LdGV: return MEM_TYPED(ldGV);
    case InsnId::StG: return MEM_TYPED(stG);
    case InsnId::StGV: return MEM_TYPED(stGV);
    case InsnId::GenAddr: return &genAddr;
    case InsnId::LdSetLut: return &setLut;
    case InsnId::LdTdesc: return &ldTdesc;
    case InsnId::Prefetch: return &prefetch;
    case InsnId::StAso: return &aso;
    default: return nullptr;
  }
}

}  // namespace tpc::sim::exec
