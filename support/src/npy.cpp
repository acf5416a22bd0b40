#include "tpc/support/npy.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cstring>
#include <limits>
#include <optional>
#include <stdexcept>

#include "npy_header.h"
#include "tpc/support/atomic_file.h"
#include "tpc/support/error.h"

namespace tpc {

// Tensor data is copied between files and memory without byte swapping.
static_assert(std::endian::native == std::endian::little, "the .npy code assumes a little-endian host");

namespace {

constexpr std::array<uint8_t, 6> kMagic = {0x93, 'N', 'U', 'M', 'P', 'Y'};
constexpr size_t kPreamble = 8;  // magic + major + minor version bytes
constexpr size_t kAlign = 64;    // numpy.save aligns the data for memory mapping
// numpy.save leaves room to rewrite shape[0] in place with up to this many digits (for appending).
constexpr size_t kGrowthAxisMaxDigits = 21;

struct DescrType {
  std::string_view descr;
  DType dtype;
};
// Single-byte types have no byte order; NumPy writes '|' but '<' means the same.
constexpr std::array<DescrType, 10> kReadableDescrs = {{{"<f4", DType::F32},
                                                         {"<f2", DType::F16},
                                                         {"<i4", DType::I32},
                                                         {"<u4", DType::U32},
                                                         {"<i2", DType::I16},
                                                         {"<u2", DType::U16},
                                                         {"|i1", DType::I8},
                                                         {"|u1", DType::U8},
                                                         {"<i1", DType::I8},
                                                         {"<u1", DType::U8}}};
constexpr std::string_view kSupportedList = "<f4 <f2 <i4 <u4 <i2 <u2 |i1 |u1";

DType dtypeFromDescr(const std::string& descr, const std::string& name) {
  for (const auto& d : kReadableDescrs)
    if (d.descr == descr) return d.dtype;
  if (descr.size() > 1 && descr[0] == '>') {
    std::string little = descr;
    little[0] = '<';
    for (const auto& d : kReadableDescrs)
      if (d.descr == little)
        throw UserError(fmt::format("{}: big-endian data type '{}' is not supported (expected little-endian; "
                                    "convert with arr.astype('{}'))",
                                    name, descr, little));
  }
  throw UserError(fmt::format("{}: unsupported data type '{}' (expected one of {})", name, descr, kSupportedList));
}

uint32_t readLittleEndian(std::span<const uint8_t> bytes) {
  uint32_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | bytes[i];
  return v;
}

// Bytes of data the shape needs, or nothing if that does not fit in 64 bits.
std::optional<uint64_t> dataBytes(const std::vector<int64_t>& shape, size_t elementSize) {
  if (std::find(shape.begin(), shape.end(), 0) != shape.end()) return 0;
  uint64_t total = elementSize;
  for (int64_t d : shape) {
    auto dim = static_cast<uint64_t>(d);
    if (total > std::numeric_limits<uint64_t>::max() / dim) return std::nullopt;
    total *= dim;
  }
  return total;
}

}  // namespace

std::string_view npyDescr(DType dtype) {
  switch (dtype) {
    case DType::F32: return "<f4";
    case DType::BF16: return "<u2";
    case DType::F16: return "<f2";
    case DType::I32: return "<i4";
    case DType::U32: return "<u4";
    case DType::I16: return "<i2";
    case DType::U16: return "<u2";
    case DType::I8: return "|i1";
    case DType::U8: return "|u1";
    default: throw std::invalid_argument("npyDescr: invalid DType");
  }
}

HostTensor parseNpy(std::span<const uint8_t> bytes, const std::string& name) {
  // Check the magic on whatever is there first, so that any non-.npy file gets the same clear message.
  if (bytes.empty()) throw UserError(fmt::format("{}: not a .npy file: the file is empty", name));
  size_t magicBytes = std::min(bytes.size(), kMagic.size());
  if (!std::equal(bytes.begin(), bytes.begin() + magicBytes, kMagic.begin()))
    throw UserError(fmt::format("{}: not a .npy file: expected the magic string \\x93NUMPY at byte 0", name));
  if (bytes.size() < kPreamble)
    throw UserError(fmt::format("{}: truncated .npy file: {} bytes, expected at least {}", name, bytes.size(),
                                kPreamble + 2));

  int major = bytes[6], minor = bytes[7];
  if (minor != 0 || major < 1 || major > 3)
    throw UserError(fmt::format("{}: unsupported .npy format version {}.{} at byte 6 (expected 1.0, 2.0 or 3.0)",
                                name, major, minor));
  // 1.0 has a 16-bit header length; 2.0 widened it to 32 bits and 3.0 only changed the text to UTF-8.
  size_t lengthBytes = major == 1 ? 2 : 4;
  size_t headerStart = kPreamble + lengthBytes;
  if (bytes.size() < headerStart)
    throw UserError(fmt::format("{}: truncated .npy file: {} bytes, expected at least {}", name, bytes.size(),
                                headerStart));
  uint64_t headerLength = readLittleEndian(bytes.subspan(kPreamble, lengthBytes));
  if (headerLength > bytes.size() - headerStart)
    throw UserError(fmt::format("{}: bad .npy header: header length {} (at byte {}) goes beyond the end of the "
                                "file ({} bytes)",
                                name, headerLength, kPreamble, bytes.size()));

  auto header = bytes.subspan(headerStart, headerLength);
  std::string_view text(reinterpret_cast<const char*>(header.data()), header.size());
  detail::NpyHeaderFields fields = detail::parseNpyHeaderText(text, headerStart, name);

  if (fields.fortranOrder)
    throw UserError(fmt::format("{}: Fortran-order (column-major) arrays are not supported; expected "
                                "'fortran_order': False (save np.ascontiguousarray(arr) instead)",
                                name));
  DType dtype = dtypeFromDescr(fields.descr, name);
  if (fields.shape.size() > kMaxTensorDims) {
    // Spell out the shape only while it is short enough to read.
    std::string shown = fields.shape.size() <= 16 ? formatShape(fields.shape) + " " : "";
    throw UserError(fmt::format("{}: shape {}has {} dimensions, expected at most {} (the core's tensors are 5-D)",
                                name, shown, fields.shape.size(), kMaxTensorDims));
  }

  size_t dataStart = headerStart + headerLength;
  std::optional<uint64_t> dataSize = dataBytes(fields.shape, dtypeSize(dtype));
  if (!dataSize || *dataSize > std::numeric_limits<uint64_t>::max() - dataStart)
    throw UserError(fmt::format("{}: shape {} is too large", name, formatShape(fields.shape)));
  uint64_t expected = dataStart + *dataSize;
  if (expected != bytes.size()) {
    std::string problem = bytes.size() < expected ? "the data is truncated"
                                                  : fmt::format("{} byte{} of trailing garbage",
                                                                bytes.size() - expected,
                                                                bytes.size() - expected == 1 ? "" : "s");
    throw UserError(fmt::format("{}: file is {} bytes, but its header (descr '{}', shape {}) requires {} bytes "
                                "({} header + {} data): {}",
                                name, bytes.size(), fields.descr, formatShape(fields.shape), expected, dataStart,
                                *dataSize, problem));
  }

  HostTensor t;
  t.dtype = dtype;
  t.shape = std::move(fields.shape);
  t.data.assign(bytes.begin() + static_cast<ptrdiff_t>(dataStart), bytes.end());
  return t;
}

HostTensor readNpy(const std::string& path) { return parseNpy(readFileBytes(path), path); }

std::vector<uint8_t> serializeNpy(const HostTensor& t) {
  for (int64_t d : t.shape)
    if (d < 0) throw std::invalid_argument("serializeNpy: negative dimension");
  if (t.data.size() != t.numBytes())
    throw std::invalid_argument(fmt::format("serializeNpy: {} data bytes for a {} tensor of shape {}",
                                            t.data.size(), dtypeName(t.dtype), formatShape(t.shape)));

  // The dict exactly as numpy.save writes it: keys sorted, repr() values, ", " after each entry.
  std::string header = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}", npyDescr(t.dtype),
                                   formatShape(t.shape));
  if (!t.shape.empty()) {
    size_t digits = std::to_string(t.shape[0]).size();
    header.append(kGrowthAxisMaxDigits - std::min(digits, kGrowthAxisMaxDigits), ' ');
  }
  // Spaces then '\n' up to the alignment; like NumPy, a full block of padding when already aligned.
  size_t prefix = kPreamble + 2;
  size_t padding = kAlign - (prefix + header.size() + 1) % kAlign;
  header.append(padding, ' ');
  header.push_back('\n');
  if (header.size() > 0xffff) throw std::logic_error("serializeNpy: header too long for format 1.0");

  std::vector<uint8_t> out(prefix + header.size() + t.data.size());
  auto it = std::copy(kMagic.begin(), kMagic.end(), out.begin());
  *it++ = 1;  // format 1.0: enough for any header with at most 5 dimensions
  *it++ = 0;
  *it++ = static_cast<uint8_t>(header.size() & 0xff);
  *it++ = static_cast<uint8_t>(header.size() >> 8);
  it = std::copy(header.begin(), header.end(), it);
  std::copy(t.data.begin(), t.data.end(), it);
  return out;
}

void writeNpy(const std::string& path, const HostTensor& t) { writeFileAtomically(path, serializeNpy(t)); }

}  // namespace tpc
