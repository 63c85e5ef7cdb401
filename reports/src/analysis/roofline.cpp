#include "ampbench/reports/roofline.h"

#include <algorithm>

namespace ampbench::reports {

std::string peak_dtype(const CellResult& cell) {
  // TF32 only changes float32 matmuls; an autocast cell's GEMMs run in its low-precision dtype.
  return cell.settings.compute_dtype == "float32" && cell.settings.tf32_matmul ? "tfloat32"
                                                                               : cell.settings.compute_dtype;
}

const GemmPeak* find_gemm_peak(const Environment& environment, const std::string& device, const std::string& dtype) {
  const auto found = std::find_if(environment.gemm_peaks.begin(), environment.gemm_peaks.end(), [&](const auto& peak) {
    return peak.device == device && peak.dtype == dtype && peak.status == MeasurementStatus::kMeasured &&
           peak.flops_per_s > 0.0;
  });
  return found == environment.gemm_peaks.end() ? nullptr : &*found;
}

std::optional<double> fraction_of_peak(const Environment& environment, const CellResult& cell) {
  if (cell.status != CellStatus::kOk) return std::nullopt;
  const GemmPeak* peak = find_gemm_peak(environment, cell.device, peak_dtype(cell));
  if (peak == nullptr) return std::nullopt;
  // The peak is one process's (one rank's threads); a group of ranks has that many of them.
  return cell.throughput.achieved_flops_per_s / (peak->flops_per_s * static_cast<double>(cell.ranks));
}

void fill_fractions_of_peak(Report& report) {
  for (auto& cell : report.cells) cell.throughput.fraction_of_peak = fraction_of_peak(report.environment, cell);
}

}  // namespace ampbench::reports
