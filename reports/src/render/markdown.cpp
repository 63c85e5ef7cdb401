#include "ampbench/reports/markdown.h"

#include <algorithm>

#include "ampbench/reports/explain.h"
#include "ampbench/reports/stats.h"
#include "render/breakdown_rows.h"
#include "render/data_parallel_rows.h"
#include "render/device_state_notes.h"
#include "render/format.h"
#include "render/headline_rows.h"
#include "render/layer_rows.h"
#include "render/markdown_table.h"
#include "render/numerics_notes.h"
#include "render/summary_rows.h"

namespace ampbench::reports {
namespace {

// The roofline the "% of peak" column reads against, with how each peak was measured.
std::string gemm_peaks(const Environment& environment) {
  std::string lines;
  for (const auto& peak : environment.gemm_peaks) {
    lines += peak.device + " " + peak.dtype + ": " + detail::gemm_peak_value(peak);
    lines += peak.status == MeasurementStatus::kMeasured ? " (" + peak.method + ")\n" : "\n";
  }
  if (lines.empty()) return "";
  return "GEMM peak on this machine (at::mm, measured by this run; not the datasheet figure):\n\n" +
         detail::markdown_list(lines) + "\n";
}

// What the MFU column reads against (or why a GPU cell has none); nothing for a CPU report.
std::string mfu_paragraph(const Report& report) {
  const auto note = detail::mfu_note(report);
  return note.empty() ? "" : detail::markdown_cell(note) + "\n\n";
}

// A bar of eighth blocks, ten to 1.0x, cut at kBarCap with an arrow: a relative step time of 80x
// must not push the others off the page.
std::string relative_bar(double relative) {
  constexpr double kBarCap = 3.0;
  static const char* const kEighths[] = {"", "▏", "▎", "▍", "▌", "▋", "▊", "▉"};
  const auto eighths = static_cast<long>(std::min(relative, kBarCap) * 80.0 + 0.5);
  std::string bar;
  for (long i = 0; i < eighths / 8; ++i) bar += "█";
  return bar + kEighths[eighths % 8] + (relative > kBarCap ? "▶" : "") + " " + detail::format_ratio(relative);
}

// The answer first: a line per workload, then each mode's step time and memory against FP32 as
// bars, the grouped bar chart of the AMP tutorials in text.
std::string markdown_at_a_glance(const Report& report) {
  std::string lines;
  for (const auto& headline : detail::workload_headlines(report))
    lines += "- **" + detail::markdown_cell(headline.workload) +
             "**: " + detail::markdown_cell(detail::headline_text(headline)) + "\n";
  if (lines.empty()) return "";
  detail::Table table({"workload", "mode", "step time vs fp32 (95% CI)", "peak memory vs fp32"});
  for (const auto& row : detail::glance_rows(report)) {
    const auto& time = row.relative_time;
    table.add_row({row.workload, row.mode,
                   time ? relative_bar(time->value) + " [" + detail::format_fixed(time->ci_low, 2) + ", " +
                              detail::format_fixed(time->ci_high, 2) + "]"
                        : "-",
                   row.relative_memory ? relative_bar(*row.relative_memory) : "-"});
  }
  return "**At a glance**: each mode against FP32, fastest first (speedup with its 95% interval: \"faster\" or "
         "\"slower\" only where it leaves out 1)\n\n" +
         lines + "\n" + detail::markdown_table(table) + "\n";
}

std::string markdown_summary_table(const Report& report) {
  const auto columns = detail::summary_columns(report);
  detail::Table table(detail::summary_header(columns));
  for (const auto& cell : report.cells) {
    auto row = detail::summary_row(cell, columns);
    if (row.failed) row.cells.push_back("**failed**");
    table.add_row(std::move(row.cells));
  }
  return detail::markdown_table(table);
}

std::string failed_cells(const Report& report) {
  std::string out;
  for (const auto& cell : report.cells) {
    if (cell.status == CellStatus::kOk) continue;
    out += "- `" + detail::cell_name(cell) + "`: " + detail::markdown_cell(cell.error) + "\n";
  }
  return out.empty() ? out : "\n**Failed cells**\n\n" + out;
}

// The numerics pass's cost, the scalers' start-up, and the passes that failed (their cells have no
// divergence).
std::string numerics_notes(const Report& report) {
  const auto cost = detail::numerics_cost_note(report);
  std::string out = cost.empty() ? "" : "\n" + cost + "\n";
  if (const auto calibration = detail::scale_calibration_note(report); !calibration.empty())
    out += "\n" + detail::markdown_cell(calibration) + "\n";
  std::string failures;
  for (const auto& failure : detail::numerics_failures(report))
    failures += "- " + detail::markdown_cell(failure) + "\n";
  return failures.empty() ? out : out + "\n**Numerics pass failed**\n\n" + failures;
}

std::string precision_table(const Report& report) {
  const bool with_ranks = detail::with_ranks_column(report);
  auto header = detail::cell_name_header(with_ranks);
  header.insert(header.end(), {"low-precision FLOP share", "tensor cores"});
  detail::Table table(header);
  bool any = false;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || (!cell.precision && cell.tensor_cores.status != MeasurementStatus::kMeasured))
      continue;
    any = true;
    std::string tensor_cores(to_string(cell.tensor_cores.status));
    for (const auto& metric : cell.tensor_cores.metrics) {
      tensor_cores += "; " + metric.name + " " + detail::format_fixed(metric.value, 2) + " " + metric.unit + " (" +
                      metric.method + ")";
    }
    auto row = detail::cell_name_columns(cell, with_ranks);
    row.insert(row.end(),
               {cell.precision ? format_percent(cell.precision->low_precision_flop_share, false) : "-", tensor_cores});
    table.add_row(std::move(row));
  }
  return any ? "\n**Precision audit**\n\n" + detail::markdown_table(table) : "";
}

