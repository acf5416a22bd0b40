// Lookup tables of the special functions, in the vendor's convention (docs/isa.md, "Lookup tables").
//
// A function is approximated on each interval of its domain by a polynomial c0 + c1*v + c2*v^2 of the
// offset v of x from the interval's first value. lut_entry gives the interval's number ("entry"), lut_start
// its first value, and lookup one coefficient of an entry of a table: a built-in table (fid = the vendor's
// e_function_id number of that table) or a user table in global memory (SW_LUT_PTR, after set_lut).
//
// How lut_entry numbers intervals (shift: the mantissa bits below the interval, so m = 23 - shift are kept):
// - default: the top m mantissa bits (sign and exponent are the kernel's business: it normalizes x first);
// - sqrt_rsqrt: (the exponent's lowest bit << m) | the top m mantissa bits ([1,2) then [2,4), 2^(m+1)
//   entries for x normalized to [1,4));
// - sin_cos: |x| as a fixed-point fraction: floor(|x| * 2^m), at most 2^m - 1 (for |x| in [0, 1));
// - tanh: |x| < 2^-7 in 2^m equal intervals (entries 0 .. 2^m-1), then each binade 2^e <= |x| < 2^(e+1)
//   for e = -7 .. 3 by its top m mantissa bits ((e + 8) << m | bits), and |x| >= 16 one entry, 12 << m.
// lut_start is the first value of that interval: x with its low `shift` mantissa bits cleared (default,
// sqrt_rsqrt; denormals are zeros), and for sin_cos and tanh a non-negative value (|x| rounded down to the
// interval, or |x| itself past the last one).
#pragma once

#include <cstdint>

#include "tpc/isa/isa.h"

namespace tpc::sem {

uint32_t lutEntry(uint32_t xBits, unsigned shift, isa::LutVariant variant);
uint32_t lutStart(uint32_t xBits, unsigned shift, isa::LutVariant variant);

// Coefficient `coef` (isa::LutCoef: Value and C0 are both c0) of entry `entry` of built-in table `fid`, as
// f32 bits; 0 past the table's end.
uint32_t lutCoefficient(uint32_t fid, uint32_t entry, isa::LutCoef coef);

// Entries of built-in table `fid`, and the shift its intervals were made for (the `shift` a kernel must
// give lut_entry), and the variant; for docs and tests.
struct LutTableShape {
  uint32_t entries;
  unsigned shift;
  isa::LutVariant variant;
};
LutTableShape lutTableShape(uint32_t fid);

// Byte offset of coefficient `coef` of entry `entry` in a user table (SW_LUT_PTR) from the LUT pointer:
// table fid >> 2 starts at (fid >> 2) * 256; a one-value table (Value) holds entry e at 4e, a three-
// coefficient table holds c0, c1, c2 of entry e at (e / 10) * 128 + (e % 10) * 12 (ten entries per 128
// bytes, as the vendor's user tables are laid out).
uint64_t userLutOffset(uint32_t fid, uint32_t entry, isa::LutCoef coef);

}  // namespace tpc::sem
