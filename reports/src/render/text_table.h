// Columns of text aligned for a terminal: two spaces between columns, no trailing spaces. A row
// may end in one cell that spans the rest of the line (a failed cell's error, say) and does not
// widen the columns it covers. A table wider than the terminal wraps its widest cells at spaces,
// headers first, so that it fits kTerminalWidth columns where its words allow.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ampbench::reports::detail {

inline constexpr std::size_t kTerminalWidth = 160;

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);

  void add_row(std::vector<std::string> cells);
  // The first cells aligned like any row's, then `rest` to the end of the line.
  void add_spanning_row(std::vector<std::string> leading_cells, std::string rest);

  [[nodiscard]] std::string render(std::size_t max_width = kTerminalWidth) const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::string rest;
    bool spanning = false;
  };
  [[nodiscard]] std::vector<std::size_t> column_widths(std::size_t max_width) const;

  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

// The words of a cell that wrapping keeps whole: split at spaces outside brackets and parentheses,
// but never inside a figure: "1.250 ms [1.241, 1.259]" is one word, "within the noise floor (0.5% vs
// floor 1%)" five.
[[nodiscard]] std::vector<std::string> unbreakable_words(const std::string& cell);
// The cell's words on lines of at most `width` columns (a longer word gets a line of its own).
[[nodiscard]] std::vector<std::string> wrapped(const std::string& cell, std::size_t width);

}  // namespace ampbench::reports::detail
