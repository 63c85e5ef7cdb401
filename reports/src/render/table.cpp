#include "ampbench/reports/table.h"

#include "ampbench/reports/explain.h"
#include "render/data_parallel_rows.h"
#include "render/device_state_notes.h"
#include "render/format.h"
#include "render/summary_rows.h"
#include "render/text_table.h"

namespace ampbench::reports {

namespace {

std::string data_parallel_section(const Report& report) {
  const auto parallel = detail::data_parallel_table(report);
  if (parallel.empty()) return "";
  return "\nData parallel\n" + detail::text_table(parallel) + detail::data_parallel_note() + "\n";
}

}  // namespace

std::string render_table(const Report& report) {
  const auto columns = detail::summary_columns(report);
  detail::Table table(detail::summary_header(columns));
  for (const auto& cell : report.cells) {
    auto row = detail::summary_row(cell, columns);
    if (row.failed) {
      table.add_spanning_row(std::move(row.cells), "FAILED: " + detail::one_line(row.error, kTableErrorWidth));
    } else {
      table.add_row(std::move(row.cells));
    }
  }
  std::string out = detail::text_table(table);
  if (const auto peaks = detail::gemm_peaks_note(report.environment); !peaks.empty()) out += peaks + "\n";
  if (const auto note = detail::mfu_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::failed_cells_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::reruns_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::allocator_note(report.environment); !note.empty()) out += note + "\n";
  if (const auto note = detail::slow_machine_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::gpu_state_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::energy_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::gpu_verification_note(report); !note.empty()) out += note + "\n";
  if (const auto note = detail::counted_flops_note(report); !note.empty()) out += note + "\n";
  out += data_parallel_section(report);
  if (!report.explanation.empty()) out += "\nWhy\n" + render_why_text(report.explanation);
  return out;
}

}  // namespace ampbench::reports