// GPU cells time steps on the device; the host's time per step beside it. Equal medians do not
// make a step launch-bound: a host that waits for a full launch queue, or for a GradScaler's sync,
// takes the device's time per step (explain's host-bound rule says how it tells them apart).
std::string host_time_table(const Report& report) {
  const bool with_ranks = detail::with_ranks_column(report);
  auto header = detail::cell_name_header(with_ranks);
  header.insert(header.end(), {"device step (median)", "host step (median)"});
  detail::Table table(header);
  bool any = false;
  for (const auto& cell : report.cells) {
    if (cell.status != CellStatus::kOk || cell.host_step_times_s.empty()) continue;
    any = true;
    auto row = detail::cell_name_columns(cell, with_ranks);
    row.insert(row.end(), {detail::format_duration(cell.throughput.step_time_s.median),
                           detail::format_duration(median(cell.host_step_times_s))});
    table.add_row(std::move(row));
  }
  return any ? "\n**Device vs host time per step**\n\n" + detail::markdown_table(table) : "";
}

std::string markdown_data_parallel_section(const Report& report) {
  const auto parallel = detail::data_parallel_table(report);
  if (parallel.empty()) return "";
  return "\n**Data parallel**\n\n" + detail::markdown_table(parallel) + "\n" + detail::data_parallel_note() + "\n";
}

// Where each profiled cell's step time goes (time_breakdown.h in the harness).
std::string breakdown_section(const Report& report) {
  const auto breakdown = detail::breakdown_table(report);
  if (breakdown.table.empty()) return "";
  const auto& note = breakdown.profiling_cost_note;
  return "\n**Where the step time goes** (profiled steps after the timed ones; self time per step)\n\n" +
         detail::markdown_table(breakdown.table) + (note.empty() ? "" : "\n" + detail::markdown_cell(note) + "\n");
}

