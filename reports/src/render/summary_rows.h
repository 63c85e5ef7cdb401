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
  std::vector<std::string> cells;  // one per summary_header() column; only the name columns when failed
};

// Whether any cell trained on more than one rank: then the tables that name a cell by columns
// have a "ranks" column after "device", so that reports of one rank render as they always did.
[[nodiscard]] bool with_ranks_column(const Report& report);
// The columns that name a cell in those tables: workload, mode, device (and ranks).
[[nodiscard]] std::vector<std::string> cell_name_header(bool with_ranks);
[[nodiscard]] std::vector<std::string> cell_name_columns(const CellResult& cell, bool with_ranks);
// A cell's name in the notes and lists of a report, whose header line names the preset:
// "simple_cnn/fp16/cpu", "simple_cnn/fp16/cpu/ranks=2" (CellKey::label without the preset).
[[nodiscard]] std::string cell_name(const CellResult& cell);

// The step time the table shows for the cell: over rounds when it has them, else the steps' median.
[[nodiscard]] double timed_step_seconds(const CellResult& cell);

// The divergence column's header: the one column whose long sentences the HTML table wraps.
inline constexpr const char* kDivergenceColumn = "loss divergence";

// The summary's optional columns: ranks (any cell on more than one rank), MFU (any cell on a GPU)
// and energy (any cell that measured it), so that the reports without them render as they always did.
struct SummaryColumns {
  bool ranks = false;
  bool mfu = false;
  bool energy = false;
};
[[nodiscard]] SummaryColumns summary_columns(const Report& report);

// The cell's name columns, then step time (95% CI), speedup vs fp32, % of peak, MFU, peak memory,
// memory vs fp32, energy per step (95% CI), energy vs fp32, divergence vs fp32, skipped steps, page
// faults per step.
[[nodiscard]] std::vector<std::string> summary_header(SummaryColumns columns);
[[nodiscard]] SummaryRow summary_row(const CellResult& cell, SummaryColumns columns);
// "MFU: achieved FLOP/s over NVIDIA H200 SXM's datasheet dense peak (...)", or why a GPU cell has
// none; empty for a report without GPU cells.
[[nodiscard]] std::string mfu_note(const Report& report);
// "171.2 GFLOP/s", or "unavailable: REASON" on one line.
[[nodiscard]] std::string gemm_peak_value(const GemmPeak& peak);
// "GEMM peak (at::mm, measured by this run): cpu float32 171.2 GFLOP/s, float16 ...", or empty
// when the report has no peaks.
[[nodiscard]] std::string gemm_peaks_note(const Environment& environment);
// "1 of 6 cells failed." or empty when none did.
[[nodiscard]] std::string failed_cells_note(const Report& report);
// "FLOPs per step counted by ampbench (3x one forward's matrix products, convolutions and
// attention; the workload states none): residual_cnn." or empty when every workload stated its own.
[[nodiscard]] std::string counted_flops_note(const Report& report);
// "Allocator: glibc-fixed (glibc 2.36, /lib/.../libc.so.6; mallopt ...); a minor page fault costs
// 250 ns. ...", or empty for reports without the record.
[[nodiscard]] std::string allocator_note(const Environment& environment);
// Every worker that died and what ran again in its place, or empty when none did.
[[nodiscard]] std::string reruns_note(const Report& report);
// For reports whose cells were estimated under the slow-machine rule: the probe, the rule, and the
// cells whose speedups left rounds out ("simplenet/bf16/cpu 15 of 60"); empty otherwise.
[[nodiscard]] std::string slow_machine_note(const Report& report);
// The mean of per-step counts (0 for none).
[[nodiscard]] double mean_per_step(const std::vector<std::int64_t>& counts);
// For reports with CUDA cells, the GPU-verification status the run recorded in its environment
// (docs/verified.md), as a note. Empty otherwise, and for reports without one.
[[nodiscard]] std::string gpu_verification_note(const Report& report);
// "CPU (AVX2, 2 threads) · cuda:0 H100 · torch 2.15.0 (CUDA 13.2) · ampbench 0.1.0 (abc) · time ·
// preset default": the header line every renderer shows.
[[nodiscard]] std::string machine_line(const Report& report);

}  // namespace ampbench::reports::detail
