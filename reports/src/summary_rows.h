// The one-line summary of each cell that the terminal table and the Markdown report share: the
// same columns, the same wording, so a CI summary reads like the terminal.
#pragma once

#include <string>
#include <vector>

#include "ampbench/reports/report.h"

namespace ampbench::reports::detail {

struct SummaryRow {
  bool failed = false;
  std::string error;               // the failed cell's error, whole
  std::vector<std::string> cells;  // one per summary_header() column; only the first 3 when failed
};

// workload, mode, device, step time (95% CI), speedup vs fp32, peak memory, memory vs fp32,
// divergence vs fp32, skipped steps.
[[nodiscard]] std::vector<std::string> summary_header();
[[nodiscard]] SummaryRow summary_row(const CellResult& cell);
// "1 of 6 cells failed." or empty when none did.
[[nodiscard]] std::string failed_cells_note(const Report& report);

}  // namespace ampbench::reports::detail
