// Reads each cell against the GEMM peak the run measured for its compute dtype on its device: the
// roofline. Pure report logic, so it is tested without LibTorch; the harness fills the peaks.
#pragma once

#include <optional>
#include <string>

#include "ampbench/reports/report.h"

namespace ampbench::reports {

// The dtype whose peak bounds the cell: its compute dtype, except "tfloat32" for a float32 cell
// that ran its matmuls in TF32.
[[nodiscard]] std::string peak_dtype(const CellResult& cell);

// The measured peak for `dtype` on `device`; nullptr when none was measured or it is unavailable.
[[nodiscard]] const GemmPeak* find_gemm_peak(const Environment& environment, const std::string& device,
                                             const std::string& dtype);

// achieved_flops_per_s / the peak of peak_dtype(cell), times the ranks for a data-parallel cell (the
// peak is one process's); empty for a failed cell or without a peak.
[[nodiscard]] std::optional<double> fraction_of_peak(const Environment& environment, const CellResult& cell);

// Sets every cell's throughput.fraction_of_peak from the report's environment.
void fill_fractions_of_peak(Report& report);

}  // namespace ampbench::reports
