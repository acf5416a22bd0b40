// Small text helpers shared by the parsers of the SDK (assembly, command-line values).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tpc {

// Without leading and trailing spaces, tabs (and a trailing carriage return).
std::string_view trimSpaces(std::string_view s);
// The pieces between separators, empty pieces included ("a;;b" -> "a", "", "b").
std::vector<std::string_view> splitOn(std::string_view s, char separator);
// The runs of characters between spaces and tabs, empty runs left out.
std::vector<std::string_view> splitWords(std::string_view s);

// The text with every byte outside printable ASCII (but a newline) written as \xHH: safe to print whatever
// the bytes were.
std::string escapeNonPrintable(std::string_view text);

// A C string literal with quotes and escapes (\n \t \\ \" and \xHH for other control bytes).
std::string quoteCString(std::string_view text);
// The text of a C string literal written by quoteCString (or by hand with the same escapes).
std::optional<std::string> unquoteCString(std::string_view literal, std::string* error);

}  // namespace tpc
