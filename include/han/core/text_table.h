#pragma once
// Plain-text tables for the terminal: columns padded by display width, so that cells
// with multi-byte UTF-8 characters (Δ, ±, —) line up like ASCII ones.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace han {

// Display width of UTF-8 text, counted in code points (continuation bytes do not count).
std::size_t display_width(std::string_view utf8);

// The rows as lines, each cell left-aligned and padded to its column's widest cell,
// columns separated by `gap`; the last cell of a row is not padded (no trailing blanks).
std::string text_table(const std::vector<std::vector<std::string>>& rows, std::string_view gap = "  ");

}  // namespace han