// The numerics pass's ranges per layer (layer_rows.h), folded: a table per cell.
std::string markdown_layer_section(const Report& report) {
  constexpr std::size_t kRowsPerCell = 12;
  const auto tables = detail::layer_tables(report, kRowsPerCell);
  if (tables.empty()) return "";
  std::string out =
      "\n<details><summary>Ranges per layer (numerics pass)</summary>\n\n" + detail::layer_table_legend() + "\n";
  for (const auto& layer_table : tables) {
    out += "\n`" + layer_table.cell + "`: " + detail::markdown_cell(joined(layer_table.lines, "; ")) + "\n\n" +
           detail::markdown_table(layer_table.table);
    if (layer_table.more_layers > 0) {
      out += "\n" + std::to_string(layer_table.more_layers) + " more layers in report.json (numerics.run.layers).\n";
    }
  }
  return out + "\n</details>\n";
}

constexpr const char* kMarkdownHowToRead =
    "\n<details><summary>How to read this</summary>\n\n"
    "- Step time: the modes of a workload take turns step by step, in rounds, in several worker processes per "
    "workload started at different times of the run. Each process's rounds give one value (their geometric mean), "
    "since a process's speed is partly its own; the figure is the geometric mean over the processes and the "
    "interval the 95% t interval over them: where a rerun of `ampbench run` on this machine is expected to land. "
    "(Runs with one worker per workload: over rounds, which misses the process's own speed; reports from before "
    "rounds: the median of the steps with an order-statistic interval, which says nothing about a rerun.)\n"
    "- Speedup: FP32 / this mode, paired round by round (both timed in the same rounds, so drift cancels in each "
    "pair), per process, then over processes as above. Memory: this mode's own peak tensor bytes / FP32's.\n"
    "- % of peak: achieved FLOP/s (the workload's FLOPs per step / the median step time) over the GEMM peak above "
    "for the cell's compute dtype (tfloat32 for TF32 matmuls): how close training comes to this machine's at::mm.\n"
    "- Loss divergence: apart from the timed steps, every mode of a workload trains a numerics pass: the same fixed "
    "number of steps (`--numerics-steps`; the preset's default) from the same initial weights on the same batches, "
    "evaluated every few steps in float32 on held-out batches that no mode trains on. FP32 trains it a second time "
    "with the data order reversed: the noise floor, how far a change that should not matter moves the eval loss. "
    "The figures are means over the last quarter of the evaluations: AMP's |AMP - FP32| / FP32 eval loss against "
    "the floor's |floor - FP32| / FP32 (a floor below 0.01% counts as 0.01%). \"within the noise floor\": at most "
    "1x the floor; \"above the floor\": up to 3x, not clearly beyond what an irrelevant change does; \"diverged\": "
    "more than 3x; \"non-finite loss\": an AMP eval loss was NaN or infinite. The pass's cost is stated below "
    "the table.\n"
    "- Skipped steps: steps the GradScaler skipped because a gradient was not finite.\n"
    "- Why and where the step time goes: three profiled steps per cell after the timed ones, under LibTorch's "
    "profiler; each op's self time by category (matrix products by dtype, casts, ops kept in float32, "
    "elementwise, optimizer, GradScaler, the rest); the findings rest on them and on the GEMM peaks "
    "(`ampbench explain`).\n\n"
    "</details>\n";

}  // namespace

std::string render_markdown(const Report& report) {
  std::string out = "## ampbench report\n\n" + detail::markdown_cell(detail::machine_line(report)) + "\n\n" +
                    markdown_at_a_glance(report) + gemm_peaks(report.environment) + mfu_paragraph(report) +
                    markdown_summary_table(report);
  if (const auto note = detail::failed_cells_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::reruns_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::allocator_note(report.environment); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::slow_machine_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::gpu_state_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::energy_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::gpu_verification_note(report); !note.empty()) out += "\n" + note + "\n";
  if (const auto note = detail::counted_flops_note(report); !note.empty()) out += "\n" + note + "\n";
  const auto why = render_why_markdown(report.explanation);
  return out + failed_cells(report) + markdown_data_parallel_section(report) + (why.empty() ? "" : "\n" + why) +
         breakdown_section(report) + numerics_notes(report) + markdown_layer_section(report) + precision_table(report) +
         host_time_table(report) + kMarkdownHowToRead;
}

}  // namespace ampbench::reports
