// GitHub-flavoured Markdown pieces: a table whose cells cannot break the row (pipes escaped,
// newlines flattened), and a bullet list.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "render/table_data.h"

namespace ampbench::reports::detail {

// Text safe inside a table cell: "|" escaped, line breaks become spaces.
[[nodiscard]] std::string markdown_cell(std::string_view text);

// The table with a "---" rule under its header; a row with more cells than the header keeps
// them, missing trailing cells are left empty, and a spanning row's rest is left out.
[[nodiscard]] std::string markdown_table(const Table& table);

// One "- item" line per line of text.
[[nodiscard]] std::string markdown_list(std::string_view lines);

}  // namespace ampbench::reports::detail
