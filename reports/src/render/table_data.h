// The one table shape every renderer draws: a header and rows of text. The row builders
// (summary_rows.h, breakdown_rows.h, ...) fill it once; text_table.h, markdown_table.h and
// html_page.h each draw it in their format.
#pragma once

#include <string>
#include <vector>

namespace ampbench::reports::detail {

struct TableRow {
  std::vector<std::string> cells;
  // Text that runs from after `cells` to the end of the row (a failed cell's error, say); in the
  // terminal it does not widen the columns it covers.
  std::string rest;
  bool spanning = false;
};

struct Table {
  std::vector<std::string> header;
  std::vector<TableRow> rows;

  Table() = default;
  explicit Table(std::vector<std::string> columns) : header(std::move(columns)) {}

  void add_row(std::vector<std::string> cells) { rows.push_back({std::move(cells), {}, false}); }
  void add_spanning_row(std::vector<std::string> leading_cells, std::string rest) {
    rows.push_back({std::move(leading_cells), std::move(rest), true});
  }
  [[nodiscard]] bool empty() const { return rows.empty(); }
};

}  // namespace ampbench::reports::detail
