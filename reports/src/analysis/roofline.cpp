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

namespace {

const DeviceInfo* find_device(const Environment& environment, const std::string& name) {
  const auto found = std::find_if(environment.devices.begin(), environment.devices.end(),
                                  [&](const DeviceInfo& device) { return device.name == name; });
  return found == environment.devices.end() ? nullptr : &*found;
}

bool on_gpu(const CellResult& cell) { return cell.device.rfind("cuda:", 0) == 0; }

}  // namespace

double datasheet_peak(const DatasheetPeaks& peaks, const std::string& dtype) {
  if (dtype == "float32") return peaks.float32;
  if (dtype == "tfloat32") return peaks.tfloat32;
  if (dtype == "float16") return peaks.float16;
  if (dtype == "bfloat16") return peaks.bfloat16;
  return 0.0;
}

const DatasheetPeaks* datasheet_peaks_of(const Environment& environment, const CellResult& cell) {
  if (!on_gpu(cell)) return nullptr;
  const DeviceInfo* device = find_device(environment, cell.device);
  return device == nullptr ? nullptr : find_datasheet_peaks(device->model);
}

std::optional<double> model_flops_utilisation(const Environment& environment, const CellResult& cell) {
  if (cell.status != CellStatus::kOk) return std::nullopt;
  const DatasheetPeaks* peaks = datasheet_peaks_of(environment, cell);
  const double peak = peaks == nullptr ? 0.0 : datasheet_peak(*peaks, peak_dtype(cell));
  if (peak <= 0.0) return std::nullopt;
  return cell.throughput.achieved_flops_per_s / (peak * static_cast<double>(cell.ranks));
}

std::string why_no_mfu(const Environment& environment, const CellResult& cell) {
  if (cell.status != CellStatus::kOk || !on_gpu(cell) || model_flops_utilisation(environment, cell)) return "";
  if (const DatasheetPeaks* peaks = datasheet_peaks_of(environment, cell)) {
    return peaks->chip + " has no " + peak_dtype(cell) + " peak on its datasheet";
  }
  const DeviceInfo* device = find_device(environment, cell.device);
  const std::string model = device == nullptr || device->model.empty() ? cell.device : device->model;
  return "no datasheet peak for " + model + " (a chip the MFU table does not know)";
}

void fill_fractions_of_peak(Report& report) {
  for (auto& cell : report.cells) {
    cell.throughput.fraction_of_peak = fraction_of_peak(report.environment, cell);
    cell.throughput.mfu = model_flops_utilisation(report.environment, cell);
  }
}

}  // namespace ampbench::reports
