// GitHub-flavoured Markdown pieces: a table whose cells cannot break the row (pipes escaped,
// newlines flattened), and a bullet list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ampbench::reports::detail {

// Text safe inside a table cell: "|" escaped, line breaks become spaces.
[[nodiscard]] std::string markdown_cell(std::string_view text);

class MarkdownTable {
 public:
  explicit MarkdownTable(std::vector<std::string> header) : header_(std::move(header)) {}
  // Missing trailing cells are left empty.
  void add_row(std::vector<std::string> cells) { rows_.push_back(std::move(cells)); }
  [[nodiscard]] std::string render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// One "- item" line per line of text.
[[nodiscard]] std::string markdown_list(std::string_view lines);

}  // namespace ampbench::reports::detail
