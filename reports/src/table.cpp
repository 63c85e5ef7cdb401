#include "ampbench/reports/table.h"

#include "ampbench/reports/explain.h"
#include "format.h"
#include "summary_rows.h"
#include "text_table.h"

namespace ampbench::reports {

std::string render_table(const Report& report) {
  detail::TextTable table(detail::summary_header());
  for (const auto& cell : report.cells) {
    auto row = detail::summary_row(cell);
    if (row.failed) {
      table.add_spanning_row(std::move(row.cells), "FAILED: " + detail::one_line(row.error, kTableErrorWidth));
    } else {
      table.add_row(std::move(row.cells));
    }
  }
  std::string out = table.render();
  if (const auto peaks = detail::gemm_peaks_note(report.environment); !peaks.empty()) out += peaks + "\n";
  if (const auto note = detail::failed_cells_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::gpu_verification_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::counted_flops_note(report); !note.empty()) out += note + "\n";
  if (!report.explanation.empty()) out += "\nWhy\n" + render_why_text(report.explanation);
  return out;
}

}  // namespace ampbench::reports
