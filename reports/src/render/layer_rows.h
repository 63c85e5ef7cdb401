// The per-layer range tables of the numerics pass (issue #34), shared by Markdown and HTML: per cell
// with layer diagnostics, its layers in the order that matters (layer_summary.h), and the lines
// that go above the table (what was observed, skipped steps and where they turned non-finite).
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"
#include "render/table_data.h"

namespace ampbench::reports::detail {

// One observed step of one module in the heat map: its scaled gradient's headroom, coloured by level:
// "non-finite" (an output or gradient held inf/NaN), "overflow" (headroom below 0), "low" (below 1),
// "some" (below 4), "ample", or "none" (no gradient reached it).
struct HeatCell {
  std::string text;
  std::string level;
  std::string detail;  // the figures behind it, for a tooltip
};
struct HeatRow {
  std::string module;
  std::vector<HeatCell> steps;
};

struct LayerTable {
  std::string cell;                // CellKey::label()
  std::vector<std::string> lines;  // what the table rests on, then the note, then the bad steps
  Table table;
  std::size_t more_layers = 0;      // rows left out after `row_limit` (see layer_tables)
  std::vector<std::int64_t> steps;  // the observed steps: the heat map's columns
  std::vector<HeatRow> heat;        // every layer, in the rows' order
};

// One table per cell that has layer diagnostics, in the report's order; at most `row_limit` rows
// each (the layers that matter first).
[[nodiscard]] std::vector<LayerTable> layer_tables(const Report& report, std::size_t row_limit);

// What the columns mean, for the page and the Markdown.
[[nodiscard]] std::string layer_table_legend();

}  // namespace ampbench::reports::detail
