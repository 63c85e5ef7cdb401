// Reads each cell against the GEMM peak the run measured for its compute dtype on its device (the
// roofline), and against its chip's datasheet peak (MFU). Pure report logic, so it is tested
// without LibTorch; the harness fills the measured peaks.
#pragma once

#include <optional>
#include <string>
#include <vector>

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

// A GPU's dense (no sparsity) peak FLOP/s per dtype from its vendor's datasheet, at boost clock.
struct DatasheetPeaks {
  std::string chip;  // "NVIDIA H200 SXM"
  double float32 = 0.0;
  double tfloat32 = 0.0;  // 0: the chip has no TF32 (V100)
  double float16 = 0.0;
  double bfloat16 = 0.0;  // 0: no BF16 tensor cores (V100)
};

// The table's entry for a device's product name (DeviceInfo::model: "NVIDIA H200", "NVIDIA
// A100-SXM4-80GB", "Tesla V100-PCIE-16GB"); nullptr for a chip it does not know.
[[nodiscard]] const DatasheetPeaks* find_datasheet_peaks(const std::string& model);
// The table's entry for the GPU a cell ran on (its device's model in the environment); nullptr on a
// CPU or for a chip the table does not know.
[[nodiscard]] const DatasheetPeaks* datasheet_peaks_of(const Environment& environment, const CellResult& cell);
// The entry's peak for a dtype as peak_dtype() names it; 0 where the datasheet gives none.
[[nodiscard]] double datasheet_peak(const DatasheetPeaks& peaks, const std::string& dtype);

// achieved_flops_per_s over the datasheet peak of peak_dtype(cell) for the cell's GPU, per rank;
// empty for a failed cell, a CPU, an unknown chip or a dtype the chip has no peak for.
[[nodiscard]] std::optional<double> model_flops_utilisation(const Environment& environment, const CellResult& cell);
// Why a successful GPU cell has no MFU ("no datasheet peak for NVIDIA X"); empty when it has one
// or the cell is not on a GPU.
[[nodiscard]] std::string why_no_mfu(const Environment& environment, const CellResult& cell);

// Sets every cell's throughput.fraction_of_peak and throughput.mfu from the report's environment.
void fill_fractions_of_peak(Report& report);

}  // namespace ampbench::reports
