// The Debug Adapter Protocol's base protocol: "Content-Length: N\r\n\r\n" followed by N bytes of JSON.
// FrameParser splits a byte stream into message bodies and rejects malformed framing; it never allocates
// more than kMaxMessageBytes for one message, so a huge or lying Content-Length cannot exhaust memory.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>

namespace tpc::dbg {

inline constexpr size_t kMaxMessageBytes = 16u << 20;  // 16 MiB: far above any real request
inline constexpr size_t kMaxHeaderBytes = 4096;

class FrameParser {
 public:
  enum class Result { NeedMore, Message, Error };
  void push(const char* data, size_t n) { buffer_.append(data, n); }
  // Next complete message body into *body; on Error, *error says what was wrong and the stream is
  // unusable (the peer and we no longer agree where messages start).
  Result next(std::string* body, std::string* error);

 private:
  std::string buffer_;
};

// Reads framed messages from a file descriptor and writes them to another; send() may be called from
// several threads.
class FdTransport {
 public:
  FdTransport(int in, int out) : in_(in), out_(out) {}
  // The next body; nullopt at end of input or on a framing error (then *error is set).
  std::optional<std::string> read(std::string* error);
  void send(const std::string& body);

 private:
  int in_, out_;
  FrameParser parser_;
  std::mutex writeMutex_;
};

}  // namespace tpc::dbg
