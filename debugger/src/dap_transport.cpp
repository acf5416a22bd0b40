#include "tpc/dbg/dap_transport.h"

#include <cerrno>
#include <cstdlib>
#include <unistd.h>

#include <fmt/format.h>

namespace tpc::dbg {

FrameParser::Result FrameParser::next(std::string* body, std::string* error) {
  size_t end = buffer_.find("\r\n\r\n");
  if (end == std::string::npos) {
    if (buffer_.size() > kMaxHeaderBytes) {
      *error = fmt::format("message header longer than {} bytes without an end", kMaxHeaderBytes);
      return Result::Error;
    }
    return Result::NeedMore;
  }
  if (end > kMaxHeaderBytes) {
    *error = fmt::format("message header longer than {} bytes", kMaxHeaderBytes);
    return Result::Error;
  }
  // Header fields, one per line; Content-Length is the one that matters (Content-Type is allowed).
  std::optional<size_t> length;
  for (size_t pos = 0; pos < end;) {
    size_t eol = buffer_.find("\r\n", pos);
    if (eol == std::string::npos || eol > end) eol = end;
    std::string field = buffer_.substr(pos, eol - pos);
    pos = eol + 2;
    size_t colon = field.find(':');
    if (colon == std::string::npos) {
      *error = "malformed header field (no ':')";
      return Result::Error;
    }
    std::string name = field.substr(0, colon), value = field.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.erase(value.begin());
    while (!value.empty() && value.back() == ' ') value.pop_back();
    if (name == "Content-Length") {
      if (value.empty() || value.size() > 12 || value.find_first_not_of("0123456789") != std::string::npos) {
        *error = "Content-Length is not a decimal number";
        return Result::Error;
      }
      size_t n = std::strtoull(value.c_str(), nullptr, 10);
      if (n > kMaxMessageBytes) {
        *error = fmt::format("Content-Length {} exceeds the limit of {} bytes", n, kMaxMessageBytes);
        return Result::Error;
      }
      length = n;
    }
  }
  if (!length) {
    *error = "message header without Content-Length";
    return Result::Error;
  }
  if (buffer_.size() < end + 4 + *length) return Result::NeedMore;
  *body = buffer_.substr(end + 4, *length);
  buffer_.erase(0, end + 4 + *length);
  return Result::Message;
}

std::optional<std::string> FdTransport::read(std::string* error) {
  std::string body;
  for (;;) {
    switch (parser_.next(&body, error)) {
      case FrameParser::Result::Message: return body;
      case FrameParser::Result::Error: return std::nullopt;
      case FrameParser::Result::NeedMore: break;
    }
    char chunk[65536];
    ssize_t n = ::read(in_, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      error->clear();
      return std::nullopt;
    }
    parser_.push(chunk, static_cast<size_t>(n));
  }
}

void FdTransport::send(const std::string& body) {
  std::string msg = fmt::format("Content-Length: {}\r\n\r\n", body.size()) + body;
  std::lock_guard<std::mutex> lock(writeMutex_);
  size_t done = 0;
  while (done < msg.size()) {
    ssize_t n = ::write(out_, msg.data() + done, msg.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the client went away; the reader sees end of input next
    done += static_cast<size_t>(n);
  }
}

}  // namespace tpc::dbg
