// NumPy broadcasting of an input to the output's coordinates: bit d of `bits` says that the input has size
// 1 in dimension d where the output does not, so it is read at coordinate 0 there. The input's coordinate
// is the output's and-ed with a mask made once (all ones where the input follows the output, zero where
// it is broadcast): one index-register operation per row, and no predicates, of which the core has few.
#pragma once

#define BROADCAST_BIT_MASK(bits, d) ((((bits) >> (d)) & 1) - 1)
#define BROADCAST_MASK(bits)                                                                       \
    ((int5){BROADCAST_BIT_MASK(bits, 0), BROADCAST_BIT_MASK(bits, 1), BROADCAST_BIT_MASK(bits, 2), \
            BROADCAST_BIT_MASK(bits, 3), BROADCAST_BIT_MASK(bits, 4)})
