// Lookup tables of the special-function helpers: piecewise-linear tables over intervals of the f32 line.
//
// An interval is fixed by a value's sign, exponent and top `shift` mantissa bits: lut_entry gives its
// number, lut_start its first value (the value with the lower mantissa bits cleared). lookup gives the
// function at the interval start and lookup_slope its derivative there, each computed in double and rounded
// to f32 (round half to even, flushed like every result). So f(x) ~ lookup + lookup_slope * (x - start).
#pragma once

#include <cstdint>

#include "tpc/isa/isa.h"

namespace tpc::sem {

// Interval number: sign (bit 31-0 of the result's top), biased exponent and top `shift` mantissa bits:
// (sign << (8 + shift)) | (exponent << shift) | mantissa >> (23 - shift). Denormals count as zero.
uint32_t lutEntry(uint32_t xBits, unsigned shift);
// The first f32 of the interval of x (x with its lower 23 - shift mantissa bits cleared).
uint32_t lutStart(uint32_t xBits, unsigned shift);
// f and f' at the start of interval `entry` (as lutEntry numbers them), as f32 bits.
uint32_t lutValue(isa::LutFunction f, uint32_t entry, unsigned shift);
uint32_t lutSlope(isa::LutFunction f, uint32_t entry, unsigned shift);

}  // namespace tpc::sem
