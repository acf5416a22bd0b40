// NumPy .npy tensor files: the inputs and outputs of the simulator and the test harness.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tpc/support/dtype.h"
#include "tpc/support/host_tensor.h"

namespace tpc {

// Reads a .npy file (format 1.0, 2.0 or 3.0; little-endian; C order; 0 to 5 dimensions). Accepted descrs:
// <f4 <f2 <i4 <u4 <i2 <u2 |i1 |u1 <i1 <u1. NumPy has no bfloat16, so bf16 data is stored as <u2 and reads
// back as U16; the caller reinterprets it. Throws UserError starting with the file name on any problem.
HostTensor readNpy(const std::string& path);

// The same on bytes already in memory; nameForErrors starts every message.
HostTensor parseNpy(std::span<const uint8_t> bytes, const std::string& nameForErrors);

// The file content exactly as numpy.save writes it: format 1.0, header padded with spaces and '\n' so
// the data starts at a multiple of 64 bytes. bf16 is written as <u2. Throws std::invalid_argument if
// data does not hold numBytes() bytes (a bug in the caller, not a user error).
std::vector<uint8_t> serializeNpy(const HostTensor& tensor);

// serializeNpy, written with writeFileAtomically.
void writeNpy(const std::string& path, const HostTensor& tensor);

// The descr written for a data type: "<f4", "|u1", and "<u2" for bf16.
std::string_view npyDescr(DType dtype);

}  // namespace tpc
