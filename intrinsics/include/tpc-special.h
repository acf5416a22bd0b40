// tpc-special.h: the special-function library of TPC-C (exp, log, sin, tanh, reciprocal, ...), written in
// TPC-C over the intrinsics and included implicitly by tpc-clang. Functions join as their lowering lands.
#ifndef TPC_SPECIAL_H_INCLUDED
#define TPC_SPECIAL_H_INCLUDED
#endif
