// The GPU half of the environment. CUDA runtime calls go through LibTorch's c10::cuda and
// at::cuda so the process uses one CUDA runtime, the wheel's; only CUPTI comes from the toolkit.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDAFunctions.h>
#include <c10/util/Exception.h>
#include <cupti.h>

#include <cstdio>
#include <string>

#include "ampbench/harness/environment_probe.h"
#include "machine/cuda_driver.h"
#include "machine/gpu_environment.h"
#include "machine/nvml_library.h"

namespace ampbench::harness::detail {
namespace {

std::string cuda_version_text(long version) {
  // CUDA encodes versions as 1000 * major + 10 * minor.
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

std::string cudnn_version_text(long version) {
  // cuDNN 9 encodes its version as 10000 * major + 100 * minor + patch.
  return std::to_string(version / 10000) + "." + std::to_string((version % 10000) / 100) + "." +
         std::to_string(version % 100);
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string bus_id_of(const cudaDeviceProp& properties) {
  char id[32];
  std::snprintf(id, sizeof id, "%08x:%02x:%02x.0", static_cast<unsigned>(properties.pciDomainID),
                static_cast<unsigned>(properties.pciBusID), static_cast<unsigned>(properties.pciDeviceID));
  return id;
}

// What NVML says of the GPU's clocks and power limit; absent where NVML cannot be loaded (no
// driver library in the container, for one): the run still measures, without the GPU's state.
std::optional<reports::GpuClockRecord> clock_record(const cudaDeviceProp& properties) {
  try {
    return NvmlDevice(bus_id_of(properties)).clock_settings();
  } catch (const std::runtime_error&) {
    return std::nullopt;
  }
}

}  // namespace

void probe_gpu_environment(reports::Environment& environment) {
  uint32_t cupti_api = 0;
  if (cuptiGetVersion(&cupti_api) == CUPTI_SUCCESS) {
    environment.cupti_version =
        "API " + std::to_string(cupti_api) + " (CUDA toolkit " + cuda_version_text(CUDA_VERSION) + ")";
  }
  const auto& hooks = at::detail::getCUDAHooks();
  if (!hooks.isBuilt()) {
    environment.cuda_status = "unavailable: LibTorch was built without CUDA";
    return;
  }
  environment.torch_cuda_version = cuda_version_text(hooks.versionCUDART());
  try {
    environment.cudnn_version = cudnn_version_text(hooks.versionCuDNN());
  } catch (const c10::Error&) {
    environment.cudnn_version = "";  // cuDNN not loadable; nothing else depends on it here
  }
  int count = 0;
  try {
    count = c10::cuda::device_count_ensure_non_zero();
  } catch (const c10::Error& error) {
    environment.cuda_status = "unavailable: no GPU found (" + first_line(error.what_without_backtrace()) + ")";
    return;
  }
  environment.cuda_status = reports::kCudaAvailable;
  for (int index = 0; index < count; ++index) {
    const cudaDeviceProp* properties = at::cuda::getDeviceProperties(static_cast<c10::DeviceIndex>(index));
    environment.devices.push_back(reports::DeviceInfo{
        .name = "cuda:" + std::to_string(index),
        .model = properties->name,
        .compute_capability = std::to_string(properties->major) + "." + std::to_string(properties->minor),
        .total_memory_bytes = static_cast<std::int64_t>(properties->totalGlobalMem),
        .multiprocessors = properties->multiProcessorCount,
        .compute_mode = compute_mode_name(device_compute_mode(index)),
        .clocks = clock_record(*properties),
    });
  }
}

std::optional<std::string> pci_bus_id(const c10::Device& device) {
  if (!device.is_cuda()) return std::nullopt;
  const auto index = device.has_index() ? device.index() : c10::cuda::current_device();
  return bus_id_of(*at::cuda::getDeviceProperties(index));
}

}  // namespace ampbench::harness::detail
