// A table (table_data.h) as columns of text aligned for a terminal: two spaces between columns, no
// trailing spaces; a spanning row's rest runs to the end of its line. A table wider than the terminal wraps its widest
// cells at spaces, headers first, so that it fits kTerminalWidth columns where its words allow.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "render/table_data.h"

namespace ampbench::reports::detail {

inline constexpr std::size_t kTerminalWidth = 160;

// The table in aligned columns; cells past the header's columns are left out.
[[nodiscard]] std::string text_table(const Table& table, std::size_t max_width = kTerminalWidth);

// The words of a cell that wrapping keeps whole: split at spaces outside brackets and parentheses,
// but never inside a figure: "1.250 ms [1.241, 1.259]" is one word, "within the noise floor (0.5% vs
// floor 1%)" five.
[[nodiscard]] std::vector<std::string> unbreakable_words(const std::string& cell);
// The cell's words on lines of at most `width` columns (a longer word gets a line of its own).
[[nodiscard]] std::vector<std::string> wrapped(const std::string& cell, std::size_t width);

}  // namespace ampbench::reports::detail
