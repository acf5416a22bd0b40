// Little-endian byte buffers used by the writer and a bounds-checked cursor used by the reader.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "tpc/object/kernel_object.h"

namespace tpc::obj::detail {

// The ELF structs are copied to and from the file with memcpy, which is only the file's
// little-endian layout on a little-endian host.
static_assert(std::endian::native == std::endian::little, "libtpcobject assumes a little-endian host");

class ByteWriter {
 public:
  std::vector<uint8_t>& bytes() { return buf_; }
  size_t size() const { return buf_.size(); }

  void u8(uint8_t v) { buf_.push_back(v); }
  void u16(uint16_t v) { put(v); }
  void u32(uint32_t v) { put(v); }
  void i32(int32_t v) { put(static_cast<uint32_t>(v)); }
  void raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    buf_.insert(buf_.end(), b, b + n);
  }
  void raw(std::span<const uint8_t> s) { buf_.insert(buf_.end(), s.begin(), s.end()); }
  // Length-prefixed string: u32 byte count, then the bytes (no terminator).
  void str(std::string_view s) {
    u32(static_cast<uint32_t>(s.size()));
    raw(s.data(), s.size());
  }
  void padTo(size_t align) {
    while (buf_.size() % align) buf_.push_back(0);
  }

 private:
  template <class T>
  void put(T v) {
    for (size_t i = 0; i < sizeof(T); ++i) buf_.push_back(static_cast<uint8_t>(v >> (8 * i)));
  }
  std::vector<uint8_t> buf_;
};

// Reads one TPC section's payload. Every read is checked against the remaining bytes; a failure throws
// ObjectError("<file>", "section '<sect>': <what> ...").
class ByteReader {
 public:
  ByteReader(std::span<const uint8_t> data, const std::string& file, std::string_view sect)
      : data_(data), file_(file), sect_(sect) {}

  size_t pos() const { return pos_; }
  size_t remaining() const { return data_.size() - pos_; }

  [[noreturn]] void fail(const std::string& what) const {
    throw ObjectError(file_, fmt::format("section '{}': {}", sect_, what));
  }

  void need(size_t n, std::string_view what) const {
    if (n > remaining())
      fail(fmt::format("truncated: {} needs {} bytes at offset {}, only {} remain", what, n, pos_,
                       remaining()));
  }
  uint8_t u8(std::string_view what) { return static_cast<uint8_t>(get(1, what)); }
  uint16_t u16(std::string_view what) { return static_cast<uint16_t>(get(2, what)); }
  uint32_t u32(std::string_view what) { return static_cast<uint32_t>(get(4, what)); }
  int32_t i32(std::string_view what) { return static_cast<int32_t>(u32(what)); }
  std::string str(std::string_view what) {
    uint32_t n = u32(what);
    if (n > remaining())
      fail(fmt::format("truncated: {} of length {} at offset {} extends past the section end ({} bytes "
                       "remain)",
                       what, n, pos_, remaining()));
    std::string s(reinterpret_cast<const char*>(data_.data() + pos_), n);
    if (s.find('\0') != std::string::npos)
      fail(fmt::format("{} at offset {} contains a NUL byte", what, pos_ - 4));
    pos_ += n;
    return s;
  }
  // A count of records, each at least minRecordBytes long, must fit in the remaining bytes; this keeps
  // a garbage count from causing a huge allocation.
  uint32_t count(std::string_view what, size_t minRecordBytes) {
    size_t at = pos_;
    uint32_t n = u32(what);
    if (static_cast<uint64_t>(n) * minRecordBytes > remaining())
      fail(fmt::format("{} {} at offset {} is larger than the remaining {} bytes allow", what, n, at,
                       remaining()));
    return n;
  }
  void magic(const char (&m)[4]) {
    need(4, "magic");
    if (std::memcmp(data_.data() + pos_, m, 4) != 0)
      fail(fmt::format("bad magic (expected '{}')", std::string_view(m, 4)));
    pos_ += 4;
  }
  // Every metadata section opens with magic, a version this library must read exactly, and zero flags.
  void sectionHeader(const char (&m)[4], uint16_t expectedVersion) {
    magic(m);
    uint16_t version = u16("version");
    if (version != expectedVersion)
      fail(fmt::format("unsupported metadata version {} (this library reads version {})", version,
                       expectedVersion));
    if (uint16_t flags = u16("flags"); flags != 0) fail(fmt::format("reserved flags {:#x} are set", flags));
  }
  void expectEnd() const {
    if (remaining() != 0) fail(fmt::format("{} unexpected trailing bytes at offset {}", remaining(), pos_));
  }

 private:
  uint64_t get(size_t n, std::string_view what) {
    need(n, what);
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= static_cast<uint64_t>(data_[pos_ + i]) << (8 * i);
    pos_ += n;
    return v;
  }

  std::span<const uint8_t> data_;
  const std::string& file_;
  std::string_view sect_;
  size_t pos_ = 0;
};

// Checks shared by the writer (before writing) and the reader (after parsing), so that whatever is
// written reads back. Throws ObjectError(file, ...).
void validateObject(const KernelObject& obj, const std::string& file);

}  // namespace tpc::obj::detail
