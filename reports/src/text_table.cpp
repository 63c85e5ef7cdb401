#include "text_table.h"

#include <algorithm>

#include "format.h"

namespace ampbench::reports::detail {
namespace {

void append_cells(std::string& out, const std::vector<std::string>& cells, const std::vector<std::size_t>& widths) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    out += cells[i];
    if (i + 1 < cells.size()) out.append(widths[i] - display_width(cells[i]) + 2, ' ');
  }
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header) : header_(std::move(header)) {}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back({std::move(cells), {}, false});
}

void TextTable::add_spanning_row(std::vector<std::string> leading_cells, std::string rest) {
  rows_.push_back({std::move(leading_cells), std::move(rest), true});
}

std::string TextTable::render() const {
  std::vector<std::size_t> widths(header_.size());
  for (std::size_t i = 0; i < header_.size(); ++i) widths[i] = display_width(header_[i]);
  for (const auto& row : rows_) {
    for (std::size_t i = 0; i < row.cells.size(); ++i) widths[i] = std::max(widths[i], display_width(row.cells[i]));
  }
  std::string out;
  append_cells(out, header_, widths);
  out += "\n";
  for (const auto& row : rows_) {
    append_cells(out, row.cells, widths);
    if (row.spanning) {
      if (!row.cells.empty()) out.append(widths[row.cells.size() - 1] - display_width(row.cells.back()) + 2, ' ');
      out += row.rest;
    }
    out.erase(out.find_last_not_of(' ') + 1);
    out += "\n";
  }
  return out;
}

}  // namespace ampbench::reports::detail
