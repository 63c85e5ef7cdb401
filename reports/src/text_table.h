// Columns of text aligned for a terminal: two spaces between columns, no trailing spaces. A row
// may end in one cell that spans the rest of the line (a failed cell's error, say) and does not
// widen the columns it covers.
#pragma once

#include <string>
#include <vector>

namespace ampbench::reports::detail {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header);

  void add_row(std::vector<std::string> cells);
  // The first cells aligned like any row's, then `rest` to the end of the line.
  void add_spanning_row(std::vector<std::string> leading_cells, std::string rest);

  [[nodiscard]] std::string render() const;

 private:
  struct Row {
    std::vector<std::string> cells;
    std::string rest;
    bool spanning = false;
  };
  std::vector<std::string> header_;
  std::vector<Row> rows_;
};

}  // namespace ampbench::reports::detail
