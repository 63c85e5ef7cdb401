// The environment as JSON: the device, the GEMM peaks and the allocator (environment_read.cpp reads
// it back).
#include "ampbench/reports/environment.h"

#include <nlohmann/json.hpp>

#include "io/device_state_json.h"
#include "io/json_number.h"

namespace ampbench::reports {

void to_json(nlohmann::json& out, const DeviceInfo& device) {
  out = {{"name", device.name},
         {"model", device.model},
         {"compute_capability", device.compute_capability},
         {"total_memory_bytes", device.total_memory_bytes},
         {"multiprocessors", device.multiprocessors}};
  if (!device.compute_mode.empty()) out["compute_mode"] = device.compute_mode;
  if (device.clocks) out["clocks"] = detail::gpu_clocks_json(*device.clocks);
}

void to_json(nlohmann::json& out, const GemmPeak& peak) {
  out = {{"device", peak.device},
         {"dtype", peak.dtype},
         {"status", to_string(peak.status)},
         {"reason", peak.reason},
         {"flops_per_s", detail::json_number(peak.flops_per_s)},
         {"matrix_size", peak.matrix_size},
         {"method", peak.method}};
  if (const auto& ratio = peak.versus_float32) {
    out["versus_float32"] = ratio->speed;
    out["versus_float32"]["rounds"] = ratio->rounds;
    if (ratio->matrix_size > 0) out["versus_float32"]["matrix_size"] = ratio->matrix_size;
  }
}

void to_json(nlohmann::json& out, const AllocatorRecord& allocator) {
  out = {{"policy", allocator.policy},
         {"library", allocator.library},
         {"version", allocator.version},
         {"settings", allocator.settings},
         {"page_fault_s", detail::json_number(allocator.page_fault_s)}};
}

void to_json(nlohmann::json& out, const Environment& environment) {
  out = {{"ampbench_version", environment.ampbench_version},
         {"git_revision", environment.git_revision},
         {"timestamp_utc", environment.timestamp_utc},
         {"hostname", environment.hostname},
         {"cpu_model", environment.cpu_model},
         {"cpu_capability", environment.cpu_capability},
         {"cpu_flags", environment.cpu_flags},
         {"threads", environment.threads},
         {"torch_version", environment.torch_version},
         {"torch_library", environment.torch_library},
         {"torch_cuda_version", environment.torch_cuda_version},
         {"cudnn_version", environment.cudnn_version},
         {"cupti_version", environment.cupti_version},
         {"cuda_status", environment.cuda_status},
         {"devices", environment.devices},
         {"gemm_peaks", environment.gemm_peaks},
         {"gpu_verification", environment.gpu_verification}};
  if (environment.allocator) out["allocator"] = *environment.allocator;
  if (environment.energy_meter) out["energy_meter"] = detail::energy_meter_json(*environment.energy_meter);
}

}  // namespace ampbench::reports
