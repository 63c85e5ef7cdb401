#include "render/markdown_table.h"

#include <algorithm>

namespace ampbench::reports::detail {
namespace {

std::string row_text(const std::vector<std::string>& cells, std::size_t columns) {
  std::string out = "|";
  for (std::size_t i = 0; i < columns; ++i) out += " " + (i < cells.size() ? markdown_cell(cells[i]) : "") + " |";
  return out + "\n";
}

}  // namespace

std::string markdown_cell(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n' || c == '\r') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string markdown_table(const Table& table) {
  std::string out = row_text(table.header, table.header.size()) + "|";
  for (std::size_t i = 0; i < table.header.size(); ++i) out += " --- |";
  out += "\n";
  for (const auto& row : table.rows) out += row_text(row.cells, std::max(table.header.size(), row.cells.size()));
  return out;
}

std::string markdown_list(std::string_view lines) {
  std::string out;
  std::size_t start = 0;
  while (start < lines.size()) {
    const std::size_t end = std::min(lines.find('\n', start), lines.size());
    if (end > start) out += "- " + std::string(lines.substr(start, end - start)) + "\n";
    start = end + 1;
  }
  return out;
}

}  // namespace ampbench::reports::detail
