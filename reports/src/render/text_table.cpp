#include "render/text_table.h"

#include <algorithm>
#include <cctype>
#include <numeric>

#include "render/format.h"

namespace ampbench::reports::detail {
namespace {

std::size_t longest_word(const std::string& cell) {
  std::size_t longest = 0;
  for (const auto& word : unbreakable_words(cell)) longest = std::max(longest, display_width(word));
  return longest;
}

std::size_t total_width(const std::vector<std::size_t>& widths) {
  return std::accumulate(widths.begin(), widths.end(), std::size_t{0}) + 2 * (widths.size() - 1);
}

// Narrows the widest column that is above its floor by one column at a time until the table fits.
void narrow_to(std::vector<std::size_t>& widths, const std::vector<std::size_t>& floors, std::size_t max_width) {
  while (total_width(widths) > max_width) {
    std::size_t widest = widths.size();
    for (std::size_t i = 0; i < widths.size(); ++i) {
      if (widths[i] > floors[i] && (widest == widths.size() || widths[i] > widths[widest])) widest = i;
    }
    if (widest == widths.size()) return;
    --widths[widest];
  }
}

// One row's cells as lines: each wrapped to its column, padded, two spaces apart.
std::vector<std::string> row_lines(const std::vector<std::string>& cells, const std::vector<std::size_t>& widths) {
  std::vector<std::vector<std::string>> wrapped_cells;
  std::size_t height = 1;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    wrapped_cells.push_back(wrapped(cells[i], widths[i]));
    height = std::max(height, wrapped_cells.back().size());
  }
  std::vector<std::string> lines(height);
  for (std::size_t i = 0; i < cells.size(); ++i) {
    for (std::size_t line = 0; line < height; ++line) {
      const std::string part = line < wrapped_cells[i].size() ? wrapped_cells[i][line] : "";
      lines[line] += part;
      lines[line].append(widths[i] - std::min(widths[i], display_width(part)) + 2, ' ');
    }
  }
  return lines;
}

void append_line(std::string& out, std::string line) {
  line.erase(line.find_last_not_of(' ') + 1);
  out += line + "\n";
}

// The natural widths, narrowed in three passes until the table fits: the long sentences of data
// cells wrap first, then the headers, then any cell down to its longest word.
std::vector<std::size_t> column_widths(const Table& table, std::size_t max_width) {
  const auto columns = table.header.size();
  std::vector<std::size_t> header(columns), header_word(columns), data(columns), data_word(columns);
  for (std::size_t i = 0; i < columns; ++i) {
    header[i] = display_width(table.header[i]);
    header_word[i] = longest_word(table.header[i]);
  }
  for (const auto& row : table.rows) {
    for (std::size_t i = 0; i < std::min(row.cells.size(), columns); ++i) {
      data[i] = std::max(data[i], display_width(row.cells[i]));
      data_word[i] = std::max(data_word[i], longest_word(row.cells[i]));
    }
  }
  std::vector<std::size_t> widths(columns), sentences(columns), headers(columns), words(columns);
  for (std::size_t i = 0; i < columns; ++i) {
    widths[i] = std::max(header[i], data[i]);
    sentences[i] = std::max(header[i], data_word[i]);
    headers[i] = std::max(header_word[i], data[i]);
    words[i] = std::max(header_word[i], data_word[i]);
  }
  for (const auto* floors : {&sentences, &headers, &words}) narrow_to(widths, *floors, max_width);
  return widths;
}

}  // namespace

std::vector<std::string> unbreakable_words(const std::string& cell) {
  std::vector<std::string> words(1);
  int depth = 0;
  for (std::size_t i = 0; i < cell.size(); ++i) {
    const char c = cell[i];
    if (c == '[' || c == '(') ++depth;
    if (c == ']' || c == ')') depth = std::max(0, depth - 1);
    // A figure keeps its unit and its interval: no break after a digit or before a '['.
    const bool glued =
        (i > 0 && std::isdigit(static_cast<unsigned char>(cell[i - 1]))) || (i + 1 < cell.size() && cell[i + 1] == '[');
    if (c == ' ' && depth == 0 && !glued) {
      if (!words.back().empty()) words.emplace_back();
      continue;
    }
    words.back() += c;
  }
  if (words.back().empty()) words.pop_back();
  return words;
}

std::vector<std::string> wrapped(const std::string& cell, std::size_t width) {
  if (display_width(cell) <= width) return {cell};
  std::vector<std::string> lines;
  for (const auto& word : unbreakable_words(cell)) {
    if (!lines.empty() && display_width(lines.back()) + 1 + display_width(word) <= width) {
      lines.back() += " " + word;
    } else {
      lines.push_back(word);
    }
  }
  if (lines.empty()) lines.emplace_back();
  return lines;
}

std::string text_table(const Table& table, std::size_t max_width) {
  const auto widths = column_widths(table, max_width);
  std::string out;
  for (auto& line : row_lines(table.header, widths)) append_line(out, std::move(line));
  for (const auto& row : table.rows) {
    auto cells = row.cells;
    if (!row.spanning) cells.resize(table.header.size());
    auto lines = row_lines(cells, widths);
    if (row.spanning) lines.front() += row.rest;
    for (auto& line : lines) append_line(out, std::move(line));
  }
  return out;
}

}  // namespace ampbench::reports::detail
