// Small text helpers shared by the parsers of the SDK (assembly, command-line values).
#pragma once

#include <string_view>
#include <vector>

namespace tpc {

// Without leading and trailing spaces, tabs (and a trailing carriage return).
std::string_view trimSpaces(std::string_view s);
// The pieces between separators, empty pieces included ("a;;b" -> "a", "", "b").
std::vector<std::string_view> splitOn(std::string_view s, char separator);
// The runs of characters between spaces and tabs, empty runs left out.
std::vector<std::string_view> splitWords(std::string_view s);

}  // namespace tpc
