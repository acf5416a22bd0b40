#include "npy_header.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>

#include "tpc/support/error.h"

namespace tpc::detail {

namespace {

// A recursive-descent parser for the small subset of Python literals that NumPy writes (and, through
// ast.literal_eval, accepts): strings, True/False and tuples of integers inside one dict.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, size_t textOffset, const std::string& name)
      : s_(text), base_(textOffset), name_(name) {}

  NpyHeaderFields parse() {
    NpyHeaderFields out;
    bool haveDescr = false, haveOrder = false, haveShape = false;

    skipSpace();
    expect('{', "'{' at the start of the header");
    for (;;) {
      skipSpace();
      if (peek() == '}') break;
      size_t keyPos = pos_;
      if (peek() != '\'' && peek() != '"') fail("a quoted key or '}'");
      std::string key = parseString("a key");
      skipSpace();
      expect(':', fmt::format("':' after key '{}'", key));
      skipSpace();
      if (key == "descr") {
        markOnce(haveDescr, key, keyPos);
        if (peek() == '[') fail("a string for 'descr' (structured dtypes are not supported)");
        if (peek() != '\'' && peek() != '"') fail("a string for 'descr'");
        out.descr = parseString("'descr'");
      } else if (key == "fortran_order") {
        markOnce(haveOrder, key, keyPos);
        out.fortranOrder = parseBool();
      } else if (key == "shape") {
        markOnce(haveShape, key, keyPos);
        out.shape = parseShape();
      } else {
        pos_ = keyPos;
        fail(fmt::format("only the keys 'descr', 'fortran_order' and 'shape', not '{}'", key));
      }
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == '}') break;
      fail("',' or '}' after a value");
    }
    ++pos_;  // the '}'
    skipSpace();
    if (pos_ != s_.size()) fail("only spaces and a newline after the closing '}'");

    // Same order as NumPy writes them, so the first missing one in a file is reported.
    if (!haveDescr) failMissing("descr");
    if (!haveOrder) failMissing("fortran_order");
    if (!haveShape) failMissing("shape");
    return out;
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool atEnd() const { return pos_ >= s_.size(); }

  // Python allows any of these between tokens; NumPy pads with spaces and ends with '\n'.
  void skipSpace() {
    while (!atEnd() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r' ||
                        s_[pos_] == '\f' || s_[pos_] == '\v'))
      ++pos_;
  }

  std::string found() const {
    if (atEnd()) return "the end of the header";
    auto c = static_cast<unsigned char>(s_[pos_]);
    if (c >= 0x20 && c < 0x7f) return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  [[noreturn]] void fail(std::string_view expected) const {
    throw UserError(fmt::format("{}: bad .npy header: expected {} at byte {}, found {}", name_, expected,
                                base_ + pos_, found()));
  }
  [[noreturn]] void failMissing(std::string_view key) const {
    throw UserError(fmt::format("{}: bad .npy header: expected '{}' key", name_, key));
  }

  void markOnce(bool& seen, const std::string& key, size_t keyPos) {
    if (seen) {
      pos_ = keyPos;
      fail(fmt::format("each key once, but '{}' is repeated", key));
    }
    seen = true;
  }

  void expect(char c, std::string_view what) {
    if (peek() != c || atEnd()) fail(what);
    ++pos_;
  }

  // A quoted string without escapes (no valid descr or key needs one).
  std::string parseString(std::string_view what) {
    char quote = s_[pos_++];
    size_t start = pos_;
    while (!atEnd() && s_[pos_] != quote) {
      if (s_[pos_] == '\\') fail(fmt::format("{} without escape sequences", what));
      if (s_[pos_] == '\n') fail(fmt::format("the closing quote of {}", what));
      ++pos_;
    }
    if (atEnd()) fail(fmt::format("the closing quote of {}", what));
    std::string value(s_.substr(start, pos_ - start));
    ++pos_;
    return value;
  }

  bool parseBool() {
    size_t start = pos_;
    while (!atEnd() && (std::isalnum(static_cast<unsigned char>(s_[pos_])) || s_[pos_] == '_')) ++pos_;
    std::string_view word = s_.substr(start, pos_ - start);
    if (word == "True") return true;
    if (word == "False") return false;
    pos_ = start;
    fail("True or False for 'fortran_order'");
  }

  // A non-negative integer, optionally signed (literal_eval accepts "+3" and "-0"), with an optional
  // 'L' as written by NumPy under Python 2.
  int64_t parseDim() {
    size_t start = pos_;
    bool negative = false;
    if (peek() == '+' || peek() == '-') negative = s_[pos_++] == '-';
    if (!std::isdigit(static_cast<unsigned char>(peek()))) {
      pos_ = start;
      fail("an integer dimension");
    }
    int64_t value = 0;
    while (std::isdigit(static_cast<unsigned char>(peek()))) {
      int digit = s_[pos_] - '0';
      if (value > (std::numeric_limits<int64_t>::max() - digit) / 10) {
        pos_ = start;
        fail("a dimension below 2^63");
      }
      value = value * 10 + digit;
      ++pos_;
    }
    if (peek() == 'L' || peek() == 'l') ++pos_;
    if (negative && value != 0) {
      pos_ = start;
      fail("a non-negative dimension");
    }
    return value;
  }

  // (), (3,), (2, 3) or (2, 3,). "(3)" is the integer 3 in Python, not a tuple, and NumPy rejects it.
  std::vector<int64_t> parseShape() {
    expect('(', "a tuple for 'shape'");
    std::vector<int64_t> shape;
    skipSpace();
    if (peek() == ')') {
      ++pos_;
      return shape;
    }
    for (;;) {
      skipSpace();
      shape.push_back(parseDim());
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        skipSpace();
        if (peek() == ')') break;
        continue;
      }
      if (peek() == ')') {
        if (shape.size() == 1) fail("',' after the only dimension (a 1-d shape is written (n,))");
        break;
      }
      fail("',' or ')' in 'shape'");
    }
    ++pos_;  // the ')'
    return shape;
  }

  std::string_view s_;
  size_t pos_ = 0;
  size_t base_;
  const std::string& name_;
};

}  // namespace

NpyHeaderFields parseNpyHeaderText(std::string_view text, size_t textOffset, const std::string& name) {
  return HeaderParser(text, textOffset, name).parse();
}

}  // namespace tpc::detail
