// The per-layer range tables of the numerics pass (issue #34), shared by Markdown and HTML: per cell
// with layer diagnostics, its layers in the order that matters (layer_summary.h), and the lines
// that go above the table (what was observed, skipped steps and where they turned non-finite).
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

struct LayerTable {
  std::string cell;                // CellKey::label()
  std::vector<std::string> lines;  // what the table rests on, then the note, then the bad steps
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
  std::size_t more_layers = 0;  // rows left out after `row_limit` (see layer_tables)
};

// One table per cell that has layer diagnostics, in the report's order; at most `row_limit` rows
// each (the layers that matter first).
[[nodiscard]] std::vector<LayerTable> layer_tables(const Report& report, std::size_t row_limit);

// What the columns mean, for the page and the Markdown.
[[nodiscard]] std::string layer_table_legend();

}  // namespace ampbench::reports::detail
