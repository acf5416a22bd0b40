// Shared helpers of the test_isa suite: a generator of slot instructions over the whole instruction table,
// and a reference rounding of exact values to the float formats, written independently of
// intrinsics/semantics (it rounds with the C library's nearbyint/trunc/ceil/floor/round on long double).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tpc/isa/asm_text.h"
#include "tpc/isa/encoding.h"
#include "tpc/isa/isa.h"

namespace isa_test {

using tpc::DType;
using tpc::isa::InsnInfo;
using tpc::isa::Operand;
using tpc::isa::RegFile;
using tpc::isa::RoundingMode;
using tpc::isa::Slot;
using tpc::isa::SlotInsn;
using tpc::isa::SwitchField;

inline uint32_t bitsOf(float f) { return std::bit_cast<uint32_t>(f); }
inline float floatOf(uint32_t b) { return std::bit_cast<float>(b); }

// ---------------------------------------------------------------------------------------------------
// Generator of slot instructions.

inline std::vector<RegFile> filesOf(uint32_t kinds) {
  std::vector<RegFile> out;
  for (RegFile f : {RegFile::V, RegFile::S, RegFile::I, RegFile::SP, RegFile::VP, RegFile::AD, RegFile::Imm})
    if (kinds & tpc::isa::kindBit(f)) out.push_back(f);
  return out;
}

inline bool isSelect(tpc::isa::InsnId id) {
  using tpc::isa::InsnId;
  return id == InsnId::VpuSelEq || id == InsnId::VpuSelNeq || id == InsnId::VpuSelLess || id == InsnId::VpuSelLeq ||
         id == InsnId::VpuSelGrt || id == InsnId::VpuSelGeq;
}

// Immediates worth trying for a value of type t: extremes, negative values, the float specials (whose
// text form is hex), and patterns that are not the canonical extension of the type (also printed as hex).
inline std::vector<uint32_t> typedImmediates(DType t) {
  switch (t) {
    case DType::F32:
      return {bitsOf(0.1f), 0x80000000u /* -0.0 */, bitsOf(1e-30f), bitsOf(3.4e38f), bitsOf(-2.5f), bitsOf(1.0f),
              0x7fc00000u /* NaN */, 0x7f800001u /* signaling NaN */, 0xffc00000u /* -NaN */, 0x7f800000u /* inf */,
              0xff800000u /* -inf */, 0x00000001u /* denormal */, 0x7f7fffffu /* max */, 0x00800000u /* min normal */,
              0u};
    case DType::BF16:
      return {0x3f80u, 0xbf80u, 0x3dcdu /* 0.1 */, 0x7f7fu /* max */, 0x0080u, 0x8000u, 0x7fc0u, 0x7f80u, 0xff80u,
              0x0001u, 0x00012345u /* not canonical */, 0u};
    case DType::F16:
      return {0x3c00u, 0x2e66u /* 0.1 */, 0x7bffu /* 65504 */, 0x0400u, 0x8000u, 0x7e00u, 0x7c00u, 0xfc00u, 0x0001u,
              0xb555u, 0xffff3c00u /* not canonical */, 0u};
    case DType::I32: return {0u, 1u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 12345u, static_cast<uint32_t>(-77)};
    case DType::U32: return {0xffffffffu, 0x80000000u, 7u, 0u};
    case DType::I16: return {0xffffffffu, 0xffff8000u, 0x7fffu, 0x0000ffffu /* not canonical */, 3u};
    case DType::U16: return {0xffffu, 0x10000u /* not canonical */, 1u};
    case DType::I8: return {0xffffff80u, 0x7fu, 0xffffffffu, 0xffu /* not canonical */};
    case DType::U8: return {0xffu, 0x100u /* not canonical */, 0x80u};
    default: return {0u};
  }
}

// Immediates of operand `operand` (1.. = src0..) of an instruction.
inline std::vector<uint32_t> immediatesFor(const SlotInsn& insn, int operand) {
  const InsnInfo& info = insn.info();
  if (info.flags & tpc::isa::F_IMM_ADDR) return {0u, 64u, 0x1000u, 0xffffffc0u};
  if ((info.flags & tpc::isa::F_IMM_U32) || !info.hasDType()) return {0u, 1u, 31u, 0xffffffffu, 0x80000000u};
  DType t = isSelect(insn.id) && operand >= 3 ? static_cast<DType>(insn.field(SwitchField::Dt2)) : insn.dtype;
  return typedImmediates(t);
}

// Nonzero values to try in a switch field (invalid ones are filtered out by validateSlot).
inline std::vector<uint32_t> fieldValues(SwitchField f, std::mt19937& rng) {
  const auto& fi = tpc::isa::switchField(f);
  const uint32_t max = fi.width == 32 ? 0xffffffffu : (1u << fi.width) - 1u;
  // lookup's fid: built-in tables (valid without ptr) and user tables' ids (valid with it).
  if (f == SwitchField::LutFid) return {1u, 2u, 128u, 129u, 130u, 256u, 3u, 7u, max};
  std::vector<uint32_t> v;
  if (fi.width <= 4) {
    for (uint32_t x = 1; x <= max; ++x) v.push_back(x);
  } else {
    v = {1u, 2u, max, max - 1u, max / 2u, (max & ~63u), 64u, static_cast<uint32_t>(rng()) & max};
    v.erase(std::remove(v.begin(), v.end(), 0u), v.end());
  }
  return v;
}

struct Pred {
  uint8_t index;
  bool vector, negate;
};
inline std::vector<Pred> predicatesFor(Slot s) {
  std::vector<Pred> p = {{0, false, false}, {15, false, false}, {3, false, true}, {0, false, true}};
  if (s != Slot::Spu) {  // vector predicates guard VPU, load and store slots
    p.push_back({0, true, false});
    p.push_back({15, true, true});
    p.push_back({7, true, false});
  }
  return p;
}

// Register index for operand k under index pattern `pattern`: the highest valid one, 0, the middle one,
// or a pseudo-random one.
inline uint8_t regIndex(RegFile f, int pattern, int k, uint32_t salt) {
  int n = tpc::isa::regFileSize(f);
  switch ((pattern + k) % 4) {
    case 0: return static_cast<uint8_t>(n - 1);
    case 1: return 0;
    case 2: return static_cast<uint8_t>(n / 2);
    default: return static_cast<uint8_t>((salt * 2654435761u + static_cast<uint32_t>(k) * 40503u) % n);
  }
}

// Coverage bookkeeping of a generator run.
struct Coverage {
  std::vector<int> validPerInsn;                        // [insn]
  std::vector<std::array<int, tpc::kNumDTypes>> perType;  // [insn][dtype]
  std::vector<std::array<int, tpc::kNumDTypes>> perDt2;   // [insn][dt2]
  std::vector<uint64_t> fieldsSeen;                     // [insn] bit f: nonzero value of field f seen
  std::vector<std::array<uint32_t, 5>> filesSeen;       // [insn][operand] kindBit of files seen
  std::vector<std::array<uint32_t, 5>> maxIndexSeen;    // [insn][operand] kindBit of files seen at their top index
  std::vector<uint32_t> predsSeen;                      // [insn] bit 0 none, 1 sp, 2 !sp, 3 vp, 4 !vp
  size_t tried = 0, valid = 0;
};

// Walks the whole instruction table and calls `visit` with every valid instance produced: every data type
// and second type, every register file of every operand (at most one immediate), varied register indices,
// the immediates of the type, predicates and nonzero switch values.
inline Coverage generateAll(const std::function<void(const SlotInsn&)>& visit) {
  using namespace tpc::isa;
  Coverage cov;
  const size_t n = static_cast<size_t>(kNumInsns);
  cov.validPerInsn.assign(n, 0);
  cov.perType.assign(n, {});
  cov.perDt2.assign(n, {});
  cov.fieldsSeen.assign(n, 0);
  cov.filesSeen.assign(n, {});
  cov.maxIndexSeen.assign(n, {});
  cov.predsSeen.assign(n, 0);
  std::mt19937 rng(12345);

  auto attempt = [&](const SlotInsn& insn) -> bool {
    ++cov.tried;
    if (!validateSlot(insn).empty()) return false;
    ++cov.valid;
    const size_t id = static_cast<size_t>(insn.id);
    const InsnInfo& info = insn.info();
    ++cov.validPerInsn[id];
    ++cov.perType[id][static_cast<int>(insn.dtype)];
    if (info.flags & F_DT2) ++cov.perDt2[id][insn.field(SwitchField::Dt2)];
    for (int f = 0; f < kNumSwitchFields; ++f)
      if (info.allowsField(static_cast<SwitchField>(f)) && insn.field(static_cast<SwitchField>(f)))
        cov.fieldsSeen[id] |= uint64_t{1} << f;
    const Operand* ops[5] = {&insn.dst, &insn.src[0], &insn.src[1], &insn.src[2], &insn.src[3]};
    for (int i = 0; i < 5; ++i) {
      if (ops[i]->file == RegFile::None) continue;
      cov.filesSeen[id][i] |= kindBit(ops[i]->file);
      if (ops[i]->file == RegFile::Imm || ops[i]->index == regFileSize(ops[i]->file) - 1)
        cov.maxIndexSeen[id][i] |= kindBit(ops[i]->file);
    }
    int pk = insn.alwaysExecutes() ? 0 : (insn.predVector ? 3 : 1) + (insn.predNegate ? 1 : 0);
    cov.predsSeen[id] |= 1u << pk;
    visit(insn);
    return true;
  };
  // A sampled switch word or predicate can make an otherwise fine operand choice invalid (an unaligned loop
  // end, a vector predicate on a scalar result): then the operands are tried again without them.
  auto attemptOrPlain = [&](SlotInsn insn, uint32_t plainSw) {
    if (attempt(insn)) return;
    insn.sw = plainSw;
    if (attempt(insn)) return;
    insn.predIndex = 0;
    insn.predVector = insn.predNegate = false;
    attempt(insn);
  };

  uint32_t salt = 1;
  for (const InsnInfo& info : allInsns()) {
    std::vector<DType> types, dt2s;
    for (int t = 0; t < tpc::kNumDTypes; ++t)
      if (info.allowsType(static_cast<DType>(t))) types.push_back(static_cast<DType>(t));
    if (types.empty()) types.push_back(DType::F32);  // "no data type" is field value 0
    if (info.flags & F_DT2) dt2s = types;
    else dt2s.push_back(DType::F32);

    // Every combination of operand files with at most one immediate.
    std::vector<std::array<RegFile, 5>> combos{{}};
    for (int i = 0; i < 5; ++i) {
      if (!info.kinds[i]) continue;
      std::vector<std::array<RegFile, 5>> next;
      for (const auto& c : combos)
        for (RegFile f : filesOf(info.kinds[i])) {
          auto d = c;
          d[i] = f;
          if (std::count(d.begin(), d.end(), RegFile::Imm) <= 1) next.push_back(d);
        }
      combos = std::move(next);
    }

    std::vector<SwitchField> fields;
    for (int f = 0; f < kNumSwitchFields; ++f)
      if (info.allowsField(static_cast<SwitchField>(f)) && static_cast<SwitchField>(f) != SwitchField::Dt2)
        fields.push_back(static_cast<SwitchField>(f));
    const auto preds = info.opcode == 0 ? std::vector<Pred>{{0, false, false}} : predicatesFor(info.slot);

    for (DType t : types) {
      for (DType u : dt2s) {
        SlotInsn base;
        base.id = info.id;
        base.dtype = t;
        if (info.flags & F_DT2) base.setField(SwitchField::Dt2, static_cast<uint32_t>(u));

        // Switch words: none, each field alone at each of its values, and random mixes of all fields.
        std::vector<uint32_t> sws{base.sw};
        for (SwitchField f : fields)
          for (uint32_t v : fieldValues(f, rng)) sws.push_back(switchField(f).set(base.sw, v));
        for (int k = 0; k < 3 && !fields.empty(); ++k) {
          uint32_t sw = base.sw;
          for (SwitchField f : fields) {
            auto vals = fieldValues(f, rng);
            sw = switchField(f).set(sw, vals[rng() % vals.size()]);
          }
          sws.push_back(sw);
        }

        auto build = [&](const std::array<RegFile, 5>& files, int pattern, SlotInsn insn) {
          Operand* ops[5] = {&insn.dst, &insn.src[0], &insn.src[1], &insn.src[2], &insn.src[3]};
          for (int i = 0; i < 5; ++i) {
            if (files[i] == RegFile::None) continue;
            *ops[i] = Operand{files[i], files[i] == RegFile::Imm ? uint8_t{0} : regIndex(files[i], pattern, i, salt)};
          }
          ++salt;
          return insn;
        };

        for (size_t ci = 0; ci < combos.size(); ++ci) {
          const auto& files = combos[ci];
          int immAt = -1;
          for (int i = 0; i < 5; ++i)
            if (files[i] == RegFile::Imm) immAt = i;
          for (int pattern = 0; pattern < 4; ++pattern) {
            SlotInsn insn = build(files, pattern, base);
            const Pred& p = preds[(ci + pattern) % preds.size()];
            insn.predIndex = p.index;
            insn.predVector = p.vector;
            insn.predNegate = p.negate;
            insn.sw = sws[(ci * 4 + pattern) % sws.size()];
            if (immAt < 0) {
              attemptOrPlain(insn, base.sw);
              continue;
            }
            auto imms = immediatesFor(insn, immAt);
            if (pattern == 0) {
              for (uint32_t v : imms) {
                insn.imm = v;
                attemptOrPlain(insn, base.sw);
              }
            } else {
              insn.imm = imms[(ci + pattern) % imms.size()];
              attemptOrPlain(insn, base.sw);
            }
          }
        }
        // Every predicate and every switch word on a few operand choices.
        for (size_t ci = 0; ci < combos.size() && ci < 2; ++ci) {
          SlotInsn insn = build(combos[ci], static_cast<int>(ci), base);
          for (int i = 0; i < 4; ++i)
            if (insn.src[i].file == RegFile::Imm) insn.imm = immediatesFor(insn, i + 1)[0];
          for (const Pred& p : preds) {
            SlotInsn q = insn;
            q.predIndex = p.index;
            q.predVector = p.vector;
            q.predNegate = p.negate;
            attempt(q);
          }
          for (uint32_t sw : sws) {
            SlotInsn q = insn;
            q.sw = sw;
            attempt(q);
          }
        }
      }
    }
  }
  return cov;
}

// Records mismatches but reports only the first few, so that a broken feature does not flood the log.
struct FailureLog {
  int count = 0;
  void add(const std::string& what) {
    if (++count <= 15) ADD_FAILURE() << what;
  }
};

// ---------------------------------------------------------------------------------------------------
// Reference rounding of an exact long double value to a binary float format with flush-to-zero. The
// value must be exactly representable in long double (64-bit significand), which holds for f32, f16 and
// bf16 values, 32-bit integers, products of two f32 and sums that the callers check for exactness.

struct RefFormat {
  int p;      // significand bits, including the hidden one
  int emax;   // largest unbiased exponent
  int bias;
  uint32_t sign, inf, maxFinite, nan;
};
inline constexpr RefFormat kRefF32{24, 127, 127, 0x80000000u, 0x7f800000u, 0x7f7fffffu, 0x7fc00000u};
inline constexpr RefFormat kRefBF16{8, 127, 127, 0x8000u, 0x7f80u, 0x7f7fu, 0x7fc0u};
inline constexpr RefFormat kRefF16{11, 15, 15, 0x8000u, 0x7c00u, 0x7bffu, 0x7e00u};

// Rounds a non-negative long double to an integer with the mode, for a value of the given sign.
inline long double refRoundInt(long double mag, bool negative, RoundingMode rm) {
  switch (rm) {
    case RoundingMode::RHNE: {
      int old = std::fegetround();
      std::fesetround(FE_TONEAREST);
      long double r = std::nearbyint(mag);
      std::fesetround(old);
      return r;
    }
    case RoundingMode::RZ: return std::trunc(mag);
    case RoundingMode::RU: return negative ? std::floor(mag) : std::ceil(mag);
    case RoundingMode::RD: return negative ? std::ceil(mag) : std::floor(mag);
    case RoundingMode::RHAZ: return std::round(mag);
    default: ADD_FAILURE() << "refRoundInt: no reference for this mode"; return 0;
  }
}

// Documented semantics: round with unbounded exponent, then a result below the smallest normal becomes a
// signed zero, and overflow gives infinity or the largest finite value depending on the mode (always the
// largest finite value when saturating). NaN gives the canonical NaN.
inline uint32_t refRound(long double x, const RefFormat& f, RoundingMode rm, bool saturate = false) {
  if (std::isnan(x)) return f.nan;
  const bool neg = std::signbit(x);
  const uint32_t sign = neg ? f.sign : 0u;
  if (std::isinf(x)) return sign | (saturate ? f.maxFinite : f.inf);
  if (x == 0) return sign;
  long double a = std::fabs(x);
  int e = std::ilogb(a);
  long double r = refRoundInt(std::ldexp(a, f.p - 1 - e), neg, rm);  // significand as an integer
  if (r == std::ldexp(1.0L, f.p)) {
    r /= 2;
    ++e;
  }
  if (e > f.emax) {
    bool toInf = !saturate && (rm == RoundingMode::RHNE || rm == RoundingMode::RHAZ ||
                               (rm == RoundingMode::RU && !neg) || (rm == RoundingMode::RD && neg));
    return sign | (toInf ? f.inf : f.maxFinite);
  }
  if (e < 1 - f.bias) return sign;
  auto mant = static_cast<uint32_t>(r - std::ldexp(1.0L, f.p - 1));
  return sign | (static_cast<uint32_t>(e + f.bias) << (f.p - 1)) | mant;
}

// Value of a bit pattern of the format, with denormals flushed to signed zero (the documented input rule).
inline long double refValue(uint32_t bits, const RefFormat& f) {
  const int mantBits = f.p - 1;
  const bool neg = bits & f.sign;
  const uint32_t e = (bits & f.inf) >> mantBits, m = bits & ((1u << mantBits) - 1u);
  const uint32_t maxE = f.inf >> mantBits;
  if (e == maxE) return m ? std::numeric_limits<long double>::quiet_NaN() : (neg ? -1.0L : 1.0L) * INFINITY;
  if (e == 0) return neg ? -0.0L : 0.0L;
  long double v = std::ldexp(static_cast<long double>((1u << mantBits) | m), static_cast<int>(e) - f.bias - mantBits);
  return neg ? -v : v;
}

}  // namespace isa_test
